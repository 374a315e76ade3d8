"""A certified win without playing by hand: Freecell Solver's solutions through patience-cli.

The deals are those of tests/data/fcs/ (the server is given their seeds), so
the fixture files replay as wins; ``patience-cli solve`` runs fc-solve itself on
the position it reads from the view. fc-solve missing is a failure, as in
tests/engine/test_fcs_oracle.py, unless PATIENCE_SKIP_FCS=1 outside CI.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from client_harness import Seeds, ServiceThread
from patience_client import cli, statefile
from patience_client.solver import SolverError, find_fc_solve

from engine.catalogue import get_game
from engine.fcs import fcs_board
from engine.verify import Outcome, verify

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fcs"
SEED_HEX = "257c14e06afb0502d3246a7228c26c637cd570a3e4a0b73ab45b7714b074c0be"
SEED = bytes.fromhex(SEED_HEX)


@pytest.fixture
def fcs_service(redis_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceThread]:
    """A service whose first deals use the fixture seed."""
    server = ServiceThread(redis_db, tmp_path_factory.mktemp("keys"), seeds=Seeds(SEED, SEED, SEED)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def env(fcs_service: ServiceThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "current.json"
    monkeypatch.setenv("PATIENCE_TARGET", fcs_service.target)
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(state))
    monkeypatch.chdir(tmp_path)
    return state


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def fc_solve_or_skip() -> None:
    try:
        find_fc_solve()
    except SolverError:
        if os.environ.get("PATIENCE_SKIP_FCS") == "1" and os.environ.get("CI", "") in ("", "false"):
            pytest.skip("fc-solve is missing and PATIENCE_SKIP_FCS=1")
        raise


@pytest.mark.parametrize("variant", ["cats-tail", "royal-retinue"])
def test_a_freecell_solver_fixture_submitted_wins_a_certificate(env: Path, variant: str) -> None:
    assert run("new", variant)[0] == 0
    code, out = run("submit", str(FIXTURES / f"{variant}-{SEED_HEX}.txt"))
    assert code == 0 and "won after" in out
    saved = statefile.load(env)
    assert saved is not None
    code, out = run("verify-cert", f"patience-{saved.game_id}.cert", "--replay")
    assert code == 0 and "✓ certificate valid" in out


def test_fcs_board_is_the_engines_board_of_the_deal(env: Path) -> None:
    run("new", "cats-tail")
    code, out = run("fcs-board")
    game = get_game("cats-tail")
    assert code == 0 and out == fcs_board(game, game.deal(SEED))


def test_solve_plays_on_from_a_position_reached_by_hand(env: Path) -> None:
    fc_solve_or_skip()
    run("new", "cats-tail")
    game = get_game("cats-tail")
    first = next(iter(game.legal_moves(game.deal(SEED)))).text()
    assert run("move", first)[0] == 0
    code, out = run("solve", "--play")
    assert code == 0 and "won!" in out
    saved = statefile.load(env)
    assert saved is not None
    assert run("verify-cert", f"patience-{saved.game_id}.cert", "--replay")[0] == 0


def test_solve_writes_a_solution_from_the_deal_and_submits_it(env: Path, tmp_path: Path) -> None:
    fc_solve_or_skip()
    run("new", "royal-retinue")
    code, out = run("solve", "--out", "solution.txt", "--submit")
    assert code == 0 and "won after" in out
    moves = (tmp_path / "solution.txt").read_text().split()
    assert verify("royal-retinue", {}, SEED, moves).outcome is Outcome.WON


def test_hidden_cards_cannot_be_solved_from_the_view(env: Path) -> None:
    run("new", "sultan-36")
    code, out = run("solve")
    assert code == 1 and "hides cards" in out
