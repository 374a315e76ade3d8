"""JSON values into protobuf messages, the way the REST layer reads requests: protobuf's JSON mapping, planned per
message type.

:func:`parse` gives exactly what ``json_format.ParseDict`` gives -- the same message, or the same exception with
the same text -- and a test holds the two equal over generated JSON, good and bad, for every message type of the
API. Why not call json_format: it looks every field up and decides its conversion again on every call, one of the
largest REST-only costs of an ApplyMove (docs/service-benchmark.md). Here each message type's plan (its fields
under their JSON and proto names, each with its converter) is built once from its descriptor, so the reading stays
derived from the proto and a new RPC or field needs nothing here.

The plan decides only the plain cases, where protobuf's rule is short and certain: an object for a message, a
list for a repeated field, a JSON string, integer or boolean of the field's own kind. Anything else -- a refusal, a
number written as a float, an enum by number, a float field, a well-known type, ``null`` inside a list -- makes
the plan give up, and json_format reads the same input into a fresh message: refusals and rare spellings keep
json_format's exact behaviour and text, at json_format's price.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)

_F = FieldDescriptor
_INTEGERS = frozenset({_F.CPPTYPE_INT32, _F.CPPTYPE_INT64, _F.CPPTYPE_UINT32, _F.CPPTYPE_UINT64})
#: Integers in JSON text ("expectedVersion": "7", as int64 fields are written): plain ASCII digits only; the other
#: spellings int() takes ("+7", "7_0", " 7", "7.0", "1e3") are left to json_format.
_DIGITS = re.compile(r"-?[0-9]+")

Convert = Callable[[Any], Any]
#: Reads one JSON object into a message at a nesting depth, up to a limit (a message is depth 1).
Reader = Callable[[dict[Any, Any], Message, int, int], None]


class _GiveUp(Exception):
    """The plan does not decide this input: json_format reads it."""


def parse(data: object, message_class: type[M], max_recursion_depth: int = 100) -> M:
    """A new ``message_class`` message from ``data`` (a JSON value as ``json.loads`` gives it): what
    ``json_format.ParseDict(data, message_class(), max_recursion_depth=...)`` gives, or raising what it raises."""
    reader = _plan(message_class.DESCRIPTOR)
    if reader is not None and type(data) is dict:
        message = message_class()
        try:
            reader(data, message, 1, max_recursion_depth)
            return message
        except Exception:  # _GiveUp, or a value the message refused: json_format says how
            pass
    message = message_class()
    json_format.ParseDict(data, message, ignore_unknown_fields=False, max_recursion_depth=max_recursion_depth)  # type: ignore[arg-type]
    return message


# ------------------------------------------------------------------------------------------- scalars


def _give_up(value: Any) -> Any:
    raise _GiveUp


def _integer(value: Any) -> int:
    kind = type(value)
    if kind is int:
        return value  # type: ignore[no-any-return]
    if kind is str and _DIGITS.fullmatch(value):
        return int(value)
    raise _GiveUp


def _boolean(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise _GiveUp


def _string(value: Any) -> str:
    # json_format refuses unpaired surrogates; a string that encodes as UTF-8 has no surrogates at all.
    if type(value) is str and (value.isascii() or _encodes(value)):
        return value
    raise _GiveUp


def _encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bytes(value: Any) -> bytes:
    if type(value) is not str:
        raise _GiveUp
    encoded = value.encode("utf-8")
    # json_format's reading: standard or URL-safe alphabet, padding optional (added here, as it adds it).
    return base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))


def _enum(field: FieldDescriptor) -> Convert:
    assert field.enum_type is not None
    numbers = {v.name: v.number for v in field.enum_type.values}

    def by_name(value: Any) -> int:
        if type(value) is str:
            number = numbers.get(value)
            if number is not None:
                return number
        raise _GiveUp  # a number, or an unknown name: json_format knows open and closed enums

    return by_name


def _scalar(field: FieldDescriptor) -> Convert:
    """The converter of one JSON value for a scalar field."""
    cpp = field.cpp_type
    if cpp in _INTEGERS:
        return _integer
    if cpp == _F.CPPTYPE_BOOL:
        return _boolean
    if cpp == _F.CPPTYPE_STRING:
        return _bytes if field.type == _F.TYPE_BYTES else _string
    if cpp == _F.CPPTYPE_ENUM:
        return _enum(field)
    return _give_up  # floats: json_format's many spellings (NaN, "Infinity", exponents)


def _map_key(field: FieldDescriptor) -> Convert:
    """A map key is always JSON text: "true"/"false" for bool keys, digits for integer keys."""
    cpp = field.cpp_type
    if cpp == _F.CPPTYPE_STRING and field.type == _F.TYPE_STRING:
        return _string
    if cpp in _INTEGERS:
        return _integer_key
    if cpp == _F.CPPTYPE_BOOL:
        return _boolean_key
    return _give_up


def _integer_key(key: Any) -> int:
    if type(key) is str:
        return _integer(key)
    raise _GiveUp


def _boolean_key(key: Any) -> bool:
    if key == "true":
        return True
    if key == "false":
        return False
    raise _GiveUp


# ------------------------------------------------------------------------------------------- fields

_SCALAR, _MESSAGE, _REPEATED_SCALAR, _REPEATED_MESSAGE, _MAP_SCALAR, _MAP_MESSAGE, _UNPLANNED = range(7)


def _is_library_type(desc: Descriptor) -> bool:
    """Well-known types (Timestamp, Struct, wrappers ...) have JSON forms of their own: json_format's."""
    return desc.full_name.startswith("google.protobuf.")


class _Step:
    """How one field reads its JSON value."""

    __slots__ = ("convert", "kind", "name", "oneof", "reader", "value")

    def __init__(self, field: FieldDescriptor) -> None:
        self.name = field.name
        self.oneof = field.containing_oneof.name if field.containing_oneof is not None else None
        self.convert: Convert = _give_up  # a scalar's value, a repeated scalar's items, a map's keys
        self.value: Convert = _give_up  # a map's scalar values
        self.reader: Callable[[], Reader | None] = lambda: None  # a message's plan, looked up when first used
        message = field.message_type
        if message is not None and message.GetOptions().map_entry:
            key, value = message.fields_by_name["key"], message.fields_by_name["value"]
            self.convert = _map_key(key)
            if value.message_type is None:
                self.kind, self.value = _MAP_SCALAR, _scalar(value)
            else:
                self.kind, self.reader = _MAP_MESSAGE, _lazy(value.message_type)
        elif message is not None:
            self.kind = _REPEATED_MESSAGE if field.is_repeated else _MESSAGE
            self.reader = _lazy(message)
        else:
            self.kind = _REPEATED_SCALAR if field.is_repeated else _SCALAR
            self.convert = _scalar(field)
        if message is not None and not message.GetOptions().map_entry and _is_library_type(message):
            self.kind = _UNPLANNED
        enum = field.enum_type
        if enum is not None and enum.full_name == "google.protobuf.NullValue":
            self.kind = _UNPLANNED  # null means something for it


def _lazy(desc: Descriptor) -> Callable[[], Reader | None]:
    """The plan of a field's message type, built when first needed (message types may refer to each other)."""
    return lambda: _plan(desc)


@cache
def _plan(desc: Descriptor) -> Reader | None:
    """The reader of one message type's JSON objects, or None for a type json_format reads itself."""
    if _is_library_type(desc):
        return None
    steps: dict[str, _Step] = {}
    for field in desc.fields:
        steps[field.name] = _Step(field)
    for field in desc.fields:  # a JSON name wins over a proto name, as in json_format
        steps[field.json_name] = steps[field.name]
    oneofs = frozenset(o.name for o in desc.oneofs)
    if oneofs & steps.keys():
        return None  # a key spelled as a oneof's name has a rule of its own in json_format

    def read(data: dict[Any, Any], message: Message, depth: int, limit: int) -> None:
        if depth > limit:
            raise _GiveUp
        chosen: set[str] | None = None
        for key, value in data.items():
            step = steps.get(key) if type(key) is str else None
            if step is None or step.kind == _UNPLANNED:
                raise _GiveUp
            if step.oneof is not None and value is not None:
                chosen = chosen or set()
                if step.oneof in chosen:
                    raise _GiveUp
                chosen.add(step.oneof)
            name, kind = step.name, step.kind
            if value is None:
                message.ClearField(name)
            elif kind == _SCALAR:
                setattr(message, name, step.convert(value))
            elif kind == _MESSAGE:
                reader = step.reader()
                if reader is None or type(value) is not dict:
                    raise _GiveUp
                child = getattr(message, name)
                child.SetInParent()
                reader(value, child, depth + 1, limit)
            elif type(value) is not (dict if kind >= _MAP_SCALAR else list):
                raise _GiveUp
            else:
                message.ClearField(name)
                _read_many(step, getattr(message, name), value, depth, limit)

    return read


def _read_many(step: _Step, container: Any, value: Any, depth: int, limit: int) -> None:
    """A repeated field's list or a map field's object into its (cleared) container."""
    kind = step.kind
    if kind == _REPEATED_SCALAR:
        convert = step.convert
        container.extend([convert(item) for item in value])
        return
    if kind == _MAP_SCALAR:
        key_of, value_of = step.convert, step.value
        for key, item in value.items():
            container[key_of(key)] = value_of(item)
        return
    reader = step.reader()
    if reader is None:
        raise _GiveUp
    for key_or_item in value:
        item = value[key_or_item] if kind == _MAP_MESSAGE else key_or_item
        if type(item) is not dict:
            raise _GiveUp
        child = container[step.convert(key_or_item)] if kind == _MAP_MESSAGE else container.add()
        reader(item, child, depth + 1, limit)
