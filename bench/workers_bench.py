"""``--workers`` benchmark: service throughput with 1 and with N server processes on one port.

Starts a private redis-server, then for each worker count runs ``python -m service --workers W`` and drives it
from separate client processes (each with several channels, so that SO_REUSEPORT spreads their connections
over the workers) for a fixed time. The load is play: every client coroutine deals a game, then alternates
``LegalMoves`` and ``ApplyMove`` with the first legal move, dealing a new game when one is over. The figure is
RPCs per second (every call counted), the median over ``--runs`` alternating runs, with p50/p99 latency.

Mind the machine: the clients need CPU too. On a 2-core host, client and server share the two cores, so the
gain from a second worker is bounded well below 2x; the result is honest for this host, not for a server
with cores to itself.

Usage: python bench/workers_bench.py [--workers 1 2] [--seconds 8] [--runs 3] [--clients 2] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client_process(address: str, seconds: float, concurrency: int, channels: int, out: mp.Queue) -> None:  # type: ignore[type-arg]
    """One load-generating process: ``concurrency`` coroutines over ``channels`` connections."""
    import grpc
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    async def main() -> tuple[int, list[float], int]:
        chans = [
            grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)
        ]
        stubs = [pb_grpc.PatienceServiceStub(c) for c in chans]
        latencies: list[float] = []
        errors = 0
        stop_at = time.monotonic() + seconds

        async def timed(call: object) -> object:
            start = time.perf_counter()
            result = await call  # type: ignore[misc]
            latencies.append(time.perf_counter() - start)
            return result

        async def player(i: int) -> None:
            nonlocal errors
            stub = stubs[i % len(stubs)]
            while time.monotonic() < stop_at:
                dealt = await timed(stub.NewGame(pb.NewGameRequest(variant="cats-tail")))
                game_id, version = dealt.game.game_id, dealt.game.version  # type: ignore[attr-defined]
                meta = (("authorization", f"Bearer {dealt.game_token}"),)  # type: ignore[attr-defined]
                while time.monotonic() < stop_at:
                    legal = await timed(stub.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=meta))
                    if not legal.moves:  # type: ignore[attr-defined]
                        break
                    try:
                        applied = await timed(
                            stub.ApplyMove(
                                pb.ApplyMoveRequest(
                                    game_id=game_id,
                                    expected_version=version,
                                    text=legal.moves[0].text,  # type: ignore[attr-defined]
                                ),
                                metadata=meta,
                            )
                        )
                    except grpc.aio.AioRpcError:
                        errors += 1
                        break
                    version = applied.game.version  # type: ignore[attr-defined]
                    if applied.game.status != pb.GAME_STATUS_IN_PROGRESS:  # type: ignore[attr-defined]
                        break

        await asyncio.gather(*(player(i) for i in range(concurrency)))
        for c in chans:
            await c.close()
        return len(latencies), latencies, errors

    calls, latencies, errors = asyncio.run(main())
    out.put((calls, latencies, errors))


def wait_serving(address: str, timeout: float = 30) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with grpc.insecure_channel(address) as ch:
                reply = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
        except grpc.RpcError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{address} did not come up")


def one_run(redis_url: str, workers: int, args: argparse.Namespace) -> dict[str, float]:
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    env["PATIENCE_LOG_LEVEL"] = "WARNING"  # no access line per call: measure the service, not the log
    server = subprocess.Popen(
        [sys.executable, "-m", "service", "--listen", address, "--redis-url", redis_url, "--workers", str(workers)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_serving(address)
        time.sleep(1.0)  # let every worker bind
        ctx = mp.get_context("spawn")
        queue: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
        procs = [
            ctx.Process(target=client_process, args=(address, args.seconds, args.concurrency, args.channels, queue))
            for _ in range(args.clients)
        ]
        for p in procs:
            p.start()
        results = [queue.get(timeout=args.seconds + 60) for _ in procs]
        for p in procs:
            p.join()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    calls = sum(r[0] for r in results)
    latencies = sorted(x for r in results for x in r[1])
    return {
        "rps": calls / args.seconds,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)],
        "errors": sum(r[2] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent calls per client process")
    parser.add_argument("--channels", type=int, default=4, help="connections per client process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is needed (apt-get install redis-server)")
    tmp = tempfile.mkdtemp(prefix="workers-bench-")
    redis_port = free_port()
    redis = subprocess.Popen(
        [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--dir", tmp],
        stdout=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)
        url = f"redis://127.0.0.1:{redis_port}/0"
        runs: dict[int, list[dict[str, float]]] = {w: [] for w in args.workers}
        for _ in range(args.runs):  # alternate, so that a noisy neighbour hurts every count alike
            for w in args.workers:
                runs[w].append(one_run(url, w, args))
        summary = {
            w: {
                "rps": statistics.median(r["rps"] for r in rs),
                "p50_ms": statistics.median(r["p50_ms"] for r in rs),
                "p99_ms": statistics.median(r["p99_ms"] for r in rs),
                "errors": sum(r["errors"] for r in rs),
                "runs_rps": [round(r["rps"]) for r in rs],
            }
            for w, rs in runs.items()
        }
    finally:
        redis.terminate()
        redis.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"cores": os.cpu_count(), "args": vars(args), "results": summary}, indent=2))
        return
    print(f"cores: {os.cpu_count()}; {args.clients} client processes x {args.concurrency} concurrent calls")
    base = summary[args.workers[0]]["rps"]
    for w, s in summary.items():
        print(
            f"workers={w}: {s['rps']:8.0f} RPC/s  (x{s['rps'] / base:.2f})  p50 {s['p50_ms']:.2f} ms  "
            f"p99 {s['p99_ms']:.2f} ms  runs {s['runs_rps']}  errors {s['errors']}"
        )


if __name__ == "__main__":
    main()
