"""Solve a full-information game with Freecell Solver, from what the player sees.

``cats-tail`` and ``royal-retinue`` show every card (docs/rules.md), so the view is
the whole position: :func:`state_from_view` rebuilds the engine's state from
it, ``engine.fcs`` writes fc-solve's board and reads its solution back, and the
engine replays the solution here before anything is sent. Where to find
fc-solve: ``--fc-solve``, else ``$FC_SOLVE``, else ``fc-solve`` on PATH, else
``~/.cache/fc-solve/bin/fc-solve`` (where ``deploy/setup.sh`` builds it with
room for 104-card columns; Debian's freecell-solver-bin is built too small).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from patience.v1 import patience_pb2 as pb

from engine.cards import NO_CARD, parse_card
from engine.catalogue import get_game
from engine.fcs import DEFAULT_MAX_ITERATIONS, fcs_args, fcs_board, fcs_import, fcs_supported
from engine.game import Game
from engine.state import State
from engine.verify import Outcome, replay

from .errors import PatienceClientError


class SolverError(PatienceClientError):
    """No solution: the game is not one fc-solve plays, fc-solve is missing, or it found none."""


def state_from_view(game: pb.Game) -> tuple[Game, State]:
    """The engine's rules and position for a view with no hidden card (SolverError otherwise)."""
    view = game.view
    if view.stock_count or any(c == "??" for c in view.captives):
        raise SolverError(f"{game.variant} hides cards: only full-information games can be solved from the view")
    rules = get_game(game.variant, dict(game.options))
    state = State(
        columns=tuple(tuple(parse_card(c) for c in p.cards) for p in view.columns),
        cells=tuple(parse_card(c) if c else NO_CARD for c in view.cells),
        foundations=tuple(tuple(parse_card(c) for c in p.cards) for p in view.foundations),
        waste=tuple(parse_card(c) for c in view.waste),
        fixed=tuple(parse_card(c) for c in view.fixed),
        redeals=view.redeals_used,
    )
    return rules, state


def find_fc_solve(given: str | None = None) -> str:
    candidates = [given, os.environ.get("FC_SOLVE"), shutil.which("fc-solve"), "~/.cache/fc-solve/bin/fc-solve"]
    for candidate in candidates:
        if candidate and os.access(os.path.expanduser(candidate), os.X_OK):
            return os.path.expanduser(candidate)
    raise SolverError(
        "fc-solve not found: pass --fc-solve PATH or set FC_SOLVE (deploy/setup.sh builds it into ~/.cache/fc-solve)"
    )


def solve(
    game: pb.Game, *, fc_solve: str | None = None, max_iterations: int = DEFAULT_MAX_ITERATIONS, timeout: float = 600
) -> list[str]:
    """Moves that win ``game`` from its current position, checked with the engine before they are returned."""
    rules, state = state_from_view(game)
    if not fcs_supported(rules):
        raise SolverError(f"fc-solve does not play {game.variant} with these options")
    program = find_fc_solve(fc_solve)
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / "board.txt"
        board.write_text(fcs_board(rules, state))
        try:
            run = subprocess.run(
                [program, *fcs_args(rules, max_iterations), str(board)],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise SolverError(f"fc-solve found nothing in {timeout:.0f} s") from exc
    try:
        moves = fcs_import(run.stdout)
    except ValueError as exc:
        raise SolverError(f"fc-solve's output could not be read: {exc}") from exc
    verdict = replay(rules, state, moves).verdict
    if verdict.outcome is not Outcome.WON:
        said = (run.stdout.strip().splitlines() or [run.stderr.strip()])[-1:]
        raise SolverError(f"fc-solve found no win (it said: {' '.join(said)[:200]}; {verdict.describe()})")
    return moves
