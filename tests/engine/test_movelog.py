"""The packed move log (engine.movelog): Move values round-trip, and logs already in Redis read back."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import get_game
from engine.errors import NotationError
from engine.movelog import CorruptLog, last_move, pack, pack_all, unpack
from engine.moves import Move

#: A log written by the service before the codec moved into the engine (its own text grammar then): these bytes
#: are in Redis today and must read back as the same moves, and the same moves must pack to the same bytes.
OLD_TEXTS = ("1-2", "s", "d", "rd", "w-f", "9-r1", "1,2,3-r", "r3-4/2", "f1-3/13", "f2-5", "c1-f", "3-k",
             "4-2/112", "4-2/113", "f3-7/999", "w-1", "1-r")  # fmt: skip
OLD_LOG = bytes.fromhex(
    "0142f1f0f21e54094b0102034a810d448c1543164529540372ef0442342d322f31313307ff66332d372f39393908ff1e41014a"
)

_PILE = r"(?:[1-9]|[rfc][1-9]|[rf]|w|k)"
NOTATION = rf"\A(?:d|s|rd|{_PILE}(?:,{_PILE}){{0,8}}-{_PILE}(?:/[1-9][0-9]{{0,2}})?)\Z"


def moves_of_notation(text: str) -> Move | None:
    try:
        return Move.parse(text)
    except NotationError:
        return None


MOVES = st.from_regex(NOTATION).map(moves_of_notation).filter(lambda m: m is not None)


def test_a_log_written_before_the_codec_moved_reads_back_and_packs_the_same() -> None:
    moves = tuple(Move.parse(t) for t in OLD_TEXTS)
    assert unpack(OLD_LOG) == moves
    assert pack_all(moves) == OLD_LOG


@given(st.lists(MOVES, max_size=30))
def test_any_move_round_trips_through_the_packed_log(moves: list[Move]) -> None:
    log = pack_all(moves)
    assert unpack(log) == tuple(moves)
    if moves:  # the last move can be popped without decoding the rest (the store's undo does so in Lua)
        last, start = last_move(log, len(log))
        assert last == moves[-1] and log[start:] == pack(moves[-1])


def test_engine_moves_pack_into_about_two_bytes() -> None:
    rng = random.Random(11)
    for variant in ("royal-retinue", "cats-tail", "captives", "sultan-52", "picture-gallery"):
        game = get_game(variant)
        state = game.deal(bytes(range(32)))
        played: list[Move] = []
        for _ in range(60):
            legal = list(game.legal_moves(state))
            if not legal:
                break
            state, explicit = game.play(state, rng.choice(legal))
            played.append(explicit)
        log = pack_all(played)
        assert unpack(log) == tuple(played)
        assert len(log) <= 3 * len(played), variant


def test_a_count_over_112_is_kept_as_text() -> None:
    assert pack(Move.parse("f3-7/999")) == b"f3-7/999" + bytes((8, 0xFF))
    assert pack(Move.parse("f3-7/112")) == bytes((0x80 + 111, 23, 64 + 7))


@pytest.mark.parametrize(
    "log",
    [
        b"\x00",  # a source code with no target
        b"\x42",  # a target with no source
        b"\x03\xff",  # an escape longer than the log
        b"zz\x02\xff",  # an escape that is not a move
        b"\xfe",  # no move ends so
        b"\x01\x7f",  # a target code past the last pile kind
    ],
)
def test_bytes_that_are_not_a_log_are_refused(log: bytes) -> None:
    with pytest.raises(CorruptLog):
        unpack(log)
