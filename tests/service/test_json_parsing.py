"""service.rest.json_parsing reads JSON exactly as protobuf's json_format.ParseDict does, for every message type of the
API: the same message from good input, the same exception with the same text from bad input; and the REST layer
turns each refusal into the same stable error (INVALID_JSON with ParseDict's text) as before."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from proto_support import messages

from service.rest import transcode as http_transcode
from service.rest.json_parsing import parse

TYPES = sorted(pb.DESCRIPTOR.message_types_by_name)
REQUESTS = sorted({m.input_type.name for s in pb.DESCRIPTOR.services_by_name.values() for m in s.methods})

# JSON values of every kind, with the spellings json_format treats specially: numbers as text (int64), floats
# that are integers, huge and negative numbers, base64 in both alphabets and unpadded, enum names, surrogates.
_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["7", "-3", "007", "+5", "1_0", " 4", "4 ", "1e3", "3.0", "9" * 25, "true", "false", "null"]),
    st.sampled_from(["", "AQI=", "AQI", "-_8", "+/8=", "a b", "***", "\ud800", "x\udc00y", "é", "🂡"]),
    st.sampled_from(["IN_PROGRESS", "GAME_STATUS_WON", "WON", "PILE_KIND_COLUMN", "OUTCOME_WON", "s", "rd", "1-f"]),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 40),
    st.integers(-(2**64), 2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 3.0, -2.0, 2.5, 1e20]),
    _TEXT,
)


def _json(keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        _SCALARS,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=12,
    )


def _names(desc: Descriptor, depth: int = 0) -> set[str]:
    """Every field name (proto and JSON spelling) of a message type and the types under it, and its oneofs'."""
    names = {n for f in desc.fields for n in (f.name, f.json_name)} | {o.name for o in desc.oneofs}
    if depth < 3:
        for f in desc.fields:
            if f.message_type is not None:
                names |= _names(f.message_type, depth + 1)
    return names


def _mutated(value: Any, draw: Any, keys: st.SearchStrategy[str]) -> Any:
    """A JSON value with some of its parts replaced, dropped or added: near misses of good input."""
    if isinstance(value, dict):
        out = {k: _mutated(v, draw, keys) for k, v in value.items() if draw(st.integers(0, 9))}
        if not draw(st.integers(0, 4)):
            out[draw(keys)] = draw(_json(keys))
        return out
    if isinstance(value, list):
        return [_mutated(v, draw, keys) for v in value]
    if not draw(st.integers(0, 7)):
        return draw(_json(keys))
    return value


@st.composite
def json_for(draw: Any, desc: Descriptor) -> Any:
    """Good JSON for ``desc`` (a message's mapping, in JSON or proto field names), or that mutated, or noise."""
    keys = st.one_of(st.sampled_from(sorted(_names(desc) | {"x"})), st.text(max_size=6), st.just("[ext.x]"))
    way = draw(st.integers(0, 3))
    if way == 3:
        return draw(st.dictionaries(keys, _json(keys), max_size=6))
    message = draw(messages(desc))
    try:
        good = json_format.MessageToDict(message, preserving_proto_field_name=draw(st.booleans()))
    except (ValueError, json_format.Error):
        good = {}
    return good if way == 0 else _mutated(good, draw, keys)


def outcome(read: Any) -> tuple[Any, ...]:
    try:
        message: Message = read()
    except Exception as exc:
        return ("refused", type(exc), str(exc))
    return ("read", message.SerializeToString(deterministic=True), message)


def ours_and_protobufs(desc: Descriptor, data: Any, depth: int = 32) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    from google.protobuf import message_factory

    cls = message_factory.GetMessageClass(desc)
    ours = outcome(lambda: parse(data, cls, max_recursion_depth=depth))
    theirs = outcome(lambda: json_format.ParseDict(data, cls(), max_recursion_depth=depth))
    return ours, theirs


@pytest.mark.parametrize("name", TYPES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_parse_is_parsedict(name: str, data: st.DataObject) -> None:
    desc = pb.DESCRIPTOR.message_types_by_name[name]
    value = data.draw(json_for(desc))
    ours, theirs = ours_and_protobufs(desc, value)
    assert ours[:2] == theirs[:2]
    if ours[0] == "read":
        assert ours[2] == theirs[2]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ApplyMoveRequest", {"gameId": "g", "expectedVersion": "7", "text": "s"}),
        ("ApplyMoveRequest", {"game_id": "g", "expected_version": 7, "structured": {"kind": "MOVE_KIND_DEAL"}}),
        ("NewGameRequest", {"variant": "sultan-52", "options": {"a": "b"}, "clientSeed": "AQI", "allowUndo": False}),
        ("SubmitSolutionRequest", {"moves": ["s", "rd"], "dealTicket": "t"}),
        ("VerifyCertificateRequest", {"certificate": base64.urlsafe_b64encode(b"\xfb\xff").decode(), "replay": True}),
    ],
)
def test_plain_requests_are_read_without_json_format(name: str, value: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The requests clients send are read by the plan alone (the point of it), and read right."""
    desc = pb.DESCRIPTOR.message_types_by_name[name]
    expected = json_format.ParseDict(value, pb.__dict__[name]())
    monkeypatch.setattr(json_format, "ParseDict", None)  # the plan must not call it
    assert parse(value, pb.__dict__[name]) == expected
    assert parse(value, pb.__dict__[name]).SerializeToString() == expected.SerializeToString()
    assert desc.name == name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ApplyMoveRequest", {"expectedVersion": "7x"}),  # not an integer
        ("ApplyMoveRequest", {"expectedVersion": True}),  # a bool for an integer
        ("ApplyMoveRequest", {"expectedVersion": "99999999999999999999"}),  # out of int64's range
        ("ApplyMoveRequest", {"text": "s", "structured": {}}),  # two members of one oneof
        ("ApplyMoveRequest", {"gameId": 5}),  # a number for a string
        ("ApplyMoveRequest", {"gameId": "\ud800"}),  # an unpaired surrogate
        ("ApplyMoveRequest", {"nope": 1}),  # no such field
        ("ApplyMoveRequest", {"structured": {"sources": [None]}}),  # null in a list
        ("ApplyMoveRequest", {"structured": {"kind": "NO_SUCH_KIND"}}),  # an unknown enum name
        ("NewGameRequest", {"options": {"a": 1}}),  # a number as a map value
        ("NewGameRequest", {"options": ["a"]}),  # a list for a map
        ("NewGameRequest", {"clientSeed": "A=B"}),  # not base64
        ("SubmitSolutionRequest", {"moves": "s"}),  # text for a list
        ("GetGameRequest", {"includeMoves": "true"}),  # text for a bool
    ],
)
def test_refusals_are_parsedicts(name: str, value: Any) -> None:
    ours, theirs = ours_and_protobufs(pb.DESCRIPTOR.message_types_by_name[name], value)
    assert ours[0] == "refused" and ours == theirs


def test_depth_limit_is_parsedicts() -> None:
    """json_format counts the top message as depth 1 and refuses one level past the limit; so does parse."""
    desc = pb.DESCRIPTOR.message_types_by_name["ApplyMoveRequest"]
    value = {"structured": {"sources": [{"index": 1}]}}
    for depth in (1, 2, 3, 4):
        ours, theirs = ours_and_protobufs(desc, value, depth)
        assert ours[:2] == theirs[:2]
    assert ours_and_protobufs(desc, value, 2)[0][0] == "refused"
    assert ours_and_protobufs(desc, value, 3)[0][0] == "read"


def _reference_parse_into(message: Message, data: object, where: str) -> None:
    """The REST layer's reading before the plan: json_format itself, its refusals as INVALID_JSON."""
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False, max_recursion_depth=32)  # type: ignore[arg-type]
    except (json_format.ParseError, TypeError, ValueError, RecursionError, AttributeError) as exc:
        text = str(exc) or type(exc).__name__
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        raise http_transcode.TranscodeError("INVALID_JSON", f"{where}: {text}"[:500]) from None


@pytest.mark.parametrize("name", REQUESTS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_rest_layer_refuses_as_before(name: str, data: st.DataObject) -> None:
    """Every request type: the transcoder's error (reason INVALID_JSON, ParseDict's text) or message is unchanged."""
    desc = pb.DESCRIPTOR.message_types_by_name[name]
    value = data.draw(json_for(desc))
    results = []
    for read in (http_transcode._parse, _reference_parse_into):
        message = pb.__dict__[name]()
        try:
            if read is http_transcode._parse:
                message = read(type(message), value, "body")
            else:
                read(message, value, "body")
        except http_transcode.TranscodeError as exc:
            results.append(("refused", exc.reason, exc.message, exc.field))
        else:
            results.append(("read", message.SerializeToString(deterministic=True)))
    assert results[0] == results[1]


def test_a_refused_lone_surrogate_is_a_400_not_a_crash() -> None:
    """json_format quotes the refused value; a lone surrogate in it is written as an escape, so that the refusal
    can be encoded at all (before, the answer raised UnicodeEncodeError: a 500)."""
    from service import errors
    from service.rest.app import _service_error

    with pytest.raises(http_transcode.TranscodeError) as refused:
        http_transcode._parse(pb.ApplyMoveRequest, {"expectedVersion": "\ud800 1", "text": "s"}, "body")
    assert refused.value.reason == "INVALID_JSON" and "\\ud800 1" in refused.value.message
    answer = _service_error(errors.bad_request(refused.value.reason, refused.value.message, refused.value.field))
    assert answer.status_code == 400 and b"INVALID_JSON" in bytes(answer.body)
