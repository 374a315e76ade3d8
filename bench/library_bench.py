"""The kept hand-written replacements of libraries against their libraries, in the service's CPU time per ApplyMove,
beside the floors.

One run on one machine: a private ``redis-server`` and one ``python -m service`` per path, each started with the
switch that picks it (``PATIENCE_REDIS_CLIENT``, ``PATIENCE_JSON_MAPPING``: docs/configuration.md), beside the two
floors: the bare grpc.aio echo server (``bench/grpc_echo.py``) and the bare Starlette + uvicorn (h11) app
(``bench/rest_bench.py``). The loads -- ApplyMove on ``sultan-52`` over gRPC (``bench/service_loads.py``) or over
REST -- are taken in turn in ``--slices`` slices, so that every path meets the same moments of a shared host. Per
path: calls/s and the CPU time per call of its server process and of Redis; then, slice by slice (median over the
slices), how much more a call costs on the library's path than on the service's (``extra``: the replacement's
worth, as a share of a call; kept only above 0.15), and the floors' ratios (the service's CPU, alone and with
Redis's, over the floor's: the goal is at most 2).

    python bench/library_bench.py [--seconds 2] [--slices 5] [--concurrency 16] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import service_loads
from processes import free_port, machine, start_redis, wait_port
from rest_bench import BARE_APP
from rest_loads import Slice, deal, run_grpc_slice, run_slice

ROOT = Path(__file__).resolve().parent.parent

#: The paths measured, by the switches that pick them (docs/configuration.md): the service as shipped, and each
#: kept replacement's library beside it.
GRPC_PATHS: dict[str, dict[str, str]] = {
    "service": {},
    "redis-py": {"PATIENCE_REDIS_CLIENT": "redis-py"},
}
REST_PATHS: dict[str, dict[str, str]] = {
    "service": {},
    "json_format": {"PATIENCE_JSON_MAPPING": "json_format"},
    "redis-py": {"PATIENCE_REDIS_CLIENT": "redis-py"},
}


def _figures(slices: list[Slice]) -> dict[str, Any]:
    calls = sum(c for c, _, _, _ in slices)
    cpu, redis, wall = (sum(s[i] for s in slices) for i in (1, 2, 3))
    return {
        "calls_per_s": round(calls / wall, 1),
        "cpu_us_per_call": round(cpu / calls * 1e6, 1),
        "redis_us_per_call": round(redis / calls * 1e6, 1),
    }


def _extra(path: list[Slice], base: list[Slice], redis: bool = False) -> float:
    """Median over the slices of (path's CPU per call / the base's) - 1: what the path adds to a call."""
    i = 2 if redis else 1
    ratios = [
        ((p[1] + (p[2] if redis else 0)) / p[0]) / ((b[1] + (b[i] if redis else 0)) / b[0])
        for p, b in zip(path, base, strict=True)
        if p[0] and b[0]
    ]
    return round(statistics.median(ratios) - 1, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of each slice (default 2)")
    parser.add_argument("--slices", type=int, default=5, help="slices of each load, taken in turn (default 5)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent calls (default 16)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    rows: dict[str, list[Slice]] = {}
    with tempfile.TemporaryDirectory(prefix="patience-library-bench-") as tmp_name:
        tmp = Path(tmp_name)
        procs: list[subprocess.Popen[bytes]] = []
        try:
            redis, redis_url = start_redis()
            procs.append(redis)
            base_env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
            base_env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                             "PATIENCE_LOG_LEVEL": "WARNING", "PATIENCE_WINNABLE_FILLER": "off"})  # fmt: skip
            services: dict[str, tuple[subprocess.Popen[bytes], str, str]] = {}  # name -> process, gRPC, REST
            for name, env in {**GRPC_PATHS, **REST_PATHS}.items():
                if name in services:
                    continue
                grpc_port, http_port = free_port(), free_port()
                proc = subprocess.Popen(
                    [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{grpc_port}", "--http-listen",
                     f"127.0.0.1:{http_port}", "--redis-url", redis_url,
                     "--rate-limits", "false"],
                    cwd=ROOT, env={**base_env, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                procs.append(proc)
                wait_port(http_port, proc)
                services[name] = (proc, f"127.0.0.1:{grpc_port}", f"http://127.0.0.1:{http_port}")
            import asyncio

            from grpc_echo import start_echo

            reply, game_id, token = asyncio.run(service_loads.typical_reply(services["service"][1]))
            (tmp / "reply.bin").write_bytes(reply)
            echo_port = free_port()
            echo = start_echo(echo_port, tmp / "reply.bin")
            procs.append(echo)
            wait_port(echo_port, echo)
            import httpx

            games = deal(services["service"][2], 1)
            answer = httpx.post(
                f"{services['service'][2]}/v1/games/{games[0][0]}/moves",
                json={"expectedVersion": str(games[0][2]), "text": "s"},
                headers={"authorization": f"Bearer {games[0][1]}"},
                timeout=30,
            )
            (tmp / "answer.json").write_bytes(answer.content)
            (tmp / "bare.py").write_text(BARE_APP)
            bare_port = free_port()
            bare = subprocess.Popen(
                [sys.executable, str(tmp / "bare.py"), str(bare_port), str(tmp / "answer.json"), "h11"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            procs.append(bare)
            wait_port(bare_port, bare)
            states: dict[str, Path] = {}
            for name in [*REST_PATHS, "bare"]:
                states[name] = tmp / f"{name}-games.json"
                url = services[name][2] if name != "bare" else services["service"][2]
                states[name].write_text(json.dumps(deal(url, args.concurrency)))
            for _ in range(args.slices):
                for name in GRPC_PATHS:
                    proc, address, _ = services[name]
                    rows.setdefault(f"grpc {name}", []).append(
                        run_grpc_slice("apply_move", address, args.concurrency, args.seconds, [proc.pid, redis.pid], {})
                    )
                rows.setdefault("grpc echo", []).append(
                    run_grpc_slice(
                        "echo",
                        f"127.0.0.1:{echo_port}",
                        args.concurrency,
                        args.seconds,
                        [echo.pid],
                        {"game_id": game_id, "token": token},
                    )
                )
                for name in REST_PATHS:
                    proc, _, url = services[name]
                    rows.setdefault(f"rest {name}", []).append(
                        run_slice(url, proc.pid, args.concurrency, args.seconds, str(states[name]), redis.pid, "raw")
                    )
                rows.setdefault("rest bare h11", []).append(
                    run_slice(
                        f"http://127.0.0.1:{bare_port}",
                        bare.pid,
                        args.concurrency,
                        args.seconds,
                        str(states["bare"]),
                        None,
                        "raw",
                    )
                )
        finally:
            for p in procs:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
    figures: dict[str, Any] = {
        "machine": machine(),
        "concurrency": args.concurrency,
        "slices": args.slices,
        "seconds": args.seconds,
        "loads": {name: _figures(slices) for name, slices in rows.items()},
        "extra_over_service": {},
        "floors": {},
    }
    for transport, paths in (("grpc", GRPC_PATHS), ("rest", REST_PATHS)):
        base = rows[f"{transport} service"]
        for name in paths:
            if name != "service":
                figures["extra_over_service"][f"{transport} {name}"] = {
                    "service": _extra(rows[f"{transport} {name}"], base),
                    "service_and_redis": _extra(rows[f"{transport} {name}"], base, redis=True),
                }
    for transport, floor in (("grpc", "grpc echo"), ("rest", "rest bare h11")):
        pairs = list(zip(rows[f"{transport} service"], rows[floor], strict=True))
        figures["floors"][f"{transport} service / {floor}"] = {
            "service": round(statistics.median((s[1] / s[0]) / (f[1] / f[0]) for s, f in pairs), 2),
            "service_and_redis": round(statistics.median(((s[1] + s[2]) / s[0]) / (f[1] / f[0]) for s, f in pairs), 2),
        }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
