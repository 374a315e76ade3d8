"""The compiled king-chain search (engine/solver/compiled.py, _kingchain.c) against the pure-Python one.

Both must give the same answer for any position and any budget in positions: the same outcome, the same
line step for step, the same count of expanded positions. They are compared on deals of the four king-chain
games with runs on and off, on positions part-way through random legal playouts, at several budgets; on
hand-built endings with no win; and every line either finds is replayed by the verifier.
"""

from __future__ import annotations

import hashlib
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_solver import HEART_COLUMNS, hearts_ending
from test_solver_kingchain import KING_CHAIN, walk

from engine import State, get_game
from engine.games.royal_retinue import RoyalRetinue
from engine.solver import Finding, compiled, kingchain, solve
from engine.solver.search import SLICE
from engine.verify import Outcome as Verdict
from engine.verify import replay

#: deploy/test.sh sets PATIENCE_SOLVER=c. Read when the module is collected: tests/conftest.py then clears every
#: PATIENCE_* variable for the session.
REQUIRED = os.environ.get(compiled.ENV) == "c"
needs_core = pytest.mark.skipif(not compiled.built(), reason="the compiled king-chain search is not built")

GAMES = [
    ("royal-retinue", {}),
    ("royal-retinue-aces", {}),
    ("royal-retinue-kings-last", {}),
    ("cats-tail", {}),
    ("cats-tail", {"sequence_moves": False}),
    ("royal-retinue", {"sequence_moves": False}),
    ("royal-retinue-aces", {"sequence_moves": False}),
    ("royal-retinue-kings-last", {"sequence_moves": False}),
]


def seed(i: int) -> bytes:
    return hashlib.sha256(b"compiled-test-%d" % i).digest()


def both(
    game: RoyalRetinue,
    state: State,
    budget: int | None,
    late: tuple[kingchain.LateScan, ...] = kingchain.LATE_SCANS,
    late_after: int = kingchain.LATE_AFTER,
) -> tuple[str, int, kingchain.Line]:
    """Both searches from ``state`` (the late scans joining after ``late_after`` positions): asserted equal,
    the answer returned."""
    root, _ = kingchain.settle(kingchain.from_state(state))
    runs = bool(game.options.get("sequence_moves", True))
    ours = compiled.run(root, runs, budget, SLICE, None, late=late, late_after=late_after)
    theirs = kingchain.run(root, runs, budget, SLICE, None, late=late, late_after=late_after)
    assert ours[0] == theirs[0], (ours[0], theirs[0])
    assert ours[1] == theirs[1], "the same count of expanded positions"
    assert ours[2] == theirs[2], "the same line, step for step"
    if ours[0] == kingchain.RUN_WON:
        moves = kingchain.explicit(game, state, (kingchain.settle(kingchain.from_state(state))[1], *ours[2]))
        verdict = replay(game, state, [m.text() for m in moves]).verdict
        assert verdict.outcome is Verdict.WON, verdict.describe()
    return ours


def test_the_compiled_search_is_built_where_the_set_up_promises_it() -> None:
    """deploy/test.sh sets PATIENCE_SOLVER=c: there, a missing compiled core fails here (and solve raises)."""
    if not REQUIRED:
        pytest.skip("PATIENCE_SOLVER=c is not set (only the README's set-up promises the build)")
    assert compiled.built()
    assert compiled.active()


@needs_core
@pytest.mark.parametrize(("variant", "options"), GAMES)
def test_deals_give_the_same_answers_at_every_budget(variant: str, options: dict[str, object]) -> None:
    game = get_game(variant, options)
    assert isinstance(game, RoyalRetinue)
    state = game.deal(seed(len(options)))
    answers = [both(game, state, budget)[0] for budget in (0, 50, 400, 2000)][1:]
    assert answers[0] == kingchain.RUN_STATES  # 50 positions win no deal


@needs_core
@pytest.mark.parametrize(("variant", "options"), GAMES)
@pytest.mark.parametrize("late_after", [0, 300])
def test_the_late_scans_give_the_same_answers_in_both_searches(
    variant: str, options: dict[str, object], late_after: int
) -> None:
    """The late scans join at a threshold lowered from ``LATE_AFTER`` (1 M positions is too slow for the
    Python search in a test): both searches still agree, before and after they join."""
    game = get_game(variant, options)
    assert isinstance(game, RoyalRetinue)
    state = game.deal(seed(10 + len(options)))
    for budget in (200, 1500, 4000):
        both(game, state, budget, late_after=late_after)


@needs_core
@pytest.mark.parametrize("core", ["c", "python"])
def test_below_the_threshold_the_late_scans_change_nothing(core: str) -> None:
    """Up to ``late_after`` positions the answer (outcome, line, count) is that of the first scans alone:
    the budgets of hints, the winnable filler and the solvability table keep their answers."""
    search = compiled.run if core == "c" else kingchain.run
    for variant, options in GAMES[:4]:
        game = get_game(variant, options)
        runs = bool(game.options.get("sequence_moves", True))
        for i in range(3):
            root, _ = kingchain.settle(kingchain.from_state(game.deal(seed(20 + i))))
            for budget in (1, 300, 700):
                alone = search(root, runs, budget, SLICE, None, late=())
                assert search(root, runs, budget, SLICE, None, late_after=700) == alone
                assert search(root, runs, budget, SLICE, None) == alone  # LATE_AFTER itself


@needs_core
def test_the_late_scans_win_deals_the_first_ones_do_not_win_early() -> None:
    """Cats-tail tuning deal 157 (the first scans alone need 3.0 M positions, Freecell Solver 10 ms) and
    royal-retinue deal 26 of the benchmark (2.7 M): the scans that mark positions on visiting, joining at
    20,000, win them at 20,597 and 30,454 positions, the same in both cores; the first scans alone do not
    within 100,000. Joined from the start, they win them within 12,000."""
    for variant, label in (("cats-tail", b"tune-157"), ("royal-retinue", b"solver-bench-26")):
        game = get_game(variant)
        assert isinstance(game, RoyalRetinue)
        state = game.deal(hashlib.sha256(label).digest())
        root, _ = kingchain.settle(kingchain.from_state(state))
        assert compiled.run(root, True, 100_000, SLICE, None, late=())[0] == kingchain.RUN_STATES
        answer, expanded, _ = both(game, state, 100_000)
        assert answer == kingchain.RUN_WON and kingchain.LATE_AFTER < expanded < 31_000
        answer, expanded, _ = both(game, state, 12_000, late_after=0)
        assert answer == kingchain.RUN_WON


def test_a_scan_marking_on_visit_also_proves_no_win_after_the_same_positions() -> None:
    """A complete scan that marks positions when it visits them still visits every reachable one exactly once:
    on positions with no win (60 random moves into royal-retinue deals) it runs out after as many positions as
    one that marks them when generated, in both cores."""
    game = get_game("royal-retinue")
    assert isinstance(game, RoyalRetinue)
    every = tuple((k,) for k in sorted(kingchain.ALL_KINDS))
    for i, positions in ((16, 681), (68, 847)):
        state = walk(game, bytes([i]) * 32, random.Random(i), 60)
        root, _ = kingchain.settle(kingchain.from_state(state))
        for on_visit in (False, True):
            scan = kingchain.Scan(root, True, every, 3, 0, kingchain.WEIGHTS, on_visit)
            with pytest.raises(kingchain.Exhausted):
                scan.run(10_000)
            assert scan.expanded == positions
            config = (every, 3, 0, kingchain.WEIGHTS, on_visit, 0)
            if compiled.built():
                answer = compiled.run(root, True, None, SLICE, None, (config,), ())
                assert answer == (kingchain.RUN_NO_WIN, positions, ())


@needs_core
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(KING_CHAIN),
    st.binary(min_size=32, max_size=32),
    st.randoms(use_true_random=False),
    st.integers(0, 80),
    st.sampled_from([1, 50, 400]),
    st.sampled_from([0, 100, kingchain.LATE_AFTER]),
)
def test_positions_within_games_give_the_same_answers(
    config: tuple[str, dict[str, object]], deal: bytes, rng: random.Random, steps: int, budget: int, late_after: int
) -> None:
    variant, options = config
    game = get_game(variant, options)
    assert isinstance(game, RoyalRetinue)
    state = walk(game, deal, rng, steps)
    if game.is_won(state) or kingchain.settle(kingchain.from_state(state))[0][2] == kingchain.WON:
        return
    both(game, state, budget, late_after=late_after)


@needs_core
def test_hand_built_endings_no_win_and_win_agree() -> None:
    game = get_game("royal-retinue")
    assert isinstance(game, RoyalRetinue)
    stuck = hearts_ending("2H 2H 3H 3H 4H 4H 5H 5H", ["AH KH", "AH KH", "7H 7H 6H 6H", *HEART_COLUMNS[3:]])
    searched = hearts_ending("2H 2H 3H 3H 4H 4H 5H ..", ["AH QH KH", "AH QH KH", "7H 7H 6H 6H 5H", *HEART_COLUMNS[3:5]])
    winnable = hearts_ending("2H 2H 3H 3H 4H 4H .. ..", HEART_COLUMNS)
    assert both(game, stuck, None)[0] == kingchain.RUN_NO_WIN
    answer, expanded, _ = both(game, searched, None)
    assert answer == kingchain.RUN_NO_WIN and expanded >= 1
    assert both(game, winnable, 1000)[0] == kingchain.RUN_WON


@needs_core
def test_solve_says_which_search_ran_and_the_variable_forces_python(monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("cats-tail")
    state = game.deal(seed(0))
    monkeypatch.delenv(compiled.ENV, raising=False)
    fast = solve(game, state, max_states=300)
    monkeypatch.setenv(compiled.ENV, "python")
    slow = solve(game, state, max_states=300)
    assert (fast.core, slow.core) == ("c", "python")
    assert (fast.outcome, fast.moves, fast.states) == (slow.outcome, slow.moves, slow.states)


@needs_core
def test_a_budget_in_seconds_stops_the_compiled_search() -> None:
    game = get_game("royal-retinue")
    found = solve(game, game.deal(seed(0)), max_seconds=1e-9)
    assert (found.outcome, found.budget_hit, found.core) == (Finding.UNKNOWN, "seconds", "c")


@needs_core
@pytest.mark.parametrize(
    "bad",
    [
        ((b"\x60",), b"", bytes(8)),  # not a card
        ((b"\x00\x00\x00",), b"", bytes(8)),  # three copies of one card
        ((b"",) * 10, b"", bytes(8)),  # ten columns
        ((b"\x01",), bytes(9), bytes(8)),  # nine cells
        ((b"\x01",), b"\x05\x02", bytes(8)),  # cells not sorted
        ((b"\x01",), b"", bytes([1, 0, 0, 0, 0, 0, 0, 0])),  # a foundation pair not sorted
        ((b"\x00",), b"", bytes([1, 1, 0, 0, 0, 0, 0, 0])),  # the ace of clubs twice home and once in play
        ((bytes(range(52)) * 2 + b"\x00",), b"", bytes(8)),  # 105 cards
    ],
)
def test_a_bad_position_raises_instead_of_crashing(bad: kingchain.Pos) -> None:
    with pytest.raises(ValueError):
        compiled.run(bad, True, 10, SLICE, None)


@needs_core
def test_a_negative_threshold_or_a_late_turn_out_of_range_raises() -> None:
    game = get_game("royal-retinue")
    root, _ = kingchain.settle(kingchain.from_state(game.deal(seed(0))))
    config = kingchain.LATE_SCANS[0][0]
    for late_after, late in ((-1, kingchain.LATE_SCANS), (0, ((config, 0),)), (0, ((config, 1025),))):
        with pytest.raises(ValueError):
            compiled.run(root, True, 10, SLICE, None, late=late, late_after=late_after)


@needs_core
def test_the_longest_columns_and_a_ninth_column_are_taken() -> None:
    """A column of all 104 cards (deepest first, kings at the head), and nine columns: no overflow."""
    deck = [13 * s + r for r in range(12, -1, -1) for s in range(4)] * 2
    one = ((bytes(deck),), b"", bytes(8))
    assert compiled.run(one, True, 2000, SLICE, None) == kingchain.run(one, True, 2000, SLICE, None)
    nine = tuple(bytes(deck[i::9]) for i in range(9))
    mine = compiled.run((nine, b"", bytes(8)), True, 300, SLICE, None)
    assert mine == kingchain.run((nine, b"", bytes(8)), True, 300, SLICE, None)
