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

from binascii import b2a_base64
from collections.abc import Callable
from datetime import datetime, timedelta
from keyword import iskeyword
from typing import Any, cast

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
    return b2a_base64(value, newline=False).decode("ascii") if value else ""  # base64.b64encode's alphabet


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


_EPOCH = datetime(1970, 1, 1)
_SECONDS = range(-62135596800, 253402300799 + 1)  # 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z
#: Seconds -> their RFC 3339 text up to the fraction, for the seconds seen lately: an answer holds three
#: Timestamps, and a game's creation and expiry, and the seconds of calls made in the same second, repeat.
_SECOND_TEXTS: dict[int, str] = {}
_SECOND_TEXTS_KEPT = 4096


def _timestamp(message: Any) -> str:
    """Timestamp.ToJsonString's text (RFC 3339, Z, 0, 3, 6 or 9 digits of fraction) without its checks' and
    properties' overhead; anything out of range goes to it, for its refusal."""
    seconds, nanos = message.seconds, message.nanos
    text = _SECOND_TEXTS.get(seconds)
    if text is None:
        if seconds not in _SECONDS:
            return message.ToJsonString()  # type: ignore[no-any-return]
        if len(_SECOND_TEXTS) >= _SECOND_TEXTS_KEPT:
            _SECOND_TEXTS.clear()
        text = _SECOND_TEXTS[seconds] = (_EPOCH + timedelta(seconds=seconds)).isoformat()
    if not nanos:
        return text + "Z"
    if not 0 < nanos < 1_000_000_000:
        return message.ToJsonString()  # type: ignore[no-any-return]
    if not nanos % 1_000_000:
        return f"{text}.{nanos // 1_000_000:03d}Z"
    if not nanos % 1000:
        return f"{text}.{nanos // 1000:06d}Z"
    return f"{text}.{nanos:09d}Z"


#: Message type (its descriptor, upb's or the pure-Python one) -> its plan.
_PLANS: dict[Any, Callable[[Message], Any]] = {}


def _plan(desc: Any) -> Callable[[Message], Any]:
    """The converter of one message type: a function written for it, one statement per field (a loop over the
    fields that decides each one's kind on every call costs twice as much), compiled once."""
    plan = _PLANS.get(desc)
    if plan is not None:
        return plan
    if desc.full_name.startswith("google.protobuf."):
        _PLANS[desc] = _library
        return _library
    lines = ["def convert(m):", "    out = {}"]
    children: dict[str, Descriptor] = {}  # names in the function's namespace -> message types, filled in below
    namespace: dict[str, Any] = {}
    try:
        for i, field in enumerate(desc.fields):
            get = f"m.{field.name}" if field.name.isidentifier() and not iskeyword(field.name) else None
            get = get or f"getattr(m, {field.name!r})"
            key = repr(field.json_name)
            message = field.message_type
            if message is not None and message.GetOptions().map_entry:
                key_field, value_field = message.fields_by_name["key"], message.fields_by_name["value"]
                namespace[f"k{i}"] = _bool_key if key_field.type == _F.TYPE_BOOL else str
                value = _converter(value_field, f"v{i}", namespace, children)
                lines.append(
                    f"    out[{key}] = {{k{i}(k): {value or 'v'}{'(v)' if value else ''} for k, v in {get}.items()}}"
                )
                continue
            value = _converter(field, f"v{i}", namespace, children)
            if field.is_repeated:
                lines.append(
                    f"    out[{key}] = [{value}(x) for x in {get}]" if value else f"    out[{key}] = list({get})"
                )
            elif field.has_presence:
                lines.append(f"    if m.HasField({field.name!r}):")
                lines.append(f"        out[{key}] = {value}({get})" if value else f"        out[{key}] = {get}")
            else:
                lines.append(f"    out[{key}] = {value}({get})" if value else f"    out[{key}] = {get}")
    except _Unplanned:
        _PLANS[desc] = _library
        return _library
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<json mapping of {desc.full_name}>", "exec"), namespace)
    plan = _PLANS[desc] = cast(Callable[[Message], Any], namespace["convert"])
    for name, child in children.items():  # after registering this type's plan: a type may contain itself
        namespace[name] = _plan(child)
    return plan


def _converter(field: FieldDescriptor, name: str, namespace: dict[str, Any], children: dict[str, Descriptor]) -> str:
    """The name the converter of ``field``'s values has in the generated function ("" for none)."""
    message = field.message_type
    if message is not None and message.full_name != "google.protobuf.Timestamp":
        children[name] = message
        return name
    convert = _scalar(field) if message is None else _timestamp
    if convert is None:
        return ""
    namespace[name] = convert
    return name


def _bool_key(key: bool) -> str:
    return "true" if key else "false"
