"""Winnable pools: how fast one filler worker proves deals, per configuration.

For every configuration (``engine.catalogue.configurations()``), --seeds seeds (``sha256("winnable-<i>")``, so
every run tries the same deals; the filler itself draws secure random ones) go through exactly what the filler
does with each (``service.solving.winnable.prove``: deal, solve within the budget, replay the line through the
verifier), with the filler's default budget unless --max-states / --max-seconds say otherwise. The CPU time of
the whole attempt (deal, solve, verify) is read with ``time.process_time``: one worker is one core busy.

Reported per configuration: seeds tried, seeds proven, CPU seconds per attempt (median), the fill rate:
proven seeds per CPU minute (proven / total CPU minutes), and the length of the proven lines (median, longest:
what a pool entry and a winnable game's record hold, about 2.3 bytes a move). A NewGame rate of R winnable
games a minute of one configuration needs R / rate workers' worth of CPU to keep up (docs/operations.md).

Usage: python bench/winnable_bench.py [--seeds 10] [--max-states N] [--max-seconds S] [--pools a,b] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from engine.solver import Finding
from service.solving.winnable import Budget, pool_name, prove, selected_games


def bench_pool(name: str, game: Any, seeds: int, budget: Budget) -> dict[str, Any]:
    cpu: list[float] = []
    lines: list[int] = []
    proven = no_win = unknown = 0
    for i in range(seeds):
        seed = hashlib.sha256(f"winnable-{i}".encode()).digest()
        started = time.process_time()
        attempt = prove(game, seed, budget)
        cpu.append(time.process_time() - started)
        if attempt.entry is not None:
            proven += 1
            lines.append(len(attempt.entry.line))
        elif attempt.outcome is Finding.NO_WIN:
            no_win += 1
        else:
            unknown += 1
    total = sum(cpu)
    return {
        "pool": name,
        "seeds": seeds,
        "proven": proven,
        "no_win": no_win,
        "unknown": unknown,
        "cpu_seconds": round(total, 3),
        "median_cpu_per_attempt": round(statistics.median(cpu), 3),
        "proven_per_cpu_minute": round(proven / (total / 60), 2) if total else 0.0,
        "median_line_moves": statistics.median(lines) if lines else 0,
        "longest_line_moves": max(lines, default=0),
    }


def main() -> None:
    defaults = Budget()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds tried per configuration")
    parser.add_argument("--max-states", type=int, default=defaults.max_states, help="the filler's budget in positions")
    parser.add_argument("--max-seconds", type=float, default=defaults.max_seconds, help="... and in CPU seconds")
    parser.add_argument("--pools", default="", help="comma-separated pool names (default: every configuration)")
    parser.add_argument("--json", type=Path, help="write the results as JSON")
    args = parser.parse_args()
    budget = Budget(args.max_states, args.max_seconds)
    games = selected_games([p for p in args.pools.split(",") if p])
    rows = []
    print(f"budget: {budget.max_states} positions, {budget.max_seconds} CPU s per seed; {args.seeds} seeds each")
    print(
        f"{'pool':46} {'proven':>8} {'no-win':>6} {'unknown':>7} {'median CPU/seed':>15} {'proven/CPU min':>14} "
        f"{'line (median, longest)':>22}"
    )
    for game in games:
        row = bench_pool(pool_name(game), game, args.seeds, budget)
        rows.append(row)
        print(
            f"{row['pool']:46} {row['proven']:>4}/{row['seeds']:<3} {row['no_win']:>6} {row['unknown']:>7} "
            f"{row['median_cpu_per_attempt']:>13.3f} s {row['proven_per_cpu_minute']:>14.2f} "
            f"{row['median_line_moves']:>14} {row['longest_line_moves']:>7}",
            flush=True,
        )
    if args.json:
        meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
        args.json.write_text(json.dumps({"budget": budget.__repr__(), "meta": meta, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
