"""Operations, end to end against real servers and a real Redis: metrics, JSON logs with request ids,
graceful shutdown on SIGTERM with a call in flight, and ``--workers`` sharing one port.

The servers run as ``python -m service`` subprocesses (the real entry point, signals and all), except the
metrics test, which runs one in-process so it can read the counters before and after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from service.errors import error_info
from service.settings.config import Settings

SERVICE = "patience.v1.PatienceService"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    address: str
    metrics_port: int
    log: Path

    def records(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as reply:
            return str(reply.read().decode())


def wait_serving(address: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            assert process.poll() is None, f"the server exited with {process.returncode}"
            with contextlib.suppress(grpc.RpcError):
                reply = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            time.sleep(0.1)
    pytest.fail(f"{address} never answered SERVING")


@contextlib.contextmanager
def server_process(redis_url: str, tmp_path: Path, *extra: str) -> Iterator[ServerProcess]:
    port, metrics_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PROMETHEUS_"))}
    log = tmp_path / f"server-{port}.log"
    args = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url]
    args += ["--metrics-listen", f"127.0.0.1:{metrics_port}", "--log-format", "json", "--grace", "10"]
    args += ["--winnable-filler", "off", *extra]  # tests/service/test_winnable.py runs the filler
    with log.open("wb") as sink:
        process = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    try:
        address = f"127.0.0.1:{port}"
        wait_serving(address, process)
        yield ServerProcess(process, address, metrics_port, log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# ------------------------------------------------------------------------------------------------ metrics


def test_metrics_count_real_rpcs_by_method_code_and_game_event(redis_db: str) -> None:
    from service.observe import metrics
    from service.server import create_server

    rpc = {"grpc_service": SERVICE}
    before = {
        "new_ok": sample("grpc_server_handled_total", **rpc, grpc_method="NewGame", grpc_code="OK"),
        "apply_ok": sample("grpc_server_handled_total", **rpc, grpc_method="ApplyMove", grpc_code="OK"),
        "apply_refused": sample(
            "grpc_server_handled_total", **rpc, grpc_method="ApplyMove", grpc_code="FAILED_PRECONDITION"
        ),
        "get_missing": sample("grpc_server_handled_total", **rpc, grpc_method="GetGame", grpc_code="NOT_FOUND"),
        "apply_latency": sample("grpc_server_handling_seconds_count", **rpc, grpc_method="ApplyMove"),
        "dealt": sample("patience_games_dealt_total", variant="cats-tail"),
        "moves": sample("patience_moves_applied_total", variant="cats-tail"),
        "unfinished": sample("patience_verifications_total", verdict="unfinished"),
        "illegal": sample("patience_verifications_total", verdict="illegal"),
    }

    async def play() -> None:
        settings = Settings(listen="127.0.0.1:0", redis_url=redis_db)
        server, port = await create_server(settings)
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.PatienceServiceStub(channel)
                dealt = await stub.NewGame(pb.NewGameRequest(variant="cats-tail"))
                game, token = dealt.game, dealt.game_token
                legal = await stub.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token))
                first = legal.moves[0].text
                await stub.ApplyMove(
                    pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=first),
                    metadata=bearer(token),
                )
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.ApplyMove(
                        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version + 1, text="s"),
                        metadata=bearer(token),
                    )
                assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                with pytest.raises(grpc.aio.AioRpcError):
                    await stub.GetGame(pb.GetGameRequest(game_id="no-such-game"), metadata=bearer(token))
                unfinished = await stub.SubmitSolution(
                    pb.SubmitSolutionRequest(game_id=game.game_id, moves=[first]), metadata=bearer(token)
                )
                assert unfinished.verdict.outcome == pb.OUTCOME_UNFINISHED
                again = await stub.NewGame(pb.NewGameRequest(variant="cats-tail"))  # a submission is final
                illegal = await stub.SubmitSolution(
                    pb.SubmitSolutionRequest(game_id=again.game.game_id, moves=["1-1"]),
                    metadata=bearer(again.game_token),
                )
                assert illegal.verdict.outcome == pb.OUTCOME_ILLEGAL
        finally:
            await server.stop(0)

    asyncio.run(play())

    after_apply_ok = sample("grpc_server_handled_total", **rpc, grpc_method="ApplyMove", grpc_code="OK")
    assert sample("grpc_server_handled_total", **rpc, grpc_method="NewGame", grpc_code="OK") == before["new_ok"] + 2
    assert after_apply_ok == before["apply_ok"] + 1
    assert (
        sample("grpc_server_handled_total", **rpc, grpc_method="ApplyMove", grpc_code="FAILED_PRECONDITION")
        == before["apply_refused"] + 1
    )
    assert (
        sample("grpc_server_handled_total", **rpc, grpc_method="GetGame", grpc_code="NOT_FOUND")
        == before["get_missing"] + 1
    )
    assert sample("grpc_server_handling_seconds_count", **rpc, grpc_method="ApplyMove") == before["apply_latency"] + 2
    assert sample("patience_games_dealt_total", variant="cats-tail") == before["dealt"] + 2
    assert sample("patience_moves_applied_total", variant="cats-tail") == before["moves"] + 1
    assert sample("patience_verifications_total", verdict="unfinished") == before["unfinished"] + 1
    assert sample("patience_verifications_total", verdict="illegal") == before["illegal"] + 1

    # ... and the same numbers over HTTP, as Prometheus scrapes them.
    http, port = metrics.start_http_server("127.0.0.1:0")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    finally:
        http.shutdown()
    line = f'grpc_server_handled_total{{grpc_code="OK",grpc_method="ApplyMove",grpc_service="{SERVICE}"}}'
    assert f"{line} {after_apply_ok}" in text
    assert 'grpc_server_handling_seconds_bucket{grpc_method="ApplyMove"' in text


# --------------------------------------------------------------------------------------------------- logs


def test_json_log_lines_carry_the_request_id(redis_db: str, tmp_path: Path) -> None:
    with server_process(redis_db, tmp_path) as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        dealt, call = stub.NewGame.with_call(
            pb.NewGameRequest(variant="tribunal"), metadata=(("x-request-id", "client-chose-this-id"),)
        )
        assert ("x-request-id", "client-chose-this-id") in call.trailing_metadata()
        with pytest.raises(grpc.RpcError) as missing:
            stub.GetGame(pb.GetGameRequest(game_id="no-such-game"), metadata=bearer(dealt.game_token))
        generated = dict(missing.value.trailing_metadata())["x-request-id"]  # type: ignore[attr-defined]
        assert len(generated) == 32
        status = rpc_status.from_call(missing.value)  # type: ignore[arg-type]
        assert status is not None and status.details, "the error's rich details survive beside the request id"
        with pytest.raises(grpc.RpcError):  # a request id with a newline is not trusted: a fresh one is made
            stub.GetGame(pb.GetGameRequest(game_id="x"), metadata=(("x-request-id", "a\nb"),))
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=20) == 0
        records = server.records()

    mine = [r for r in records if r.get("request_id") == "client-chose-this-id"]
    access = next(r for r in mine if r["logger"] == "service.access")
    assert access["method"] == f"/{SERVICE}/NewGame" and access["code"] == "OK" and access["duration_ms"] > 0
    assert any(r["msg"] == "game dealt" for r in mine), "a log line written inside the use case carries the id too"
    failed = next(r for r in records if r.get("request_id") == generated)
    assert failed["code"] == "NOT_FOUND" and failed["level"] == "info"
    assert not any("a\nb" in json.dumps(r) or "a\\nb" in json.dumps(r) for r in records)
    assert dealt.game_token not in server.log.read_text(), "the game token is never logged"


# --------------------------------------------------------------------------------------------- shutdown


def test_sigterm_lets_the_in_flight_call_finish(redis_db: str, tmp_path: Path) -> None:
    """A move held up in Redis (CLIENT PAUSE) when SIGTERM arrives is still applied and acknowledged."""
    with server_process(redis_db, tmp_path) as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        dealt = stub.NewGame(pb.NewGameRequest(variant="cats-tail"))
        game, token = dealt.game, dealt.game_token
        move = stub.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token)).moves[0].text

        admin = redis.Redis.from_url(redis_db)
        admin.execute_command("CLIENT", "PAUSE", "6000", "WRITE")  # the move's compare-and-set waits for this
        try:
            pending = stub.ApplyMove.future(
                pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=move),
                metadata=bearer(token),
            )
            started = f'grpc_server_started_total{{grpc_method="ApplyMove",grpc_service="{SERVICE}"}} 1.0'
            deadline = time.monotonic() + 5
            while started not in server.metrics():
                assert time.monotonic() < deadline, "the ApplyMove call never reached the server"
                time.sleep(0.05)
            assert not pending.done()
            server.process.send_signal(signal.SIGTERM)

            # Draining: health turns NOT_SERVING (or the port closes) while the move is still waiting.
            health = health_pb2_grpc.HealthStub(grpc.insecure_channel(server.address))
            deadline = time.monotonic() + 2
            while True:
                try:
                    status = health.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=1).status
                except grpc.RpcError:
                    break
                if status != health_pb2.HealthCheckResponse.SERVING:
                    break
                assert time.monotonic() < deadline, "still SERVING after SIGTERM"
                time.sleep(0.05)
            time.sleep(1.0)  # well past a short grace period: only a real one keeps the call alive
            assert not pending.done(), "the in-flight move was cut short"
        finally:
            admin.execute_command("CLIENT", "UNPAUSE")

        applied = pending.result(timeout=15)
        assert applied.game.version == game.version + 1
        assert server.process.wait(timeout=20) == 0

    async def stored_version() -> int:
        from service.server import create_server

        restarted, port = await create_server(Settings(listen="127.0.0.1:0", redis_url=redis_db))
        await restarted.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.PatienceServiceStub(channel)
                got = await stub.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token))
                return int(got.game.version)
        finally:
            await restarted.stop(0)

    assert asyncio.run(stored_version()) == game.version + 1, "the acknowledged move is in Redis"


# ------------------------------------------------------------------------------------------------ workers


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def test_two_workers_serve_one_port_from_two_processes(redis_db: str, tmp_path: Path) -> None:
    http_port = free_port()
    with server_process(redis_db, tmp_path, "--workers", "2", "--http-listen", f"127.0.0.1:{http_port}") as server:
        calls = 0
        pids: set[int] = set()
        for _ in range(60):
            # A fresh channel is a fresh connection, which the kernel hands to either worker.
            with grpc.insecure_channel(server.address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
                pb_grpc.PatienceServiceStub(channel).ListVariants(pb.ListVariantsRequest(), timeout=5)
            calls += 1
            time.sleep(0.02)
            access = [r for r in server.records() if r.get("logger") == "service.access"]
            pids = {int(r["pid"]) for r in access if r["method"].endswith("/ListVariants")}
            if len(pids) == 2 and calls >= 10:
                break
        assert len(pids) == 2, f"{calls} connections all went to one process"
        for _ in range(40):  # REST shares its port the same way (each request here is a new connection)
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v1/variants", timeout=5) as reply:
                assert len(json.loads(reply.read())["variants"]) == 9
        rest = [r for r in server.records() if r.get("logger") == "service.access" and r.get("msg") == "http"]
        assert {int(r["pid"]) for r in rest} == pids, "both workers answer REST calls"
        assert {parent_of(pid) for pid in pids} == {server.process.pid}, "the workers are the parent's children"
        assert server.process.pid not in pids, "the parent serves no gRPC"

        # The parent's /metrics is the sum over the workers.
        wanted = f'grpc_server_handled_total{{grpc_code="OK",grpc_method="ListVariants",grpc_service="{SERVICE}"}}'
        line = next(x for x in server.metrics().splitlines() if x.startswith(wanted))
        assert float(line.split()[-1]) == calls

        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
        for pid in pids:
            assert not Path(f"/proc/{pid}").exists(), f"worker {pid} outlived the parent"


def test_generated_request_ids_are_unique_and_a_forked_worker_draws_its_own() -> None:
    from service.observe import logs

    ids = {logs.new_request_id() for _ in range(10_000)}
    assert len(ids) == 10_000 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a --workers process forked after the parent made ids
        os.write(write_end, logs.new_request_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read_end, 64).decode()
    os.close(read_end)
    os.close(write_end)
    assert child not in ids and child[:16] != logs.new_request_id()[:16]


def children_of(pids: set[int]) -> set[int]:
    out: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if parent_of(int(stat.parent.name)) in pids:
                out.add(int(stat.parent.name))
        except (OSError, ValueError, IndexError):  # a process that ended meanwhile
            continue
    return out


def test_each_worker_has_its_own_hint_pool_and_they_agree(redis_db: str, tmp_path: Path) -> None:
    """--workers 2: a hint from either worker is the same (one key, derived from the shared ticket key), counted
    once; each worker runs the solver in processes of its own, which stop with it."""
    keys = tmp_path / "keys"
    subprocess.run(
        [sys.executable, "-m", "service.security.keys", "generate", "--out", str(keys)], check=True, cwd=tmp_path
    )
    with server_process(
        redis_db, tmp_path, "--workers", "2", "--keys-dir", str(keys), "--hint-states", "200"
    ) as server:
        with grpc.insecure_channel(server.address) as channel:
            dealt = pb_grpc.PatienceServiceStub(channel).NewGame(pb.NewGameRequest(variant="sultan-36"), timeout=10)
        answers: list[pb.HintResponse] = []
        pids: set[int] = set()
        for _ in range(60):
            with grpc.insecure_channel(server.address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
                stub = pb_grpc.PatienceServiceStub(channel)
                request = pb.HintRequest(game_id=dealt.game.game_id)
                answers.append(stub.Hint(request, metadata=bearer(dealt.game_token), timeout=60))
            access = [r for r in server.records() if r.get("logger") == "service.access"]
            pids = {int(r["pid"]) for r in access if r["method"].endswith("/Hint")}
            if len(pids) == 2:
                break
        assert len(pids) == 2, f"{len(answers)} hints all went to one process"
        assert all(a == answers[0] for a in answers) and answers[0].hint_count == 1
        # The parent's /metrics adds up the workers' hint metrics: each worker computed the hint once (then
        # answered from memory), and neither holds a hint now.
        scraped = scrape(server.metrics())
        assert scraped[("patience_hint_solver_cpu_seconds_count", (("variant", "sultan-36"),))] == 2
        assert scraped[("patience_hint_solver_cpu_seconds_sum", (("variant", "sultan-36"),))] > 0
        assert scraped[("patience_hints_total", (("reason_code", answers[0].reason_code),))] == 2
        assert scraped[("patience_hints_running", ())] == scraped[("patience_hints_queued", ())] == 0
        solvers = children_of(pids)
        assert len(solvers) >= 2, "each worker runs the solver in a process of its own"
        # A worker killed outright (no shutdown of its pool) leaves no solver behind ...
        victim = min(pids)
        orphans = children_of({victim})
        os.kill(victim, signal.SIGKILL)
        assert gone(orphans), "a solver process outlived its killed worker"
        # ... and the parent, failing fast, stops the other worker, which stops its pool.
        assert server.process.wait(timeout=30) != 0
        assert gone(solvers), "a solver process outlived its worker"


def scrape(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The samples of a /metrics page, by name and sorted labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_refused_hints_are_counted_over_workers(redis_db: str, tmp_path: Path) -> None:
    """--workers 2, one hint process and no queue each: hints asked at once over one connection (one worker) are
    refused HINTS_BUSY but the first, and the parent's /metrics counts every refusal and every hint computed."""
    with server_process(
        redis_db, tmp_path, "--workers", "2", "--hint-queue", "0", "--hint-states", "4800", "--hint-cpu-seconds", "30"
    ) as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            games = [stub.NewGame(pb.NewGameRequest(variant="captives"), timeout=10) for _ in range(4)]
            calls = [
                stub.Hint.future(pb.HintRequest(game_id=g.game.game_id), metadata=bearer(g.game_token), timeout=120)
                for g in games
            ]
            answered, busy = [], 0
            for call in calls:
                try:
                    answered.append(call.result())
                except grpc.RpcError as exc:
                    info = error_info(rpc_status.from_call(exc))  # type: ignore[arg-type]
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
                    assert info is not None and info.reason == "HINTS_BUSY"
                    busy += 1
        assert answered and busy >= 1, "the first hint takes the worker's one process: the others are refused"
        scraped = scrape(server.metrics())
        assert scraped[("patience_hints_busy_total", ())] == busy
        assert scraped[("patience_hint_solver_cpu_seconds_count", (("variant", "captives"),))] == len(answered)
        computed = sum(v for (name, _), v in scraped.items() if name == "patience_hints_total")
        assert computed == len(answered)
        assert scraped[("patience_hints_running", ())] == scraped[("patience_hints_queued", ())] == 0


def gone(pids: set[int], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not [pid for pid in pids if Path(f"/proc/{pid}").exists()]:
            return True
        time.sleep(0.1)
    return False


def test_workers_share_one_embedded_filler(redis_db: str, tmp_path: Path) -> None:
    """With --workers 2 and the embedded filler, the parent starts one filler (not one per worker), which
    stops with it."""
    extra = ("--workers", "2", "--winnable-filler", "embedded", "--winnable-pools", "sultan-36")
    with server_process(redis_db, tmp_path, *extra, "--winnable-pool-target", "1") as server:
        deadline = time.monotonic() + 30
        while True:
            children = [int(p) for p in Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
                        .read_text().split()]  # fmt: skip
            fillers = [p for p in children if b"service.solving.filler" in Path(f"/proc/{p}/cmdline").read_bytes()]
            workers = [p for p in children if p not in fillers]
            if len(workers) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert len(fillers) == 1 and len(workers) == 2, (fillers, workers)
        for worker in workers:  # a worker starts no filler of its own
            assert not Path(f"/proc/{worker}/task/{worker}/children").read_text().split()
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            deadline = time.monotonic() + 60
            while True:
                try:
                    stub.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True), timeout=10)
                    break
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline
        deadline = time.monotonic() + 30  # both workers serving (a worker still starting dies of SIGTERM)
        while sum(1 for r in server.records() if r.get("msg") == "serving") < 2:
            assert time.monotonic() < deadline, "the workers did not both start"
            time.sleep(0.1)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
    assert not Path(f"/proc/{fillers[0]}").exists(), "the filler outlived the service"
