"""The filler's Prometheus metrics (served on its own ``--metrics-listen``; the service's are in
service.observe.metrics).

A label per pool (``cats-tail``, ``cats-tail:sequence_moves=false``): a dozen or so configurations."""

from __future__ import annotations

import prometheus_client
from prometheus_client import Counter, Gauge

ATTEMPTS = Counter(
    "patience_winnable_attempts_total",
    "Seeds the filler gave to the solver, by pool and outcome (won, no-win, unknown, rejected by the verifier, error).",
    ["pool", "outcome"],
)
PROVEN = Counter("patience_winnable_proven_total", "Seeds proven winnable and added to a pool.", ["pool"])
SOLVER_SECONDS = Counter(
    "patience_winnable_solver_cpu_seconds_total", "CPU seconds the solver spent on the filler's seeds.", ["pool"]
)
POOL_SIZE = Gauge(
    "patience_winnable_pool_size", "Proven seeds waiting in a pool, as the filler last read it.", ["pool"]
)
POOL_TARGET = Gauge("patience_winnable_pool_target", "The size the filler keeps each pool at.")


def serve(listen: str) -> int:
    """Serve /metrics on ``HOST:PORT`` (port 0 picks one) in a daemon thread; the port."""
    host, _, port = listen.rpartition(":")
    server, _thread = prometheus_client.start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0")
    return int(server.server_port)
