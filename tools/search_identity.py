"""Whether this tree's search gives the answers of another revision's, down to the count of positions expanded.

    .venv/bin/python tools/search_identity.py --baseline main --game captives --deals 20 \\
        --budgets 4000 20000 100000 --hints 3

For ``--deals`` fresh deals of the game (seeds ``sha256("search-identity|<game>|<i>")``, used nowhere else) and a
mid-game position of each (a seeded random walk of ``--walk`` moves): ``solve`` at every budget (the outcome, the
positions expanded, the winning line) and ``hint`` with ``--hints`` seeds (the service's 6 x 800 guesses). The
baseline revision is taken out of git into a temporary folder and the same answers are computed there, in a
process of its own; every answer is compared and the first difference printed. A change that only makes the
search cheaper must find none: ``tests/data/solver-vectors.json`` checks a few positions at small budgets on every
test run, this tool many more at the budgets the solvability table and the head-to-head use (the late scans
after 20,000 positions included). Exit status 1 on a difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from processes import engine_tree  # noqa: E402  (the benches' helpers: one way to check out an old engine)


def deal_seed(variant: str, i: int) -> bytes:
    return hashlib.sha256(b"search-identity|%s|%d" % (variant.encode(), i)).digest()


def answers(variant: str, deals: int, walk: int, budgets: list[int], hints: int) -> list[dict[str, Any]]:
    """Every answer of the search in the tree this process imports ``engine`` from."""
    from engine import get_game
    from engine.solver import hint, solve

    game = get_game(variant)
    out: list[dict[str, Any]] = []
    for i in range(deals):
        seed = deal_seed(variant, i)
        state = game.deal(seed)
        rng = random.Random(seed)
        positions = [("deal", state)]
        for _ in range(walk):
            moves = list(game.legal_moves(state))
            if not moves:
                break
            state = game.play(state, rng.choice(moves))[0]
        positions.append((f"walk {walk}", state))
        for where, pos in positions:
            for budget in budgets:
                started = time.thread_time()
                found = solve(game, pos, max_states=budget)
                out.append(
                    {
                        "what": f"deal {i}, {where}, solve {budget}",
                        "answer": [found.outcome.value, found.states, found.budget_hit, found.texts()],
                        "cpu": time.thread_time() - started,
                    }
                )
            for h in range(hints):
                started = time.thread_time()
                given = hint(game, pos, seed=b"%d" % h)
                answer = [given.text(), given.code.value, given.reason, given.wins, given.tried, given.moves_to_end]
                answer.append([m.text() for m in given.line])
                cpu = time.thread_time() - started
                out.append({"what": f"deal {i}, {where}, hint {h}", "answer": answer, "cpu": cpu})
            print(f"{variant} deal {i} {where}: done", file=sys.stderr, flush=True)
    return out


def run_in(tree: Path, args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    """``answers`` in a process that imports ``engine`` from ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(ROOT / "proto")]))
    command = [sys.executable, __file__, "--emit", str(out), "--game", args.game, "--deals", str(args.deals)]
    command += ["--walk", str(args.walk), "--hints", str(args.hints), "--budgets", *map(str, args.budgets)]
    subprocess.run(command, env=env, check=True, cwd=tree)
    result: list[dict[str, Any]] = json.loads(out.read_text())
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="main", help="a git revision, or a folder holding an engine")
    p.add_argument("--game", default="captives")
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--walk", type=int, default=40, help="moves of the random walk to the mid-game position")
    p.add_argument("--budgets", type=int, nargs="+", default=[4000, 20000, 100000])
    p.add_argument("--hints", type=int, default=3, help="hint seeds per position")
    p.add_argument("--emit", type=Path, help=argparse.SUPPRESS)  # the child process: write the answers here
    args = p.parse_args()
    if args.emit is not None:
        args.emit.write_text(json.dumps(answers(args.game, args.deals, args.walk, args.budgets, args.hints)))
        return 0
    with tempfile.TemporaryDirectory(prefix="patience-identity-") as name:
        tmp = Path(name)
        tree = Path(args.baseline) if Path(args.baseline, "engine").is_dir() else engine_tree(args.baseline, tmp)
        before = run_in(tree, args, tmp / "before.json")
        after = run_in(ROOT, args, tmp / "after.json")
    differ = [(b, a) for b, a in zip(before, after, strict=True) if b["answer"] != a["answer"]]
    cpu = [sum(r["cpu"] for r in rows if "solve" in r["what"]) for rows in (before, after)]
    hint_cpu = [sum(r["cpu"] for r in rows if "hint" in r["what"]) for rows in (before, after)]
    print(
        f"{args.game}: {len(before)} answers ({args.deals} deals and a position {args.walk} moves in, solve at "
        f"{', '.join(map(str, args.budgets))} positions, {args.hints} hints each), {len(differ)} differ; "
        f"CPU of the solves {cpu[0]:.1f} s at {args.baseline}, {cpu[1]:.1f} s here; of the hints "
        f"{hint_cpu[0]:.1f} s, {hint_cpu[1]:.1f} s"
    )
    for b, a in differ[:1]:
        print(f"first difference, {b['what']}:\n  {args.baseline}: {b['answer']}\n  here: {a['answer']}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
