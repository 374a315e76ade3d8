"""Hints (engine/solver/hint.py): legal, deterministic for a seed, and in games with hidden cards blind to
them: two positions that differ only in their hidden cards get the same hint."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.cards import NO_CARD
from engine.game import Game
from engine.moves import MoveKind
from engine.solver import HintCode, has_hidden_cards, hint, solve
from engine.verify import Outcome as Verdict
from engine.verify import replay
from engine.view import player_view

HIDDEN_GAMES = ["tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52"]
SMALL = {"samples": 3, "sample_states": 200}


def walked(game: Game, seed: bytes, steps: int) -> State:
    """A mid-game position: ``steps`` moves picked by a seeded random walk."""
    state = game.deal(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state = game.play(state, rng.choice(moves))[0]
    return state


def reshuffle_hidden(game: Game, state: State, rng: random.Random) -> State:
    """The same view with the hidden cards (stock order, held captives) shuffled among their places."""
    view = player_view(game, state)
    held = [i for i, c in enumerate(state.captives) if c != NO_CARD and not game.captive_released(state, i)]
    stock = list(state.stock) if view.stock is None else []
    cards = stock + [state.captives[i] for i in held]
    rng.shuffle(cards)
    new_stock = tuple(cards[: len(stock)]) if view.stock is None else state.stock
    captives = list(state.captives)
    for i, c in zip(held, cards[len(stock) :], strict=True):
        captives[i] = c
    other = state._replace(stock=new_stock, captives=tuple(captives))
    assert player_view(game, other) == player_view(game, state)
    return other


@pytest.mark.parametrize("variant", HIDDEN_GAMES)
def test_hint_does_not_depend_on_hidden_cards(variant: str) -> None:
    game = get_game(variant)
    state = walked(game, hashlib.sha256(variant.encode()).digest(), 25)
    assert has_hidden_cards(game, state)
    other = reshuffle_hidden(game, state, random.Random(7))
    assert other != state  # the hidden cards really differ
    first = hint(game, state, seed=b"s", **SMALL)
    assert first.move is not None and game.is_legal(state, first.move)
    assert hint(game, other, seed=b"s", **SMALL) == first
    assert first.reason


@settings(max_examples=6, deadline=None)
@given(variant=st.sampled_from(HIDDEN_GAMES), seed=st.binary(min_size=32, max_size=32), steps=st.integers(0, 40))
def test_hint_is_blind_to_hidden_cards_anywhere(variant: str, seed: bytes, steps: int) -> None:
    game = get_game(variant)
    state = walked(game, seed, steps)
    small = {"samples": 2, "sample_states": 60}
    first = hint(game, state, seed=seed, **small)
    if has_hidden_cards(game, state):
        assert hint(game, reshuffle_hidden(game, state, random.Random(steps)), seed=seed, **small) == first
    if first.move is not None:
        assert game.is_legal(state, first.move)


def test_hint_is_the_same_for_the_same_seed() -> None:
    game = get_game("picture-gallery")
    state = walked(game, b"\x01" * 32, 10)
    assert hint(game, state, seed=b"a", **SMALL) == hint(game, state, seed=b"a", **SMALL)


def test_full_information_hint_starts_a_winning_line() -> None:
    game = get_game("cats-tail")
    state = game.deal(hashlib.sha256(b"hint").digest())
    assert not has_hidden_cards(game, state)
    found = solve(game, state, max_states=4000)
    given_hint = hint(game, state, full_states=4000)
    if found.moves:
        assert given_hint.move == found.moves[0]
        assert "winning line" in given_hint.reason
    assert given_hint.move is not None and game.is_legal(state, given_hint.move)


def test_no_hint_after_a_win() -> None:
    game = get_game("sultan-36")
    state = game.deal(b"\x02" * 32)
    found = solve(game, state, max_states=5000)
    assert found.moves
    won = state
    for m in found.moves:
        won = game.play(won, m)[0]
    h = hint(game, won)
    assert h.move is None and h.reason == "no move is left"


def test_the_code_and_the_length_of_the_line_say_how_the_hint_was_found() -> None:
    game = get_game("cats-tail")
    state = game.deal(hashlib.sha256(b"t-11").digest())  # won in about 100 positions
    found = solve(game, state, max_states=600)
    given = hint(game, state, full_states=600)
    assert found.moves and given.code is HintCode.WINNING_LINE
    assert given.moves_to_end == len(found.moves) and f"{len(found.moves)} moves" in given.reason
    # The whole line comes with it (what a player who plays on along it needs): the solver's, a verified win.
    assert given.line == found.moves and given.line[0] == given.move
    assert replay(game, state, given.line).verdict.outcome is Verdict.WON
    # Its illegal neighbour: a budget too small to find the line gives a fallback, and no length.
    short = hint(game, state, full_states=5)
    assert short.code in (HintCode.SAFE_MOVE, HintCode.BEST_SCORE) and short.moves_to_end == 0
    assert short.move is not None and game.is_legal(state, short.move)
    assert short.line == ()


def test_a_hidden_card_hint_counts_its_guesses_and_codes() -> None:
    game = get_game("sultan-36")
    state = game.deal(hashlib.sha256(b"t-0").digest())
    given = hint(game, state, seed=b"s", samples=4, sample_states=400)
    if given.wins:  # ``tried``: the guesses solved (the first two), or looked along (all four) when none won
        assert given.code is HintCode.WINS_IN_GUESSES and given.moves_to_end > 0 and given.tried == 2
        # The line of a guess that won, as far as a player can follow it: up to its first card turned from the stock.
        assert given.line[0] == given.move and given.line[-1].kind is MoveKind.STOCK
        assert all(m.kind is not MoveKind.STOCK for m in given.line[:-1])
    else:
        assert given.code in (HintCode.SAFE_MOVE, HintCode.BEST_SCORE) and given.moves_to_end == 0
        assert given.tried == 4 and given.line == ()


def test_no_move_has_its_code() -> None:
    game = get_game("sultan-36")
    state = game.deal(b"\x02" * 32)
    for m in solve(game, state, max_states=5000).moves:
        state = game.play(state, m)[0]
    assert hint(game, state).code is HintCode.NO_MOVE
