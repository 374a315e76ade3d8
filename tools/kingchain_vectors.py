"""Write the king-chain search's small-budget vectors (tests/data/kingchain-vectors.json) from the engine as it is.

    .venv/bin/python tools/kingchain_vectors.py > tests/data/kingchain-vectors.json
    .venv/bin/python tools/kingchain_vectors.py --check tests/data/kingchain-vectors.json

Hints (4,800 positions), the winnable filler and the solvability table's hint follower use the king-chain search
with small budgets, and their figures must not move when larger searches change: for cats-tail and
royal-retinue, on the deals ``sha256("tune-<i>")``, the outcome, the positions expanded and the winning line (its
length and a digest of its moves) of ``solve`` at 4,000, 10,000 and 20,000 positions.
``tests/engine/test_kingchain_vectors.py`` recomputes every one and compares. The file was written by the search
as it was before the visiting scans (kingchain.LATE_SCANS) joined at 20,000 positions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from engine import get_game
from engine.solver import solve

GAMES = ("cats-tail", "royal-retinue")
BUDGETS = (4_000, 10_000, 20_000)
DEALS = 16


def deal_seed(i: int) -> bytes:
    return hashlib.sha256(f"tune-{i}".encode()).digest()


def answer(variant: str, i: int, budget: int) -> dict[str, Any]:
    """``solve``'s answer on a deal at a budget in positions, the line as its length and digest."""
    game = get_game(variant)
    found = solve(game, game.deal(deal_seed(i)), max_states=budget)
    texts = " ".join(found.texts())
    return {
        "variant": variant,
        "deal": i,
        "max_states": budget,
        "outcome": found.outcome.value,
        "states": found.states,
        "moves": len(found.moves),
        "line_sha256": hashlib.sha256(texts.encode()).hexdigest(),
    }


def vectors(deals: int = DEALS) -> list[dict[str, Any]]:
    return [answer(v, i, b) for v in GAMES for i in range(deals) for b in BUDGETS]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", type=Path, help="recompute this file's vectors and say which differ")
    p.add_argument("--deals", type=int, default=DEALS)
    args = p.parse_args()
    if args.check is None:
        json.dump({"format": 1, "vectors": vectors(args.deals)}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    differ = 0
    for want in json.loads(args.check.read_text())["vectors"]:
        got = answer(want["variant"], want["deal"], want["max_states"])
        if got != want:
            differ += 1
            print(f"differs: {want} -> {got}")
    print(f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
