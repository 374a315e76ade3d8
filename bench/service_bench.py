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

The pieces: the client loads in bench/service_loads.py, the echo server in bench/grpc_echo.py, starting and
measuring processes in bench/processes.py; this module runs them and reports.

Usage: python bench/service_bench.py [--seconds 5] [--slices 5] [--concurrency 1 16 64] [--runs 3]
       [--client-procs 1] [--workers 1 2] [--log-level WARNING] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from grpc_echo import start_echo
from processes import ROOT, free_port, machine, start_redis, start_service, stop, wait_port
from service_loads import run_load, run_loads, typical_reply

# --------------------------------------------------------------------------- memory


async def memory_per_game(redis_url: str) -> dict[str, int]:
    """MEMORY USAGE over a game's keys, fresh and after 200 moves of a Freecell Solver solution."""
    import redis.asyncio as aioredis

    from service.server import create_server
    from service.settings.config import Settings

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
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="patience-bench-"))
    echo_port = free_port()
    children: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {
        "machine_before": machine(),
        "seconds": args.seconds,
        "args": vars(args) | {"json": None},
    }
    try:
        redis, redis_url = start_redis()
        children.append(redis)
        service, address = start_service(redis_url, tmp, args.log_level)
        children.append(service)
        reply, game_id, token = asyncio.run(typical_reply(address))
        size = len(reply)
        (tmp / "reply.bin").write_bytes(reply)
        echo = start_echo(echo_port, tmp / "reply.bin")
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
            echo = start_echo(port, tmp / "reply.bin", w)
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
