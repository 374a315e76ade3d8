"""Safe automatic moves (docs/rules-decisions.md, "Safe moves to the foundations"): each family's rule
accepts its safe case and refuses the neighbour one card away from it."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.cards import ACE, KING, NO_CARD, RANK, Card, parse_card
from engine.game import Game
from engine.games.captives import COMPLETE, Captives
from engine.games.salic_law import Tribunal
from engine.games.sultan import Sultan36
from engine.moves import Move, Pile, PileKind
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


# -- the rules, read off the generated moves: what the solver's quicker look must agree with -----------------


def reference_safe_move(game: Game, state: State) -> Move | None:
    """Each family's rule applied to ``legal_moves`` in order (docs/rules-decisions.md), the slow plain way."""
    founds = state.foundations
    for move in game.generate_legal_moves(state):
        if move.target is None or move.target.kind is not PileKind.FOUNDATION:
            continue
        src = move.sources[0]
        if isinstance(game, Sultan36):
            return move
        if isinstance(game, Tribunal):
            assert src.index is not None
            rank = RANK[state.columns[src.index - 1][-1]]
            low = min(RANK[f[-1]] if f else 0 for f in founds)
            if rank == ACE or rank <= low + 1:
                return move
            continue
        assert isinstance(game, Captives)
        at = (src.index or 1) - 1  # the waste has no index
        if src.kind is PileKind.COLUMN:
            c = state.columns[at][-1]
        elif src.kind is PileKind.WASTE:
            c = state.waste[-1]
        else:
            c = state.captives[at]
        home = sum(f.count(c - 1) for f in founds)
        fits = [i for i, f in enumerate(founds) if f and f[-1] == (c + 12 if RANK[c] == ACE else c - 1)]
        free = all(i >= len(state.captives) or state.captives[i] == NO_CARD or len(founds[i]) == COMPLETE for i in fits)
        if RANK[c] != KING and (RANK[c] == ACE or home >= 2) and (len(fits) == 1 or free):
            return Move(move.kind, move.sources, Pile(PileKind.FOUNDATION, fits[0] + 1))
    return None


@pytest.mark.parametrize("variant", ["tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52"])
@settings(max_examples=10, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk=st.integers(0, 2**32 - 1))
def test_the_safe_move_is_the_rule_applied_to_the_legal_moves(variant: str, seed: bytes, walk: int) -> None:
    """Along a game that favours moves home (to reach the middle and the end): at every position, ``safe_move``
    finds what the rule picks from the generated moves."""
    game = get_game(variant)
    state = game.deal(seed)
    rng = random.Random(walk)
    for _ in range(400):
        assert safe_move(game, state) == reference_safe_move(game, state)
        moves = list(game.generate_legal_moves(state))
        if not moves:
            break
        state = game.play(state, moves[0] if rng.random() < 0.6 else rng.choice(moves))[0]
