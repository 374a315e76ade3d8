"""An OpenAPI 3.1 document generated from the service descriptor, its HTTP routes and the .proto's comments.

Nothing here is written per RPC: paths come from :mod:`service.rest.routes`, schemas from the message
descriptors (protobuf's JSON mapping: int64 as a decimal string, bytes as base64, enums by name, well-known
types in their JSON forms), and descriptions from the comments of the ``.proto`` file next to the
generated code (the compiled descriptor drops them, so they are read from the source text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, ServiceDescriptor

from service.rest.routes import HttpRoute

JsonObject = dict[str, Any]

_INT32 = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32}
_UINT32 = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32}
_INT64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64}
_UINT64 = {FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64}
_FLOAT = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE}

#: Well-known types whose JSON form is not an object of their fields.
_WKT: dict[str, JsonObject] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "required": ["@type"],
        "additionalProperties": True,
    },
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BytesValue": {"type": "string", "contentEncoding": "base64"},
}


def _is_repeated(f: FieldDescriptor) -> bool:
    return bool(f.is_repeated)


# ---------------------------------------------------------------------------------------------------------
# Comments of the .proto source


_DECL = re.compile(r"^\s*(message|enum|service|oneof)\s+(\w+)\s*\{")
_RPC = re.compile(r"^\s*rpc\s+(\w+)\s*\(")
_FIELD = re.compile(r"^\s*(?:optional\s+|repeated\s+)?(?:map\s*<[^>]*>|[\w.]+)\s+(\w+)\s*=\s*\d+")
_ENUM_VALUE = re.compile(r"^\s*(\w+)\s*=\s*-?\d+")


def proto_comments(source: str) -> dict[str, str]:
    """Leading (else trailing) ``//`` comments by element full name: ``patience.v1.View.stock_count``.

    A small reader for the layout protoc's style guide uses (one declaration a line); it is only used for
    descriptions, so anything it does not recognise simply has none.
    """
    comments: dict[str, str] = {}
    package = ""
    scopes: list[tuple[str | None, str, int]] = []  # (name or None, kind, brace depth inside it)
    pending: list[str] = []
    depth = 0

    def full(name: str) -> str:
        names = [s[0] for s in scopes if s[0] is not None]
        return ".".join([p for p in (package, *names, name) if p])

    for raw in source.splitlines():
        code, _, trailing = raw.partition("//")
        stripped = raw.strip()
        if stripped.startswith("//"):
            pending.append(stripped[2:].strip())
            continue
        if not stripped:
            pending = []
            continue
        text = "\n".join(pending).strip() or trailing.strip()
        pending = []
        kind = scopes[-1][1] if scopes else ""
        m_pkg = re.match(r"^\s*package\s+([\w.]+)\s*;", code)
        if m_pkg:
            package = m_pkg.group(1)
        elif m := _DECL.match(code):
            if m.group(1) != "oneof" and text:
                comments[full(m.group(2))] = text
        elif (m := _RPC.match(code)) or (kind == "message" and (m := _FIELD.match(code))):
            if text and not code.lstrip().startswith("option"):
                comments[full(m.group(1))] = text
        elif kind == "enum" and (m := _ENUM_VALUE.match(code)) and text:
            comments[full(m.group(1))] = text
        for ch in code:
            if ch == "{":
                depth += 1
                decl = _DECL.match(code)
                if decl and not any(s[2] == depth for s in scopes):
                    name = None if decl.group(1) == "oneof" else decl.group(2)
                    kind_of = "message" if decl.group(1) == "oneof" else decl.group(1)
                    scopes.append((name, kind_of, depth))
                elif not any(s[2] == depth for s in scopes):
                    scopes.append((None, "block", depth))
            elif ch == "}":
                if scopes and scopes[-1][2] == depth:
                    scopes.pop()
                depth -= 1
    return comments


def load_comments(proto_path: Path | None) -> dict[str, str]:
    if proto_path is None or not proto_path.is_file():
        return {}
    return proto_comments(proto_path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------------------
# Schemas


class _Schemas:
    """Component schemas for messages and enums, named by their short name unless two collide."""

    def __init__(self, comments: Mapping[str, str]) -> None:
        self.comments = comments
        self.components: dict[str, JsonObject] = {}
        self._names: dict[str, str] = {}

    def _name(self, full_name: str) -> str:
        if full_name not in self._names:
            short = full_name.rsplit(".", 1)[-1]
            taken = set(self._names.values())
            self._names[full_name] = short if short not in taken else full_name
        return self._names[full_name]

    def ref(self, full_name: str) -> JsonObject:
        return {"$ref": f"#/components/schemas/{self._name(full_name)}"}

    def enum(self, desc: EnumDescriptor) -> JsonObject:
        name = self._name(desc.full_name)
        if name not in self.components:
            schema: JsonObject = {"type": "string", "enum": [v.name for v in desc.values]}
            lines = [self.comments.get(desc.full_name, "")]
            for v in desc.values:
                note = self.comments.get(f"{desc.full_name}.{v.name}")
                if note:
                    lines.append(f"- `{v.name}`: {note}")
            text = "\n".join(x for x in lines if x)
            if text:
                schema["description"] = text
            self.components[name] = schema
        return self.ref(desc.full_name)

    def message(self, desc: Descriptor) -> JsonObject:
        if desc.full_name in _WKT:
            return dict(_WKT[desc.full_name])
        if desc.full_name.startswith("google.protobuf.") and desc.full_name.endswith("Value"):
            return self.scalar(desc.fields_by_name["value"])  # Int64Value, DoubleValue ...
        name = self._name(desc.full_name)
        if name not in self.components:
            self.components[name] = {}  # reserve first: messages may be recursive
            self.components[name] = self.object_schema(desc, exclude=())
        return self.ref(desc.full_name)

    def object_schema(self, desc: Descriptor, exclude: Iterable[str]) -> JsonObject:
        skip = set(exclude)
        properties: JsonObject = {}
        for f in desc.fields:
            if f.name in skip:
                continue
            properties[f.json_name] = self.field(f)
        schema: JsonObject = {"type": "object", "properties": properties, "additionalProperties": False}
        exclusive = [
            [f.json_name for f in oneof.fields if f.name not in skip]
            for oneof in desc.oneofs
            if not (len(oneof.fields) == 1 and oneof.name.startswith("_"))  # proto3 `optional`
        ]
        pairs = [[a, b] for group in exclusive for i, a in enumerate(group) for b in group[i + 1 :]]
        if pairs:
            schema["not"] = {"anyOf": [{"required": p} for p in pairs]}
        text = self.comments.get(desc.full_name, "")
        for oneof in desc.oneofs:
            names = [f.json_name for f in oneof.fields if f.name not in skip]
            if len(names) > 1:
                text += ("\n\n" if text else "") + f"At most one of {', '.join(f'`{n}`' for n in names)}."
        if text:
            schema["description"] = text
        return schema

    def field(self, f: FieldDescriptor) -> JsonObject:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema: JsonObject = {"type": "object", "additionalProperties": self.single(value)}
        elif _is_repeated(f):
            schema = {"type": "array", "items": self.single(f)}
        else:
            schema = self.single(f)
        text = self.comments.get(f.full_name)
        if text:
            if "$ref" in schema:  # 3.1 allows siblings of $ref; keep the reference intact
                schema = {**schema, "description": text}
            else:
                schema["description"] = text
        return schema

    def single(self, f: FieldDescriptor) -> JsonObject:
        if f.message_type is not None:
            return self.message(f.message_type)
        if f.enum_type is not None:
            return self.enum(f.enum_type)
        return self.scalar(f)

    @staticmethod
    def scalar(f: FieldDescriptor) -> JsonObject:
        t = f.type
        if t == FieldDescriptor.TYPE_BOOL:
            return {"type": "boolean"}
        if t == FieldDescriptor.TYPE_STRING:
            return {"type": "string"}
        if t == FieldDescriptor.TYPE_BYTES:
            return {"type": "string", "contentEncoding": "base64", "format": "byte"}
        if t in _INT32:
            return {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
        if t in _UINT32:
            return {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 2**32 - 1}
        if t in _INT64 or t in _UINT64:
            low, high = (0, 2**64 - 1) if t in _UINT64 else (-(2**63), 2**63 - 1)
            pattern = r"^[0-9]{1,20}$" if t in _UINT64 else r"^-?[0-9]{1,19}$"
            return {
                # Canonical JSON writes 64-bit integers as strings; a number is accepted on input.
                "oneOf": [{"type": "string", "pattern": pattern}, {"type": "integer", "minimum": low, "maximum": high}],
                "format": "int64" if t in _INT64 else "uint64",
            }
        if t in _FLOAT:
            return {
                "oneOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}],
                "format": "double" if t == FieldDescriptor.TYPE_DOUBLE else "float",
            }
        return {}


# ---------------------------------------------------------------------------------------------------------
# The document


def _query_parameters(
    schemas: _Schemas, desc: Descriptor, skip: AbstractSet[str], prefix: str, depth: int
) -> list[JsonObject]:
    """Every scalar leaf of the request that is not in the path: a query parameter (``a.b`` for nesting)."""
    params: list[JsonObject] = []
    for f in desc.fields:
        if not prefix and f.name in skip:
            continue
        name = prefix + f.json_name
        if f.message_type is not None:
            if f.message_type.GetOptions().map_entry or _is_repeated(f) or depth >= 3:
                continue
            if f.message_type.full_name.startswith("google.protobuf."):
                params.append({"name": name, "in": "query", "schema": schemas.field(f)})
            else:
                params += _query_parameters(schemas, f.message_type, skip, name + ".", depth + 1)
            continue
        param: JsonObject = {"name": name, "in": "query", "schema": schemas.field(f)}
        if "description" in param["schema"]:
            param["description"] = param["schema"].pop("description")
        if _is_repeated(f):
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
    schemas = _Schemas(comments)
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
