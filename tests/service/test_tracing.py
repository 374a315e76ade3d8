"""Traces (service.observe.tracing): `python -m service` with the OTEL_* variables set sends its spans to a real
OTLP/HTTP receiver (tests/otlp_support.py), one trace per call with its parent links, over both transports; the
trace id is in the call's access line and in the latency histogram's exemplar.

The client starts each trace itself (a W3C ``traceparent``), so the test knows the trace id and the parent the
server span must name.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis_support
from otlp_support import ReceivedSpan, Receiver, receiving
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import ServiceProcess, bearer, start_process
from test_winnable import filler_process

from service.observe import tracing

SERVICE = "patience-trace-test"
SERVER, CLIENT = 2, 3  # opentelemetry.proto.trace.v1.Span.SpanKind
#: The receiver, the service, its REST port and its /metrics port.
Traced = tuple[Receiver, ServiceProcess, int, int]


@pytest.fixture(scope="module")
def traced(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traced]:
    """The service with traces on (all sampled, sent every 100 ms), REST and /metrics on ports of their own."""
    http_port, metrics_port = redis_support.free_port(), redis_support.free_port()
    with receiving() as receiver:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_SERVICE_NAME": SERVICE,
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            "OTEL_TRACES_SAMPLER": "parentbased_always_on",
        }
        service = start_process(
            redis_url,
            tmp_path_factory.mktemp("traced"),
            "--http-listen", f"127.0.0.1:{http_port}",
            "--metrics-listen", f"127.0.0.1:{metrics_port}",
            "--hint-states", "200",
            env=env,
        )  # fmt: skip
        try:
            yield receiver, service, http_port, metrics_port
        finally:
            service.terminate()


def new_trace() -> tuple[str, str, str]:
    """A trace the client starts: its id, the client's span id, and the ``traceparent`` header naming both."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, span_id, f"00-{trace_id}-{span_id}-01"


def a_game(stub: pb_grpc.PatienceServiceStub) -> tuple[str, int, tuple[tuple[str, str], ...], str]:
    """A new game: its id, version, credentials and a legal move."""
    reply = stub.NewGame(pb.NewGameRequest(variant="sultan-52"))
    auth = bearer(reply.game_token)
    moves = stub.LegalMoves(pb.LegalMovesRequest(game_id=reply.game.game_id), metadata=auth)
    return reply.game.game_id, reply.game.version, auth, moves.moves[0].text


def named(spans: list[ReceivedSpan], prefix: str) -> ReceivedSpan:
    found = [span for span in spans if span.name.startswith(prefix)]
    assert len(found) == 1, (prefix, spans)
    return found[0]


def has(*prefixes: str) -> object:
    return lambda spans: all(any(s.name.startswith(p) for s in spans) for p in prefixes)


def assert_call_chain(spans: list[ReceivedSpan], client_span: str, server_name: str, use_case: str) -> ReceivedSpan:
    """The server span is the client's child, the use case the server span's, the Redis script the use case's;
    the use case's span, returned."""
    server = named(spans, server_name)
    assert server.kind == SERVER and server.parent_id == client_span and server.service == SERVICE
    assert server.attributes["rpc.response.status_code"] == "OK"
    case = named(spans, use_case)
    assert case.parent_id == server.span_id
    scripts = [span for span in spans if span.name.startswith("EVALSHA ")]
    assert scripts and all(s.parent_id == case.span_id and s.kind == CLIENT for s in scripts), spans
    assert all(s.attributes["db.system.name"] == "redis" for s in scripts)
    return case


def access_line(log: Path, trace_id: str) -> str:
    lines = [line for line in log.read_text().splitlines() if f"trace_id={trace_id}" in line]
    assert len(lines) == 1, lines
    return lines[0]


def exemplar_buckets(metrics_port: int, histogram: str) -> list[str]:
    """The bucket lines of a latency histogram in the OpenMetrics exposition, where each keeps the trace id of a
    call that landed in it as its exemplar."""
    ask = urllib.request.Request(
        f"http://127.0.0.1:{metrics_port}/metrics", headers={"accept": "application/openmetrics-text"}
    )
    with urllib.request.urlopen(ask, timeout=10) as answer:
        text = answer.read().decode()
    return [line for line in text.splitlines() if line.startswith(f"{histogram}_bucket{{")]


def test_apply_move_over_grpc_is_one_trace(traced: Traced) -> None:
    receiver, service, _, metrics_port = traced
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        game_id, version, auth, move = a_game(stub)
        trace_id, client_span, traceparent = new_trace()
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=move)
        stub.ApplyMove(request, metadata=(*auth, ("traceparent", traceparent)))
    spans = receiver.wait_for(has("patience.v1.PatienceService/ApplyMove", "GameService.apply_move"), trace_id)
    assert_call_chain(spans, client_span, "patience.v1.PatienceService/ApplyMove", "GameService.apply_move")
    server = named(spans, "patience.v1.PatienceService/ApplyMove")
    assert server.attributes["rpc.system"] == "grpc" and server.attributes["rpc.method"] == "ApplyMove"
    line = access_line(service.log, trace_id)
    assert "method=/patience.v1.PatienceService/ApplyMove" in line and "code=OK" in line
    buckets = exemplar_buckets(metrics_port, "grpc_server_handling_seconds")
    assert any('grpc_method="ApplyMove"' in b and f'trace_id="{trace_id}"' in b for b in buckets), buckets


def test_apply_move_over_rest_is_one_trace(traced: Traced) -> None:
    receiver, service, http_port, metrics_port = traced
    with grpc.insecure_channel(service.address) as channel:
        game_id, version, auth, move = a_game(pb_grpc.PatienceServiceStub(channel))
    trace_id, client_span, traceparent = new_trace()
    request = urllib.request.Request(
        f"http://127.0.0.1:{http_port}/v1/games/{game_id}/moves",
        data=json.dumps({"expectedVersion": version, "text": move}).encode(),
        headers={"content-type": "application/json", "authorization": auth[0][1], "traceparent": traceparent},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200
    server_name = "POST /v1/games/{game_id}/moves"
    spans = receiver.wait_for(has(server_name, "GameService.apply_move"), trace_id)
    assert_call_chain(spans, client_span, server_name, "GameService.apply_move")
    server = named(spans, server_name)
    assert server.attributes["http.route"] == "/v1/games/{game_id}/moves"
    assert server.attributes["http.request.method"] == "POST"
    assert "http" in access_line(service.log, trace_id)
    buckets = exemplar_buckets(metrics_port, "patience_http_request_duration_seconds")
    assert any('rpc="ApplyMove"' in b and f'trace_id="{trace_id}"' in b for b in buckets), buckets


def test_a_hint_is_traced_into_its_solver_process(traced: Traced) -> None:
    receiver, service, _, _ = traced
    with grpc.insecure_channel(service.address) as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        game_id, _, auth, _ = a_game(stub)
        trace_id, client_span, traceparent = new_trace()
        stub.Hint(pb.HintRequest(game_id=game_id), metadata=(*auth, ("traceparent", traceparent)), timeout=60)
    spans = receiver.wait_for(
        has("patience.v1.PatienceService/Hint", "GameService.hint", "HintPool.hint", "hint_worker.compute"), trace_id
    )
    server = named(spans, "patience.v1.PatienceService/Hint")
    assert server.parent_id == client_span
    case = named(spans, "GameService.hint")
    pool = named(spans, "HintPool.hint")
    worker = named(spans, "hint_worker.compute")
    assert case.parent_id == server.span_id and pool.parent_id == case.span_id
    assert worker.parent_id == pool.span_id and worker.service == SERVICE  # across the process boundary
    assert worker.attributes["hint.states"] == 200 and worker.attributes["hint.code"]


def test_the_filler_traces_each_seed_it_proves(redis_db: str, tmp_path: Path) -> None:
    """One trace per seed: a root span for the step, the proof its child (the filler's own service name)."""
    with receiving() as receiver:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"}
        proc = filler_process(
            redis_db, tmp_path, "--winnable-pools", "sultan-36", "--winnable-pool-target", "1", env=env
        )
        try:

            def proven(spans: list[ReceivedSpan]) -> bool:
                return any(s.name == "winnable.prove" and s.attributes.get("patience.proven") for s in spans)

            spans = receiver.wait_for(proven)
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0, (tmp_path / "filler.log").read_text()[-2000:]
    prove = next(s for s in spans if s.name == "winnable.prove" and s.attributes["patience.proven"])
    step = next(s for s in spans if s.span_id == prove.parent_id)
    assert step.name == "Filler.step" and step.parent_id == "" and step.trace_id == prove.trace_id
    assert step.attributes["patience.pool"] == "sultan-36" and step.service == "patience-filler"
    assert prove.attributes["patience.outcome"] == "won"


def test_off_the_sdk_is_never_imported() -> None:
    """Traces off cost no import of the trace SDK or the exporter (nor their start-up time), in the server or
    its hint processes' module. (redis-py imports the SDK's metrics part by itself, for its own observability
    that nobody turns on here.)"""
    check = (
        "import sys, service.server, service.solving.hint_worker; "
        "assert not [m for m in sys.modules if m.startswith(('opentelemetry.sdk.trace', 'opentelemetry.exporter'))]"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_traces_are_off_unless_the_variables_ask() -> None:
    assert not tracing.wanted({})
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"})
    on = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert not tracing.wanted({**on, "OTEL_SDK_DISABLED": "true"})
    assert not tracing.wanted({**on, "OTEL_TRACES_EXPORTER": "none"})
