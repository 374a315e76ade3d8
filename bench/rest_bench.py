"""REST ApplyMove against a bare Starlette + uvicorn app, in CPU time per call: the REST path's cost over its floor.

One run on one machine: a private ``redis-server``, ``python -m service`` (gRPC off to the side, REST on
``--http-listen``) and two bare apps -- Starlette served by uvicorn, one route answering every ``POST
/v1/games/{id}/moves`` with the bytes of a real ApplyMove JSON answer -- one with h11 (the issue's floor: uvicorn's
pure-Python HTTP), one with httptools (the service's own HTTP implementation: the floor with the same choices).
The load is ``--concurrency`` keep-alive HTTP/1.1 clients (in a process of its own: a light client on asyncio
streams, or httpx with ``--client httpx``) playing ``sultan-52`` (``s`` while the stock has cards, ``rd`` when it
is empty, a new game when no turn is left) against the service, and sending the same requests to the bare apps;
the loads are taken in turn in ``--slices`` slices so that all meet the same moments of a shared host.
``--baseline DIR`` adds another checkout's service (before and after in one run); ``--grpc`` adds gRPC ApplyMove
on the same service against the bare grpc.aio echo server. Reported: calls/s and the CPU time per call of each
server process and of Redis (``/proc``, counted once the slice's clients are connected), and their ratios, slice
by slice, median over the slices: bare / (service + Redis), the goal's (1.0 would be free, the goal is 0.5), and
bare / service alone; ``cpu_ratio_*`` against the h11 app, ``httptools_cpu_ratio_*`` against the httptools one.

    python bench/rest_bench.py [--seconds 3] [--slices 4] [--concurrency 16] [--grpc] [--baseline DIR]
                               [--client raw|httpx] [--json FILE] [--profile FILE]

The loads themselves are bench/rest_loads.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import free_port, start_redis, wait_port  # noqa: E402
from rest_loads import Slice, deal, run_grpc_slice, run_slice  # noqa: E402

#: ``--profile``: the service under cProfile (its main thread, where the REST layer and the use case run), timed in
#: that thread's CPU time (wall time on a shared host counts the neighbours); the stats are written when the
#: service stops on SIGTERM.
PROFILED = r"""
import cProfile, runpy, sys, time
profile = cProfile.Profile(time.thread_time)
sys.argv = ["service", *sys.argv[2:]]
profile.enable()
try:
    runpy.run_module("service", run_name="__main__")
except SystemExit:
    pass
finally:
    profile.disable()
    profile.dump_stats(OUT)
"""

BARE_APP = r"""
import sys
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
import uvicorn

body = open(sys.argv[2], "rb").read()

async def move(request):
    await request.body()
    return Response(body, media_type="application/json")

app = Starlette(routes=[Route("/v1/games/{game_id}/moves", move, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", http=sys.argv[3], access_log=False)
"""


#: The bare apps, by the HTTP implementation their uvicorn runs: h11, the issue's floor (pure Python, as the
#: service ran until it moved to httptools), and httptools, the service's own (C): the floor with the same choices.
BARE_APPS = {"bare": "h11", "bare_httptools": "httptools"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of each slice (default 3)")
    parser.add_argument("--slices", type=int, default=4, help="slices of each load, taken in turn (default 4)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--profile", type=Path, help="run the service under cProfile and write its stats here")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of the project (git worktree or archive): its service is loaded in turn with this "
        "one's and the bare app, on the same Redis, for a before/after comparison in the same conditions",
    )
    parser.add_argument(
        "--client",
        choices=("raw", "httpx"),
        default="raw",
        help="the REST load's HTTP client: raw (keep-alive HTTP/1.1 on asyncio streams, the default) or httpx",
    )
    parser.add_argument(
        "--grpc",
        action="store_true",
        help="also, in the same slices, gRPC ApplyMove on the same service against bench/grpc_echo.py's bare "
        "grpc.aio echo server: the gRPC path's ratio beside the REST one",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="patience-rest-bench-") as tmp_name:
        tmp = Path(tmp_name)
        bare_port = free_port()
        procs: list[subprocess.Popen[bytes]] = []
        try:
            redis, redis_url = start_redis()
            procs.append(redis)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
            env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                        "PATIENCE_LOG_LEVEL": "WARNING", "PATIENCE_WINNABLE_FILLER": "off"})  # fmt: skip
            launcher = [sys.executable, "-m", "service"]
            if args.profile:
                (tmp / "profiled.py").write_text(PROFILED.replace("OUT", repr(str(args.profile.resolve()))))
                launcher = [sys.executable, str(tmp / "profiled.py"), "service"]
            checkouts = {"service": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
            services: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
            grpc_port = free_port()
            for name, checkout in checkouts.items():
                port = free_port()
                services[name] = (subprocess.Popen(
                    [*(launcher if name == "service" else [sys.executable, "-m", "service"]), "--listen",
                     f"127.0.0.1:{grpc_port if name == 'service' else free_port()}", "--http-listen",
                     f"127.0.0.1:{port}", "--redis-url",
                     redis_url, "--rate-limits", "false"],
                    cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                ), f"http://127.0.0.1:{port}")  # fmt: skip
                procs.append(services[name][0])
                wait_port(port, services[name][0])
            import httpx

            base = services["service"][1]
            games = deal(base, args.concurrency)
            first = games[0]
            reply = httpx.post(
                f"{base}/v1/games/{first[0]}/moves",
                json={"expectedVersion": str(first[2]), "text": "s"},
                headers={"authorization": f"Bearer {first[1]}"},
                timeout=30,
            )
            assert reply.status_code == 200, reply.text
            games[0] = (first[0], first[1], first[2] + 1, first[3] - 1, first[4])
            (tmp / "answer.json").write_bytes(reply.content)
            (tmp / "bare.py").write_text(BARE_APP)
            for name, http in BARE_APPS.items():
                port = bare_port if name == "bare" else free_port()
                bare = subprocess.Popen(
                    [sys.executable, str(tmp / "bare.py"), str(port), str(tmp / "answer.json"), http],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                procs.append(bare)
                wait_port(port, bare)
                services[name] = (bare, f"http://127.0.0.1:{port}")
            states = {}
            for name in services:  # each server plays games of its own (the baseline's dealt by itself)
                states[name] = tmp / f"{name}-games.json"
                if name == "baseline":
                    base_games = deal(services[name][1], args.concurrency)
                    states[name].write_text(json.dumps(base_games))
                else:
                    states[name].write_text(json.dumps(games))
            rows: dict[str, list[Slice]] = {name: [] for name in services}
            grpc_loads: list[tuple[str, str, str, list[int], dict[str, str]]] = []
            if args.grpc:
                import service_loads
                from grpc_echo import start_echo

                reply, game_id, token = asyncio.run(service_loads.typical_reply(f"127.0.0.1:{grpc_port}"))
                (tmp / "reply.bin").write_bytes(reply)
                echo_port = free_port()
                echo = start_echo(echo_port, tmp / "reply.bin")
                procs.append(echo)
                wait_port(echo_port, echo)
                service_pids = [services["service"][0].pid, procs[0].pid]
                grpc_loads = [
                    ("grpc", "apply_move", f"127.0.0.1:{grpc_port}", service_pids, {}),
                    ("echo", "echo", f"127.0.0.1:{echo_port}", [echo.pid], {"game_id": game_id, "token": token}),
                ]
                rows |= {"grpc": [], "echo": []}
            for _ in range(args.slices):
                for name, (proc, url) in services.items():
                    redis_pid = procs[0].pid if name not in BARE_APPS else None
                    rows[name].append(
                        run_slice(
                            url, proc.pid, args.concurrency, args.seconds, str(states[name]), redis_pid, args.client
                        )
                    )
                for name, kind, address, pids, extra in grpc_loads:
                    rows[name].append(run_grpc_slice(kind, address, args.concurrency, args.seconds, pids, extra))
        finally:
            for p in procs:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
    figures: dict[str, Any] = {"concurrency": args.concurrency, "slices": args.slices, "seconds": args.seconds,
                               "client": args.client, "loadavg_1m": round(os.getloadavg()[0], 2)}  # fmt: skip
    for name, slices in rows.items():
        calls = sum(c for c, _, _, _ in slices)
        cpu = sum(s for _, s, _, _ in slices)
        redis = sum(r for _, _, r, _ in slices)
        wall = sum(w for _, _, _, w in slices)
        figures[name] = {
            "calls": calls,
            "calls_per_s": round(calls / wall, 1),
            "cpu_us_per_call": round(cpu / calls * 1e6, 1),
            "cpu_us_per_call_each_slice": [round(s / c * 1e6, 1) for c, s, _, _ in slices],
        }
        if name not in (*BARE_APPS, "echo"):
            figures[name]["redis_cpu_us_per_call"] = round(redis / calls * 1e6, 1)
            figures[name]["cpu_with_redis_us_per_call_each_slice"] = [
                round((s + r) / c * 1e6, 1) for c, s, r, _ in slices
            ]
    pairs_of = (
        ("service", "bare", ""),
        ("service", "bare_httptools", "httptools_"),
        ("baseline", "bare", "baseline_"),
        ("baseline", "bare_httptools", "baseline_httptools_"),
        ("grpc", "echo", "grpc_"),
    )
    for name, floor, prefix in pairs_of:
        if name not in rows:
            continue
        pairs = [(s, b) for s, b in zip(rows[name], rows[floor], strict=True) if s[0] and b[0]]
        # The goal's ratio: the bare server's CPU per call over the service's plus Redis's (a move needs its Redis
        # write; the gRPC figure is taken the same way); and over the service process's alone.
        figures[prefix + "cpu_ratio_bare_over_service_and_redis"] = round(
            statistics.median((b[1] / b[0]) / ((s[1] + s[2]) / s[0]) for s, b in pairs), 3
        )
        figures[prefix + "cpu_ratio_bare_over_service"] = round(
            statistics.median((b[1] / b[0]) / (s[1] / s[0]) for s, b in pairs), 3
        )
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
