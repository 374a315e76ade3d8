"""``Game.successors`` is ``play`` on every generated move: the same positions and explicit moves, in the same
order, although the families build them without ``play``'s checks (the solver's inner loop)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.catalogue import configurations
from engine.game import Game

CONFIGS = configurations()


def _same_as_play(game: Game, state: State) -> None:
    want = [game.play(state, m) for m in game.generate_legal_moves(state)]
    assert list(game.successors(state)) == want


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=[f"{v}-{o}" for v, o in CONFIGS])
@settings(max_examples=15, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk=st.integers(0, 2**32 - 1))
def test_successors_are_play_on_every_legal_move(
    variant: str, options: dict[str, object], seed: bytes, walk: int
) -> None:
    """Along a random game to its end (or 300 moves): every position's successors, including won and stuck ones.
    The walk takes the first move (home moves come first) more often than the others, to get further."""
    game = get_game(variant, options)
    state = game.deal(seed)
    rng = random.Random(walk)
    for _ in range(300):
        _same_as_play(game, state)
        moves = list(game.generate_legal_moves(state))
        if not moves:
            break
        state = game.play(state, moves[0] if rng.random() < 0.5 else rng.choice(moves))[0]
