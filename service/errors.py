"""Domain errors of the service and their one mapping to gRPC statuses.

The use cases (``service.games``) raise :class:`ServiceError` values that know
nothing of any transport: a status ``Code`` (named as gRPC names them, the
REST layer maps them to HTTP), a stable ``reason`` and string ``metadata``
(``move_index``, ``move_text``, ``current_version`` ...). gRPC clients get a
``google.rpc.Status`` with one ``google.rpc.ErrorInfo`` detail (domain
``patience.v1``) through ``abort_with_status``; read it back with
``grpc_status.rpc_status.from_call``.

Reasons are UPPER_SNAKE_CASE (Google AIP-193). For a refused move the reason is
the engine's reason code upper-cased (``does-not-fit`` -> ``DOES_NOT_FIT``) and
the kebab form stays in ``metadata["rule"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine.errors import MoveError, PatienceError, Reason
from service.logs import with_request_id

DOMAIN = "patience.v1"


class Code(Enum):
    """The status codes the service uses: (gRPC code, HTTP status for the REST layer)."""

    INVALID_ARGUMENT = (grpc.StatusCode.INVALID_ARGUMENT, 400)
    FAILED_PRECONDITION = (grpc.StatusCode.FAILED_PRECONDITION, 400)
    ABORTED = (grpc.StatusCode.ABORTED, 409)
    NOT_FOUND = (grpc.StatusCode.NOT_FOUND, 404)
    UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, 401)
    PERMISSION_DENIED = (grpc.StatusCode.PERMISSION_DENIED, 403)
    RESOURCE_EXHAUSTED = (grpc.StatusCode.RESOURCE_EXHAUSTED, 429)
    UNAVAILABLE = (grpc.StatusCode.UNAVAILABLE, 503)
    UNIMPLEMENTED = (grpc.StatusCode.UNIMPLEMENTED, 501)
    INTERNAL = (grpc.StatusCode.INTERNAL, 500)

    @property
    def grpc_code(self) -> grpc.StatusCode:
        return self.value[0]

    @property
    def http_status(self) -> int:
        return self.value[1]


class ServiceError(Exception):
    """A refusal with a stable reason; ``metadata`` values are strings (ErrorInfo's type)."""

    def __init__(self, code: Code, reason: str, message: str, metadata: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = {k: str(v) for k, v in (metadata or {}).items()}
        self.retry_after: int | None = None  # seconds: a RetryInfo detail (gRPC), Retry-After (REST)

    def __repr__(self) -> str:
        return f"ServiceError({self.code.name}, {self.reason!r}, {self.message!r}, {self.metadata!r})"


def reason_code(reason: Reason | str) -> str:
    """``does-not-fit`` -> ``DOES_NOT_FIT``."""
    return str(reason).upper().replace("-", "_")


def from_engine(exc: PatienceError, *, move_index: int | None = None, move_text: str | None = None) -> ServiceError:
    """An engine error as a service error: bad input is INVALID_ARGUMENT, a refused move FAILED_PRECONDITION."""
    metadata: dict[str, object] = {"rule": exc.reason.value}
    if move_index is not None:
        metadata["move_index"] = move_index
    text = move_text if move_text is not None else getattr(exc, "text", None)
    if isinstance(exc, MoveError) or move_text is not None:
        metadata["move_text"] = (text or "")[:64]
    invalid = exc.reason in (Reason.BAD_NOTATION, Reason.UNKNOWN_VARIANT, Reason.BAD_OPTION)
    code = Code.INVALID_ARGUMENT if invalid else Code.FAILED_PRECONDITION
    return ServiceError(code, reason_code(exc.reason), exc.message, metadata)


def to_status(error: ServiceError) -> status_pb2.Status:
    """The ``google.rpc.Status`` for ``error``, with its ErrorInfo detail."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if error.retry_after is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=error.retry_after)))
        details.append(retry)
    return status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message[:1000], details=details)


async def abort(context: grpc.aio.ServicerContext[object, object], error: ServiceError) -> None:
    """End the call with ``error`` as a rich status (never returns); the trailers keep the call's request id."""
    status = rpc_status.to_status(to_status(error))
    await context.abort(status.code, status.details, with_request_id(status.trailing_metadata))


def error_info(status: status_pb2.Status | None) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a status read with ``rpc_status.from_call`` (clients and tests)."""
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
