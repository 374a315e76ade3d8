"""CPU per position of the generic search, and CPU per hint, in the games with hidden cards.

For each of tribunal, picture-gallery, captives, sultan-36 and sultan-52, on the opening position of --deals
deals (seeds ``sha256("solver-bench-<i>")``, as bench/solver_bench.py): ``solve`` with full information and
--states positions (CPU time over positions expanded, all deals together), and ``hint`` with --hint-samples
guesses of --hint-states positions each (the service's 6 x 800 by default; bench/solvability.py's follower asks
4 x 300): CPU per hint, median and max. CPU time of this thread, so that other processes on the machine count
as little as they can.

With ``--baseline REV`` the same figures are measured for the engine of a git revision too (taken out of git into a
temporary folder), in processes of their own, the two taking turns ``--rounds`` times; each figure is the lowest of
its rounds (the one the load disturbed least). ``--instructions N`` adds callgrind's count, which does not depend on
the load: instructions per position of a process that solves deal 0 with N positions, and per hint on deal 0, each
less the same process that only deals (valgrind needed).

``--seed-texts T ...`` plays the deals of ``sha256(T)`` instead (tuning deals that reach the late phase, with
--states past 20,000: the late scans' cost per position).

Usage: python bench/generic_search_bench.py [--deals 3] [--states 1200] [--hint-samples 6] [--hint-states 800]
           [--games ...] [--seed-texts T ...] [--baseline REV] [--rounds 2] [--instructions 2000] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from processes import engine_tree

from engine import get_game
from engine.solver import hint, solve
from engine.solver.hint import SAMPLE_STATES, SAMPLES

GAMES = ("tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52")
ROOT = Path(__file__).resolve().parent.parent


def bench_seed(i: int) -> bytes:
    return hashlib.sha256(b"solver-bench-%d" % i).digest()


def measure(
    variant: str, deals: int, states: int, samples: int, sample_states: int, texts: list[str] | None = None
) -> dict[str, Any]:
    game = get_game(variant)
    seeds = [hashlib.sha256(x.encode()).digest() for x in texts] if texts else [bench_seed(i) for i in range(deals)]
    openings = [game.deal(seed) for seed in seeds]
    expanded = 0
    solve_cpu = 0.0
    for state in openings:
        started = time.thread_time()
        expanded += solve(game, state, max_states=states).states
        solve_cpu += time.thread_time() - started
    hint_cpu = []
    for i, state in enumerate(openings):
        started = time.thread_time()
        hint(game, state, seed=bench_seed(i), samples=samples, sample_states=sample_states)
        hint_cpu.append(time.thread_time() - started)
    return {
        "variant": variant,
        "positions": expanded,
        "us_per_position": round(solve_cpu / max(expanded, 1) * 1e6, 1),
        "hint_median_ms": round(statistics.median(hint_cpu) * 1000, 1),
        "hint_max_ms": round(max(hint_cpu) * 1000, 1),
    }


def measured_in(tree: Path, args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    """This bench's rows, measured in a process that imports ``engine`` from ``tree``."""
    out = tmp / "rows.json"
    command = [sys.executable, __file__, "--deals", str(args.deals), "--states", str(args.states), "--games"]
    command += [*args.games, "--hint-samples", str(args.hint_samples), "--hint-states", str(args.hint_states)]
    if args.seed_texts:
        command += ["--seed-texts", *args.seed_texts]
    subprocess.run([*command, "--json", str(out)], env=_env(tree), check=True, stdout=subprocess.DEVNULL)
    rows: list[dict[str, Any]] = json.loads(out.read_text())["rows"]
    return rows


def instructions(tree: Path, variant: str, what: str, n: int, text: str = "solver-bench-0") -> float:
    """callgrind's count of a process that solves the deal of ``sha256(text)`` (deal 0) with ``n`` positions
    (``what`` = "solve", per position) or asks the service's hint there ("hint"), less the same process that only
    deals."""
    script = (
        "import hashlib, sys\nfrom engine import get_game\nfrom engine.solver import hint, solve\n"
        f"game = get_game({variant!r})\nstate = game.deal(hashlib.sha256({text.encode()!r}).digest())\n"
        "if sys.argv[1] == 'solve': print(solve(game, state, max_states=int(sys.argv[2])).states)\n"
        "if sys.argv[1] == 'hint': print(hint(game, state, seed=hashlib.sha256(b'solver-bench-0').digest()).text())\n"
    )
    counts = []
    for argv in (["deal", "0"], [what, str(n)]):
        with tempfile.NamedTemporaryFile(prefix="patience-callgrind-") as dump:
            valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={dump.name}"]
            run = subprocess.run(
                [*valgrind, sys.executable, "-c", script, *argv],
                env=_env(tree) | {"PYTHONHASHSEED": "0"},
                cwd=tree,  # ``-c`` puts the working folder first on the path
                check=True,
                capture_output=True,
                text=True,
            )
        counts.append(int(next(x for x in run.stderr.splitlines() if "Collected" in x).split()[-1]))
        if argv[0] == "solve":
            n = int(run.stdout.split()[0])  # the positions expanded (fewer when it wins)
    return (counts[1] - counts[0]) / (n if what == "solve" else 1)


def _env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(ROOT / "proto")]))


def side_by_side(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every figure for the baseline and this tree, taking turns; the lowest of the rounds."""
    sides: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="patience-bench-") as name:
        tmp = Path(name)
        trees = {"before": engine_tree(args.baseline, tmp), "after": ROOT}
        for _ in range(args.rounds):
            for side, tree in trees.items():
                sides[side].append(measured_in(tree, args, tmp))
        rows = []
        for i, variant in enumerate(args.games):
            row: dict[str, Any] = {"variant": variant}
            for side in sides:
                runs = [r[i] for r in sides[side]]
                for figure in ("us_per_position", "hint_median_ms", "hint_max_ms"):
                    row[f"{figure}_{side}"] = min(r[figure] for r in runs)
                if args.instructions:
                    text = args.seed_texts[0] if args.seed_texts else "solver-bench-0"
                    row[f"k_instructions_per_position_{side}"] = round(
                        instructions(trees[side], variant, "solve", args.instructions, text) / 1000
                    )
                    row[f"m_instructions_per_hint_{side}"] = round(instructions(trees[side], variant, "hint", 0) / 1e6)
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=3)
    p.add_argument("--states", type=int, default=1200, help="positions per solve")
    p.add_argument("--hint-samples", type=int, default=SAMPLES, help="guesses of the hidden cards per hint")
    p.add_argument("--hint-states", type=int, default=SAMPLE_STATES, help="positions per guess")
    p.add_argument("--games", nargs="*", default=list(GAMES))
    p.add_argument("--seed-texts", nargs="*", help="the deals of sha256(TEXT) instead of --deals bench deals")
    p.add_argument("--json", type=Path, help="write the figures here")
    p.add_argument("--baseline", help="a git revision whose engine is measured too, side by side")
    p.add_argument("--rounds", type=int, default=2, help="turns of each side (with --baseline)")
    p.add_argument("--instructions", type=int, default=0, help="positions of the callgrind count (with --baseline)")
    args = p.parse_args()
    if args.baseline:
        result = {"baseline": args.baseline, "deals": args.deals, "rows": side_by_side(args)}
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return 0
    rows = []
    for variant in args.games:
        row = measure(variant, args.deals, args.states, args.hint_samples, args.hint_states, args.seed_texts)
        rows.append(row)
        print(
            f"{variant}: {row['us_per_position']} us CPU per position ({row['positions']} positions); "
            f"hint ({args.hint_samples} x {args.hint_states}) median {row['hint_median_ms']} ms, "
            f"max {row['hint_max_ms']} ms CPU",
            flush=True,
        )
    if args.json:
        result = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "deals": args.deals,
            "hint": [args.hint_samples, args.hint_states],
            "rows": rows,
        }
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
