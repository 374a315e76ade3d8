"""The client side of one move's Redis write, per Redis client library: CPU time per ``EVALSHA`` in a closed loop.

A move's write is one Lua script call (``EVALSHA`` with the game's six keys and eight arguments, a reply of a code,
seven fields and the server's time). Here a script of that shape runs ``--concurrency`` calls at a time through
each client for ``--seconds`` in all, the clients taken in turn in ``--slices`` slices, each slice in a fresh
process (CPU time of the whole process, every thread included: valkey-glide answers on a Rust thread of its own).
Clients: the service's pipelined connection (``service.store.redispipe``), redis-py with hiredis, and coredis and
valkey-glide where they are importable (not dependencies of the project: install them beside it, e.g.
``pip install --target DIR coredis valkey-glide`` and ``--extra-path DIR``). Reported per client: calls/s, its CPU
per call and Redis's, medians over the slices.

    python bench/redis_clients.py [--seconds 10] [--slices 5] [--concurrency 16] [--extra-path DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import cpu_seconds, machine, start_redis

ROOT = Path(__file__).resolve().parent.parent

#: A write of a move's shape: a version check, the state, the move log, the fields the answer needs, the time.
SCRIPT = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', ARGV[1], 'st', ARGV[7])
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[1])
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return {1, redis.call('HMGET', KEYS[1], 'v', 'st', 'ua', 'fa', 'mc', 'uc', 'hc'), redis.call('TIME')[1]}
"""
KEYS = [f"bench:{{g{i}}}" + suffix for i in range(1) for suffix in ("", ":s", ":m", ":c", ":h", ":p")]
ARGS = ["604800000", "604800000,3600000", "2592000000", "7", b"\x01" * 150, b"\x02\x03\x04", "", "1"]

Call = Callable[[], Awaitable[Any]]


async def _pipelined(url: str) -> tuple[Call, Callable[[], Awaitable[None]]]:
    from service.store.redispipe import PipelinedRedis

    pipe = PipelinedRedis.from_url(url)
    assert pipe is not None
    import hashlib

    sha = hashlib.sha1(SCRIPT.encode()).hexdigest()
    return (lambda: pipe.evalsha(sha, SCRIPT, KEYS, ARGS)), pipe.close


async def _redis_py(url: str) -> tuple[Call, Callable[[], Awaitable[None]]]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    script = client.register_script(SCRIPT)
    return (lambda: script(keys=KEYS, args=ARGS)), client.aclose


async def _coredis(url: str) -> tuple[Call, Callable[[], Awaitable[None]]]:
    import contextlib

    import coredis

    client = coredis.Redis.from_url(url)
    stack = contextlib.AsyncExitStack()
    await stack.enter_async_context(client)
    script = client.register_script(SCRIPT)

    async def call() -> Any:
        return await script(keys=KEYS, args=ARGS)

    return call, stack.aclose


async def _glide(url: str) -> tuple[Call, Callable[[], Awaitable[None]]]:
    from glide import GlideClient, GlideClientConfiguration, NodeAddress, Script

    port = int(url.rsplit(":", 1)[1].split("/")[0])
    client = await GlideClient.create(GlideClientConfiguration([NodeAddress("127.0.0.1", port)]))
    script = Script(SCRIPT)
    return (lambda: client.invoke_script(script, keys=KEYS, args=ARGS)), client.close


CLIENTS: dict[str, Callable[[str], Awaitable[tuple[Call, Callable[[], Awaitable[None]]]]]] = {
    "redispipe": _pipelined,
    "redis-py": _redis_py,
    "coredis": _coredis,
    "valkey-glide": _glide,
}


def _slice(name: str, url: str, concurrency: int, seconds: float, redis_pid: int, extra: list[str], out: Any) -> None:
    sys.path.extend(extra)  # after the project's own packages: its protobuf, redis and hiredis win

    async def run() -> tuple[int, float, float]:
        call, close = await CLIENTS[name](url)
        await call()  # connected, the script loaded
        calls = 0
        stop = time.monotonic() + seconds
        cpu, redis = time.process_time(), cpu_seconds(redis_pid)

        async def loop() -> None:
            nonlocal calls
            while time.monotonic() < stop:
                reply = await call()
                assert reply[0] == 1
                calls += 1

        await asyncio.gather(*(loop() for _ in range(concurrency)))
        figures = (calls, time.process_time() - cpu, cpu_seconds(redis_pid) - redis)
        await close()
        return figures

    try:
        out.put(asyncio.run(run()))
    except Exception as exc:  # an optional client that is missing or fails: reported, not fatal
        out.put(repr(exc))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of each slice (default 2)")
    parser.add_argument("--slices", type=int, default=5, help="slices of each client, taken in turn (default 5)")
    parser.add_argument("--concurrency", type=int, default=16, help="calls in flight (default 16)")
    parser.add_argument("--extra-path", action="append", default=[], help="a folder with coredis / valkey-glide")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    redis, url = start_redis()
    rows: dict[str, list[tuple[int, float, float]]] = {name: [] for name in CLIENTS}
    failed: dict[str, str] = {}
    try:
        for _ in range(args.slices):
            for name in CLIENTS:
                if name in failed:
                    continue
                queue: mp.Queue[Any] = mp.Queue()
                proc = mp.Process(
                    target=_slice,
                    args=(name, url, args.concurrency, args.seconds, redis.pid, args.extra_path, queue),
                )
                proc.start()
                result = queue.get(timeout=args.seconds + 60)
                proc.join(30)
                if isinstance(result, str):
                    failed[name] = result
                else:
                    rows[name].append(result)
    finally:
        redis.terminate()
        redis.wait(10)
    figures: dict[str, Any] = {"machine": machine(), "concurrency": args.concurrency, "clients": {}}
    for name, slices in rows.items():
        if name in failed:
            figures["clients"][name] = {"failed": failed[name]}
            continue
        calls = sum(c for c, _, _ in slices)
        figures["clients"][name] = {
            "calls_per_s": round(calls / (args.seconds * len(slices)), 1),
            "client_cpu_us_per_call": round(statistics.median(cpu / c * 1e6 for c, cpu, _ in slices), 1),
            "redis_cpu_us_per_call": round(statistics.median(r / c * 1e6 for c, _, r in slices), 1),
        }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
