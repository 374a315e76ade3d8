"""``--workers`` benchmark: service throughput with 1 and with N server processes on one port.

Starts a private redis-server, then for each worker count runs ``python -m service --workers W`` (access log
off) and loads it for a fixed time, with one of two loads:

- ``--load h2load`` (default when nghttp2's ``h2load`` is installed: ``apt-get install nghttp2-client``):
  ``GetGame`` on one dealt game (token check, one Redis read, the view), sent by h2load, a C client that needs
  little CPU itself, so the server processes get most of the machine. Calls are counted by the server's own
  ``/metrics`` (status OK), not by h2load.
- ``--load play``: Python client processes (several channels each, so that SO_REUSEPORT spreads their
  connections over the workers); every client coroutine deals a game, then alternates ``LegalMoves`` and
  ``ApplyMove`` with the first legal move, dealing a new game when one is over. These clients cost about as
  much CPU per call as the server, so on a small host they, not the server, set the ceiling.

The figure is calls per second, the median over ``--runs`` alternating runs. Mind the machine: client, Redis
and server share its cores, so the gain from a second worker is bounded by what the others leave over.

Usage: python bench/workers_bench.py [--load h2load|play] [--workers 1 2] [--seconds 8] [--runs 3]
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


def handled_ok(metrics_port: int, method: str) -> float:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    prefix = f'grpc_server_handled_total{{grpc_code="OK",grpc_method="{method}"'
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(prefix))


def tree_cpu_seconds(root: int) -> float:
    """CPU time (user + system) of ``root`` and its child processes now alive, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == root or int(fields[1]) == root:  # fields[1] is the parent pid
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def h2load_run(address: str, metrics_port: int, server_pid: int, args: argparse.Namespace) -> dict[str, float]:
    """GetGame from h2load for ``args.seconds``; calls counted by the server's /metrics."""
    import struct

    import grpc
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    with grpc.insecure_channel(address) as channel:
        dealt = pb_grpc.PatienceServiceStub(channel).NewGame(pb.NewGameRequest(variant="cats-tail"))
    body = pb.GetGameRequest(game_id=dealt.game.game_id).SerializeToString()
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as frame:
        frame.write(b"\x00" + struct.pack(">I", len(body)) + body)  # one gRPC message frame
    before = handled_ok(metrics_port, "GetGame")
    command = ["h2load", "-D", str(round(args.seconds)), "-c", str(args.connections), "-m", str(args.streams)]
    command += ["-d", frame.name, "-H", "content-type: application/grpc", "-H", "te: trailers"]
    command += ["-H", f"authorization: Bearer {dealt.game_token}"]
    command += [f"http://{address}/patience.v1.PatienceService/GetGame"]
    cpu_before = tree_cpu_seconds(server_pid)
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, timeout=args.seconds + 60)
    elapsed = time.monotonic() - started
    cores = (tree_cpu_seconds(server_pid) - cpu_before) / elapsed
    os.unlink(frame.name)
    if result.returncode != 0:
        raise SystemExit(f"h2load failed: {result.stdout}{result.stderr}")
    calls = handled_ok(metrics_port, "GetGame") - before
    timing = next((line.split() for line in result.stdout.splitlines() if "time for request" in line), None)
    mean_ms = float(timing[4].removesuffix("ms")) if timing and timing[4].endswith("ms") else float("nan")
    return {"rps": calls / elapsed, "p50_ms": mean_ms, "p99_ms": float("nan"), "errors": 0, "cores": cores}


def one_run(redis_url: str, workers: int, args: argparse.Namespace) -> dict[str, float]:
    port = free_port()
    address = f"127.0.0.1:{port}"
    metrics_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    env["PATIENCE_LOG_LEVEL"] = "WARNING"  # no access line per call: measure the service, not the log
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "service", "--listen", address, "--redis-url", redis_url),
            *("--rate-limits", "false"),  # one client calling as fast as it can
            *("--winnable-filler", "off"),  # a solver beside the service would skew its figures
            *("--workers", str(workers), "--metrics-listen", f"127.0.0.1:{metrics_port}"),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_serving(address)
        time.sleep(1.0)  # let every worker bind
        if args.load == "h2load":
            return h2load_run(address, metrics_port, server.pid, args)
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
    parser.add_argument("--load", choices=["h2load", "play"], default="h2load" if shutil.which("h2load") else "play")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent calls per client process")
    parser.add_argument("--channels", type=int, default=4, help="connections per client process")
    parser.add_argument("--connections", type=int, default=8, help="h2load: connections")
    parser.add_argument("--streams", type=int, default=16, help="h2load: concurrent calls per connection")
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
                "server_cores": statistics.median(r.get("cores", float("nan")) for r in rs),
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
    if args.load == "h2load":
        print(f"cores: {os.cpu_count()}; h2load GetGame, {args.connections} connections x {args.streams} streams")
    else:
        print(f"cores: {os.cpu_count()}; {args.clients} client processes x {args.concurrency} concurrent calls")
    base = summary[args.workers[0]]["rps"]
    for w, s in summary.items():
        latency = (
            f"mean {s['p50_ms']:.2f} ms  server used {s['server_cores']:.2f} cores"
            if args.load == "h2load"
            else f"p50 {s['p50_ms']:.2f} ms  p99 {s['p99_ms']:.2f} ms"
        )
        print(
            f"workers={w}: {s['rps']:8.0f} calls/s  (x{s['rps'] / base:.2f})  {latency}  runs {s['runs_rps']}  "
            f"errors {s['errors']}"
        )


if __name__ == "__main__":
    main()
