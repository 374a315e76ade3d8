"""Invariants over all nine games, by property-based random play (hypothesis).

- the multiset of cards never changes;
- every move that ``legal_moves`` yields applies, and a move that applies is
  (in explicit form) among ``legal_moves``;
- a refused move raises a typed error and leaves the position as it was;
- text notation and the binary encoding round-trip;
- the player's view never contains a hidden card.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VARIANT_IDS, MoveError, get_game
from engine.cards import NO_CARD, canonical_deck
from engine.encoding import decode_state, encode_state
from engine.game import Game, Status
from engine.moves import Move, MoveKind, PileKind
from engine.solver.profiles import profile_for
from engine.state import State
from engine.view import HIDDEN, hidden_cards, player_view

GAMES: list[tuple[str, dict[str, object]]] = [(v, {}) for v in VARIANT_IDS] + [
    ("cats-tail", {"sequence_moves": False}),
    ("picture-gallery", {"deals": 3}),
]
PILES = ["1", "2", "3", "5", "8", "9", "r", "r1", "r4", "r8", "f", "f1", "f3", "f8", "w", "c1", "c7"]
TARGETS = ["1", "4", "7", "9", "r", "r2", "r8", "f", "f2", "f8", "k"]


def random_move_text(rnd: random.Random) -> str:
    roll = rnd.random()
    if roll < 0.08:
        return rnd.choice(["d", "s", "rd"])
    if roll < 0.12:
        return ",".join(rnd.choice("123456789") for _ in range(rnd.randint(2, 4))) + "-r"
    text = f"{rnd.choice(PILES)}-{rnd.choice(TARGETS)}"
    if text[0].isdigit() and text.split("-")[1][0].isdigit() and rnd.random() < 0.5:
        text += f"/{rnd.randint(1, 5)}"
    try:
        Move.parse(text)
    except MoveError:
        return "1-2"
    return text


def view_cards(game: Game, state: State) -> Counter[int]:
    v = player_view(game, state)
    cards = [c for pile in v.columns for c in pile] + list(v.cells) + [c for f in v.foundations for c in f]
    cards += list(v.stock or ()) + list(v.waste) + list(v.captives) + list(v.fixed)
    return Counter(c for c in cards if c not in (NO_CARD, HIDDEN))


def check_position(game: Game, state: State) -> None:
    deck = Counter(canonical_deck(game.info.deck_size))
    assert Counter(state.all_cards()) == deck
    decoded_game, decoded = decode_state(encode_state(game, state))
    assert decoded_game == game and decoded == state
    hidden = Counter(hidden_cards(game, state))
    assert view_cards(game, state) == deck - hidden
    v = player_view(game, state)
    assert v.stock_count == len(state.stock)
    if v.stock is not None:
        # Shown only once the player has seen each of its cards turned (two decks: a card's twin may be hidden).
        assert tuple(v.stock) == tuple(state.stock)


def explicit_key(game: Game, state: State, m: Move) -> object:
    """legal_moves lists one move a class of equivalent ones: any empty cell; a foundation once for each
    distinct position it leads to (docs/engine.md: captives' slots with a captive waiting are all distinct)."""
    if (
        m.kind is MoveKind.TRANSFER
        and m.target is not None
        and m.target.kind in (PileKind.RESERVE, PileKind.FOUNDATION)
    ) and m.source.kind is not PileKind.FOUNDATION:
        text = ",".join(p.text() for p in m.sources) + "-" + m.target.kind.value
        if m.target.kind is PileKind.FOUNDATION:  # the position up to interchangeable piles (the solver's key)
            return text, profile_for(game).key(game.play(state, m)[0])
        return text
    return m.text()


@pytest.mark.parametrize(("variant", "options"), GAMES, ids=[f"{v}{'-' + str(o) if o else ''}" for v, o in GAMES])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=32, max_size=32), walk=st.randoms(use_true_random=False))
def test_random_playout_invariants(variant: str, options: dict[str, object], seed: bytes, walk: random.Random) -> None:
    game = get_game(variant, options)
    state = game.deal(seed)
    check_position(game, state)
    for _ in range(120):
        legal = list(game.legal_moves(state))
        assert game.has_legal_move(state) == bool(legal), "the cheap status check agrees with legal_moves"
        keys = {explicit_key(game, state, m) for m in legal}
        assert len(keys) == len(legal), "legal_moves yields each move once"
        assert len({m.text() for m in legal}) == len(legal)
        for m in legal:
            assert Move.parse(m.text()) == m
        # a random move: refused ones leave the state as it was; accepted ones are in legal_moves
        for _ in range(3):
            text = random_move_text(walk)
            before = encode_state(game, state)
            try:
                after, explicit = game.play(state, Move.parse(text))
            except MoveError as exc:
                assert exc.reason.value
                assert encode_state(game, state) == before
            else:
                if explicit.kind is MoveKind.TRANSFER and len(explicit.sources) > 1:
                    continue
                key = explicit_key(game, state, explicit)
                assert key in keys, f"{text} -> {explicit.text()} applied but not in legal_moves"
                assert Counter(after.all_cards()) == Counter(state.all_cards())
        if not legal:
            break
        move = walk.choice(legal)
        new_state, explicit = game.play(state, move)
        assert explicit == move, "explicit moves resolve to themselves"
        state = new_state
        check_position(game, state)


@given(st.lists(st.sampled_from(PILES + TARGETS + ["-", ",", "/", "3", "x", " ", "10"]), max_size=8))
def test_notation_parser_never_crashes(tokens: list[str]) -> None:
    text = "".join(tokens)
    try:
        move = Move.parse(text)
    except MoveError as exc:
        assert exc.reason.value == "BAD_NOTATION"
    else:
        assert Move.parse(move.text()) == move


@pytest.mark.parametrize(("variant", "options"), GAMES, ids=[f"{v}{'-' + str(o) if o else ''}" for v, o in GAMES])
def test_long_walks_to_the_end(variant: str, options: dict[str, object]) -> None:
    """Random games played until no move is left (or 1500 moves): redeals, releases and wins get exercised."""
    game = get_game(variant, options)
    for i in range(3):
        rnd = random.Random(i)
        state = game.deal(bytes([i + 7]) * 32)
        for step in range(1500):
            legal = list(game.legal_moves(state))
            if not legal:
                break
            # prefer moves that make progress (foundations) so that games get far
            home = [
                m for m in legal if m.target is not None and m.target.kind in (PileKind.FOUNDATION, PileKind.KING_ROW)
            ]
            state = game.play(state, rnd.choice(home) if home and rnd.random() < 0.8 else rnd.choice(legal))[0]
            if step % 25 == 0:
                check_position(game, state)
        check_position(game, state)
        # The status agrees with the moves: a walk ends won or stuck exactly when no move is left, and a game the
        # walk left with moves is in progress (games that never end have the 1500-move cap).
        status = game.status(state)
        left = list(game.legal_moves(state))
        assert (status is Status.IN_PROGRESS) == bool(left), (status, left[:3])
        assert (status is Status.WON) == game.is_won(state)
        assert status is not Status.WON or not left, "no move is legal after a win"
