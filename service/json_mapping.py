"""Protobuf messages as JSON values, the way the REST layer answers: protobuf's JSON mapping, compiled per message type.

The output is exactly ``json_format.MessageToDict(message, always_print_fields_with_no_presence=True)`` (lowerCamel
names, 64-bit integers as text, bytes in base64, enums by name, Timestamps in RFC 3339, fields without presence
always present); a test holds the two equal over generated messages of every type of the API. Why not call
json_format: it walks each message's descriptor and decides every field's conversion again on every call, which
made it the largest REST-only cost of an ApplyMove (docs/service-benchmark.md). Here each message type's plan (its
fields, their JSON names and converters) is built once from its descriptor; the mapping stays derived from the
proto. Anything the plan does not know (floats, well-known types other than Timestamp) is handed to json_format.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from functools import cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

_F = FieldDescriptor
_AS_TEXT = frozenset({_F.TYPE_INT64, _F.TYPE_UINT64, _F.TYPE_SINT64, _F.TYPE_FIXED64, _F.TYPE_SFIXED64})
_AS_IS = frozenset(
    {_F.TYPE_INT32, _F.TYPE_UINT32, _F.TYPE_SINT32, _F.TYPE_FIXED32, _F.TYPE_SFIXED32, _F.TYPE_BOOL, _F.TYPE_STRING}
)

Convert = Callable[[Any], Any]


def to_dict(message: Message) -> Any:
    """``message`` as protobuf's JSON mapping gives it (``MessageToDict`` with every field without presence)."""
    return _plan(message.DESCRIPTOR)(message)


def _library(message: Message) -> Any:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _bytes(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _scalar(field: FieldDescriptor) -> Convert | None:
    """The converter of one scalar value, or None when the plan leaves the field to json_format."""
    if field.type in _AS_IS:
        return None  # the value as it is
    if field.type in _AS_TEXT:
        return str
    if field.type == _F.TYPE_BYTES:
        return _bytes
    if field.type == _F.TYPE_ENUM and field.enum_type is not None:
        names = {v.number: v.name for v in field.enum_type.values}
        return lambda number: names.get(number, number)  # an unknown number stays a number, as json_format does
    raise _Unplanned(field.full_name)


class _Unplanned(Exception):
    """A field type the plan does not convert itself (floats, groups): the message goes to json_format."""


def _value(field: FieldDescriptor) -> Convert | None:
    if field.message_type is None:
        return _scalar(field)
    if field.message_type.full_name == "google.protobuf.Timestamp":
        return lambda m: m.ToJsonString()
    return _plan(field.message_type)


@cache
def _plan(desc: Descriptor) -> Callable[[Message], Any]:
    if desc.full_name.startswith("google.protobuf."):
        return _library
    try:
        steps: list[tuple[str, str, int, Convert | None, Convert | None]] = []
        for field in desc.fields:
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                key = field.message_type.fields_by_name["key"]
                value = field.message_type.fields_by_name["value"]
                key_of: Convert = (lambda k: "true" if k else "false") if key.type == _F.TYPE_BOOL else str
                steps.append((field.name, field.json_name, _MAP, key_of, _value(value)))
            elif field.is_repeated:
                steps.append((field.name, field.json_name, _LIST, None, _value(field)))
            elif field.has_presence:
                steps.append((field.name, field.json_name, _PRESENT, None, _value(field)))
            else:
                steps.append((field.name, field.json_name, _ALWAYS, None, _value(field)))
    except _Unplanned:
        return _library

    def convert(message: Message) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, json_name, kind, key_of, value_of in steps:
            if kind == _PRESENT and not message.HasField(name):
                continue
            value = getattr(message, name)
            if kind == _LIST:
                out[json_name] = [value_of(v) for v in value] if value_of is not None else list(value)
            elif kind == _MAP:
                assert key_of is not None
                out[json_name] = {key_of(k): (value_of(v) if value_of is not None else v) for k, v in value.items()}
            else:
                out[json_name] = value_of(value) if value_of is not None else value
        return out

    return convert


_ALWAYS, _PRESENT, _LIST, _MAP = range(4)
