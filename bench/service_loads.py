"""The benchmark's client loads: closed loops of echo, ApplyMove and NewGame calls, run in client processes.

Each load is ``concurrency`` coroutines calling in a closed loop for a set time once every client process is
set up (channels and games are not timed); :func:`run_loads` spreads them over spawned processes, takes
several loads in turn in slices, and reports throughput, latency and the CPU per call of the servers (read
from /proc) and of the clients.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from grpc_echo import ECHO_METHOD
from processes import tree_cpu_seconds


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
    from patience.v1 import patience_pb2_grpc as pb_grpc

    # The generated stub, as the ApplyMove load calls it: the echo server answers ApplyMove too.
    calls = [pb_grpc.PatienceServiceStub(c).ApplyMove for c in chans]
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
