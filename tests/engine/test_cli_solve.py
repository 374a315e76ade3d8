"""``patience solve``, run as the installed console script; every line it prints is checked by
``patience verify``, the same command a player would use."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from engine import get_game

SEED = "03" * 32
EXE = shutil.which("patience", path=str(Path(sys.executable).parent))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    assert EXE, "the patience console script is installed with the package"
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120)


def verify(variant: str, moves: list[str], tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "line.txt"
    path.write_text("\n".join(moves) + "\n")
    return run("verify", variant, "--seed", SEED, *options, str(path))


def test_solve_prints_a_line_that_verify_calls_a_win(tmp_path: Path) -> None:
    done = run("solve", "cats-tail", "--seed", SEED, "--max-states", "20000")
    assert done.returncode == 0, done.stderr
    moves = done.stdout.split()
    assert moves and "won in" in done.stderr
    assert verify("cats-tail", moves, tmp_path).returncode == 0


def test_solve_json_and_options(tmp_path: Path) -> None:
    done = run("solve", "picture-gallery", "--seed", SEED, "--option", "deals=3", "--max-states", "5000", "--json")
    doc = json.loads(done.stdout)
    assert doc["outcome"] == "won" and done.returncode == 0
    assert doc["options"] == {"deals": 3} and doc["states"] >= 1
    assert verify("picture-gallery", doc["moves"], tmp_path, "--option", "deals=3").returncode == 0


def test_solve_from_continues_after_the_moves_in_the_file(tmp_path: Path) -> None:
    first = run("solve", "sultan-36", "--seed", SEED, "--max-states", "5000").stdout.split()
    assert len(first) > 20
    played = tmp_path / "played.txt"
    played.write_text(" ".join(first[:20]))
    done = run("solve", "sultan-36", "--seed", SEED, "--max-states", "5000", "--from", str(played))
    assert done.returncode == 0, done.stderr
    rest = done.stdout.split()
    assert verify("sultan-36", first[:20] + rest, tmp_path).returncode == 0


def test_solve_exit_codes_for_budget_no_win_and_bad_input(tmp_path: Path) -> None:
    # 1: the budget runs out
    done = run("solve", "cats-tail", "--seed", SEED, "--max-states", "1")
    assert done.returncode == 1 and done.stdout == "" and "unknown" in done.stderr
    # 2: every card of tribunal dealt before any goes home: the search proves no win is left
    game = get_game("tribunal")
    deals = tmp_path / "deals.txt"
    deals.write_text("d " * len(game.deal(bytes.fromhex(SEED)).stock))
    done = run("solve", "tribunal", "--seed", SEED, "--from", str(deals), "--max-states", "100000", "--json")
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["outcome"] == "no-win"
    # the neighbour: one deal fewer leaves a win
    deals.write_text("d " * 3)
    assert run("solve", "tribunal", "--seed", SEED, "--from", str(deals), "--max-states", "5000").returncode == 0
    # 3: bad input, with the reason on stderr
    assert run("solve", "no-such-game", "--seed", SEED).returncode == 3
    assert run("solve", "cats-tail", "--seed", "xyz").returncode == 3
    assert run("solve", "cats-tail", "--seed", SEED, "--max-states", "0").returncode == 3
    bad = tmp_path / "bad.txt"
    bad.write_text("1-9/7")
    done = run("solve", "cats-tail", "--seed", SEED, "--from", str(bad))
    assert done.returncode == 3 and "illegal move 0" in done.stderr
