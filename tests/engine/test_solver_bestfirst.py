"""The best-first king-chain scan (engine/solver/kingchain_bestfirst.py, ``bf_*`` in _kingchain.c).

Both cores give the same answer with it (outcome, line step for step, count), alone and among the late scans;
a complete one proves that no win exists after exactly as many positions as a complete depth-first scan; the
late scans win a tuning deal that the depth-first ones alone did not within 10 s.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from test_solver_compiled import both, needs_core
from test_solver_kingchain import walk

from engine import get_game
from engine.games.royal_retinue import RoyalRetinue
from engine.solver import compiled, kingchain
from engine.solver.kingchain_bestfirst import SCORE_OLDEST, UNDER, UNDER_NEWEST, BestFirst, under
from engine.solver.search import SLICE
from engine.verify import Outcome as Verdict
from engine.verify import replay

MODES = range(SCORE_OLDEST, UNDER_NEWEST + 1)
PURPOSEFUL = ((kingchain.HOME,), (kingchain.CELL_OUT,), (kingchain.DIG_HOME,), (kingchain.RUN,))


def config(mode: int, order: tuple[tuple[int, ...], ...] = PURPOSEFUL) -> kingchain.ScanConfig:
    return (order, 0, 0, kingchain.WEIGHTS, False, mode)


def deal(variant: str, label: str) -> tuple[RoyalRetinue, kingchain.Pos]:
    game = get_game(variant)
    assert isinstance(game, RoyalRetinue)
    root, _ = kingchain.settle(kingchain.from_state(game.deal(hashlib.sha256(label.encode()).digest())))
    return game, root


def assert_wins(game: RoyalRetinue, label: str, line: kingchain.Line) -> None:
    """The line (from the settled deal) replays as a win through the engine's verifier."""
    state = game.deal(hashlib.sha256(label.encode()).digest())
    moves = kingchain.explicit(game, state, (kingchain.settle(kingchain.from_state(state))[1], *line))
    verdict = replay(game, state, [m.text() for m in moves]).verdict
    assert verdict.outcome is Verdict.WON, verdict.describe()


def test_the_weight_of_cards_under_a_run_grows_faster_than_their_number() -> None:
    assert UNDER[:4] == (0, 100, 246, 417) and UNDER[104] == 41893
    assert all(UNDER[k + 1] - UNDER[k] > UNDER[k] - UNDER[k - 1] for k in range(1, 104))
    # columns head first: 9C lies on TD (a run of two on top), under them KS and 3H
    cards = {"KS": 51, "3H": 28, "TD": 22, "9C": 8}
    col = bytes(cards[c] for c in ("KS", "3H", "TD", "9C"))
    assert under(((col, b"", bytes([cards["KS"]])), b"", bytes(8))) == UNDER[2] + 0 + 0


@needs_core
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", ["cats-tail", "royal-retinue"])
def test_both_cores_give_the_same_answers_alone(variant: str, mode: int) -> None:
    """A best-first scan alone, at budgets from one slice to 3,000 positions, on four deals of each game."""
    for i in range(4):
        _, root = deal(variant, f"bestfirst-test-{i}")
        for budget in (1, SLICE + 5, 3_000):
            ours = compiled.run(root, True, budget, SLICE, None, (config(mode),), ())
            theirs = kingchain.run(root, True, budget, SLICE, None, (config(mode),), ())
            assert ours == theirs


@needs_core
def test_a_line_found_best_first_replays_as_a_win() -> None:
    """royal-retinue ``unseen-b-186`` (Freecell Solver 3.1 s, the depth-first scans not within 60 s): best-first
    by cards home and under runs, ties to the oldest, wins it in 547 positions, and the line replays."""
    game, root = deal("royal-retinue", "unseen-b-186")
    want = compiled.run(root, True, 1_000, SLICE, None, (config(3),), ())
    assert want[:2] == (kingchain.RUN_WON, 547)
    assert kingchain.run(root, True, 1_000, SLICE, None, (config(3),), ()) == want
    assert_wins(game, "unseen-b-186", want[2])


def test_a_complete_best_first_scan_proves_no_win_after_every_position() -> None:
    """On positions with no win (60 random moves into royal-retinue deals) a best-first scan of every kind runs
    out after exactly the positions a complete depth-first scan visits, in both cores and in every mode."""
    game = get_game("royal-retinue")
    assert isinstance(game, RoyalRetinue)
    every = tuple((k,) for k in sorted(kingchain.ALL_KINDS))
    for i, positions in ((16, 681), (68, 847)):
        state = walk(game, bytes([i]) * 32, random.Random(i), 60)
        root, _ = kingchain.settle(kingchain.from_state(state))
        for mode in MODES:
            scan = BestFirst(root, True, every, kingchain.WEIGHTS, mode)
            with pytest.raises(kingchain.Exhausted):
                scan.run(10_000)
            assert scan.expanded == positions
            if compiled.built():
                assert compiled.run(root, True, None, SLICE, None, (config(mode, every),), ()) == (
                    kingchain.RUN_NO_WIN,
                    positions,
                    (),
                )


def test_an_incomplete_best_first_scan_goes_idle_and_a_bad_mode_is_refused() -> None:
    game = get_game("royal-retinue")
    assert isinstance(game, RoyalRetinue)
    state = walk(game, bytes([16]) * 32, random.Random(16), 60)
    root, _ = kingchain.settle(kingchain.from_state(state))
    scan = BestFirst(root, True, ((kingchain.HOME,),), kingchain.WEIGHTS, UNDER_NEWEST)
    assert scan.run(10_000) is None and scan.idle
    with pytest.raises(ValueError):
        BestFirst(root, True, PURPOSEFUL, kingchain.WEIGHTS, 5)
    with pytest.raises(ValueError):
        kingchain.run(root, True, 10, SLICE, None, proof_slices=0)
    if compiled.built():
        with pytest.raises(ValueError):
            compiled.run(root, True, 10, SLICE, None, (config(5),), ())
        with pytest.raises(ValueError):
            compiled.run(root, True, 10, SLICE, None, proof_slices=0)


@needs_core
@pytest.mark.parametrize("late_after", [0, 300])
def test_the_late_scans_with_best_first_ones_agree_in_both_cores(late_after: int) -> None:
    """Every late scan (depth-first and best-first) joining early, at budgets up to 2,500 positions."""
    for variant, label in (("cats-tail", "bestfirst-test-5"), ("royal-retinue", "bestfirst-test-6")):
        game = get_game(variant)
        assert isinstance(game, RoyalRetinue)
        state = game.deal(hashlib.sha256(label.encode()).digest())
        for budget in (700, 2_500):
            both(game, state, budget, late_after=late_after)


#: Positions the search expands to win royal-retinue ``unseen-b-186`` and cats-tail ``unseen-b-98``.
WIN_186, WIN_98 = 49_315, 727_734
#: The late scans of before (issue 26's first round): the sixteen depth-first ones, one slice a turn each.
BEFORE = tuple((config, 1) for config, _ in kingchain.LATE_SCANS if not config[5])


@needs_core
def test_the_late_scans_win_tuning_deals_the_search_before_lost() -> None:
    """royal-retinue ``unseen-b-186`` and cats-tail ``unseen-b-98``, won by Freecell Solver in about 3 s and lost by
    the search before within 60 s: the search wins them at 49,315 and 727,734 positions now (0.06 s and 1 s), and
    the late scans of before (no best-first scan, their turns as they were) do not within those budgets."""
    for variant, label, budget in (("royal-retinue", "unseen-b-186", WIN_186), ("cats-tail", "unseen-b-98", WIN_98)):
        game, root = deal(variant, label)
        answer, expanded, line = compiled.run(root, True, budget, SLICE, None)
        assert (answer, expanded) == (kingchain.RUN_WON, budget)
        assert_wins(game, label, line)
        before = compiled.run(root, True, budget, SLICE, None, late=BEFORE, proof_slices=1)
        assert before[0] == kingchain.RUN_STATES
