"""The late scans' kinds of move (engine/solver/playouts.py, ``kind_of``): in the salic-law games "this move
uncovers a card that can go home" is found without playing ``3-f``, and must be exactly what ``is_legal`` says, or
the depth-first scan by kind and the playouts by kind would try their children in another order."""

from __future__ import annotations

import hashlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.moves import Move, MoveKind, Pile, PileKind
from engine.solver.playouts import _goes_home, kind_of

_HOME = Pile(PileKind.FOUNDATION)


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(["tribunal", "picture-gallery"]),
    deal=st.binary(min_size=32, max_size=32),
    steps=st.integers(0, 400),
    draws=st.integers(0, 2**32),
)
def test_goes_home_is_what_is_legal_says_on_every_column(variant: str, deal: bytes, steps: int, draws: int) -> None:
    """Positions of random play (home moves now and then, so foundations fill), every column, and one past them."""
    game = get_game(variant)
    state = game.deal(deal)
    rng = random.Random(draws)
    for _ in range(steps):
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state = game.play(state, rng.choice(moves))[0]
        for s in range(len(state.columns) + 2):
            column = Pile(PileKind.COLUMN, s)
            legal = game.is_legal(state, Move(MoveKind.TRANSFER, (column,), _HOME))
            assert _goes_home(game, state, column) is legal, (s, state)


def test_a_move_that_uncovers_a_card_for_home_is_of_the_second_kind() -> None:
    """On a tribunal deal: every move between columns is of kind 1 exactly when it frees a column or the card it
    uncovers can go home, else 2 (and a card home is 0, the stock 3)."""
    game = get_game("tribunal")
    state = game.deal(hashlib.sha256(b"kinds-0").digest())
    rng = random.Random(7)
    seen = set()
    for _ in range(300):
        for move in game.legal_moves(state):
            child, explicit = game.play(state, move)
            kind = kind_of(game, state, child, explicit)
            if explicit.kind is not MoveKind.TRANSFER:
                assert kind == 3 if explicit.kind is MoveKind.DEAL else kind == 4
            elif explicit.target is not None and explicit.target.kind is PileKind.FOUNDATION:
                assert kind == 0
            else:
                home = game.is_legal(child, Move(MoveKind.TRANSFER, (explicit.sources[0],), _HOME))
                freed = sum(len(c) == 1 for c in child.columns) > sum(len(c) == 1 for c in state.columns)
                assert kind == (1 if home or freed else 2)
            seen.add(kind)
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state = game.play(state, rng.choice(moves))[0]
    assert {0, 2, 3} <= seen
