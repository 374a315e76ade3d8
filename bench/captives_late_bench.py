"""CPU per expanded position of the captives late scans (``search.LATE_CAPTIVES``), pure Python against compiled.

For each scan of the late phase (the three playouts and the depth-first scan by kind) on the settled opening
position of --deals deals (seeds ``sha256("solver-bench-<i>")``, as bench/solver_bench.py): the Python scan and its
compiled twin (``engine.solver.compiled_captives``) each expand --states positions (fewer if the scan wins or runs
out first: both stop at the same position, which is checked) in slices of ``search.SLICE``; CPU time of this thread
(``time.thread_time``) over positions expanded, all deals together, the median of --rounds rounds, and the ratio.

Usage: python bench/captives_late_bench.py [--deals 10] [--states 3000] [--rounds 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from engine import get_game
from engine.solver import compiled_captives, search
from engine.solver.playouts import Exhausted, Playouts
from engine.solver.profiles import profile_for
from engine.solver.safe import autoplay


def bench_seed(i: int) -> bytes:
    return hashlib.sha256(b"solver-bench-%d" % i).digest()


def scan_name(kind: str, spec: object) -> str:
    if kind == "playout":
        assert isinstance(spec, tuple)
        seed, stock_last, by_kind, _ = spec
        return f"playout {seed} " + ("by kind" if by_kind else f"score, stock last {stock_last}")
    return f"depth-first by kind, on_visit={spec}"


def drive(scan: Any, states: int) -> tuple[float, int, object]:
    """CPU seconds and positions to expand ``states`` positions (or to the win, or to the end), and how it ended."""
    started = time.thread_time()
    end: object = None
    try:
        while scan.expanded < states and end is None:
            end = scan.run(min(search.SLICE, states - scan.expanded))
    except Exhausted:
        end = "exhausted"
    return time.thread_time() - started, scan.expanded, end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--states", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()
    if not compiled_captives.built():
        raise SystemExit("the compiled captives scans are not built: python engine/solver/cffi_build.py captives")
    game = get_game("captives", {})
    prof = profile_for(game)
    roots = [autoplay(game, game.deal(bench_seed(i)))[0] for i in range(args.deals)]
    rows = []
    for kind, spec, _ in search.LATE_CAPTIVES:
        per_round = [measure(game, prof, roots, kind, spec, args.states) for _ in range(args.rounds)]
        py = statistics.median(r[0] for r in per_round)
        c = statistics.median(r[1] for r in per_round)
        name, count = scan_name(kind, spec), per_round[0][2]
        rows.append({"scan": name, "positions": count, "python_us": py, "c_us": c})
        print(f"{name:42} {count:>7} positions  python {py:8.1f} µs  c {c:6.2f} µs  x{py / c:.0f}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


def measure(game: Any, prof: Any, roots: list[Any], kind: str, spec: object, states: int) -> tuple[float, float, int]:
    """One round of one scan over every deal: CPU µs per position in Python and compiled, and the positions."""
    totals = {"python": [0.0, 0], "c": [0.0, 0]}
    for root in roots:
        ends = []
        for core, scans in (
            ("python", (Playouts, search._DepthFirst)),
            ("c", (compiled_captives.Playouts, compiled_captives.DepthFirst)),
        ):
            if kind == "playout":
                assert isinstance(spec, tuple)
                seed, stock_last, by_kind, next_kind = spec
                scan: Any = scans[0](game, prof, root, seed, search.PLAYOUT_NOISE, stock_last, by_kind, next_kind)
            else:
                scan = scans[1](game, prof, root, by_kind=True, on_visit=bool(spec))
            seconds, expanded, end = drive(scan, states)
            totals[core][0] += seconds
            totals[core][1] += expanded
            ends.append((expanded, end))
        assert ends[0] == ends[1], f"the two cores differ on {scan_name(kind, spec)}: {ends}"
    py = 1e6 * totals["python"][0] / totals["python"][1]
    c = 1e6 * totals["c"][0] / totals["c"][1]
    return py, c, int(totals["c"][1])


if __name__ == "__main__":
    main()
