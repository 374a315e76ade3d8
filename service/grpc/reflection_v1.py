"""gRPC server reflection v1 (``grpc.reflection.v1.ServerReflection``), served beside v1alpha.

Tools ask v1 first (grpcurl, Postman, grpcui) and fall back to v1alpha, which grpcio-reflection deprecated but is
the only version it ships. v1 is v1alpha under a new package: the same messages, the same field numbers, the
same answers. So the v1 file is derived here from the v1alpha descriptor grpcio-reflection installs (package,
file name and type names changed, nothing else: no copy of a .proto to keep in step), and the v1 servicer hands
each request, re-read as v1alpha, to grpcio-reflection's own servicer and each answer back as v1: one
implementation of the descriptor lookups for both versions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FileDescriptor, ServiceDescriptor
from grpc_reflection.v1alpha import reflection_pb2 as alpha

FILE_NAME = "grpc/reflection/v1/reflection.proto"
PACKAGE = "grpc.reflection.v1"


def _v1_file() -> FileDescriptor:
    """The v1 file in the default pool (added once), from the v1alpha one."""
    pool = descriptor_pool.Default()
    try:
        found: FileDescriptor = pool.FindFileByName(FILE_NAME)
        return found
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    alpha.DESCRIPTOR.CopyToProto(proto)
    old = "." + alpha.DESCRIPTOR.package
    proto.name, proto.package = FILE_NAME, PACKAGE
    proto.options.Clear()  # the options of grpc's v1 file: not deprecated, its own Java and Go packages
    proto.options.java_package = "io.grpc.reflection.v1"
    proto.options.java_outer_classname = "ServerReflectionProto"
    proto.options.java_multiple_files = True
    proto.options.go_package = "google.golang.org/grpc/reflection/grpc_reflection_v1"
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(old + "."):
                field.type_name = "." + PACKAGE + field.type_name[len(old) :]
    for service in proto.service:
        for method in service.method:
            method.input_type = "." + PACKAGE + method.input_type[len(old) :]
            method.output_type = "." + PACKAGE + method.output_type[len(old) :]
    pool.AddSerializedFile(proto.SerializeToString())
    added: FileDescriptor = pool.FindFileByName(FILE_NAME)
    return added


DESCRIPTOR = _v1_file()
SERVICE: ServiceDescriptor = DESCRIPTOR.services_by_name["ServerReflection"]
SERVICE_NAME: str = SERVICE.full_name
ServerReflectionRequest: Any = message_factory.GetMessageClass(
    DESCRIPTOR.message_types_by_name["ServerReflectionRequest"]
)
ServerReflectionResponse: Any = message_factory.GetMessageClass(
    DESCRIPTOR.message_types_by_name["ServerReflectionResponse"]
)
ServiceResponse: Any = message_factory.GetMessageClass(DESCRIPTOR.message_types_by_name["ServiceResponse"])


class ReflectionV1:
    """``ServerReflectionInfo`` of v1 over grpcio-reflection's v1alpha servicer (its grpc.aio one)."""

    def __init__(self, v1alpha: Any) -> None:
        self.v1alpha = v1alpha

    async def ServerReflectionInfo(self, requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
        async def as_v1alpha() -> AsyncIterator[Any]:
            async for request in requests:
                yield alpha.ServerReflectionRequest.FromString(request.SerializeToString())

        async for answer in self.v1alpha.ServerReflectionInfo(as_v1alpha(), context):
            yield ServerReflectionResponse.FromString(answer.SerializeToString())


def handler(servicer: ReflectionV1) -> grpc.GenericRpcHandler:
    """The v1 service's handler (no generated code exists for it: its file is made above), from grpc's helpers."""
    method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=ServerReflectionRequest.FromString,
        response_serializer=ServerReflectionResponse.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, {"ServerReflectionInfo": method})
