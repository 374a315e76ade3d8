"""Prometheus metrics: a gRPC server interceptor for every RPC, plus the game events read off the responses.

The RPC metrics use the names and labels of go-grpc-prometheus (``grpc_server_started_total``,
``grpc_server_handled_total{grpc_code}``, ``grpc_server_handling_seconds``; labels ``grpc_service`` and
``grpc_method``, without ``grpc_type``), so the usual dashboards and alerts need little change.

The game metrics (moves applied, verifications by verdict, certificates issued, games dealt) are read off
successful responses by the same interceptor: the servicer stays a thin proto-in/proto-out layer, and nothing
in the use cases knows that metrics exist.

With ``--workers N`` every worker process writes its samples to ``PROMETHEUS_MULTIPROC_DIR`` and the parent
process serves the sum (``service.workers``); with one process the default registry is served directly.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Histogram

from service.rpcwrap import HandlerWrapper

#: Latency buckets in seconds: a move is well under a millisecond in the engine and a few in Redis; a whole
#: solution replay can take a second.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

STARTED = Counter(
    "grpc_server_started_total",
    "RPCs started on the server.",
    ["grpc_service", "grpc_method"],
)
HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, by status code.",
    ["grpc_service", "grpc_method", "grpc_code"],
)
HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time from the start of an RPC to its end, as the server's handler saw it.",
    ["grpc_service", "grpc_method"],
    buckets=LATENCY_BUCKETS,
)
HTTP_HANDLED = Counter(
    "patience_http_requests_total",
    "REST/JSON calls completed, by RPC and the gRPC status code their answer maps from.",
    ["rpc", "code"],
)
HTTP_SECONDS = Histogram(
    "patience_http_request_duration_seconds",
    "Time from the start of a REST/JSON call to its end, as the server saw it.",
    ["rpc"],
    buckets=LATENCY_BUCKETS,
)
GAMES_DEALT = Counter("patience_games_dealt_total", "Games dealt (NewGame).", ["variant"])
MOVES_APPLIED = Counter("patience_moves_applied_total", "Moves applied through ApplyMove.", ["variant"])
VERIFICATIONS = Counter("patience_verifications_total", "Solutions verified (SubmitSolution), by verdict.", ["verdict"])
CERTIFICATES_ISSUED = Counter(
    "patience_certificates_issued_total", "Win certificates signed, by how the win was shown.", ["via"]
)

_OUTCOMES = {0: "unspecified", 1: "won", 2: "unfinished", 3: "illegal"}


def _split(method: str) -> tuple[str, str]:
    """'/patience.v1.PatienceService/ApplyMove' -> ('patience.v1.PatienceService', 'ApplyMove')."""
    parts = method.split("/")
    return (parts[1], parts[2]) if len(parts) == 3 else ("unknown", method)


class _Children:
    """A labelled metric's children by label value, looked up once each: ``labels()`` validates and locks on every
    call, a measurable part of a cheap RPC."""

    __slots__ = ("_by", "_metric")

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        self._by: dict[Any, Any] = {}

    def __call__(self, *values: str) -> Any:
        child = self._by.get(values)
        if child is None:
            child = self._by[values] = self._metric.labels(*values)
        return child


_STARTED, _HANDLED, _SECONDS = _Children(STARTED), _Children(HANDLED), _Children(HANDLING_SECONDS)
_MOVES = _Children(MOVES_APPLIED)


def record_response(name: str, response: Any) -> None:
    """Count the game events that a successful response shows (read by the proto's field names)."""
    if name == "ApplyMove":
        game = response.game
        _MOVES(game.variant or "unknown").inc()
        if game.HasField("certificate"):
            CERTIFICATES_ISSUED.labels("play").inc()
    elif name == "SubmitSolution":
        outcome = int(response.verdict.outcome)
        VERIFICATIONS.labels(_OUTCOMES.get(outcome, str(outcome))).inc()
        if response.HasField("certificate"):
            CERTIFICATES_ISSUED.labels("solution").inc()
    elif name == "NewGame":
        GAMES_DEALT.labels(response.game.variant or "unknown").inc()


def observe_rest(rpc: str, code: str, seconds: float) -> None:
    """One REST/JSON call (service.http calls this): its RPC ("ApplyMove"), status code name ("OK"), duration."""
    HTTP_HANDLED.labels(rpc, code).inc()
    HTTP_SECONDS.labels(rpc).observe(seconds)


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts and times every RPC by method and final status code. Put it first: it then sees the final code."""

    def __init__(self) -> None:
        self._wrapper: HandlerWrapper[tuple[float, str, str]] = HandlerWrapper(self._begin, self._end)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        return self._wrapper.wrap(handler_call_details.method, await continuation(handler_call_details))

    @staticmethod
    def _begin(method: str, context: Any) -> tuple[float, str, str]:
        service, name = _split(method)
        _STARTED(service, name).inc()
        return time.perf_counter(), service, name

    @staticmethod
    def _end(token: tuple[float, str, str], method: str, context: Any, code: str, response: Any) -> None:
        start, service, name = token
        _SECONDS(service, name).observe(time.perf_counter() - start)
        _HANDLED(service, name, code).inc()
        if response is not None:
            # A response shape this version does not know costs a game metric, never the call.
            with contextlib.suppress(AttributeError, ValueError):
                record_response(name, response)


def multiprocess_dir() -> str | None:
    """The directory that worker processes share their samples through, if multi-process mode is on."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def registry() -> CollectorRegistry:
    """What the /metrics endpoint serves: the sum over worker processes, or this process's own metrics."""
    directory = multiprocess_dir()
    if directory is None:
        return prometheus_client.REGISTRY
    from prometheus_client import multiprocess

    collected = CollectorRegistry()
    multiprocess.MultiProcessCollector(collected, path=directory)  # type: ignore[no-untyped-call]
    return collected


def start_http_server(listen: str) -> tuple[Any, int]:
    """Serve /metrics on ``HOST:PORT`` (port 0 picks one) in a daemon thread; returns (server, port)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    server, _thread = prometheus_client.start_http_server(int(port), addr=host, registry=registry())
    return server, int(server.server_port)
