"""What WatchGame's change notification costs a move: the store's write with and without its ``SPUBLISH``, in one run.

Starts a Redis on loopback (append-only file off), then writes moves through the store (``service.store``, the
code the service runs) with the write script as shipped and with its ``notify`` call taken out, in alternating
slices; once with nobody subscribed to the game's channel, once with one subscriber (a replica following the game,
draining its messages). Reports Redis's CPU per move (its INFO counters) and the wall time per move.

    python bench/watch_bench.py [--moves 4000] [--slices 4] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import redis  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402
import redis_support  # noqa: E402

from engine.moves import Move  # noqa: E402
from service.store import NewGameRecord, open_store, scripts  # noqa: E402
from service.store.changes import GameChanges  # noqa: E402

SILENT = scripts.SET_STATE.replace("notify(v + 1)\n", "")


def redis_cpu(url: str) -> float:
    with redis.Redis.from_url(url) as r:
        info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def slice_of_moves(url: str, tag: str, moves: int, publish: bool, subscribed: bool) -> dict[str, float]:
    store = open_store(url, idle_seconds=600, key_prefix=f"b{tag}")
    if not publish:  # the same script without its notification: what a move cost before WatchGame
        store._set_state = store.client.register_script(SILENT)
    game_id = f"w{tag}"
    await store.create(
        NewGameRecord(game_id=game_id, token_hash=b"t" * 32, variant="cats-tail", options="", seed=bytes(32),
                      state=b"s" * 150)
    )  # fmt: skip
    received = 0
    changes = GameChanges(aioredis.Redis.from_url(url), f"b{tag}")
    if subscribed:

        def count(version: int) -> None:
            nonlocal received
            received += 1

        await changes.follow(game_id, count)
    record = await store.fetch(game_id)
    cpu, began = redis_cpu(url), time.perf_counter()
    for i in range(moves):
        record = await store.set_state(
            game_id, record.version, b"%d" % i + b"s" * 150, Move.parse("1-r1"), previous=record
        )
    wall, redis_seconds = time.perf_counter() - began, redis_cpu(url) - cpu
    await changes.close()
    await store.close()
    return {"redis_us": redis_seconds / moves * 1e6, "wall_us": wall / moves * 1e6, "received": received}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4000, help="moves per slice")
    parser.add_argument("--slices", type=int, default=4, help="slices of each kind, alternating")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    node = redis_support.start_redis_process()
    results: dict[str, list[dict[str, float]]] = {}
    try:
        for n in range(args.slices):
            for subscribed in (False, True):
                for publish in (False, True):
                    name = f"{'publish' if publish else 'silent'}, {'1 subscriber' if subscribed else 'no subscriber'}"
                    tag = f"{n}{int(publish)}{int(subscribed)}"
                    figures = asyncio.run(slice_of_moves(node.url, tag, args.moves, publish, subscribed))
                    results.setdefault(name, []).append(figures)
    finally:
        node.stop()
    summary: dict[str, Any] = {}
    for name, runs in results.items():
        summary[name] = {
            "redis_us_per_move": round(statistics.median(r["redis_us"] for r in runs), 2),
            "wall_us_per_move": round(statistics.median(r["wall_us"] for r in runs), 1),
            "notifications_received": int(sum(r["received"] for r in runs)),
        }
        print(f"{name:32s} redis {summary[name]['redis_us_per_move']:6.2f} us/move   "
              f"wall {summary[name]['wall_us_per_move']:7.1f} us/move   "
              f"received {summary[name]['notifications_received']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
