"""service.rest.json_mapping gives exactly protobuf's JSON mapping (json_format.MessageToDict with every field without
presence) for messages of every type of the API, generated field by field."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from proto_support import messages

from service.rest import json_mapping
from service.rest.app import encode_json
from service.rest.json_mapping import to_dict

TYPES = sorted(pb.DESCRIPTOR.message_types_by_name)


@pytest.mark.parametrize("name", TYPES)
@settings(max_examples=40)
@given(data=st.data())
def test_the_mapping_is_protobufs(name: str, data: st.DataObject) -> None:
    message: Message = data.draw(messages(pb.DESCRIPTOR.message_types_by_name[name]))
    try:
        expected = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except (ValueError, json_format.Error):  # e.g. a Timestamp out of range: refused here too
        with pytest.raises(ValueError):
            to_dict(message)
        return
    mapped = to_dict(message)
    assert mapped == expected
    # and the REST layer writes it as the standard library would
    assert encode_json(mapped) == json.dumps(mapped, ensure_ascii=False, separators=(",", ":")).encode()


def test_a_real_answer() -> None:
    game = pb.Game(game_id="abc", version=7, variant="sultan-52", commitment=b"\x01\x02")
    game.view.stock_count = 12
    game.created_at.GetCurrentTime()
    answer = pb.ApplyMoveResponse(game=game)
    mapped = to_dict(answer)
    assert mapped == json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)
    assert mapped["game"]["version"] == "7" and mapped["game"]["commitment"] == "AQI="
    assert mapped["game"]["createdAt"].endswith("Z")


@settings(max_examples=300)
@given(
    seconds=st.one_of(st.integers(-62135596801, 253402300800), st.sampled_from([0, -1, 86399, 86400, -86401])),
    nanos=st.one_of(
        st.integers(-1, 10**9),
        st.integers(0, 999).map(lambda n: n * 10**6),
        st.integers(0, 999999).map(lambda n: n * 1000),
    ),
)
def test_timestamps_are_protobufs(seconds: int, nanos: int) -> None:
    """Every Timestamp's text, at the edges of its range and of each length of fraction, is protobuf's own."""
    stamp = Timestamp(seconds=seconds, nanos=nanos)
    game = pb.Game(created_at=stamp)
    try:
        expected = stamp.ToJsonString()
    except ValueError:
        with pytest.raises(ValueError):
            to_dict(game)
        with pytest.raises(ValueError):  # the same once its second has been seen with a good fraction
            to_dict(pb.Game(created_at=Timestamp(seconds=seconds)))
            to_dict(game)
        return
    assert to_dict(game)["createdAt"] == expected
    assert to_dict(game)["createdAt"] == expected  # its second's text kept from the first call


def test_the_texts_of_seconds_kept_are_bounded() -> None:
    for seconds in range(json_mapping._SECOND_TEXTS_KEPT * 2 + 3):
        stamp = Timestamp(seconds=seconds, nanos=5_000_000)
        assert to_dict(pb.Game(created_at=stamp))["createdAt"] == stamp.ToJsonString()
        assert len(json_mapping._SECOND_TEXTS) <= json_mapping._SECOND_TEXTS_KEPT
