"""Board names and the rank order (patience.boards, docs/competition.md), as properties: every board's name has
one spelling and reads back to the board; the sorted set's byte order is the rank order."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from patience.boards import DAILY, PUBLIC, Board, BoardNameError, parse_board, rank_key, well_formed

from engine.catalogue import get_game, variants
from engine.game import format_option
from service.store.boards import member

VARIANTS = [v.id for v in variants()]


@st.composite
def boards(draw: st.DrawFn) -> Board:
    variant = draw(st.sampled_from(VARIANTS))
    info = get_game(variant).info
    options = {}
    for spec in info.options:
        value = draw(st.sampled_from(spec.allowed))
        if value != spec.default:
            options[spec.name] = format_option(value)
    if draw(st.booleans()):
        day = draw(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2999, 12, 31)))
        return Board(DAILY, variant, options, date=day.isoformat())
    return Board(PUBLIC, variant, options, number=draw(st.integers(1, 2**32 - 1)))


@given(boards())
def test_a_board_name_reads_back_to_its_board(board: Board) -> None:
    assert well_formed(board.name) and parse_board(board.name) == board
    assert board.game().options_text().replace(",", ":") in board.name  # the non-default options, in order


@given(boards(), st.data())
def test_a_name_changed_by_one_character_is_refused_or_another_board(board: Board, data: st.DataObject) -> None:
    name = board.name
    at = data.draw(st.integers(0, len(name) - 1))
    other = name[:at] + data.draw(st.sampled_from("-:=0159aztf_{ ")) + name[at + 1 :]
    if other == name:
        return
    try:
        again = parse_board(other)
    except BoardNameError:
        return
    assert again != board and again.name == other  # what reads is a board of its own, in its one spelling


@pytest.mark.parametrize(
    "name",
    ["public-cats-tail-7:sequence_moves=true", "public-cats-tail-07", "daily-cats-tail-2026-2-01",
     "daily-cats-tail-2026-02-30", "public-picture-gallery-1:deals=3:deals=3", "public-nope-1", "Public-cats-tail-1"],
)  # fmt: skip
def test_names_of_no_board(name: str) -> None:
    with pytest.raises(BoardNameError):
        parse_board(name)


wins = st.tuples(st.integers(0, 3), st.integers(0, 999_999), st.integers(0, 10**12), st.integers(0, 10**12))


@given(st.lists(wins, min_size=2, max_size=30))
def test_the_sorted_sets_byte_order_is_the_rank_order(entries: list[tuple[int, int, int, int]]) -> None:
    """Redis sorts a board's members byte by byte (every score 0): that order is rank_key's."""
    keyed = []
    for i, (undos, moves, started, took) in enumerate(entries):
        key = rank_key(undos, moves, started, started + took)
        pid = "p_" + "".join(itertools.islice(itertools.cycle("abcdefgh"), i, i + 26))
        keyed.append((key, member(key, pid)[0]))
    by_member = sorted(keyed, key=lambda k: k[1].encode())
    assert [k for k, _ in by_member] == sorted(k for k, _ in keyed)
