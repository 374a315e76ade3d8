"""Service benchmark: ApplyMove and NewGame against a bare gRPC echo server, and Redis memory per game.

What runs, all on this machine in one go:

- a private ``redis-server`` (persistence off) on a free loopback port;
- ``python -m service`` (one process) on that Redis;
- a bare grpc.aio *echo* server (one process): a generic unary handler that answers every request with a
  fixed blob the size of a typical ApplyMove response, so it measures gRPC + asyncio + the client and nothing
  else -- the ceiling any handler on this stack can reach;
- the load from this process with grpc.aio: C coroutines (C = 1, 16, 64) over a few channels, each calling
  in a closed loop for ``--seconds``. Throughput = calls / wall time; latency p50/p99 per call.

ApplyMove load: each coroutine plays its own ``sultan-52`` game, sending ``s`` while the stock has cards and
``rd`` when it is empty (the view says which), and deals a fresh game when no turn is left (that NewGame is
not counted). Each ApplyMove is a real one: token check, Redis fetch, engine move, status, view, Redis
compare-and-set. NewGame load: ``cats-tail`` deals (a 104-card shuffle, a Redis create).

Memory: ``MEMORY USAGE`` summed over a game's keys after NewGame and after 200 moves (the first 200 moves of
a Freecell Solver solution of a royal-retinue deal, tests/data/fcs, played through ApplyMove).

Mind the machine: on a 2-core host the client, the server and Redis share the cores; the echo figure shares
them the same way, which is why the comparison is made in the same run.

Usage: python bench/service_bench.py [--seconds 5] [--concurrency 1 16 64] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ECHO_METHOD = "/bench.Echo/Call"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a child exited early with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


# --------------------------------------------------------------------------- the echo server (child process)


def echo_main(port: int, size: int) -> None:
    import grpc

    blob = b"\x01" * size

    async def call(request: bytes, context: object) -> bytes:
        return blob

    async def run() -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "bench.Echo", {"Call": grpc.unary_unary_rpc_method_handler(call)}
        )
        server.add_generic_rpc_handlers((handler,))
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        await server.wait_for_termination()

    asyncio.run(run())


# --------------------------------------------------------------------------- load


async def closed_loop(
    make_call: Callable[[int], Awaitable[None]], concurrency: int, seconds: float
) -> dict[str, float]:
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            await make_call(i)
            latencies.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    wall = time.perf_counter() - start
    latencies.sort()
    return {
        "calls": len(latencies),
        "per_second": len(latencies) / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
    }


def channels(address: str, count: int) -> list[object]:
    import grpc

    # Distinct channel args so that grpc does not share one subchannel among them.
    return [grpc.aio.insecure_channel(address, options=[("bench.channel", i)]) for i in range(count)]


async def bench_echo(address: str, concurrency: int, seconds: float, request_size: int) -> dict[str, float]:
    chans = channels(address, min(4, concurrency))
    calls = [c.unary_unary(ECHO_METHOD) for c in chans]  # type: ignore[attr-defined]
    payload = b"\x02" * request_size

    async def one(i: int) -> None:
        await calls[i % len(calls)](payload)

    result = await closed_loop(one, concurrency, seconds)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def bench_apply_move(address: str, concurrency: int, seconds: float) -> dict[str, float]:
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    chans = channels(address, min(4, concurrency))
    stubs = [pb_grpc.PatienceServiceStub(c) for c in chans]
    games: list[list[object]] = []

    async def deal(i: int) -> list[object]:
        stub = stubs[i % len(stubs)]
        reply = await stub.NewGame(pb.NewGameRequest(variant="sultan-52"))
        md = (("authorization", f"Bearer {reply.game_token}"),)
        return [stub, md, reply.game.game_id, reply.game.version, reply.game.view]

    games = [await deal(i) for i in range(concurrency)]

    def next_move(view: pb.View) -> str | None:
        if view.stock_count:
            return "s"
        return "rd" if view.redeals_left else None

    async def one(i: int) -> None:
        stub, md, gid, version, view = games[i]
        text = next_move(view)  # type: ignore[arg-type]
        if text is None:
            games[i] = await deal(i)
            stub, md, gid, version, view = games[i]
            text = "s"
        reply = await stub.ApplyMove(  # type: ignore[attr-defined]
            pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=text), metadata=md
        )
        games[i][3] = reply.game.version
        games[i][4] = reply.game.view

    result = await closed_loop(one, concurrency, seconds)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def bench_new_game(address: str, concurrency: int, seconds: float) -> dict[str, float]:
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    chans = channels(address, min(4, concurrency))
    stubs = [pb_grpc.PatienceServiceStub(c) for c in chans]
    request = pb.NewGameRequest(variant="cats-tail")

    async def one(i: int) -> None:
        await stubs[i % len(stubs)].NewGame(request)

    result = await closed_loop(one, concurrency, seconds)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def typical_response_size(address: str) -> int:
    import grpc
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        new = await stub.NewGame(pb.NewGameRequest(variant="sultan-52"))
        md = (("authorization", f"Bearer {new.game_token}"),)
        reply = await stub.ApplyMove(
            pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=1, text="s"), metadata=md
        )
        return reply.ByteSize()


# --------------------------------------------------------------------------- memory


async def memory_per_game(redis_url: str) -> dict[str, int]:
    """MEMORY USAGE over a game's keys, fresh and after 200 moves of a Freecell Solver solution."""
    import redis.asyncio as aioredis

    from service.config import Settings
    from service.server import create_server

    fixture = next((ROOT / "tests" / "data" / "fcs").glob("royal-retinue-*.txt"))
    seed = bytes.fromhex(fixture.stem.rpartition("-")[2])
    moves = fixture.read_text().split()[:200]
    settings = Settings(listen="127.0.0.1:0", redis_url=redis_url, store_prefix="benchmem")
    server, _ = await create_server(settings, seed_source=lambda: seed, crypto=(None, None))
    games = server.games
    from patience.v1 import patience_pb2 as pb

    from service.games import Credentials

    new = await games.new_game(pb.NewGameRequest(variant="royal-retinue"), Credentials())
    creds = Credentials(game_token=new.game_token)
    gid = new.game.game_id
    client = aioredis.Redis.from_url(redis_url)
    keys = [f"benchmem:{{{gid}}}", f"benchmem:{{{gid}}}:s", f"benchmem:{{{gid}}}:m"]

    async def usage() -> int:
        total = 0
        for k in keys:
            total += int(await client.memory_usage(k, samples=0) or 0)
        return total

    fresh = await usage()
    version = new.game.version
    for text in moves:
        reply = await games.apply_move(pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=text), creds)
        version = reply.game.version
    after = await usage()
    await client.aclose()
    await server.store.close()
    return {"bytes_fresh": fresh, "bytes_after_200_moves": after, "moves": len(moves)}


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--echo-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_child:
        echo_main(*args.echo_child)
        return

    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is needed")
    tmp = Path(tempfile.mkdtemp(prefix="patience-bench-"))
    redis_port, service_port, echo_port = free_port(), free_port(), free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    children: list[subprocess.Popen[bytes]] = []
    try:
        children.append(
            subprocess.Popen(
                [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                 "no", "--dir", str(tmp)],
                stdout=subprocess.DEVNULL,
            )
        )  # fmt: skip
        wait_port(redis_port, children[-1])
        env = {**os.environ, "PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
               "PATIENCE_LOG_LEVEL": "WARNING"}  # fmt: skip
        children.append(
            subprocess.Popen(
                [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{service_port}", "--redis-url", redis_url],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_port(service_port, children[-1])
        time.sleep(0.5)
        service = f"127.0.0.1:{service_port}"
        size = asyncio.run(typical_response_size(service))
        children.append(
            subprocess.Popen([sys.executable, __file__, "--echo-child", str(echo_port), str(size)], cwd=ROOT)
        )
        wait_port(echo_port, children[-1])
        echo = f"127.0.0.1:{echo_port}"
        results: dict[str, object] = {"response_bytes": size, "cpus": os.cpu_count(), "seconds": args.seconds}
        rows = []
        redis_pid, service_pid, echo_pid = (child.pid for child in children)

        def measured(run: Callable[[], dict[str, float]], pids: tuple[int, ...]) -> dict[str, float]:
            """The run's figures plus the server-side CPU time per call (server process + Redis)."""
            before = [cpu_seconds(p) for p in pids]
            result = run()
            used = [cpu_seconds(p) - b for p, b in zip(pids, before, strict=True)]
            result["server_cpu_us_per_call"] = 1e6 * used[0] / result["calls"]
            if len(used) > 1:
                result["redis_cpu_us_per_call"] = 1e6 * used[1] / result["calls"]
            return result

        for c in args.concurrency:
            e = measured(lambda c=c: asyncio.run(bench_echo(echo, c, args.seconds, 60)), (echo_pid,))
            a = measured(lambda c=c: asyncio.run(bench_apply_move(service, c, args.seconds)), (service_pid, redis_pid))
            n = measured(lambda c=c: asyncio.run(bench_new_game(service, c, args.seconds)), (service_pid, redis_pid))
            rows.append({"concurrency": c, "echo": e, "apply_move": a, "new_game": n})
            print(
                f"C={c:>3}  echo {e['per_second']:6.0f}/s p50 {e['p50_ms']:6.2f} p99 {e['p99_ms']:6.2f} ms "
                f"cpu {e['server_cpu_us_per_call']:4.0f} us | "
                f"ApplyMove {a['per_second']:6.0f}/s ({a['per_second'] / e['per_second']:.0%} of echo) "
                f"p50 {a['p50_ms']:6.2f} p99 {a['p99_ms']:6.2f} ms cpu {a['server_cpu_us_per_call']:4.0f} us "
                f"+ redis {a['redis_cpu_us_per_call']:3.0f} us | "
                f"NewGame {n['per_second']:6.0f}/s p50 {n['p50_ms']:6.2f} p99 {n['p99_ms']:6.2f} ms "
                f"cpu {n['server_cpu_us_per_call']:4.0f} us",
                flush=True,
            )
        results["rows"] = rows
        memory = asyncio.run(memory_per_game(redis_url))
        results["memory"] = memory
        print(f"memory per game: {memory['bytes_fresh']} B fresh, {memory['bytes_after_200_moves']} B after 200 moves")
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    finally:
        for child in reversed(children):
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
