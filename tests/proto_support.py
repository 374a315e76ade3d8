"""Hypothesis strategies for protobuf messages of any type, built from their descriptors (the gRPC fuzz test and
the REST JSON mapping's test share them)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
# Move-like words among the random text: a fuzzer that only sends noise never passes the notation parser.
_WORDS = st.sampled_from(["s", "d", "w-k", "1-f", "s-k", "w-1", "rd", "1-2/3", "k-1", "c1-f", "9-f1", "f-1", "🂡"])


def _scalar(f: FieldDescriptor) -> st.SearchStrategy[Any]:
    if f.type == FieldDescriptor.TYPE_STRING:
        return st.one_of(st.text(max_size=80), _WORDS, st.lists(_WORDS, max_size=12).map(" ".join))
    if f.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=120)
    if f.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if f.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return st.floats(allow_nan=True, width=32)
    if f.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-3, 12)  # defined values and undefined ones (open enums keep them)
    low, high = _INT_RANGES[f.type]
    return st.one_of(st.integers(-3, 40), st.integers(low, high))


def messages(desc: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Any message of type ``desc``: each field left out or set, recursively (three levels at most)."""
    from google.protobuf import message_factory

    cls = message_factory.GetMessageClass(desc)
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for f in desc.fields:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
            if value.message_type is None:
                parts[f.name] = st.dictionaries(_scalar(key), _scalar(value), max_size=4)
            continue
        if f.message_type is not None:
            if depth >= 2:
                continue
            inner = messages(f.message_type, depth + 1)
            parts[f.name] = st.lists(inner, max_size=3) if f.is_repeated else inner
        else:
            parts[f.name] = st.lists(_scalar(f), max_size=6) if f.is_repeated else _scalar(f)

    @st.composite
    def build(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Message:
        message = cls()
        for name, strategy in parts.items():
            if not draw(st.booleans()):
                continue
            value = draw(strategy)
            target = getattr(message, name)
            if isinstance(value, Message):
                target.CopyFrom(value)
            elif isinstance(value, dict):
                target.update(value)
            elif isinstance(value, list):
                if value and isinstance(value[0], Message):
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    target.extend(value)
            else:
                with contextlib.suppress(ValueError, TypeError):  # e.g. a closed enum: the message stays valid
                    setattr(message, name, value)
        return message

    return build()
