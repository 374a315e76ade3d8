"""Engine benchmark: replay speed and legal-move generation speed.

- replay: moves per second replaying Freecell Solver's solutions of cats-tail
  (and royal-retinue) deals from tests/data/fcs/, through the same path as the
  verifier (text -> Move -> Game.play), one core;
- legal_moves: calls per second on mid-game positions of every game, reached by
  a fixed-seed random walk.

Each figure is the median of --runs runs, timed in CPU seconds of this process (one core).
Usage: python bench/engine_bench.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from engine import VARIANT_IDS, get_game
from engine.game import Game
from engine.moves import Move
from engine.state import State
from engine.verify import replay

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "data" / "fcs"


def load_solutions(variant: str) -> list[tuple[bytes, list[str]]]:
    out = []
    for path in sorted(FIXTURES.glob(f"{variant}-*.txt")):
        seed = bytes.fromhex(path.stem.removeprefix(variant + "-"))
        out.append((seed, path.read_text().split()))
    return out


def bench_replay(variant: str, runs: int) -> dict[str, float] | None:
    solutions = load_solutions(variant)
    if not solutions:
        return None
    game = get_game(variant)
    starts = [(game.deal(seed), moves) for seed, moves in solutions]
    for start, moves in starts:  # correctness first: every solution is a win
        assert replay(game, start, moves).verdict.outcome.value == "won"
    total = sum(len(m) for _, m in starts)
    repeat = max(1, 50_000 // total)
    play, parse = game.play, Move.parse

    def play_loop() -> None:
        for start, moves in starts:
            state = start
            for text in moves:
                state = play(state, parse(text))[0]

    def verifier_loop() -> None:
        for start, moves in starts:
            replay(game, start, moves)

    rates, verifier_rates = [], []
    for _ in range(runs):
        rates.append(total * repeat / cpu_seconds(play_loop, repeat))
        verifier_rates.append(total * repeat / cpu_seconds(verifier_loop, repeat))
    return {
        "solutions": len(starts),
        "moves": total,
        "moves_per_s": statistics.median(rates),
        "verifier_moves_per_s": statistics.median(verifier_rates),
    }


def cpu_seconds(fn: Callable[[], None], repeat: int) -> float:
    """CPU time of ``repeat`` calls: on a shared machine it is steadier than the wall clock."""
    t0 = time.process_time()
    for _ in range(repeat):
        fn()
    return time.process_time() - t0


def midgame(game: Game, seed: bytes, depth: int = 30) -> State:
    rnd = random.Random(seed)
    state = game.deal(seed)
    for _ in range(depth):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rnd.choice(legal))[0]
    return state


def bench_legal_moves(variant: str, runs: int) -> dict[str, float]:
    game = get_game(variant)
    states = [midgame(game, bytes([i]) * 32) for i in range(5)]
    counts = [sum(1 for _ in game.legal_moves(s)) for s in states]
    rates = []
    for _ in range(runs):
        n = 0
        t0 = time.process_time()
        while time.process_time() - t0 < 0.3:
            for s in states:
                for _ in game.legal_moves(s):
                    pass
                n += 1
        rates.append(n / (time.process_time() - t0))
    return {"calls_per_s": statistics.median(rates), "mean_moves": sum(counts) / len(counts)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result: dict[str, object] = {
        "machine": f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip(),
        "replay": {v: bench_replay(v, args.runs) for v in ("cats-tail", "royal-retinue")},
        "legal_moves": {v: bench_legal_moves(v, args.runs) for v in VARIANT_IDS},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(result["machine"])
    for v, r in result["replay"].items():  # type: ignore[attr-defined]
        if r:
            print(
                f"replay {v:<14} {r['moves_per_s']:>10,.0f} moves/s (play loop)  "
                f"{r['verifier_moves_per_s']:>10,.0f} moves/s (verifier)  "
                f"[{r['solutions']} solutions, {r['moves']} moves]"
            )
    for v, r in result["legal_moves"].items():  # type: ignore[attr-defined]
        print(f"legal_moves {v:<26} {r['calls_per_s']:>10,.0f} calls/s  ({r['mean_moves']:.1f} moves a position)")


if __name__ == "__main__":
    main()
