"""Move notation: the text and structured forms convert both ways without loss."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import MoveError, NotationError, Reason, get_game
from engine.cards import card_text, parse_card
from engine.moves import Move, MoveKind, Pile, PileKind

EXAMPLES = ["3-7", "3-7/4", "3-r", "3-r2", "3,5,5-r", "3-f", "r2-f", "w-f2", "f1-f4/3", "d", "s", "rd", "3-k", "c3-f5"]


@pytest.mark.parametrize("text", EXAMPLES)
def test_rules_md_examples_round_trip(text: str) -> None:
    move = Move.parse(text)
    assert move.text() == text
    assert Move.parse(move.text()) == move
    assert eval(repr(move)) == move  # repr pastes back


def test_structured_form() -> None:
    assert Move.parse("3-7/4") == Move(MoveKind.TRANSFER, (Pile(PileKind.COLUMN, 3),), Pile(PileKind.COLUMN, 7), 4)
    assert Move.parse("3,5,5-r").sources == tuple(Pile(PileKind.COLUMN, i) for i in (3, 5, 5))
    assert Move.parse("w-f2") == Move(MoveKind.TRANSFER, (Pile(PileKind.WASTE),), Pile(PileKind.FOUNDATION, 2))
    assert Move.parse(" RD ").kind is MoveKind.REDEAL
    assert Move.parse("C3-F5").text() == "c3-f5"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "3-",
        "-7",
        "0-7",
        "3-7/0",
        "3-7/01",
        "k-3",
        "3-w",
        "3-c1",
        "r-3",
        "c-f",
        "3,5-r2",
        "3,5-f",
        "r1,3-r",
        "3-7/4x",
        "1,2,3,4,5,6,7,8,9-r",
        "3,5-r/2",
        "r1-f/2",
        "x",
        "3--7",
        "f-3",
        "3-r9x",
        7,
        None,
        "9" * 100,
    ],
)
def test_bad_notation_is_refused_with_reason(text: object) -> None:
    with pytest.raises(NotationError) as info:
        Move.parse(text)  # type: ignore[arg-type]
    assert info.value.reason is Reason.BAD_NOTATION


PILE = st.one_of(
    st.builds(Pile, st.just(PileKind.COLUMN), st.integers(1, 9)),
    st.builds(Pile, st.sampled_from([PileKind.RESERVE, PileKind.FOUNDATION]), st.integers(1, 9) | st.none()),
    st.just(Pile(PileKind.WASTE)),
    st.builds(Pile, st.just(PileKind.CAPTIVE), st.integers(1, 9)),
)
TARGET = st.one_of(
    st.builds(Pile, st.just(PileKind.COLUMN), st.integers(1, 9)),
    st.builds(Pile, st.sampled_from([PileKind.RESERVE, PileKind.FOUNDATION]), st.integers(1, 9) | st.none()),
    st.just(Pile(PileKind.KING_ROW)),
)


@given(PILE.filter(lambda p: p.index is not None or p.kind is PileKind.WASTE), TARGET, st.integers(1, 999) | st.none())
def test_structured_to_text_and_back(source: Pile, target: Pile, count: int | None) -> None:
    move = Move(MoveKind.TRANSFER, (source,), target, count)
    try:
        parsed = Move.parse(move.text())
    except NotationError:
        # only counts on moves that are neither runs onto columns nor foundation runs are refused
        assert count is not None and target.kind is not PileKind.COLUMN and source.kind is not PileKind.FOUNDATION
    else:
        assert parsed == move


@given(st.lists(st.integers(1, 9), min_size=1, max_size=8))
def test_multi_reserve_round_trip(columns: list[int]) -> None:
    text = ",".join(map(str, columns)) + "-r"
    assert Move.parse(text).text() == text


@pytest.mark.parametrize(("text", "canon"), [("TH", "TH"), ("10h", "TH"), ("as", "AS"), ("Kd", "KD"), ("2c", "2C")])
def test_card_parsing(text: str, canon: str) -> None:
    assert card_text(parse_card(text)) == canon


@pytest.mark.parametrize("text", ["", "1H", "TX", "11H", "KH2", "ZZ"])
def test_bad_cards_refused(text: str) -> None:
    with pytest.raises(NotationError):
        parse_card(text)


# --------------------------------------------------------------------------- the engine API's promises


_GAME = get_game("cats-tail")
_START = _GAME.deal(bytes(32))
_LEGAL = sorted(m.text() for m in _GAME.legal_moves(_START))


@given(st.one_of(st.text(max_size=12), st.sampled_from(_LEGAL)))
def test_is_legal_never_raises_and_agrees_with_the_legal_moves(text: str) -> None:
    result = _GAME.is_legal(_START, text)  # any text at all: an answer, never an exception
    if text in _LEGAL:
        assert result
    try:
        Move.parse(text)
    except MoveError:
        assert result is False


def test_engine_errors_are_value_errors_too() -> None:
    game = get_game("cats-tail")
    with pytest.raises(ValueError):
        Move.parse("zz")
    with pytest.raises(ValueError):
        get_game("no-such-game")
    with pytest.raises(ValueError):
        game.play(game.deal(bytes(32)), Move.parse("f1-f2/1"))
    assert not game.is_legal(game.deal(bytes(32)), "zz") and not game.is_legal(game.deal(bytes(32)), "")


@pytest.mark.parametrize("variant", ["cats-tail", "captives", "sultan-52", "tribunal"])
def test_legal_moves_is_a_collection_with_a_cheap_in(variant: str) -> None:
    game = get_game(variant)
    state = game.deal(bytes(range(32)))
    legal = game.legal_moves(state)
    listed = list(legal)
    assert listed == list(game.generate_legal_moves(state)) and len(legal) == len(listed)
    assert bool(legal) is game.has_legal_move(state) is bool(listed)
    for move in listed:  # every listed move is "in", as a Move and as its text
        assert move in legal and move.text() in legal
    assert "zz" not in legal and 3 not in legal and Move.parse("f1-f2/13") not in legal
    # "in" asks the rules, never the list: a short form of a listed move is in, though only explicit ones are listed
    assert all(m.text() in legal for m in listed)


def test_play_is_the_one_reducer() -> None:
    """play takes a Move or its text and answers the position and the explicit move; the state is untouched on
    a refusal."""
    game = get_game("cats-tail")
    state = game.deal(bytes(32))
    move = next(iter(game.legal_moves(state)))
    after, explicit = game.play(state, move.text())
    assert (after, explicit) == game.play(state, move) and explicit == move
    assert not hasattr(game, "apply") and not hasattr(game, "resolve")
    with pytest.raises(MoveError):
        game.play(state, "f1-f2/13")
