"""The king-chain games' own search (engine/solver/kingchain.py) against the engine's rules.

Its compact position and its compound moves are its own code, not the game's: so every move it makes is
replayed through ``Game.play`` (which refuses an illegal one), its safe moves are checked against
``autoplay``, and its kinds of moves are checked to reach every position a legal move reaches (or its
"no win exists" would not be a proof).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.game import Game
from engine.games.royal_retinue import RoyalRetinue
from engine.moves import PileKind
from engine.solver import autoplay, kingchain
from engine.solver.kingchain import ALL_KINDS, COL_COL, apply, explicit, from_state, key, moves, settle
from engine.verify import Outcome as Verdict
from engine.verify import replay

KING_CHAIN = [
    ("royal-retinue", {}),
    ("royal-retinue-aces", {}),
    ("royal-retinue-kings-last", {}),
    ("cats-tail", {}),
    ("cats-tail", {"sequence_moves": False}),
    ("royal-retinue", {"sequence_moves": False}),
]


def walk(game: Game, seed: bytes, rng: random.Random, steps: int) -> State:
    """A position ``steps`` random legal moves (each followed by auto-play) into a deal."""
    state, _ = autoplay(game, game.deal(seed))
    for _ in range(steps):
        legal = [m for m in game.generate_legal_moves(state) if m.sources[0].kind is not PileKind.FOUNDATION]
        if not legal:
            break
        state, _ = autoplay(game, game.play(state, rng.choice(legal))[0])
    return state


def play_steps(pos: kingchain.Pos, steps: kingchain.Steps) -> kingchain.Pos:
    for step in steps:
        pos = apply(pos, step)
    return pos


def runs_of(game: Game) -> bool:
    return bool(game.options.get("sequence_moves", True))


positions = st.tuples(
    st.sampled_from(KING_CHAIN),
    st.binary(min_size=32, max_size=32),
    st.randoms(use_true_random=False),
    st.integers(0, 60),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_every_move_of_every_kind_is_legal_and_lands_where_the_game_does(
    case: tuple[tuple[str, dict[str, object]], bytes, random.Random, int],
) -> None:
    (variant, options), seed, rng, steps = case
    game = get_game(variant, options)
    assert isinstance(game, RoyalRetinue)
    state = walk(game, seed, rng, steps)
    pos = from_state(state)
    for kind in moves(pos, runs_of(game)):
        for move in kind:
            # explicit() plays each step through Game.play, which raises on an illegal one
            real = state
            for m in explicit(game, state, (move,)):
                real = game.play(real, m)[0]
            assert key(play_steps(pos, move)) == key(from_state(real))
            if not runs_of(game):
                assert all(s[0] != COL_COL or s[3] == 1 for s in move)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_the_kinds_of_moves_reach_every_position_a_legal_move_reaches(
    case: tuple[tuple[str, dict[str, object]], bytes, random.Random, int],
) -> None:
    """What makes "no win exists" a proof: the scan that tries every kind misses no legal move (foundation
    runs aside, which only swap two piles of a suit: the key does not tell those apart)."""
    (variant, options), seed, rng, steps = case
    game = get_game(variant, options)
    state = walk(game, seed, rng, steps)
    pos = from_state(state)
    reached = {key(settle(play_steps(pos, m))[0]) for kind in moves(pos, runs_of(game)) for m in kind}
    for legal in game.generate_legal_moves(state):
        child = game.play(state, legal)[0]
        if legal.sources[0].kind is PileKind.FOUNDATION:
            assert key(from_state(child)) == key(pos)
            continue
        assert key(settle(from_state(child))[0]) in reached, legal.text()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_safe_moves_are_the_ones_autoplay_makes(
    case: tuple[tuple[str, dict[str, object]], bytes, random.Random, int],
) -> None:
    (variant, options), seed, rng, steps = case
    game = get_game(variant, options)
    state = walk(game, seed, rng, steps)
    # a position before auto-play: the last random move's safe moves not yet made
    legal = [m for m in game.generate_legal_moves(state) if m.sources[0].kind is not PileKind.FOUNDATION]
    if legal:
        state = game.play(state, rng.choice(legal))[0]
    settled, steps_made = settle(from_state(state))
    after, made = autoplay(game, state)
    assert key(settled) == key(from_state(after))
    assert len(steps_made) == len(made)


def test_the_key_folds_column_order_and_reserve_cells() -> None:
    game = get_game("cats-tail")
    state = game.deal(b"\x01" * 32)
    state = game.play(state, "2-r")[0]
    state = game.play(state, "3-r")[0]
    shuffled = state._replace(columns=tuple(reversed(state.columns)), cells=tuple(reversed(state.cells)))
    assert key(from_state(shuffled)) == key(from_state(state))
    assert key(from_state(game.play(state, "4-r")[0])) != key(from_state(state))


def test_a_scan_that_leaves_out_kinds_goes_idle_instead_of_claiming_no_win() -> None:
    game = get_game("royal-retinue")
    state = game.deal(b"\x02" * 32)
    root, _ = settle(from_state(state))
    partial = kingchain.Scan(root, True, ((kingchain.HOME,),))
    assert not partial.complete
    assert partial.run(10_000) is None
    assert partial.idle
    whole = kingchain.Scan(root, True, tuple((k,) for k in sorted(ALL_KINDS)))
    assert whole.complete


@pytest.mark.parametrize(("variant", "options"), KING_CHAIN)
def test_each_scan_alone_finds_only_lines_that_replay(variant: str, options: dict[str, object]) -> None:
    game = get_game(variant, options)
    assert isinstance(game, RoyalRetinue)
    for i in range(3):
        state = game.deal(bytes([i]) * 32)
        root, auto = settle(from_state(state))
        for scan in kingchain.scans(root, runs_of(game)):
            try:
                line = scan.run(300)
            except kingchain.Exhausted:
                continue
            if line is not None:
                found = explicit(game, state, (auto, *line))
                assert replay(game, state, [m.text() for m in found]).verdict.outcome is Verdict.WON
