"""Prometheus metrics: every RPC (recorded by ``service.grpc.operations``), plus the game events read off the responses.

The RPC metrics use the names and labels of go-grpc-prometheus (``grpc_server_started_total``,
``grpc_server_handled_total{grpc_code}``, ``grpc_server_handling_seconds``; labels ``grpc_service`` and
``grpc_method``, without ``grpc_type``), so the usual dashboards and alerts need little change.

The game metrics (moves applied, verifications by verdict, certificates issued, games dealt) are read off
successful responses by the same wrapper: the servicer stays a thin proto-in/proto-out layer, and nothing
in the use cases knows that metrics exist.

With ``--workers N`` every worker process writes its samples to ``PROMETHEUS_MULTIPROC_DIR`` and the parent
process serves the sum (``service.process.workers``); with one process the default registry is served directly.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

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
RATE_LIMITED = Counter(
    "patience_rate_limited_total",
    "Calls refused by the per-address rate limits (service.security.ratelimit).",
    ["method"],
)
CERTIFICATES_ISSUED = Counter(
    "patience_certificates_issued_total", "Win certificates signed, by how the win was shown.", ["via"]
)

# Health as numbers, for alerts (deploy/monitoring): a gauge that drops to 0 while Redis does not answer, and
# one that follows the readiness the service reports (its gRPC health for patience.v1.PatienceService). With
# several workers the lowest live value counts: one worker without Redis makes the pod not ready.
STORE_UP = Gauge("patience_store_up", "1 while the last Redis ping answered, else 0.", multiprocess_mode="livemin")
READY = Gauge(
    "patience_ready",
    "1 while the service reports itself ready (SERVING), 0 while not (Redis away, or stopping).",
    multiprocess_mode="livemin",
)

# The hint pool (service.solving.hints): what it holds now, what it refuses, and what each hint cost and answered. With
# --workers N each worker has its own pool: the gauges add up over the live workers.
HINTS_RUNNING = Gauge(
    "patience_hints_running", "Hints being computed in the hint pool's processes now.", multiprocess_mode="livesum"
)
HINTS_QUEUED = Gauge(
    "patience_hints_queued", "Hints admitted and waiting for a hint process now.", multiprocess_mode="livesum"
)
HINTS_BUSY = Counter("patience_hints_busy_total", "Hints refused at once (HINTS_BUSY): the pool was full.")
HINTS_IN_PROGRESS = Counter(
    "patience_hints_in_progress_total",
    "Hints refused at once (HINTS_IN_PROGRESS): their client address held its share of the pool already.",
)
WINNABLE_SHARE_USED = Counter(
    "patience_winnable_share_used_total",
    "NewGame winnable refused (WINNABLE_SHARE_USED): the client address took its share of the pool already.",
    ["pool"],
)
HINTS_SHARED = Counter(
    "patience_hints_shared_total",
    "Hints answered by a computation already running for the same game and version (computed once, for all).",
)
# The REST listener's connections (service.rest.connections): how many are open, and those it closed itself.
HTTP_CONNECTIONS = Gauge("patience_http_connections", "REST connections open now.", multiprocess_mode="livesum")
HTTP_CONNECTIONS_CLOSED = Counter(
    "patience_http_connections_closed_total",
    "REST connections the server closed or refused itself, by why.",
    ["reason"],
)
# WatchGame (service.games.watching): the streams open, and the games they follow (one subscription each).
WATCH_STREAMS = Gauge("patience_watch_streams", "WatchGame streams open now.", multiprocess_mode="livesum")
WATCHED_GAMES = Gauge(
    "patience_watched_games", "Games this process follows for its WatchGame streams.", multiprocess_mode="livesum"
)
#: CPU seconds of one hint: a few milliseconds (the sultans) to a few seconds (the CPU cap, --hint-cpu-seconds).
HINT_CPU_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
HINT_CPU_SECONDS = Histogram(
    "patience_hint_solver_cpu_seconds",
    "CPU seconds the solver spent on one hint, in its hint process (hints answered from memory cost none).",
    ["variant"],
    buckets=HINT_CPU_BUCKETS,
)
HINTS_COMPUTED = Counter(
    "patience_hints_total",
    "Hints the solver computed, by how it found them (the answer's reason_code).",
    ["reason_code"],
)

_OUTCOMES = {0: "unspecified", 1: "won", 2: "unfinished", 3: "illegal", 4: "not-won"}
_MOVES: dict[str, Any] = {}  # MOVES_APPLIED's children by variant: ``labels()`` validates and locks each time


_WON = 2  # GameStatus.GAME_STATUS_WON: only a won game's response may carry a certificate


def _applied(response: Any) -> None:
    game = response.game
    variant = game.variant
    child = _MOVES.get(variant)
    if child is None:
        child = _MOVES[variant] = MOVES_APPLIED.labels(variant or "unknown")
    child.inc()
    if game.status == _WON and game.HasField("certificate"):
        CERTIFICATES_ISSUED.labels("play").inc()


def _verified(response: Any) -> None:
    outcome = int(response.verdict.outcome)
    VERIFICATIONS.labels(_OUTCOMES.get(outcome, str(outcome))).inc()
    if response.HasField("certificate"):
        CERTIFICATES_ISSUED.labels("solution").inc()


def _dealt(response: Any) -> None:
    GAMES_DEALT.labels(response.game.variant or "unknown").inc()


_RECORDERS: dict[str, Callable[[Any], None]] = {"ApplyMove": _applied, "SubmitSolution": _verified, "NewGame": _dealt}


def response_recorder(name: str) -> Callable[[Any], None] | None:
    """What counts the game events in a successful response of RPC ``name`` ("ApplyMove"), if anything does."""
    return _RECORDERS.get(name)


def record_safely(recorder: Callable[[Any], None], response: Any) -> None:
    """A response shape this version does not know costs a game metric, never the call."""
    with contextlib.suppress(AttributeError, ValueError):
        recorder(response)


def record_response(name: str, response: Any) -> None:
    """Count the game events that a successful response of RPC ``name`` shows (read by the proto's field names)."""
    recorder = _RECORDERS.get(name)
    if recorder is not None:
        record_safely(recorder, response)


def observe_health(*, ready: bool, store_up: bool | None = None) -> None:
    """What the server's health check found (service.server calls this on every check and when stopping)."""
    READY.set(1 if ready else 0)
    if store_up is not None:
        STORE_UP.set(1 if store_up else 0)


def observe_rest(rpc: str, code: str, seconds: float) -> None:
    """One REST/JSON call (service.rest.app calls this): its RPC ("ApplyMove"), status code name ("OK"), duration."""
    HTTP_HANDLED.labels(rpc, code).inc()
    HTTP_SECONDS.labels(rpc).observe(seconds)


def observe_hint_pool(running: int, queued: int) -> None:
    """What the hint pool holds now (service.solving.hints calls this whenever it admits or ends a hint)."""
    HINTS_RUNNING.set(running)
    HINTS_QUEUED.set(queued)


def hint_refused(reason: str) -> None:
    """A hint refused at once: the pool was full (HINTS_BUSY), or its address held its share (HINTS_IN_PROGRESS)."""
    (HINTS_BUSY if reason == "HINTS_BUSY" else HINTS_IN_PROGRESS).inc()


def hint_shared() -> None:
    HINTS_SHARED.inc()


def observe_hint(variant: str, reason_code: str, cpu_seconds: float) -> None:
    """One hint the solver computed: its game, its reason_code, the CPU its process spent on it."""
    HINT_CPU_SECONDS.labels(variant).observe(cpu_seconds)
    HINTS_COMPUTED.labels(reason_code).inc()


def observe_http_connections(delta: int) -> None:
    HTTP_CONNECTIONS.inc(delta)


def http_connection_closed(reason: str) -> None:
    """``reason``: refused (503 at the cap, all busy), evicted (closed to make room), idle (no request within the
    head timeout), head_timeout, body_timeout, head_too_large, too_much_data (more than a body and a head while a
    request was served)."""
    HTTP_CONNECTIONS_CLOSED.labels(reason).inc()


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
