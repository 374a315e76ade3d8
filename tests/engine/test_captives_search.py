"""Captives' cheap search parts (engine/games/captives.py's successors, engine/solver/safe.py's rule and autoplay,
engine/solver/profiles.py's key) against their plain definitions, asked in the order the search asks them: each
position's children one after the other, so that what they keep of the last king row, captives and stock (looked
up by identity) is used, and must never answer for a position it does not fit."""

from __future__ import annotations

import hashlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.cards import ACE, KING, NO_CARD, RANK, Card, parse_card
from engine.game import Game
from engine.games.captives import COMPLETE
from engine.moves import Move, MoveKind, Pile, PileKind
from engine.solver import autoplay, safe_move
from engine.solver.profiles import profile_for


def plain_safe_move(game: Game, state: State) -> Move | None:
    """docs/rules-decisions.md's rule read off ``generate_legal_moves``: the first move home of a card other than
    a king whose two cards one rank lower are home (an ace: always), to the first slot that takes it, when the
    slots that take it are interchangeable (no captive waits under one) or it fits one only."""
    founds = state.foundations
    for move in game.generate_legal_moves(state):
        if move.target is None or move.target.kind is not PileKind.FOUNDATION:
            continue
        src = move.sources[0]
        at = (src.index or 1) - 1
        if src.kind is PileKind.COLUMN:
            c = state.columns[at][-1]
        elif src.kind is PileKind.WASTE:
            c = state.waste[-1]
        else:
            c = state.captives[at]
        below = c + 12 if RANK[c] == ACE else c - 1  # the card the slot's top must be
        fits = [i for i, f in enumerate(founds) if f and f[-1] == below]
        held = [i < len(state.captives) and state.captives[i] != NO_CARD and len(founds[i]) < COMPLETE for i in fits]
        home = sum(f.count(c - 1) for f in founds)
        if RANK[c] != KING and (RANK[c] == ACE or home >= 2) and (len(fits) == 1 or not any(held)):
            return Move(move.kind, move.sources, Pile(PileKind.FOUNDATION, fits[0] + 1))
    return None


def plain_autoplay(game: Game, state: State) -> tuple[State, list[Move]]:
    """Safe moves played with ``play`` (its checks and all) until none is left."""
    moves: list[Move] = []
    while (move := plain_safe_move(game, state)) is not None:
        state, explicit = game.play(state, move)
        moves.append(explicit)
    return state, moves


def plain_key(state: State) -> object:
    """The transposition table's equality: the columns as a multiset, everything else as it is."""
    return (tuple(sorted(state.columns)), state.foundations, state.captives, state.stock, state.waste, state.redeals)


@settings(max_examples=12, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk=st.integers(0, 2**32 - 1))
def test_rule_autoplay_and_key_agree_with_their_plain_definitions_child_after_child(seed: bytes, walk: int) -> None:
    """Along a game that favours moves home (to reach king rows with several slots, released captives and turned
    stocks): every child of every position, in the search's order."""
    game = get_game("captives")
    key = profile_for(game).key
    state = game.deal(seed)
    rng = random.Random(walk)
    classes: dict[object, object] = {}  # key -> plain key: one each way, or the key folds too much or too little
    for _ in range(250):
        children = list(game.successors(state))
        for child, _move in children:
            assert safe_move(game, child) == plain_safe_move(game, child)
            assert autoplay(game, child) == plain_autoplay(game, child)
            settled = autoplay(game, child)[0]
            for pos in (child, settled):
                assert classes.setdefault(key(pos), plain_key(pos)) == plain_key(pos)
        if not children:
            break
        state = children[0][0] if rng.random() < 0.6 else rng.choice(children)[0]
    assert len(set(classes.values())) == len(classes)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def two_heart_slots(captives: tuple[Card, ...], founds: tuple[tuple[Card, ...], ...] | None = None) -> State:
    """3H on column 1; slots 5 and 6 both KH AH 2H (both take the 3H), the 2H twice home."""
    hearts = cards("KH AH 2H")
    return State(
        columns=(cards("9S 3H"), (), (), (), (), (), (), ()),
        foundations=founds or ((), (), (), (), hearts, hearts, (), ()),
        captives=captives,
    )


def test_rule_kept_for_a_king_row_does_not_answer_for_other_captives() -> None:
    """The same king-row tuple, first with no captive under slots 5 and 6 (the 3H goes home safely to f5), then
    with one under slot 6 (which slot completes first matters: not safe), then without again."""
    game = get_game("captives")
    free = two_heart_slots((*cards("2C 3C 4C 5C"), NO_CARD, NO_CARD, parse_card("8C")))
    held = two_heart_slots((*cards("2C 3C 4C 5C"), NO_CARD, parse_card("7C"), parse_card("8C")), free.foundations)
    assert held.foundations is free.foundations
    for _ in range(2):
        move = safe_move(game, free)
        assert move is not None and move.text() == "1-f5"
        assert safe_move(game, held) is None
    after, moves = autoplay(game, free)
    assert [m.text() for m in moves] == ["1-f5"] and after == game.play(free, "1-f5")[0]
    assert autoplay(game, held) == (held, [])


def test_key_kept_for_a_stock_does_not_answer_for_other_turns_or_columns() -> None:
    """Positions that share the king row, captives, stock and waste tuples: equal keys for columns in another
    order, different keys for another count of waste turns or another column."""
    game = get_game("captives")
    key = profile_for(game).key
    state = game.deal(hashlib.sha256(b"captives key").digest())
    state, _ = game.play(state, "s")
    columns = state.columns
    swapped = state._replace(columns=(columns[1], columns[0], *columns[2:]))
    turned = state._replace(redeals=1)
    moved = state._replace(columns=(columns[0][:-1], (*columns[1], columns[0][-1]), *columns[2:]))
    assert key(state) == key(swapped)
    assert key(turned) != key(state) and key(state) != key(turned)
    assert key(moved) != key(state)
    assert key(state._replace(stock=state.stock[1:] + state.stock[:1])) != key(state)


def test_successors_of_a_position_with_every_kind_of_move() -> None:
    """An empty column, runs that fit in part, the waste's top onto a column, a king to the king row, a card home
    to two slots with a captive each, a released captive: successors gives play's positions in legal order."""
    game = get_game("captives")
    hearts = cards("KH AH 2H")
    spades = cards("KS AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS")
    state = State(
        columns=(cards("9S 3H"), cards("8D 7D 6D 5D"), cards("9D"), (), cards("KC"), cards("6D"), cards("7C"), ()),
        foundations=(spades, (), (), (), hearts, hearts, (), ()),
        stock=cards("4C 5C"),
        waste=cards("2C 6C"),
        captives=(*cards("KD 3C"), NO_CARD, NO_CARD, parse_card("8C"), parse_card("9C"), parse_card("TC")),
    )
    texts = [m.text() for m in game.generate_legal_moves(state)]
    assert {"1-f5", "1-f6", "5-k", "c1-k", "2-3/4", "2-4/1", "2-4/4", "w-7", "w-4", "s"} <= set(texts)
    assert list(game.successors(state)) == [game.play(state, m) for m in game.generate_legal_moves(state)]
    assert MoveKind.REDEAL not in {m.kind for m in game.generate_legal_moves(state)}
