"""CPU per position of the generic search, and CPU per hint, in the games with hidden cards.

For each of tribunal, picture-gallery, captives, sultan-36 and sultan-52, on the opening position of --deals
deals (seeds ``sha256("solver-bench-<i>")``, as bench/solver_bench.py): ``solve`` with full information and
--states positions (CPU time over positions expanded, all deals together), and ``hint`` with --hint-samples
guesses of --hint-states positions each (the service's 6 x 800 by default; bench/solvability.py's follower asks
4 x 300): CPU per hint, median and max. CPU time of this thread, so that other processes on the machine count
as little as they can.

Usage: python bench/generic_search_bench.py [--deals 3] [--states 1200] [--hint-samples 6] [--hint-states 800]
           [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from engine import get_game
from engine.solver import hint, solve
from engine.solver.hint import SAMPLE_STATES, SAMPLES

GAMES = ("tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52")


def bench_seed(i: int) -> bytes:
    return hashlib.sha256(b"solver-bench-%d" % i).digest()


def measure(variant: str, deals: int, states: int, samples: int, sample_states: int) -> dict[str, Any]:
    game = get_game(variant)
    openings = [game.deal(bench_seed(i)) for i in range(deals)]
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=3)
    p.add_argument("--states", type=int, default=1200, help="positions per solve")
    p.add_argument("--hint-samples", type=int, default=SAMPLES, help="guesses of the hidden cards per hint")
    p.add_argument("--hint-states", type=int, default=SAMPLE_STATES, help="positions per guess")
    p.add_argument("--games", nargs="*", default=list(GAMES))
    p.add_argument("--json", type=Path, help="write the figures here")
    args = p.parse_args()
    rows = []
    for variant in args.games:
        row = measure(variant, args.deals, args.states, args.hint_samples, args.hint_states)
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
