"""CPU per position of each salic-law late scan (``search.LATE_BY_KIND``), in Python and compiled (``compiled_salic``).

On the opening position (settled) of --deals deals (seeds ``sha256("solver-bench-<i>")``, as bench/solver_bench.py)
of --game, each late scan runs in turns of ``search.SLICE`` positions until it wins, runs out or has expanded
--states positions, once in Python and once compiled; the two must agree on the positions expanded and the answer
(the bench stops if they do not). Reported per scan: positions expanded over all deals and CPU µs per position of
each core (CPU time of this thread, ``time.thread_time``, so that other processes count as little as they can), the
median of --rounds rounds.

Usage: python bench/salic_scans_bench.py [--game tribunal] [--deals 10] [--states 5000] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from engine import get_game
from engine.game import Game
from engine.moves import Move
from engine.solver import compiled_salic, search
from engine.solver.playouts import Exhausted, Playouts
from engine.solver.profiles import profile_for
from engine.solver.safe import autoplay
from engine.state import State

Scan = Playouts | search._DepthFirst | compiled_salic.Playouts | compiled_salic.DepthFirst


def bench_seed(i: int) -> bytes:
    return hashlib.sha256(b"solver-bench-%d" % i).digest()


def make(game: Game, root: State, late: search.LateScan, compiled: bool) -> Scan:
    kind, spec, _ = late
    prof = profile_for(game)
    if kind == "playout":
        assert isinstance(spec, tuple)
        seed, stock_last, by_kind, next_kind = spec
        playouts = compiled_salic.Playouts if compiled else Playouts
        return playouts(game, prof, root, seed, search.PLAYOUT_NOISE, stock_last, by_kind, next_kind)
    if compiled:
        return compiled_salic.DepthFirst(game, prof, root, on_visit=bool(spec))
    return search._DepthFirst(game, prof, root, by_kind=True, on_visit=bool(spec))


def drive(scan: Scan, states: int) -> tuple[float, int, tuple[Move, ...] | str | None]:
    """CPU seconds, positions expanded and the answer of ``scan`` run in slices up to ``states`` positions."""
    started = time.thread_time()
    answer: tuple[Move, ...] | str | None = None
    try:
        while answer is None and scan.expanded < states:
            answer = scan.run(min(search.SLICE, states - scan.expanded))
    except Exhausted:
        answer = "exhausted"
    return time.thread_time() - started, scan.expanded, answer


def measure(variant: str, deals: int, states: int) -> list[dict[str, Any]]:
    game = get_game(variant)
    roots = [autoplay(game, game.deal(bench_seed(i)))[0] for i in range(deals)]
    rows = []
    for late in search.LATE_BY_KIND:
        cpu = {"python": 0.0, "c": 0.0}
        positions = won = 0
        for root in roots:
            py_cpu, py_expanded, py_answer = drive(make(game, root, late, compiled=False), states)
            c_cpu, c_expanded, c_answer = drive(make(game, root, late, compiled=True), states)
            if (py_expanded, py_answer) != (c_expanded, c_answer):
                raise SystemExit(f"the cores disagree on {late}: {py_expanded} and {c_expanded} positions")
            cpu["python"] += py_cpu
            cpu["c"] += c_cpu
            positions += py_expanded
            won += isinstance(py_answer, tuple)
        rows.append(
            {
                "scan": f"{late[0]} {late[1]}",
                "positions": positions,
                "won": won,
                "python_us": round(cpu["python"] / positions * 1e6, 2),
                "c_us": round(cpu["c"] / positions * 1e6, 2),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="tribunal", choices=["tribunal", "picture-gallery"])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--states", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    if not compiled_salic.built():
        raise SystemExit("the compiled salic-law scans are not built: python engine/solver/cffi_build.py salic")
    rounds = [measure(args.game, args.deals, args.states) for _ in range(args.rounds)]
    rows = []
    for i, row in enumerate(rounds[0]):
        python_us = statistics.median(r[i]["python_us"] for r in rounds)
        best = dict(row, python_us=python_us, c_us=statistics.median(r[i]["c_us"] for r in rounds))
        best["speed_up"] = round(best["python_us"] / best["c_us"], 1)
        rows.append(best)
    print(f"{args.game}, {args.deals} deals, up to {args.states} positions a scan; CPU µs per position expanded")
    print(f"{'scan':34} {'positions':>9} {'won':>4} {'python':>8} {'c':>7} {'x':>6}")
    for r in rows:
        print(f"{r['scan']:34} {r['positions']:9} {r['won']:4} {r['python_us']:8} {r['c_us']:7} {r['speed_up']:6}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"game": args.game, "deals": args.deals, "states": args.states, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
