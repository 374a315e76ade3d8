"""Solver benchmark: our solver against Freecell Solver on the same deals, in the same run.

For cats-tail and royal-retinue (the games fc-solve plays), each of --deals seeds is solved by both with
--seconds of CPU time each: fc-solve (``-l cj`` with the arguments of ``engine.fcs.fcs_args``, its CPU
capped by RLIMIT_CPU, its CPU time read from ``resource.getrusage(RUSAGE_CHILDREN)``) and our solver
(``engine.solver.solve`` with ``max_seconds``, its CPU time measured by the solver in its own thread).
Every win of either is replayed by the engine's verifier before it counts. Reported: deals won, and the
median CPU time per deal over the deals each solver won and over all deals (an unsolved deal counts as its
whole budget). With --others, our solver alone on every other variant and option set.

With --hints N, the CPU time of one hint (default budgets) on the opening position of N deals of every game.

Usage: python bench/solver_bench.py [--deals 50] [--seconds 10] [--others] [--hints 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import VARIANT_IDS, get_game
from engine.fcs import DEFAULT_FC_SOLVE, fcs_args, fcs_board, fcs_import
from engine.game import Game
from engine.solver import Finding, has_hidden_cards, hint, solve
from engine.state import State
from engine.verify import Outcome as Verdict
from engine.verify import replay

HEAD_TO_HEAD = ("cats-tail", "royal-retinue")
OTHERS: tuple[tuple[str, dict[str, object]], ...] = (
    ("royal-retinue-aces", {}),
    ("royal-retinue-kings-last", {}),
    ("cats-tail", {"sequence_moves": False}),
    ("royal-retinue", {"sequence_moves": False}),
    ("royal-retinue-aces", {"sequence_moves": False}),
    ("royal-retinue-kings-last", {"sequence_moves": False}),
    ("tribunal", {}),
    ("picture-gallery", {}),
    ("picture-gallery", {"deals": 3}),
    ("captives", {}),
    ("sultan-36", {}),
    ("sultan-52", {}),
)


def bench_seed(i: int) -> bytes:
    """The benchmark's deals: fixed, so every run and every solver sees the same ones."""
    return hashlib.sha256(b"solver-bench-%d" % i).digest()


def fc_solve_path() -> str:
    return os.environ.get("FC_SOLVE") or os.path.expanduser("~/.cache/fc-solve/bin/fc-solve") or DEFAULT_FC_SOLVE


def run_fc_solve(exe: str, game: Game, state: State, seconds: float) -> tuple[bool, float, int]:
    """(won and replayed as a win, CPU seconds, moves) for fc-solve on ``state``."""

    def limit() -> None:
        cpu = max(1, round(seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [exe, *fcs_args(game), "-"],
            input=fcs_board(game, state),
            capture_output=True,
            text=True,
            timeout=seconds * 6 + 10,
            preexec_fn=limit,
            check=False,
        )
        out = done.stdout
    except subprocess.TimeoutExpired:
        out = ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if "This game is solveable" not in out:
        return False, cpu, 0
    moves = fcs_import(out)
    won = replay(game, state, moves).verdict.outcome is Verdict.WON
    return won, cpu, len(moves)


def run_ours(game: Game, state: State, seconds: float) -> tuple[str, float, int, int]:
    """(outcome, CPU seconds, moves, positions expanded) for our solver on ``state``."""
    found = solve(game, state, max_seconds=seconds)
    if found.outcome is Finding.WON:
        verdict = replay(game, state, found.moves).verdict
        assert verdict.outcome is Verdict.WON, verdict.describe()
    return found.outcome.value, found.seconds, len(found.moves), found.states


def summary(rows: list[dict[str, Any]], won_key: str, cpu_key: str, budget: float) -> dict[str, Any]:
    won = [r[cpu_key] for r in rows if r[won_key]]
    every = [r[cpu_key] if r[won_key] else max(r[cpu_key], budget) for r in rows]
    return {
        "won": len(won),
        "deals": len(rows),
        "median_ms_won": round(statistics.median(won) * 1000, 1) if won else None,
        "median_ms_all": round(statistics.median(every) * 1000, 1) if every else None,
    }


def head_to_head(variant: str, deals: int, seconds: float, say: Callable[[str], None]) -> dict[str, Any]:
    game = get_game(variant)
    exe = fc_solve_path()
    rows = []
    for i in range(deals):
        state = game.deal(bench_seed(i))
        fcs_won, fcs_cpu, fcs_moves = run_fc_solve(exe, game, state, seconds)
        ours, our_cpu, our_moves, our_states = run_ours(game, state, seconds)
        row = {
            "deal": i,
            "fcs_won": fcs_won,
            "fcs_cpu": fcs_cpu,
            "fcs_moves": fcs_moves,
            "ours_won": ours == "won",
            "ours": ours,
            "ours_cpu": our_cpu,
            "ours_moves": our_moves,
            "ours_states": our_states,
        }
        rows.append(row)
        say(f"{variant} {i}: fc-solve {fcs_won} {fcs_cpu * 1000:.0f} ms; ours {ours} {our_cpu * 1000:.0f} ms")
    return {
        "variant": variant,
        "fc_solve": summary(rows, "fcs_won", "fcs_cpu", seconds),
        "ours": summary(rows, "ours_won", "ours_cpu", seconds)
        | {"positions_per_cpu_second": round(sum(r["ours_states"] for r in rows) / sum(r["ours_cpu"] for r in rows))},
        "rows": rows,
    }


def others(deals: int, seconds: float, say: Callable[[str], None]) -> list[dict[str, Any]]:
    out = []
    for variant, options in OTHERS:
        game = get_game(variant, options)
        rows = []
        for i in range(deals):
            state = game.deal(bench_seed(i))
            ours, cpu, moves, _ = run_ours(game, state, seconds)
            rows.append({"deal": i, "ours_won": ours == "won", "ours": ours, "ours_cpu": cpu, "ours_moves": moves})
        s = summary(rows, "ours_won", "ours_cpu", seconds)
        s["no_win"] = sum(1 for r in rows if r["ours"] == "no-win")
        say(f"{variant} {game.options_text()}: won {s['won']} of {deals}, median {s['median_ms_won']} ms")
        out.append({"variant": variant, "options": game.options_text(), "ours": s})
    return out


def hint_latency(positions: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """CPU time of one hint with the default budgets, on the opening position of the first benchmark deals of
    every game (where the longest search of a game is)."""
    out = []
    for variant in VARIANT_IDS:
        game = get_game(variant)
        cpu = []
        for i in range(positions):
            state = game.deal(bench_seed(i))
            started = time.thread_time()
            hint(game, state, seed=bench_seed(i))
            cpu.append(time.thread_time() - started)
        row = {
            "variant": variant,
            "hidden": has_hidden_cards(game, game.deal(bench_seed(0))),
            "median_ms": round(statistics.median(cpu) * 1000, 1),
            "max_ms": round(max(cpu) * 1000, 1),
        }
        say(f"hint {variant}: median {row['median_ms']} ms, max {row['max_ms']} ms")
        out.append(row)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per deal and solver")
    p.add_argument("--variants", nargs="*", default=list(HEAD_TO_HEAD), help="the head-to-head games (none: skip)")
    p.add_argument("--others", action="store_true", help="also our solver alone on the other configurations")
    p.add_argument("--others-seconds", type=float, default=None, help="their budget (default --seconds)")
    p.add_argument("--hints", type=int, default=0, metavar="N", help="also the CPU time of a hint on N positions")
    p.add_argument("--json", type=Path, help="write every figure here")
    args = p.parse_args()

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    result: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "deals": args.deals,
        "seconds": args.seconds,
        "head_to_head": [head_to_head(v, args.deals, args.seconds, say) for v in args.variants],
    }
    for h in result["head_to_head"]:
        f, o = h["fc_solve"], h["ours"]
        print(
            f"{h['variant']}: fc-solve won {f['won']}/{f['deals']} (median {f['median_ms_won']} ms won, "
            f"{f['median_ms_all']} ms all); ours won {o['won']}/{o['deals']} (median {o['median_ms_won']} ms won, "
            f"{o['median_ms_all']} ms all)"
        )
    if args.others:
        result["others"] = others(args.deals, args.others_seconds or args.seconds, say)
        for o in result["others"]:
            s = o["ours"]
            print(
                f"{o['variant']} {o['options']}: won {s['won']}/{s['deals']}, proven no win {s['no_win']}, "
                f"median {s['median_ms_won']} ms"
            )
    if args.hints:
        result["hints"] = hint_latency(args.hints, say)
        for h in result["hints"]:
            print(f"hint {h['variant']}: median {h['median_ms']} ms, max {h['max_ms']} ms CPU")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
