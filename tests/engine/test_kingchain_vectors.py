"""The king-chain search's small budgets give the answers they always gave: tests/data/kingchain-vectors.json
(written by tools/kingchain_vectors.py from the search before the late scans joined at 20,000 positions) holds,
for tuning deals of cats-tail and royal-retinue, ``solve``'s outcome, count of positions expanded and winning line
at 4,000, 10,000 and 20,000 positions.

Hints (4,800 positions), the winnable filler (20,000) and the solvability table (10,000) depend on these exact
answers: only searches beyond 20,000 positions may change (kingchain.LATE_AFTER)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.solver import kingchain

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from kingchain_vectors import BUDGETS, answer  # noqa: E402

VECTORS: list[dict[str, Any]] = json.loads((ROOT / "tests" / "data" / "kingchain-vectors.json").read_text())["vectors"]


def test_the_vectors_reach_the_largest_budget_unwon_and_the_late_scans_join_there() -> None:
    """Wins at every budget, and deals still unknown at 20,000 positions: the budget the late scans join at."""
    assert max(BUDGETS) == kingchain.LATE_AFTER
    outcomes = {(v["max_states"], v["outcome"]) for v in VECTORS}
    assert {(b, "won") for b in BUDGETS} | {(b, "unknown") for b in BUDGETS} <= outcomes


@pytest.mark.parametrize("want", VECTORS, ids=lambda v: f"{v['variant']}-{v['deal']}-{v['max_states']}")
def test_the_search_gives_the_answer_it_gave_before(want: dict[str, Any]) -> None:
    assert answer(want["variant"], want["deal"], want["max_states"]) == want
