"""REST ApplyMove against a bare Starlette + uvicorn app, in CPU time per call: the REST path's cost over its floor.

One run on one machine: a private ``redis-server``, ``python -m service`` (gRPC off to the side, REST on
``--http-listen``) and a bare app -- Starlette served by uvicorn with the same HTTP implementation (h11, the one
the service's uvicorn uses here), one route answering every ``POST /v1/games/{id}/moves`` with the bytes of a real
ApplyMove JSON answer. The load is ``--concurrency`` keep-alive HTTP/1.1 clients (httpx, in a process of its
own) playing ``sultan-52`` (``s`` while the stock has cards, ``rd`` when it is empty, a new game when no turn is
left) against the service, and sending the same requests to the bare app; the two loads are taken in turn in
``--slices`` slices so that both meet the same moments of a shared host. Reported: calls/s and the CPU time per
call of each server process and of Redis (``/proc``), and their ratios, slice by slice, median over the slices:
bare / (service + Redis), the goal's (1.0 would be free, the goal is 0.5), and bare / service alone.

    python bench/rest_bench.py [--seconds 3] [--slices 4] [--concurrency 16] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_bench import cpu_seconds, free_port, wait_port  # noqa: E402

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
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", http="h11", access_log=False)
"""


async def _play(base: str, concurrency: int, seconds: float, games: list[tuple[str, str, int, int, int]]) -> int:
    """Moves for ``seconds``; ``games`` holds each client's (id, token, version, stock, redeals) and is updated."""
    import httpx

    stop = time.monotonic() + seconds
    calls = 0

    async def client(i: int, http: httpx.AsyncClient) -> None:
        nonlocal calls
        while time.monotonic() < stop:
            game_id, token, version, stock, redeals = games[i]
            if stock == 0 and redeals == 0:
                r = await http.post("/v1/games", json={"variant": "sultan-52"})
                g = r.json()
                view = g["game"]["view"]
                games[i] = (g["game"]["gameId"], g["gameToken"], int(g["game"]["version"]),
                            int(view.get("stockCount", 0)), int(view.get("redealsLeft", 0)))  # fmt: skip
                continue
            text = "s" if stock else "rd"
            r = await http.post(
                f"/v1/games/{game_id}/moves",
                json={"expectedVersion": str(version), "text": text},
                headers={"authorization": f"Bearer {token}"},
            )
            calls += 1
            answer = r.json()
            if r.status_code == 200 and "game" in answer and answer["game"].get("gameId") == game_id:
                view = answer["game"]["view"]
                games[i] = (game_id, token, int(answer["game"]["version"]),
                            int(view.get("stockCount", 0)), int(view.get("redealsLeft", 0)))  # fmt: skip

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
        await asyncio.gather(*(client(i, http) for i in range(concurrency)))
    return calls


def _deal(base: str, count: int) -> list[tuple[str, str, int, int, int]]:
    """``count`` fresh sultan-52 games: (id, token, version, stock, redeals) each."""
    import httpx

    games = []
    for _ in range(count):
        g = httpx.post(base + "/v1/games", json={"variant": "sultan-52"}, timeout=30).json()
        view = g["game"]["view"]
        games.append((g["game"]["gameId"], g["gameToken"], int(g["game"]["version"]),
                      int(view.get("stockCount", 0)), int(view.get("redealsLeft", 0))))  # fmt: skip
    return games


def _load(base: str, concurrency: int, seconds: float, state_file: str, out: Any) -> None:
    games = [tuple(g) for g in json.loads(Path(state_file).read_text())]
    calls = asyncio.run(_play(base, concurrency, seconds, games))  # type: ignore[arg-type]
    Path(state_file).write_text(json.dumps(games))  # the service's games go on where they stopped
    out.put(calls)


Slice = tuple[int, float, float, float]


def run_slice(
    base: str, pid: int, concurrency: int, seconds: float, state_file: str, redis_pid: int | None = None
) -> Slice:
    """One slice of load on one server: (calls, the server's CPU seconds, Redis's CPU seconds, wall seconds)."""
    queue: mp.Queue[int] = mp.Queue()
    before = cpu_seconds(pid)
    redis_before = cpu_seconds(redis_pid) if redis_pid else 0.0
    began = time.monotonic()
    proc = mp.Process(target=_load, args=(base, concurrency, seconds, state_file, queue))
    proc.start()
    calls = queue.get(timeout=seconds + 120)
    proc.join(30)
    redis = cpu_seconds(redis_pid) - redis_before if redis_pid else 0.0
    return calls, cpu_seconds(pid) - before, redis, time.monotonic() - began


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
    args = parser.parse_args(argv)
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is needed")
    with tempfile.TemporaryDirectory(prefix="patience-rest-bench-") as tmp_name:
        tmp = Path(tmp_name)
        redis_port, bare_port = free_port(), free_port()
        procs: list[subprocess.Popen[bytes]] = []
        try:
            procs.append(subprocess.Popen(
                [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))  # fmt: skip
            wait_port(redis_port, procs[0])
            env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
            env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                        "PATIENCE_LOG_LEVEL": "WARNING"})  # fmt: skip
            launcher = [sys.executable, "-m", "service"]
            if args.profile:
                (tmp / "profiled.py").write_text(PROFILED.replace("OUT", repr(str(args.profile.resolve()))))
                launcher = [sys.executable, str(tmp / "profiled.py"), "service"]
            checkouts = {"service": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
            services: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
            for name, checkout in checkouts.items():
                port = free_port()
                services[name] = (subprocess.Popen(
                    [*(launcher if name == "service" else [sys.executable, "-m", "service"]), "--listen",
                     f"127.0.0.1:{free_port()}", "--http-listen", f"127.0.0.1:{port}", "--redis-url",
                     f"redis://127.0.0.1:{redis_port}/0", "--rate-limits", "false"],
                    cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                ), f"http://127.0.0.1:{port}")  # fmt: skip
                procs.append(services[name][0])
                wait_port(port, services[name][0])
            import httpx

            base = services["service"][1]
            games = _deal(base, args.concurrency)
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
            bare = subprocess.Popen(
                [sys.executable, str(tmp / "bare.py"), str(bare_port), str(tmp / "answer.json")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            procs.append(bare)
            wait_port(bare_port, bare)
            services["bare"] = (bare, f"http://127.0.0.1:{bare_port}")
            states = {}
            for name in services:  # each server plays games of its own (the baseline's dealt by itself)
                states[name] = tmp / f"{name}-games.json"
                if name == "baseline":
                    base_games = _deal(services[name][1], args.concurrency)
                    states[name].write_text(json.dumps(base_games))
                else:
                    states[name].write_text(json.dumps(games))
            rows: dict[str, list[Slice]] = {name: [] for name in services}
            for _ in range(args.slices):
                for name, (proc, url) in services.items():
                    redis_pid = procs[0].pid if name != "bare" else None
                    rows[name].append(
                        run_slice(url, proc.pid, args.concurrency, args.seconds, str(states[name]), redis_pid)
                    )
        finally:
            for p in procs:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
    figures: dict[str, Any] = {"concurrency": args.concurrency, "slices": args.slices, "seconds": args.seconds}
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
        if name != "bare":
            figures[name]["redis_cpu_us_per_call"] = round(redis / calls * 1e6, 1)
            figures[name]["cpu_with_redis_us_per_call_each_slice"] = [
                round((s + r) / c * 1e6, 1) for c, s, r, _ in slices
            ]
    for name in ("service", "baseline"):
        if name not in rows:
            continue
        pairs = [(s, b) for s, b in zip(rows[name], rows["bare"], strict=True) if s[0] and b[0]]
        # The goal's ratio: the bare app's CPU per call over the service's plus Redis's (a move needs its Redis
        # write; the gRPC benchmark's figure is taken the same way); and over the service process's alone.
        prefix = "" if name == "service" else "baseline_"
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
