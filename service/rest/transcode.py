"""HTTP/JSON <-> protobuf messages, by the rules of ``google/api/http.proto`` and protobuf's JSON mapping.

A request message is built in the order a transcoder such as Envoy's builds it: the body (all of it for
``body: "*"``, or one field), then the query parameters (only for fields that neither the path nor the
body binds), then the path variables, which win over anything else. Field names are accepted in both
JSON (``expectedVersion``) and proto (``expected_version``) spelling; the output is protobuf's canonical
JSON (lowerCamelCase names, int64 as strings, enums by name, bytes in base64) with every field present,
defaults included, so that a client never has to know proto3's "absent means zero".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from patience.jsonlimits import MAX_JSON_DEPTH, too_deep

from service.rest import json_mapping
from service.rest.routes import HttpRoute

M = TypeVar("M", bound=Message)


class TranscodeError(ValueError):
    """The HTTP request cannot become the RPC's request message (always INVALID_ARGUMENT, HTTP 400)."""

    def __init__(self, reason: str, message: str, field: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.field = field


#: google.rpc.Code -> HTTP status, as in the comments of google/rpc/code.proto.
HTTP_STATUS: dict[int, int] = {
    code_pb2.OK: 200,
    code_pb2.CANCELLED: 499,
    code_pb2.UNKNOWN: 500,
    code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504,
    code_pb2.NOT_FOUND: 404,
    code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403,
    code_pb2.UNAUTHENTICATED: 401,
    code_pb2.RESOURCE_EXHAUSTED: 429,
    code_pb2.FAILED_PRECONDITION: 400,
    code_pb2.ABORTED: 409,
    code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501,
    code_pb2.INTERNAL: 500,
    code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500,
}


def http_status(code: int) -> int:
    return HTTP_STATUS.get(code, 500)


def _is_repeated(f: Any) -> bool:  # a FieldDescriptor (upb's or the pure-Python one)
    return bool(f.is_repeated)  # protobuf >= 7 (pyproject pins it); `label` is gone there


def _field(desc: Descriptor, name: str) -> FieldDescriptor | None:
    """A field by proto or JSON name."""
    f = desc.fields_by_name.get(name)
    if f is not None:
        return f
    for candidate in desc.fields:
        if candidate.json_name == name:
            return candidate
    return None


def _parse(message_class: type[M], data: object, where: str) -> M:
    """A new message read from JSON by protobuf's JSON mapping (json_format.ParseDict); a refusal is INVALID_JSON
    with json_format's text."""
    message = message_class()
    try:
        json_format.ParseDict(data, message, max_recursion_depth=MAX_JSON_DEPTH)  # type: ignore[arg-type]
        return message
    except (json_format.ParseError, TypeError, ValueError, RecursionError, AttributeError) as exc:
        # json_format quotes the refused value, which may hold a lone surrogate ("\ud800" in the JSON): written
        # as an escape, or the answer itself could not be encoded (a 500 instead of the 400).
        text = (str(exc) or type(exc).__name__).encode("utf-8", "backslashreplace").decode("utf-8")
        raise TranscodeError("INVALID_JSON", f"{where}: {text}"[:500]) from None


def _load_json(raw: bytes) -> object:
    if too_deep(raw):
        raise TranscodeError("JSON_TOO_DEEP", f"the body nests more than {MAX_JSON_DEPTH} arrays or objects")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TranscodeError("INVALID_JSON", f"the body is not JSON: {exc}"[:300]) from None


def _query_value(f: FieldDescriptor, values: Sequence[str], name: str) -> object:
    """A query parameter's text as the JSON value the proto JSON parser expects for field ``f``."""
    if f.message_type is not None and not f.message_type.GetOptions().map_entry:
        # Well-known types with a string JSON form (Timestamp, Duration, FieldMask, wrappers) may be given
        # as text; other messages only through their own fields ("a.b=1").
        if f.message_type.full_name.startswith("google.protobuf."):
            return list(values) if _is_repeated(f) else values[-1]
        raise TranscodeError("BAD_QUERY_PARAMETER", f"{name} is a message; set its fields ({name}.x=...)", name)
    if f.message_type is not None:
        raise TranscodeError("BAD_QUERY_PARAMETER", f"{name} is a map and cannot be a query parameter", name)

    def one(text: str) -> object:
        if f.type == FieldDescriptor.TYPE_BOOL:
            low = text.strip().lower()
            if low in ("true", "1", ""):
                return True
            if low in ("false", "0"):
                return False
            raise TranscodeError("BAD_QUERY_PARAMETER", f"{name} is true or false, not {text[:40]!r}", name)
        return text  # numbers, enums, strings and base64 bytes: the JSON parser accepts their text

    if _is_repeated(f):
        return [one(v) for v in values]
    if len(values) > 1:
        raise TranscodeError("BAD_QUERY_PARAMETER", f"{name} is given {len(values)} times", name)
    return one(values[0])


def _set_path(tree: dict[str, Any], desc: Descriptor, path: Sequence[str], value_of: Any, name: str) -> None:
    """Put a value at ``path`` in a JSON tree for message ``desc`` (proto field names, nested dicts)."""
    node, d = tree, desc
    for i, part in enumerate(path):
        f = _field(d, part)
        if f is None:
            raise TranscodeError("UNKNOWN_PARAMETER", f"no parameter {name!r}", name)
        if i == len(path) - 1:
            node[f.name] = value_of(f)
            return
        if f.message_type is None or _is_repeated(f) or f.message_type.GetOptions().map_entry:
            raise TranscodeError("UNKNOWN_PARAMETER", f"no parameter {name!r}", name)
        child = node.setdefault(f.name, {})
        if not isinstance(child, dict):
            raise TranscodeError("BAD_QUERY_PARAMETER", f"{name} conflicts with another parameter", name)
        node, d = child, f.message_type


def build_request(
    route: HttpRoute,
    path_params: Mapping[str, str],
    query: Sequence[tuple[str, str]],
    body: bytes,
) -> Message:
    """The RPC's request message from the path variables, query parameters and JSON body."""
    desc = route.method.input_type
    request_class = _message_class(desc)
    request: Message
    bound = route.bound_fields()

    if route.body == "*" and body.strip():
        data = _load_json(body)
        if not isinstance(data, dict):
            raise TranscodeError("INVALID_JSON", "the body is a JSON object")
        request = _parse(request_class, data, "body")
    elif route.body not in ("", "*") and body.strip():
        f = desc.fields_by_name[route.body]
        tree: dict[str, Any] = {f.name: _load_json(body)}
        request = _parse(request_class, tree, "body")
    elif body.strip() and not route.body:
        raise TranscodeError("UNEXPECTED_BODY", f"{route.http_method} {route.template} takes no body")
    else:
        request = request_class()

    if query:
        if route.body == "*":
            names = ", ".join(sorted({k for k, _ in query}))[:200]
            raise TranscodeError(
                "UNKNOWN_PARAMETER", f"this route takes its fields in the body, not the query ({names})"
            )
        grouped: dict[str, list[str]] = {}
        for key, value in query:
            grouped.setdefault(key, []).append(value)
        tree = {}
        for key, values in grouped.items():
            parts = key.split(".")
            top = _field(desc, parts[0])
            if top is None or top.name in bound:
                raise TranscodeError("UNKNOWN_PARAMETER", f"no query parameter {key[:60]!r}", key[:60])
            _set_path(tree, desc, parts, lambda f, k=key, v=values: _query_value(f, v, k), key)
        request.MergeFrom(_parse(request_class, tree, "query"))

    if path_params:
        tree = {}
        for var in route.variables:
            text = path_params[var.name]
            if var.text_field:
                # What reading {"field": text} and merging it gives, without the round: a decoded path segment is
                # never empty and never holds a lone surrogate, so the JSON mapping would take it as it is.
                setattr(request, var.field_path[0], text)
                continue
            _set_path(tree, desc, var.field_path, lambda f, t=text, n=var.name: _query_value(f, [t], n), var.name)
        if tree:
            partial = _parse(request_class, tree, "path")
            for var in route.variables:  # the path wins over the body
                if not var.text_field:
                    _clear_path(request, var.field_path)
            request.MergeFrom(partial)
    return request


def _clear_path(message: Message, path: Sequence[str]) -> None:
    node = message
    for part in path[:-1]:
        if not node.HasField(part):
            return
        node = getattr(node, part)
    node.ClearField(path[-1])


@cache
def _message_class(desc: Descriptor) -> type[Message]:
    return message_factory.GetMessageClass(desc)


def library_json(message: Message) -> dict[str, Any]:
    """protobuf's JSON mapping of ``message`` by protobuf itself, every field without presence included."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


#: The two writers of an answer's JSON (``--json-mapping``), which give the same JSON: the mapping compiled per
#: message type (service.rest.json_mapping, the default: json_format costs a REST move 34-47 % more CPU,
#: docs/service-benchmark.md) and json_format itself.
JSON_MAPPINGS: dict[str, Callable[[Message], dict[str, Any]]] = {
    "compiled": json_mapping.to_dict,
    "json_format": library_json,
}


def response_json(
    route: HttpRoute, response: Message, to_json: Callable[[Message], dict[str, Any]] = json_mapping.to_dict
) -> Any:
    """The response (or its ``response_body`` field) in canonical JSON, defaults included, written by ``to_json``
    (one of JSON_MAPPINGS)."""
    if route.response_body:
        f = response.DESCRIPTOR.fields_by_name[route.response_body]
        return to_json(response).get(f.json_name, {} if f.message_type is not None and not _is_repeated(f) else None)
    return to_json(response)


def status_json(status: status_pb2.Status) -> dict[str, Any]:
    """A ``google.rpc.Status`` in the JSON shape Envoy's transcoder also sends (code, message, details)."""
    return json_format.MessageToDict(status, preserving_proto_field_name=False)
