"""Service benchmark: ApplyMove and NewGame against a bare gRPC echo server, 1 vs 2 workers, Redis memory per game.

What runs, all on this machine in one go:

- a private ``redis-server`` (persistence off) on a free loopback port;
- ``python -m service`` (one process, its operations interceptors on: metrics, request ids) on that Redis;
- a bare grpc.aio *echo* server (one process): a generic unary handler that answers every request with a
  fixed blob the size of a typical ApplyMove response, so it measures gRPC + asyncio + the client and nothing
  else -- the ceiling any handler on this stack can reach;
- the load from ``--client-procs`` separate client processes (default 1) with grpc.aio: C coroutines in all
  (C = 1, 16, 64) over a few channels, each calling in a closed loop for ``--seconds`` after every client
  process is ready (setup -- channels, the games to play -- is not timed). Throughput = calls / time; latency
  p50/p99 per call. Both servers get the same client code, channel settings and response size.

ApplyMove load: each coroutine plays its own ``sultan-52`` game, sending ``s`` while the stock has cards and
``rd`` when it is empty (the view says which), and deals a fresh game when no turn is left (that NewGame is
not counted; it comes once every ~280 moves). Each ApplyMove is a real one: token check, engine move, status,
view, Redis compare-and-set. NewGame load: ``cats-tail`` deals (a 104-card shuffle, a Redis create).

Echo and ApplyMove, the two loads the goal compares, are taken in turn: ``--slices`` slices each (default 5:
1 s of echo, 1 s of ApplyMove, and so on for 5 s of each), so that both meet the same good and bad moments of
a shared host; each slice's setup (channels, games) is not timed. echo-raw and NewGame run after them.

"cpu" is the CPU time per call of the server process (and of Redis, and of the client processes), read from
``/proc``: the figure that depends least on how the machine's cores were shared during the run. ``--runs N``
repeats the whole sweep and reports medians (the per-run ApplyMove/echo ratio first: it compares figures
taken a few seconds apart, under the same neighbours).

Workers: ``--workers 1 2`` also runs ApplyMove at the highest C against ``python -m service --workers W``
(W processes sharing one port with SO_REUSEPORT; more channels, so the kernel can spread them), alternating
the counts ``--runs`` times; cpu is then summed over the worker processes.

Memory: ``MEMORY USAGE`` summed over a game's keys after NewGame and after 200 moves (the first 200 moves of
a Freecell Solver solution of a royal-retinue deal, tests/data/fcs, played through ApplyMove).

Mind the machine: on a 2-core host the clients, the servers and Redis share the cores; the echo figure shares
them the same way, which is why the comparison is made in the same run.

Usage: python bench/service_bench.py [--seconds 5] [--slices 5] [--concurrency 1 16 64] [--runs 3]
       [--client-procs 1] [--workers 1 2] [--log-level WARNING] [--json out.json]
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

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


def echo_main(port: int, reply_file: str, processes: int = 1) -> None:
    """The echo server: every call on ``/bench.Echo/Call`` gets the same bytes (a real ApplyMove response).
    With ``processes`` > 1 it forks (before grpc is imported) into that many servers sharing the port through
    SO_REUSEPORT, as ``python -m service --workers N`` does; they are this process's children, so its CPU
    figure counts them, and they go when it is terminated."""
    parent, children = os.getpid(), []
    for _ in range(processes - 1):
        pid = os.fork()
        if pid == 0:  # a child: serves, and goes when its parent does (below)
            children = []
            break
        children.append(pid)
    if children:

        def end(signum: int, frame: object) -> None:
            for pid in children:
                os.kill(pid, signal.SIGTERM)
            os._exit(0)

        signal.signal(signal.SIGTERM, end)
    import grpc

    blob = Path(reply_file).read_bytes()

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
        while os.getpid() == parent or os.getppid() == parent:
            await asyncio.sleep(1)
        await server.stop(None)  # a child whose parent went without terminating it

    asyncio.run(run())


# --------------------------------------------------------------------------- load


async def closed_loop(
    make_call: Callable[[int], Awaitable[None]], concurrency: int, seconds: float, barrier: Callable[[], None]
) -> dict[str, Any]:
    """``concurrency`` coroutines calling in a closed loop for ``seconds``, once ``barrier()`` lets them start."""
    barrier()  # every client process set up; the parent starts its CPU clocks
    latencies: list[float] = []
    cpu = time.process_time()
    start = time.perf_counter()
    stop = start + seconds

    async def worker(i: int) -> None:
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            await make_call(i)
            latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return {
        "latencies": latencies,
        "wall": time.perf_counter() - start,
        "client_cpu": time.process_time() - cpu,
    }


CHANNELS = 4  # connections per client process (--workers runs use more: see worker_runs)


def channels(address: str, count: int, roots: bytes | None = None) -> list[object]:
    """``count`` channels to ``address``; over TLS trusting ``roots`` (PEM) when given."""
    import grpc

    # Distinct channel args so that grpc does not share one subchannel among them.
    if roots is None:
        return [grpc.aio.insecure_channel(address, options=[("bench.channel", i)]) for i in range(count)]
    credentials = grpc.ssl_channel_credentials(root_certificates=roots)
    options = [("grpc.ssl_target_name_override", "localhost")]
    return [
        grpc.aio.secure_channel(address, credentials, options=[*options, ("bench.channel", i)]) for i in range(count)
    ]


async def bench_echo_raw(
    address: str, concurrency: int, seconds: float, barrier: Callable[[], None], request_size: int = 60, **_: Any
) -> dict[str, Any]:
    """Echo with the least client work: bytes out, bytes back, no metadata (the first benchmark's client)."""
    chans = channels(address, min(CHANNELS, concurrency))
    calls = [c.unary_unary(ECHO_METHOD) for c in chans]  # type: ignore[attr-defined]
    payload = b"\x02" * request_size
    for call in calls:  # connect before the clock starts, as the other loads do while dealing their games
        await call(payload)

    async def one(i: int) -> None:
        await calls[i % len(calls)](payload)

    result = await closed_loop(one, concurrency, seconds, barrier)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def bench_echo(
    address: str, concurrency: int, seconds: float, barrier: Callable[[], None], game_id: str = "", token: str = ""
) -> dict[str, Any]:
    """Echo with the ApplyMove client's own work per call: the same request message and bearer metadata out,
    the same response message (the echo server answers with a real one) parsed and read back. Only the server
    differs from the ApplyMove load, which is what the comparison is about: on a small host a client doing
    less per call would leave the echo server more of the machine."""
    from patience.v1 import patience_pb2 as pb

    chans = channels(address, min(CHANNELS, concurrency))
    calls = [
        c.unary_unary(  # type: ignore[attr-defined]
            ECHO_METHOD,
            request_serializer=pb.ApplyMoveRequest.SerializeToString,
            response_deserializer=pb.ApplyMoveResponse.FromString,
            _registered_method=True,  # as the generated stubs of the ApplyMove load call
        )
        for c in chans
    ]
    md = (("authorization", f"Bearer {token}"),)
    state: list[list[Any]] = [[1, None] for _ in range(concurrency)]
    for call in calls:  # connect before the clock starts
        await call(pb.ApplyMoveRequest(game_id=game_id, expected_version=1, text="s"), metadata=md)

    async def one(i: int) -> None:
        version, view = state[i]
        text = "s" if view is None or view.stock_count else ("rd" if view.redeals_left else "s")
        reply = await calls[i % len(calls)](
            pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text), metadata=md
        )
        state[i][0] = reply.game.version
        state[i][1] = reply.game.view

    result = await closed_loop(one, concurrency, seconds, barrier)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def bench_apply_move(
    address: str, concurrency: int, seconds: float, barrier: Callable[[], None], **_: Any
) -> dict[str, Any]:
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    chans = channels(address, min(CHANNELS, concurrency))
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

    result = await closed_loop(one, concurrency, seconds, barrier)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def bench_new_game(
    address: str, concurrency: int, seconds: float, barrier: Callable[[], None], **_: Any
) -> dict[str, Any]:
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    chans = channels(address, min(CHANNELS, concurrency))
    stubs = [pb_grpc.PatienceServiceStub(c) for c in chans]
    request = pb.NewGameRequest(variant="cats-tail")
    for stub in stubs:  # connect before the clock starts
        await stub.NewGame(request)

    async def one(i: int) -> None:
        await stubs[i % len(stubs)].NewGame(request)

    result = await closed_loop(one, concurrency, seconds, barrier)
    for c in chans:
        await c.close()  # type: ignore[attr-defined]
    return result


async def typical_reply(address: str) -> tuple[bytes, str, str]:
    """A real ApplyMove response (serialized) from a fresh sultan-52 game, with that game's id and token."""
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
        return reply.SerializeToString(), new.game.game_id, new.game_token


# --------------------------------------------------------------------------- memory


async def memory_per_game(redis_url: str) -> dict[str, int]:
    """MEMORY USAGE over a game's keys, fresh and after 200 moves of a Freecell Solver solution."""
    import redis.asyncio as aioredis

    from service.config import Settings
    from service.server import create_server

    fixture = next((ROOT / "tests" / "data" / "fcs").glob("royal-retinue-*.txt"))
    seed = bytes.fromhex(fixture.stem.rpartition("-")[2])
    moves = fixture.read_text().split()[:200]
    settings = Settings(listen="127.0.0.1:0", redis_url=redis_url, store_prefix="benchmem", rate_limits=False)
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


# --------------------------------------------------------------------------- client processes

LOADS: dict[str, Callable[..., Awaitable[dict[str, Any]]]] = {
    "echo": bench_echo,
    "echo_raw": bench_echo_raw,
    "apply_move": bench_apply_move,
    "new_game": bench_new_game,
}


def load_child(
    specs: list[tuple[str, str, dict[str, Any]]],
    concurrency: int,
    seconds: float,
    slices: int,
    chans: int,
    barrier: Any,
    out: Any,
) -> None:
    """One client process: its share of the coroutines for each load of ``specs`` (kind, address, extra) in
    turn, ``slices`` times, each slice started by the shared barrier; one result per slice to ``out``."""
    global CHANNELS
    CHANNELS = chans
    try:
        for _ in range(slices):
            for kind, address, extra in specs:
                out.put(asyncio.run(LOADS[kind](address, concurrency, seconds, barrier.wait, **extra)))
    except BaseException as exc:  # the parent must not wait for ever at the barrier
        barrier.abort()
        out.put({"error": repr(exc)})
        raise


def run_load(
    kind: str,
    address: str,
    concurrency: int,
    seconds: float,
    procs: int,
    pids: tuple[int, ...],
    chans: int = 4,
    extra: dict[str, Any] | None = None,
) -> dict[str, float]:
    """``concurrency`` coroutines spread over ``procs`` client processes; throughput, latency, CPU per call of
    every process in ``pids`` (server first, then Redis) and of the clients."""
    return run_loads([(kind, address, pids, extra or {})], concurrency, seconds, procs, chans=chans)[0]


def run_loads(
    specs: list[tuple[str, str, tuple[int, ...], dict[str, Any]]],
    concurrency: int,
    seconds: float,
    procs: int,
    *,
    slices: int = 1,
    chans: int = 4,
) -> list[dict[str, float]]:
    """Each load of ``specs`` (kind, address, pids of its server and Redis, extra arguments) for ``seconds`` in
    all, taken in turn in ``slices`` slices (1 s of echo, 1 s of ApplyMove, 1 s of echo...): loads compared
    this way share the machine's good and bad moments, which a shared host has plenty of. Figures per load as
    ``run_load``'s, summed over its slices."""
    ctx = mp.get_context("spawn")
    procs = max(1, min(procs, concurrency))
    shares = [concurrency // procs + (1 if i < concurrency % procs else 0) for i in range(procs)]
    barrier = ctx.Barrier(procs + 1)
    out = ctx.Queue()
    child_specs = [(kind, address, extra) for kind, address, _, extra in specs]
    children = [
        ctx.Process(target=load_child, args=(child_specs, share, seconds / slices, slices, chans, barrier, out))
        for share in shares
    ]
    for child in children:
        child.start()
    parts: list[list[dict[str, Any]]] = [[] for _ in specs]
    used: list[list[float]] = [[0.0] * len(pids) for _, _, pids, _ in specs]
    for _ in range(slices):
        for i, (_, _, pids, _) in enumerate(specs):
            barrier.wait(timeout=120)
            before = [tree_cpu_seconds(p) for p in pids]
            results = [out.get(timeout=seconds + 120) for _ in children]
            used[i] = [u + tree_cpu_seconds(p) - b for u, p, b in zip(used[i], pids, before, strict=True)]
            errors = [r["error"] for r in results if "error" in r]
            if errors:
                raise SystemExit(f"a client process failed: {errors[0]}")
            parts[i].append({
                "latencies": [x for r in results for x in r["latencies"]],
                "wall": max(r["wall"] for r in results),
                "client_cpu": sum(r["client_cpu"] for r in results),
            })  # fmt: skip
    for child in children:
        child.join(30)
    return [_figures(p, u, procs) for p, u in zip(parts, used, strict=True)]


def _figures(parts: list[dict[str, Any]], used: list[float], procs: int) -> dict[str, float]:
    latencies = sorted(x for part in parts for x in part["latencies"])
    calls = len(latencies)
    wall = sum(part["wall"] for part in parts)
    figures = {
        "calls": calls,
        "per_second": calls / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(calls - 1, int(0.99 * calls))],
        "server_cpu_us_per_call": 1e6 * used[0] / calls,
        "client_cpu_us_per_call": 1e6 * sum(part["client_cpu"] for part in parts) / calls,
        "client_processes": procs,
    }
    if len(used) > 1:
        figures["redis_cpu_us_per_call"] = 1e6 * used[1] / calls
    return figures


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of its children that are still running (the ``--workers`` processes)."""
    total = cpu_seconds(pid)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(pid):
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                total += cpu_seconds(int(entry.name))
    return total


# --------------------------------------------------------------------------- servers


def start_service(
    redis_url: str, tmp: Path, log_level: str, workers: int = 1, port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PROMETHEUS_"))}
    env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                "PATIENCE_LOG_LEVEL": log_level, "PATIENCE_WINNABLE_FILLER": "off"})  # fmt: skip
    command = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url]
    command += ["--rate-limits", "false"]  # the benchmark is one client calling as fast as it can
    if workers > 1:
        command += ["--workers", str(workers)]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    time.sleep(0.5 + 0.5 * workers)  # every worker bound and its store answering
    return proc, f"127.0.0.1:{port}"


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def machine() -> dict[str, Any]:
    load = os.getloadavg()
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "?",
    )  # fmt: skip
    return {"cpus": os.cpu_count(), "cpu_model": model, "loadavg_1m": round(load[0], 2)}


# --------------------------------------------------------------------------- main


def cpu_ratios(echo: dict[str, float], apply: dict[str, float]) -> dict[str, float]:
    """The comparison in CPU time, which depends less than calls/s on how the shared cores were handed out:
    the echo server's CPU per call over ApplyMove's, and the whole machine's (server, Redis, client)."""
    machine_echo = echo["server_cpu_us_per_call"] + echo["client_cpu_us_per_call"]
    machine_apply = sum(apply[k] for k in ("server_cpu_us_per_call", "redis_cpu_us_per_call", "client_cpu_us_per_call"))
    return {
        "server_cpu_ratio": echo["server_cpu_us_per_call"] / apply["server_cpu_us_per_call"],
        "machine_cpu_ratio": machine_echo / machine_apply,
    }


def median_of(rows: list[dict[str, Any]], path: tuple[str, ...]) -> float:
    values = []
    for row in rows:
        value: Any = row
        for key in path:
            value = value[key]
        values.append(value)
    return float(statistics.median(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--runs", type=int, default=1, help="repeat the sweep; medians are reported")
    parser.add_argument("--client-procs", type=int, default=1, help="client processes the load is spread over")
    parser.add_argument(
        "--slices", type=int, default=5, help="echo and ApplyMove taken in turn in this many slices of the time"
    )
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2], help="worker counts for ApplyMove")
    parser.add_argument("--log-level", default="WARNING", help="the service's; INFO writes an access line a call")
    parser.add_argument("--no-memory", action="store_true", help="skip the Redis memory measurement")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--echo-child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_child:
        echo_main(int(args.echo_child[0]), args.echo_child[1], *map(int, args.echo_child[2:]))
        return

    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is needed")
    tmp = Path(tempfile.mkdtemp(prefix="patience-bench-"))
    redis_port, echo_port = free_port(), free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    children: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {
        "machine_before": machine(),
        "seconds": args.seconds,
        "args": vars(args) | {"json": None},
    }
    try:
        redis = subprocess.Popen(
            [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--dir", str(tmp)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        children.append(redis)
        wait_port(redis_port, redis)
        service, address = start_service(redis_url, tmp, args.log_level)
        children.append(service)
        reply, game_id, token = asyncio.run(typical_reply(address))
        size = len(reply)
        (tmp / "reply.bin").write_bytes(reply)
        echo = subprocess.Popen(
            [sys.executable, __file__, "--echo-child", str(echo_port), str(tmp / "reply.bin")], cwd=ROOT
        )
        children.append(echo)
        wait_port(echo_port, echo)
        echo_address = f"127.0.0.1:{echo_port}"
        echo_extra = {"game_id": game_id, "token": token}
        results["response_bytes"] = size
        print(f"{results['machine_before']}; ApplyMove response {size} B; {args.client_procs} client process(es)")

        runs: list[list[dict[str, Any]]] = []
        for run in range(args.runs):
            rows = []
            for c in args.concurrency:
                load = {"concurrency": c, "procs": args.client_procs, "seconds": args.seconds}
                e, a = run_loads(
                    [("echo", echo_address, (echo.pid,), echo_extra),
                     ("apply_move", address, (service.pid, redis.pid), {})],
                    c, args.seconds, args.client_procs, slices=args.slices,
                )  # fmt: skip
                r = run_load("echo_raw", echo_address, pids=(echo.pid,), **load)
                n = run_load("new_game", address, pids=(service.pid, redis.pid), **load)
                rows.append({"concurrency": c, "echo": e, "echo_raw": r, "apply_move": a, "new_game": n,
                             "apply_move_of_echo": a["per_second"] / e["per_second"],
                             "apply_move_of_echo_raw": a["per_second"] / r["per_second"],
                             **cpu_ratios(e, a)})  # fmt: skip
                print(
                    f"run {run + 1} C={c:>3}  echo-raw {r['per_second']:6.0f}/s cpu {r['server_cpu_us_per_call']:4.0f}"
                    f" us (client {r['client_cpu_us_per_call']:4.0f}; ApplyMove "
                    f"{a['per_second'] / r['per_second']:.0%} of it) | "
                    f"echo {e['per_second']:6.0f}/s p50 {e['p50_ms']:6.2f} p99 "
                    f"{e['p99_ms']:6.2f} ms cpu {e['server_cpu_us_per_call']:4.0f} us (client "
                    f"{e['client_cpu_us_per_call']:4.0f}) | ApplyMove {a['per_second']:6.0f}/s "
                    f"({a['per_second'] / e['per_second']:.0%} of echo) p50 {a['p50_ms']:6.2f} p99 "
                    f"{a['p99_ms']:6.2f} ms cpu {a['server_cpu_us_per_call']:4.0f} us + redis "
                    f"{a['redis_cpu_us_per_call']:3.0f} (client {a['client_cpu_us_per_call']:4.0f}) | NewGame "
                    f"{n['per_second']:6.0f}/s p50 {n['p50_ms']:6.2f} p99 {n['p99_ms']:6.2f} ms cpu "
                    f"{n['server_cpu_us_per_call']:4.0f} us",
                    flush=True,
                )
            runs.append(rows)
        results["runs"] = runs
        summary = []
        for i, c in enumerate(args.concurrency):
            rows = [r[i] for r in runs]
            row: dict[str, Any] = {
                "concurrency": c,
                "apply_move_of_echo": median_of(rows, ("apply_move_of_echo",)),
                "apply_move_of_echo_raw": median_of(rows, ("apply_move_of_echo_raw",)),
                "server_cpu_ratio": median_of(rows, ("server_cpu_ratio",)),
                "machine_cpu_ratio": median_of(rows, ("machine_cpu_ratio",)),
            }
            for load in ("echo", "echo_raw", "apply_move", "new_game"):
                row[load] = {
                    key: median_of(rows, (load, key))
                    for key in rows[0][load]
                    if isinstance(rows[0][load][key], int | float)
                }
            summary.append(row)
            e, a, n = row["echo"], row["apply_move"], row["new_game"]
            print(
                f"median C={c:>3}: ApplyMove/echo {row['apply_move_of_echo']:.0%} (/echo-raw "
                f"{row['apply_move_of_echo_raw']:.0%}; cpu: server {row['server_cpu_ratio']:.0%}, machine "
                f"{row['machine_cpu_ratio']:.0%}); echo {e['per_second']:.0f}/s "
                f"{e['p50_ms']:.2f}/{e['p99_ms']:.2f} ms {e['server_cpu_us_per_call']:.0f} us; ApplyMove "
                f"{a['per_second']:.0f}/s {a['p50_ms']:.2f}/{a['p99_ms']:.2f} ms {a['server_cpu_us_per_call']:.0f} us"
                f" + redis {a['redis_cpu_us_per_call']:.0f} us; NewGame {n['per_second']:.0f}/s "
                f"{n['p50_ms']:.2f}/{n['p99_ms']:.2f} ms {n['server_cpu_us_per_call']:.0f} us"
            )
        results["median"] = summary
        stop(service)
        children.remove(service)

        if args.workers:
            results["workers"] = worker_runs(args, redis_url, tmp, redis.pid, echo_extra)
        if not args.no_memory:
            memory = asyncio.run(memory_per_game(redis_url))
            results["memory"] = memory
            print(
                f"memory per game: {memory['bytes_fresh']} B fresh, {memory['bytes_after_200_moves']} B after 200 moves"
            )
        results["machine_after"] = machine()
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    finally:
        for child in reversed(children):
            stop(child)
        shutil.rmtree(tmp, ignore_errors=True)


def worker_runs(
    args: argparse.Namespace, redis_url: str, tmp: Path, redis_pid: int, echo_extra: dict[str, Any]
) -> dict[str, Any]:
    """At the highest concurrency, for each W of ``--workers``: ApplyMove against ``--workers W`` and echo
    against W echo processes on one port, the two taken in turn in slices as in the sweep; the W alternate,
    ``--runs`` times. The ratio is taken within each run, then the median."""
    c = max(args.concurrency)
    chans = 8  # per client process: with 2 workers, all on one worker has a chance of 2 / 2**8
    figures: dict[int, list[tuple[dict[str, float], dict[str, float]]]] = {w: [] for w in args.workers}
    for _ in range(max(args.runs, 1)):
        for w in args.workers:
            service, address = start_service(redis_url, tmp, args.log_level, workers=w)
            port = free_port()
            echo = subprocess.Popen(
                [sys.executable, __file__, "--echo-child", str(port), str(tmp / "reply.bin"), str(w)], cwd=ROOT
            )
            try:
                wait_port(port, echo)
                time.sleep(0.5 * w)  # every echo process listening
                e, a = run_loads(
                    [("echo", f"127.0.0.1:{port}", (echo.pid,), echo_extra),
                     ("apply_move", address, (service.pid, redis_pid), {})],
                    c, 2 * args.seconds, args.client_procs, slices=args.slices, chans=chans,
                )  # fmt: skip
                figures[w].append((e, a))
            finally:
                stop(echo)
                stop(service)
    out: dict[str, Any] = {"concurrency": c, "runs": {str(w): rs for w, rs in figures.items()}}
    base = statistics.median(a["per_second"] for _, a in figures[args.workers[0]])
    for w, rs in figures.items():
        rate = statistics.median(a["per_second"] for _, a in rs)
        ratios = [a["per_second"] / e["per_second"] for e, a in rs]
        out[str(w)] = {
            "per_second": rate,
            "gain": rate / base,
            "echo_per_second": statistics.median(e["per_second"] for e, _ in rs),
            "apply_move_of_echo": statistics.median(ratios),
            "p50_ms": statistics.median(a["p50_ms"] for _, a in rs),
            "p99_ms": statistics.median(a["p99_ms"] for _, a in rs),
            "server_cpu_us_per_call": statistics.median(a["server_cpu_us_per_call"] for _, a in rs),
            "echo_server_cpu_us_per_call": statistics.median(e["server_cpu_us_per_call"] for e, _ in rs),
        }
        o = out[str(w)]
        print(
            f"workers={w}: ApplyMove C={c} {rate:6.0f}/s (x{rate / base:.2f}) p50 {o['p50_ms']:.2f} "
            f"p99 {o['p99_ms']:.2f} ms cpu {o['server_cpu_us_per_call']:.0f} us (all workers); echo x{w} "
            f"{o['echo_per_second']:.0f}/s cpu {o['echo_server_cpu_us_per_call']:.0f} us; ApplyMove/echo "
            f"{o['apply_move_of_echo']:.0%} (runs {[f'{r:.0%}' for r in ratios]})",
            flush=True,
        )
    return out


if __name__ == "__main__":
    main()
