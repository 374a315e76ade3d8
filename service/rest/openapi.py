"""An OpenAPI 3.1 document generated from the service descriptor, its HTTP routes and the .proto's comments.

Nothing here is written per RPC: paths come from :mod:`service.rest.routes`, schemas from the message
descriptors (protobuf's JSON mapping: int64 as a decimal string, bytes as base64, enums by name, well-known
types in their JSON forms), and descriptions from the comments of the ``.proto`` file next to the
generated code (the compiled descriptor drops them, so they are read from the source text).
The schemas are :mod:`service.rest.json_schemas`', the comments :mod:`service.rest.proto_comments`'; this module
puts the paths, parameters, responses and security of each route together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from google.protobuf.descriptor import Descriptor, FieldDescriptor, ServiceDescriptor

from service.rest.json_schemas import JsonObject, Schemas, is_repeated
from service.rest.proto_comments import load_comments, proto_comments
from service.rest.routes import HttpRoute


def _query_parameters(
    schemas: Schemas, desc: Descriptor, skip: AbstractSet[str], prefix: str, depth: int
) -> list[JsonObject]:
    """Every scalar leaf of the request that is not in the path: a query parameter (``a.b`` for nesting)."""
    params: list[JsonObject] = []
    for f in desc.fields:
        if not prefix and f.name in skip:
            continue
        name = prefix + f.json_name
        if f.message_type is not None:
            if f.message_type.GetOptions().map_entry or is_repeated(f) or depth >= 3:
                continue
            if f.message_type.full_name.startswith("google.protobuf."):
                params.append({"name": name, "in": "query", "schema": schemas.field(f)})
            else:
                params += _query_parameters(schemas, f.message_type, skip, name + ".", depth + 1)
            continue
        param: JsonObject = {"name": name, "in": "query", "schema": schemas.field(f)}
        if "description" in param["schema"]:
            param["description"] = param["schema"].pop("description")
        if is_repeated(f):
            param["style"], param["explode"] = "form", True
        params.append(param)
    return params


def _path_field(desc: Descriptor, path: Sequence[str]) -> FieldDescriptor:
    f = desc.fields_by_name[path[0]]
    for part in path[1:]:
        if f.message_type is None:
            raise KeyError(f"{f.name} is not a message")
        f = f.message_type.fields_by_name[part]
    return f


_ERRORS = {
    "400": "INVALID_ARGUMENT or FAILED_PRECONDITION: bad input, or a move the rules refuse (the reason and "
    "the move's index are in the ErrorInfo detail)",
    "401": "UNAUTHENTICATED: the credential is missing or wrong",
    "403": "PERMISSION_DENIED: the credential does not allow this",
    "404": "NOT_FOUND: no such game (or route)",
    "409": "ABORTED: expected_version is stale; reload the game and retry",
    "413": "the request body is too large",
    "415": "the body is not application/json",
    "429": "RESOURCE_EXHAUSTED: too many requests",
    "503": "UNAVAILABLE: storage is unreachable; retry later",
}


def _security(route: HttpRoute, comments: Mapping[str, str]) -> list[JsonObject]:
    """From the proto: a game_id field means the game token (required when the path carries it); an RPC
    whose comment names the operator key needs that key. Anything else is public."""
    text = comments.get(route.method.full_name, "").lower()
    if "operator key" in text or "x-operator-key" in text:
        return [{"operatorKey": []}]
    if any(v.name == "game_id" for v in route.variables):
        return [{"gameToken": []}]
    if "game_id" in route.method.input_type.fields_by_name:
        return [{}, {"gameToken": []}]
    return [{}]


def openapi_document(
    services: Sequence[ServiceDescriptor],
    routes: Sequence[HttpRoute],
    *,
    comments: Mapping[str, str],
    version: str,
    extra_paths: Mapping[str, JsonObject] | None = None,
) -> JsonObject:
    """The whole document (a JSON-ready dict)."""
    schemas = Schemas(comments)
    status_ref = schemas.message(_status_descriptor())
    paths: dict[str, JsonObject] = {}
    for route in routes:
        method = route.method
        request = method.input_type
        op: JsonObject = {
            "operationId": route.operation_id,
            "tags": [method.containing_service.name],
            "summary": method.name,
        }
        doc = comments.get(method.full_name)
        if doc:
            op["description"] = doc
        parameters: list[JsonObject] = []
        for var in route.variables:
            f = _path_field(request, var.field_path)
            schema = schemas.field(f)
            param: JsonObject = {"name": var.name, "in": "path", "required": True, "schema": schema}
            if "description" in schema:
                param["description"] = schema.pop("description")
            if f.type == FieldDescriptor.TYPE_STRING:
                schema["minLength"] = 1
            parameters.append(param)
        bound = route.bound_fields()
        if route.body != "*":
            parameters += _query_parameters(schemas, request, bound, "", 0)
        if parameters:
            op["parameters"] = parameters
        if route.body == "*":
            path_fields = {v.field_path[0] for v in route.variables}
            body_schema = schemas.object_schema(request, path_fields) if path_fields else schemas.message(request)
            op["requestBody"] = {"required": False, "content": {"application/json": {"schema": body_schema}}}
        elif route.body:
            body_field = request.fields_by_name[route.body]
            op["requestBody"] = {"content": {"application/json": {"schema": schemas.field(body_field)}}}
        response_schema = (
            schemas.field(method.output_type.fields_by_name[route.response_body])
            if route.response_body
            else schemas.message(method.output_type)
        )
        responses: JsonObject = {
            "200": {"description": "OK", "content": {"application/json": {"schema": response_schema}}}
        }
        if method.server_streaming:  # Server-Sent Events, each event's data one message (service.rest.events)
            responses["200"] = {
                "description": f"Server-Sent Events: each event's data is a {method.output_type.name} in JSON",
                "content": {"text/event-stream": {"schema": _event_schema(response_schema)}},
            }
            responses["204"] = {"description": "nothing to send: the game was over at the version given"}
        for code, text in _ERRORS.items():
            responses[code] = {"description": text, "content": {"application/json": {"schema": status_ref}}}
        responses["default"] = {
            "description": "any other error",
            "content": {"application/json": {"schema": status_ref}},
        }
        op["responses"] = responses
        op["security"] = _security(route, comments)
        paths.setdefault(route.openapi_path, {})[route.http_method.lower()] = op
    for path, item in (extra_paths or {}).items():
        paths.setdefault(path, {}).update(item)

    service_docs = [comments.get(s.full_name, "") for s in services]
    description = "\n\n".join(
        [d for d in service_docs if d]
        + [
            "Every route is transcoded from the gRPC API by the `google.api.http` annotations of "
            f"{', '.join(s.file.name for s in services)}; bodies and responses are protobuf's canonical JSON "
            "mapping. Errors are a `google.rpc.Status` (code, message, details) whose `ErrorInfo` detail "
            "carries the stable reason (domain `patience.v1`) and, for a refused move, `move_index` and "
            "`move_text` in its metadata."
        ]
    )
    return {
        "openapi": "3.1.0",
        "info": {"title": ", ".join(s.full_name for s in services), "version": version, "description": description},
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.components.items())),
            "securitySchemes": {
                "gameToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The game token NewGame returned: `Authorization: Bearer <token>`.",
                },
                "operatorKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "x-operator-key",
                    "description": "The operator key (gRPC metadata `x-operator-key`).",
                },
            },
        },
    }


def _status_descriptor() -> Descriptor:
    from google.rpc import status_pb2

    descriptor: Descriptor = status_pb2.Status.DESCRIPTOR
    return descriptor


def _event_schema(message: JsonObject) -> JsonObject:
    """One Server-Sent Event of a stream: its ``id`` (the game's version), its type (``message``, or ``error`` for a
    failure after the stream started) and its ``data``, a message of the stream in JSON."""
    return {
        "type": "object",
        "required": ["data"],
        "properties": {
            "id": {"type": "string", "description": "the game's version (sent back as Last-Event-ID)"},
            "event": {"type": "string", "enum": ["message", "error"]},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": message},
        },
    }


__all__ = ("JsonObject", "load_comments", "openapi_document", "proto_comments")
