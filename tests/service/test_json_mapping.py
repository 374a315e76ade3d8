"""service.json_mapping gives exactly protobuf's JSON mapping (json_format.MessageToDict with every field without
presence) for messages of every type of the API, generated field by field."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from proto_support import messages

from service.json_mapping import to_dict

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
    assert to_dict(message) == expected


def test_a_real_answer() -> None:
    game = pb.Game(game_id="abc", version=7, variant="sultan-52", commitment=b"\x01\x02")
    game.view.stock_count = 12
    game.created_at.GetCurrentTime()
    answer = pb.ApplyMoveResponse(game=game)
    mapped = to_dict(answer)
    assert mapped == json_format.MessageToDict(answer, always_print_fields_with_no_presence=True)
    assert mapped["game"]["version"] == "7" and mapped["game"]["commitment"] == "AQI="
    assert mapped["game"]["createdAt"].endswith("Z")
