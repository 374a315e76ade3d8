"""Safe automatic moves (docs/rules-decisions.md, "Safe moves to the foundations"): each family's rule
accepts its safe case and refuses the neighbour one card away from it."""

from __future__ import annotations

import hashlib

from engine import State, get_game
from engine.cards import NO_CARD, Card, parse_card
from engine.solver import autoplay, safe_move
from engine.verify import replay


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def up(suit: str, top: str, order: str = "A23456789TJQK") -> tuple[Card, ...]:
    return cards(" ".join(r + suit for r in order[: order.index(top) + 1]))


# -- king-chain ------------------------------------------------------------------------------------------


def king_chain(spades: tuple[str, str]) -> State:
    founds = (up("C", "4"), up("C", "4"), up("S", spades[0]), up("S", spades[1]), up("H", "4"), (), (), ())
    return State(columns=(cards("9D 5H"), cards("KD AD")), cells=(NO_CARD,) * 8, foundations=founds)


def test_king_chain_five_is_safe_once_every_black_four_is_home() -> None:
    game = get_game("cats-tail")
    move = safe_move(game, king_chain(("4", "4")))
    assert move is not None
    assert move.text() in {"1-f5", "2-f6"}


def test_king_chain_five_is_not_safe_while_a_black_four_is_out() -> None:
    game = get_game("cats-tail")
    state = king_chain(("4", "3"))
    assert game.is_legal(state, "1-f5")  # legal, but the 4S still out may want the 5H
    move = safe_move(game, state)
    assert move is not None and move.text() == "2-f6"  # an ace is always safe
    after, moves = autoplay(game, state)
    assert [m.text() for m in moves] == ["2-f6"]
    assert after.columns[0][-1] == parse_card("5H")


# -- salic law -------------------------------------------------------------------------------------------


def salic(low: str) -> State:
    founds = (up("C", "4"),) * 7 + (up("D", low),)
    return State(columns=(cards("KC 9H 5H"), cards("KS 7D")), foundations=founds)


def test_salic_law_rank_is_safe_up_to_the_lowest_foundation_plus_one() -> None:
    game = get_game("tribunal")
    move = safe_move(game, salic("4"))
    assert move is not None and move.text() == "1-f1"


def test_salic_law_rank_is_not_safe_above_the_lowest_foundation_plus_one() -> None:
    game = get_game("tribunal")
    state = salic("3")
    assert game.is_legal(state, "1-f1")
    assert safe_move(game, state) is None


# -- captives --------------------------------------------------------------------------------------------

CAPTIVE_ORDER = "KA23456789TJQ"


def captives(other_hearts: str, captive_six: str = "7C") -> State:
    founds = (
        up("C", "K", CAPTIVE_ORDER),
        (),
        (),
        (),
        up("H", "2", CAPTIVE_ORDER),
        up("H", other_hearts, CAPTIVE_ORDER),
        (),
        (),
    )
    return State(
        columns=(cards("9S 3H"), cards("KD"), (), (), (), (), (), ()),
        foundations=founds,
        captives=cards(f"2C 3C 4C 5C 6C {captive_six} 8C"),
    )


def test_captives_card_is_safe_once_both_lower_cards_are_home() -> None:
    game = get_game("captives")
    move = safe_move(game, captives("4"))
    assert move is not None and move.text() == "1-f5"


def test_captives_card_is_not_safe_while_a_lower_card_of_its_suit_is_out() -> None:
    game = get_game("captives")
    state = captives("A")  # the second 2H is still out: it may want to go on the 3H
    assert game.is_legal(state, "1-f5")
    assert safe_move(game, state) is None


def test_captives_two_slots_with_captives_are_not_safe() -> None:
    """Both KH slots take the 3H and each holds a captive: which one completes first matters."""
    game = get_game("captives")
    state = captives("2")
    assert game.is_legal(state, "1-f5") and game.is_legal(state, "1-f6")
    assert safe_move(game, state) is None


def test_captives_kings_are_never_auto_played() -> None:
    game = get_game("captives")
    state = captives("A")
    assert game.is_legal(state, "2-k")
    assert safe_move(game, state) is None


# -- sultan ----------------------------------------------------------------------------------------------


def test_sultan_every_foundation_move_is_safe() -> None:
    game = get_game("sultan-52")
    state = game.deal(hashlib.sha256(b"safe").digest())
    after, moves = autoplay(game, state)
    assert all(m.target is not None and m.target.text().startswith("f") for m in moves)
    home = [m for m in game.legal_moves(after) if m.target is not None and m.target.text().startswith("f")]
    assert home == [] and safe_move(game, after) is None
    assert replay(game, state, moves).state == after


def test_autoplay_replays_and_stops_when_nothing_is_safe() -> None:
    for variant in ("royal-retinue-aces", "tribunal", "captives", "sultan-36"):
        game = get_game(variant)
        state = game.deal(hashlib.sha256(variant.encode()).digest())
        after, moves = autoplay(game, state)
        assert replay(game, state, moves).state == after
        assert safe_move(game, after) is None
