"""The generic search's late scans (engine/solver/search.py: three playouts, a depth-first scan by kind) join only
after ``LATE_AFTER`` positions.

Hints, the hint follower and the solvability table's small budgets depend on the search's exact answers up to
20,000 positions: there it must be the four scans alone, position for position (tests/data/solver-vectors.json
covers budgets up to 3,000; this covers 4,000, 10,000 and 20,000 on tuning deals of every game it plays, against
the same search with the late scans never joining, which is the search before them). Past that budget they win
deals the four miss: two tribunal tuning deals are won within 27,000 positions with them, not without.
"""

from __future__ import annotations

import hashlib

import pytest

from engine import get_game
from engine.solver import Finding, search, solve
from engine.verify import Outcome, replay

#: (variant, options, a tuning deal): one the scans have not won within 4,000 positions where there is one among
#: the first twelve (picture-gallery and sultan-36 win all twelve sooner).
GAMES = (
    ("tribunal", {}, 2),
    ("picture-gallery", {}, 0),
    ("picture-gallery", {"deals": 3}, 0),
    ("captives", {}, 1),
    ("sultan-36", {}, 0),
    ("sultan-52", {}, 7),
)
BUDGETS = (4_000, 10_000, 20_000)


def tune_seed(i: int) -> bytes:
    """The tuning deals (bench/head_to_head_bench.py evaluates on others, never tuned on)."""
    return hashlib.sha256(b"tune-%d" % i).digest()


def answer(found: search.Solution) -> tuple[str, int, str, list[str]]:
    return found.outcome.value, found.states, found.budget_hit, found.texts()


def test_the_late_scans_join_after_twenty_thousand_positions() -> None:
    assert search.LATE_AFTER == 20_000


@pytest.mark.parametrize(("variant", "options", "deal"), GAMES, ids=lambda v: str(v))
def test_up_to_twenty_thousand_positions_the_search_is_the_scans_alone(
    variant: str, options: dict[str, object], deal: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = get_game(variant, options)
    state = game.deal(tune_seed(deal))
    today = [answer(solve(game, state, max_states=budget)) for budget in BUDGETS]
    monkeypatch.setattr(search, "LATE_AFTER", 10**12)
    before = [answer(solve(game, state, max_states=budget)) for budget in BUDGETS]
    assert today == before


@pytest.mark.parametrize("deal", [2, 107])
def test_the_late_scans_win_deals_the_four_miss_at_the_same_budget(deal: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tribunal's tuning deals 2 (won by a playout at 20,816 positions; the four alone need 159,504) and 107 (won
    at 25,488; the four alone need 29,054)."""
    game = get_game("tribunal")
    state = game.deal(tune_seed(deal))
    found = solve(game, state, max_states=27_000)
    assert found.outcome is Finding.WON and found.states > search.LATE_AFTER
    assert replay(game, state, found.moves).verdict.outcome is Outcome.WON
    monkeypatch.setattr(search, "LATE_AFTER", 10**12)
    assert solve(game, state, max_states=27_000).outcome is Finding.UNKNOWN


@pytest.mark.parametrize("label", ["tune-14", "unseen-c-23"])
def test_the_late_phase_by_kind_wins_deals_the_first_late_scans_miss(
    label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tribunal tuning deals (tune-14 was won by the simple playouts in 0.11 s and lost by the search of then in 10
    s): with most late turns to playouts drawing as the simple player does and the depth-first scan by kind that
    marks on expanding, they fall within 29,000 positions (at 28,228 and 24,177); the first late scans (the late
    phase the sultans keep) do not win them at that budget (unseen-c-23 at 29,716)."""
    game = get_game("tribunal")
    state = game.deal(hashlib.sha256(label.encode()).digest())
    found = solve(game, state, max_states=29_000)
    assert found.outcome is Finding.WON and found.states > search.LATE_AFTER
    assert replay(game, state, found.moves).verdict.outcome is Outcome.WON
    monkeypatch.setattr(search, "LATE_BY_KIND", search.LATE_SCORED)
    assert solve(game, state, max_states=29_000).outcome is Finding.UNKNOWN


def test_the_sultans_keep_the_first_late_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sultan-52 tuning deal unseen-12: its playouts by score win it within 50,000 positions in the first late
    phase, which the sultans keep; with the late phase by kind (fewer turns for them) it is not won at that budget."""
    game = get_game("sultan-52")
    state = game.deal(hashlib.sha256(b"unseen-12").digest())
    found = solve(game, state, max_states=50_000)
    assert found.outcome is Finding.WON and found.states > search.LATE_AFTER
    assert replay(game, state, found.moves).verdict.outcome is Outcome.WON
    monkeypatch.setattr(search, "LATE_SCORED", search.LATE_BY_KIND)
    assert solve(game, state, max_states=50_000).outcome is Finding.UNKNOWN
