"""The generic search gives the answers it always gave: tests/data/solver-vectors.json (written by
tools/solver_vectors.py) holds, for deals and mid-game positions of the games it plays, the outcome, the count
of positions expanded and the winning line of ``solve`` at several budgets, and the hints at a few seeds.

A change that makes the search cheaper per position must leave every one of them as it was (the solvability
table and every hint a player was given depend on these exact answers); a change meant to alter them writes the
file again with the tool and says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import State, get_game
from engine.game import Game
from engine.solver import Finding, hint, solve
from engine.solver.profiles import profile_for

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "data" / "solver-vectors.json").read_text())
POSITIONS: list[dict[str, Any]] = VECTORS["positions"]


def _position(case: dict[str, Any]) -> tuple[Game, State]:
    game = get_game(case["variant"], case["options"])
    state = game.deal(bytes.fromhex(case["seed"]))
    for move in case["moves"].split():
        state = game.play(state, move)[0]
    return game, state


def _name(case: dict[str, Any]) -> str:
    options = ",".join(f"{k}={v}" for k, v in case["options"].items())
    return f"{case['variant']}{'[' + options + ']' if options else ''}-{case['seed'][:8]}+{len(case['moves'].split())}"


def test_the_vectors_cover_every_answer() -> None:
    """Wins, proofs of no win and budgets run out; every kind of hint but NO_MOVE."""
    outcomes = {s["outcome"] for case in POSITIONS for s in case["solves"]}
    codes = {h["code"] for case in POSITIONS for h in case["hints"]}
    assert outcomes == {o.value for o in Finding}
    assert {"WINNING_LINE", "WINS_IN_GUESSES", "SAFE_MOVE", "BEST_SCORE"} <= codes


@pytest.mark.parametrize("case", POSITIONS, ids=_name)
def test_solve_and_hint_answer_as_recorded(case: dict[str, Any]) -> None:
    game, state = _position(case)
    profile = profile_for(game) if case["generic_profile"] else None
    for want in case["solves"]:
        found = solve(game, state, max_states=want["max_states"], profile=profile)
        got = {
            "max_states": want["max_states"],
            "outcome": found.outcome.value,
            "states": found.states,
            "budget_hit": found.budget_hit,
            "line": " ".join(found.texts()),
        }
        assert got == want
    for want in case["hints"]:
        given = hint(
            game,
            state,
            seed=bytes.fromhex(want["seed"]),
            samples=want["samples"],
            sample_states=want["sample_states"],
            full_states=want["full_states"],
        )
        got = {
            **want,
            "move": given.text(),
            "code": given.code.value,
            "reason": given.reason,
            "wins": given.wins,
            "tried": given.tried,
            "moves_to_end": given.moves_to_end,
        }
        assert got == want
