"""Instructions per call of a server process, counted by callgrind: the figure that does not depend on what
else the machine is running, so it shows one change's effect where calls/s on a shared host drown it.

    python bench/instructions.py --server service      # ApplyMove on sultan-52 (as bench/service_bench.py)
    python bench/instructions.py --server echo         # the benchmark's echo server, same client work
    python bench/instructions.py --server service --tls   # ApplyMove over the service's own TLS
    python bench/instructions.py --server service --redis-tls   # ... with the service speaking TLS to Redis
    python bench/instructions.py --server rest         # ApplyMove over REST (HTTP/1.1 + JSON, uvicorn, httptools)
    python bench/instructions.py --server rest-bare    # bench/rest_bench.py's bare Starlette app (h11), same requests
    python bench/instructions.py --server rest-bare-httptools   # the same bare app on httptools

The server runs under ``valgrind --tool=callgrind`` (about fifty times slower, so the clients always find it
busy), gets ``--warm`` calls, has its counters zeroed with ``callgrind_control -z``, serves ``--calls`` calls
at ``--concurrency`` and is dumped; the dump's total divided by the calls is printed. Needs valgrind and
redis-server. Figures in docs/service-benchmark.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grpc_echo
import processes
import rest_bench  # its bare app
import service_loads
import tracing_bench  # the baseline revision's package

ROOT = Path(__file__).resolve().parent.parent


async def drive(
    server: str, address: str, concurrency: int, calls: int, reply: bytes | None = None, roots: bytes | None = None
) -> None:
    """``calls`` calls spread over ``concurrency`` coroutines: ApplyMove on sultan-52 games (a fresh game when one
    runs out of turns), or echo calls carrying the same request, metadata and response."""
    from patience.v1 import patience_pb2 as pb
    from patience.v1 import patience_pb2_grpc as pb_grpc

    chans = service_loads.channels(address, min(service_loads.CHANNELS, concurrency), roots)
    if server == "echo":
        # The generated stub, as the ApplyMove load calls it: the echo server answers ApplyMove too.
        invokers = [pb_grpc.PatienceServiceStub(c).ApplyMove for c in chans]
        md = (("authorization", "Bearer pgt_" + "x" * 43),)

        async def one(i: int, state: list[Any]) -> None:
            reply = await invokers[i % len(invokers)](
                pb.ApplyMoveRequest(game_id="0" * 24, expected_version=state[0], text="s"), metadata=md
            )
            state[0] = reply.game.version or 1

        states: list[list[Any]] = [[1] for _ in range(concurrency)]
    else:
        stubs = [pb_grpc.PatienceServiceStub(c) for c in chans]

        async def deal(i: int) -> list[Any]:
            r = await stubs[i % len(stubs)].NewGame(pb.NewGameRequest(variant="sultan-52"))
            return [(("authorization", f"Bearer {r.game_token}"),), r.game.game_id, r.game.version, r.game.view]

        states = [await deal(i) for i in range(concurrency)]

        async def one(i: int, state: list[Any]) -> None:
            md, gid, version, view = state
            text = "s" if view.stock_count else ("rd" if view.redeals_left else None)
            if text is None:
                state[:] = await deal(i)
                md, gid, version, view = state
                text = "s"
            r = await stubs[i % len(stubs)].ApplyMove(
                pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=text), metadata=md
            )
            state[2], state[3] = r.game.version, r.game.view

    async def worker(i: int, n: int) -> None:
        for _ in range(n):
            await one(i, states[i])

    await asyncio.gather(*(worker(i, calls // concurrency) for i in range(concurrency)))
    for c in chans:
        await c.close()  # type: ignore[attr-defined]


async def drive_rest(base: str, concurrency: int, calls: int) -> None:
    """``calls`` REST ApplyMoves (keep-alive HTTP/1.1, httpx) as bench/rest_bench.py sends them; the bare app
    answers each with a fixed body, so its "games" never change (their version is only echoed back)."""
    import httpx

    async def deal(http: httpx.AsyncClient) -> list[Any]:
        g = (await http.post("/v1/games", json={"variant": "sultan-52"})).json()
        return [g["game"]["gameId"], g["gameToken"], g["game"]["version"], g["game"]["view"]]

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=600) as http:
        bare = (await http.post("/v1/games", json={})).status_code == 404
        states = [["0" * 24, "pgt_" + "x" * 43, "1", {"stockCount": 1}] if bare else await deal(http)
                  for _ in range(concurrency)]  # fmt: skip

        async def worker(state: list[Any], n: int) -> None:
            for _ in range(n):
                gid, token, version, view = state
                text = "s" if view.get("stockCount") else ("rd" if view.get("redealsLeft") else None)
                if text is None:
                    state[:] = await deal(http)
                    gid, token, version, view = state
                    text = "s"
                r = await http.post(f"/v1/games/{gid}/moves", json={"expectedVersion": version, "text": text},
                                    headers={"authorization": f"Bearer {token}"})  # fmt: skip
                answer = r.json()["game"]
                if not bare:
                    state[2], state[3] = answer["version"], answer["view"]

        await asyncio.gather(*(worker(states[i], calls // concurrency) for i in range(concurrency)))


async def rest_answer(address: str) -> bytes:
    """A real ApplyMove answer in JSON, for the bare app to send (the service's REST layer gives the same)."""
    from google.protobuf import json_format
    from patience.v1 import patience_pb2 as pb

    reply, _, _ = await service_loads.typical_reply(address)
    answer = json_format.MessageToDict(
        pb.ApplyMoveResponse.FromString(reply), always_print_fields_with_no_presence=True
    )
    return json.dumps(answer, separators=(",", ":")).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--server", choices=("service", "echo", "rest", "rest-bare", "rest-bare-httptools"), default="service"
    )
    parser.add_argument("--calls", type=int, default=1024)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--warm", type=int, default=256)
    parser.add_argument("--log-level", default="WARNING", help="the service's; INFO writes an access line a call")
    parser.add_argument("--keep", type=Path, help="copy the callgrind dump here (for callgrind_annotate)")
    parser.add_argument("--tls", action="store_true", help="the service serves TLS (a development certificate)")
    parser.add_argument("--redis-tls", action="store_true", help="Redis listens on TLS only; rediss:// to it")
    parser.add_argument(
        "--baseline", help="run the service package of this git revision instead (bench/tracing_bench.py's way)"
    )
    parser.add_argument(
        "--traces", choices=("off", "1%", "100%"), default="off",
        help="the service's traces (bench/tracing_bench.py's configurations), sent to a sink in this process",
    )  # fmt: skip
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE",
        help="a variable for the service (a switch of docs/configuration.md: PATIENCE_REDIS_CLIENT=redis-py)",
    )  # fmt: skip
    args = parser.parse_args()
    if (args.tls or args.redis_tls) and args.server != "service":
        raise SystemExit("--tls and --redis-tls measure the service")
    for tool in ("valgrind", "callgrind_control", "redis-server"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed")
    tmp = Path(tempfile.mkdtemp(prefix="patience-instr-"))
    redis_port, port = processes.free_port(), processes.free_port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        from service.security import dev_certificates

        dev_certificates.main(["--out", str(tmp / "tls")])
        listen = ["--port", str(redis_port)]
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        if args.redis_tls:
            pem = [str(tmp / "tls" / name) for name in ("tls.crt", "tls.key")]
            listen = ["--port", "0", "--tls-port", str(redis_port), "--tls-auth-clients", "no",
                      "--tls-cert-file", pem[0], "--tls-key-file", pem[1]]  # fmt: skip
            # valgrind slows the TLS work fifty-fold, past redis-py's connect and read timeouts
            redis_url = f"rediss://127.0.0.1:{redis_port}/0?socket_connect_timeout=120&socket_timeout=120"
        redis = subprocess.Popen(
            ["redis-server", *listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp)],
            stdout=subprocess.DEVNULL,
        )
        procs.append(redis)
        processes.wait_port(redis_port, redis)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PROMETHEUS_", "OTEL_"))}
        cwd = ROOT
        if args.traces != "off":
            sink = tracing_bench.Sink()
            env.update(OTEL_EXPORTER_OTLP_ENDPOINT=sink.endpoint, **tracing_bench.CONFIGURATIONS[args.traces])
        if args.baseline:  # the old package first on the path: ``python -m`` puts the working folder first
            cwd = tracing_bench.baseline_root(args.baseline, tmp)
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "proto"), str(ROOT / "clients" / "python")])
        rest = args.server.startswith("rest")
        if args.server.startswith("rest-bare"):
            service, address = processes.start_service(f"redis://127.0.0.1:{redis_port}/0", tmp, "WARNING")
            (tmp / "answer.json").write_bytes(asyncio.run(rest_answer(address)))
            processes.stop(service)
            (tmp / "bare.py").write_text(rest_bench.BARE_APP)
            http = "httptools" if args.server.endswith("httptools") else "h11"
            command = [sys.executable, str(tmp / "bare.py"), str(port), str(tmp / "answer.json"), http]
        elif args.server == "echo":
            reply = tmp / "reply.bin"
            service, address = processes.start_service(f"redis://127.0.0.1:{redis_port}/0", tmp, "WARNING")
            reply.write_bytes(asyncio.run(service_loads.typical_reply(address))[0])
            processes.stop(service)
            command = [sys.executable, grpc_echo.__file__, str(port), str(reply)]
        else:
            env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                        "PATIENCE_LOG_LEVEL": args.log_level, "PATIENCE_WINNABLE_FILLER": "off"})  # fmt: skip
            env.update(dict(pair.split("=", 1) for pair in args.env))
            command = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url,
                       "--rate-limits", "false"]  # fmt: skip
            if rest:  # gRPC on a port of its own, REST on the measured one
                command[3:5] = ["--listen", f"127.0.0.1:{processes.free_port()}", "--http-listen", f"127.0.0.1:{port}"]
            if args.redis_tls:
                command += ["--redis-ca-file", str(tmp / "tls" / "ca.crt")]
        roots = None
        if args.tls:
            roots = (tmp / "tls" / "ca.crt").read_bytes()
            command += ["--tls-cert-file", str(tmp / "tls" / "tls.crt"), "--tls-key-file", str(tmp / "tls" / "tls.key")]
        out = tmp / "callgrind.out"
        server = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", *command],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(server)
        processes.wait_port(port, server, timeout=600)
        time.sleep(2)
        address = f"127.0.0.1:{port}"
        load: Callable[[int], Coroutine[Any, Any, None]] = (
            (lambda n: drive_rest(f"http://{address}", args.concurrency, n))
            if rest
            else (lambda n: drive(args.server, address, args.concurrency, n, roots=roots))
        )
        asyncio.run(load(args.warm))
        # valgrind runs the server as its own pid (exec), so the Popen pid is the one to control
        subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True)
        asyncio.run(load(args.calls))
        subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True)
        dumps: list[Path] = []
        for _ in range(60):
            dumps = sorted(tmp.glob("callgrind.out.*.1"))
            if dumps and "summary:" in dumps[0].read_text(errors="replace")[-4096:]:
                break
            time.sleep(1)
        summary = next(line for line in dumps[0].read_text().splitlines() if line.startswith("summary:"))
        total = int(summary.split()[1])
        if args.keep is not None:
            shutil.copyfile(dumps[0], args.keep)
        calls = args.calls // args.concurrency * args.concurrency
        per_call = total / calls / 1e6
        what = args.server + (" over TLS" if args.tls else "") + (", rediss://" if args.redis_tls else "")
        what += f" at {args.baseline}" if args.baseline else ""
        what += f", traces {args.traces}" if args.traces != "off" else ""
        what += "".join(f", {pair}" for pair in args.env)
        print(f"{what}: {per_call:.3f} M instructions a call ({calls} calls at C = {args.concurrency})")
    finally:
        for proc in reversed(procs):
            processes.stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
