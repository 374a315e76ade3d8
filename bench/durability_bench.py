"""What ``--durability replica`` costs a move: the store's write with and without WAIT, in one run.

Starts a Redis primary with one replica on loopback (append-only file off: the figure is the replication wait
alone), then writes moves through the store (``service.store``, the same code the service runs) with
``replicas=0`` and ``replicas=1`` in turn, in slices, at 1 and 16 concurrent writers, over the pipelined
connection and over redis-py's client. Reports per move: wall time (latency), CPU of this process, and CPU of the
primary Redis (its INFO counters).

    python bench/durability_bench.py [--moves 2000] [--slices 4] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import redis  # noqa: E402
import redis_support  # noqa: E402

from engine.moves import Move  # noqa: E402
from service.store import NewGameRecord, open_store  # noqa: E402


def redis_cpu(url: str) -> float:
    with redis.Redis.from_url(url) as r:
        info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def writes(url: str, replicas: int, moves: int, writers: int, path: str, tag: str) -> dict[str, float]:
    options: dict[str, Any] = {} if path == "pipe" else {"max_connections": 64}
    store = open_store(url, idle_seconds=600, key_prefix=f"b{tag}", replicas=replicas, **options)
    latencies: list[float] = []

    async def writer(n: int) -> None:
        game_id = f"w{tag}{n:06d}"
        await store.create(
            NewGameRecord(game_id=game_id, token_hash=b"t" * 32, variant="cats-tail", options="", seed=bytes(32),
                          state=b"s" * 150)
        )  # fmt: skip
        record = await store.fetch(game_id)
        for i in range(moves // writers):
            began = time.perf_counter()
            record = await store.set_state(
                game_id, record.version, b"%d" % i + b"s" * 150, Move.parse("1-r1"), previous=record
            )
            latencies.append(time.perf_counter() - began)

    cpu0, rcpu0, wall0 = own_cpu(), redis_cpu(url), time.perf_counter()
    await asyncio.gather(*(writer(n) for n in range(writers)))
    cpu1, rcpu1, wall1 = own_cpu(), redis_cpu(url), time.perf_counter()
    await store.close()
    done = len(latencies)
    latencies.sort()
    return {
        "moves": done,
        "moves_per_s": done / (wall1 - wall0),
        "p50_ms": latencies[done // 2] * 1000,
        "p99_ms": latencies[int(done * 0.99)] * 1000,
        "client_cpu_us": (cpu1 - cpu0) / done * 1e6,
        "redis_cpu_us": (rcpu1 - rcpu0) / done * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per slice (default 2000)")
    parser.add_argument("--slices", type=int, default=4, help="slices of each setting, taken in turn (default 4)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    primary, replica = redis_support.start_replica_pair()
    results: dict[str, list[dict[str, float]]] = {}
    try:
        for s in range(args.slices):
            for path in ("pipe", "redis-py"):
                for writers in (1, 16):
                    for replicas in (0, 1):
                        key = f"{path} writers={writers} replicas={replicas}"
                        tag = f"{s}{path[0]}{writers}{replicas}"
                        row = asyncio.run(writes(primary.url, replicas, args.moves, writers, path, tag))
                        results.setdefault(key, []).append(row)
    finally:
        replica.stop()
        primary.stop()
    summary = {
        key: {field: round(statistics.median(r[field] for r in rows), 2) for field in rows[0]}
        for key, rows in results.items()
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
