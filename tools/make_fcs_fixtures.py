"""Write fc-solve solutions of a few deals as replay fixtures: tests/data/fcs/<variant>-<seedhex>.txt.

One move per line, in our notation as fcs_import gives it (``4-r1``, ``2-5/3``, ``r3-f``): explicit
where fc-solve says which cell or how many cards, resolved by the engine where it only says "to the
foundations". The benchmark and the service tests replay them; tests/engine/test_fcs_oracle.py checks each
is a win. Seeds are sha256(b"fcs-fixture-<i>"), taking the first deals fc-solve solves.

Usage: .venv/bin/python tools/make_fcs_fixtures.py [--cats-tail 5] [--royal-retinue 2]
(fc-solve from env FC_SOLVE or ~/.cache/fc-solve/bin/fc-solve, which tools/build-fc-solve.sh builds).
It removes the fixtures it replaces (every file of the variants it makes) first.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from engine import get_game
from engine.fcs import DEFAULT_FC_SOLVE, fcs_args, fcs_board, fcs_import
from engine.verify import Outcome, replay

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "fcs"
MAX_ITERATIONS = 100_000


def fixture_seed(i: int) -> bytes:
    return hashlib.sha256(b"fcs-fixture-%d" % i).digest()


def fc_solve_path() -> str:
    given = os.environ.get("FC_SOLVE")
    for path in [given] if given else [DEFAULT_FC_SOLVE]:
        if os.access(path, os.X_OK):
            return path
    sys.exit("fc-solve not found: run tools/build-fc-solve.sh or set FC_SOLVE")


def make(variant: str, count: int, solver: str) -> list[Path]:
    game = get_game(variant)
    written: list[Path] = []
    i = 0
    while len(written) < count and i < 10 * count:
        seed = fixture_seed(i)
        i += 1
        start = game.deal(seed)
        out = subprocess.run(
            [solver, *fcs_args(game, MAX_ITERATIONS), "-"],
            input=fcs_board(game, start),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        moves = fcs_import(out)
        if not moves:
            continue
        verdict = replay(game, start, moves).verdict
        if verdict.outcome is not Outcome.WON:
            sys.exit(f"{variant} {seed.hex()}: fc-solve's solution does not replay: {verdict.describe()}")
        path = OUT / f"{variant}-{seed.hex()}.txt"
        path.write_text("\n".join(moves) + "\n")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cats-tail", type=int, default=5)
    parser.add_argument("--royal-retinue", type=int, default=2)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    solver = fc_solve_path()
    for variant, count in (("cats-tail", args.cats_tail), ("royal-retinue", args.royal_retinue)):
        for old in OUT.glob(f"{variant}-*.txt"):
            old.unlink()
        for path in make(variant, count, solver):
            print(f"{path.relative_to(OUT.parent.parent.parent)}: {len(path.read_text().split())} moves")


if __name__ == "__main__":
    main()
