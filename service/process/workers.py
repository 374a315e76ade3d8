"""``--workers N``: N single-threaded asyncio server processes sharing one port, for N cores.

Python runs one core per process, so a many-core host gets its throughput from processes. The parent forks the
workers *before* anything gRPC exists in it (gRPC's core threads and polling state do not survive a fork); each
worker builds its own server with ``grpc.so_reuseport`` on the same fixed port, and the kernel spreads incoming
connections over them. Every worker is stateless (games live in Redis), so any worker serves any call.

The parent keeps no gRPC state. It
- serves ``/metrics`` as the sum over the workers (prometheus_client's multi-process mode: each worker writes
  its samples to files in ``PROMETHEUS_MULTIPROC_DIR``, set here before any worker imports the client);
- forwards SIGTERM/SIGINT to the workers, each of which stops gracefully (``Settings.grace``);
- dies first: a worker whose parent is gone (killed) is sent SIGTERM (``service.process.lifetime``), so no worker
  serves on, orphaned;
- fails fast: if a worker dies on its own, the others are stopped and the parent exits non-zero, so the
  orchestrator (Kubernetes, compose, systemd) restarts the whole unit instead of it running with fewer cores.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from types import FrameType
from typing import Any

from service.process import lifetime
from service.settings.config import Settings

log = logging.getLogger(__name__)

#: serve_one(settings, reuse_port=True) -> exit status; runs in the worker after the fork.
ServeOne = Callable[..., int]


def fixed_listen(listen: str) -> str:
    """Port 0 would give every worker its own port: pick one free port for all of them."""
    host, _, port = listen.rpartition(":")
    if port != "0":
        return listen
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host.strip("[]") or "0.0.0.0", 0))
        return f"{host}:{probe.getsockname()[1]}"


def _prepare_metrics_dir() -> tuple[str, bool]:
    """The shared samples directory (created unless given) with stale files from an earlier run removed."""
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if "prometheus_client" in sys.modules and not given:
        log.warning("prometheus_client was imported before the fork: /metrics will show the parent only")
    directory = given or tempfile.mkdtemp(prefix="patience-metrics-")
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.unlink(os.path.join(directory, name))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    return directory, given is None


def _worker(index: int, settings: Settings, serve_one: ServeOne, parent: int) -> int:
    """Runs in the child: stopped (SIGTERM) if the parent dies, default signal handling, then one server on the
    shared port."""
    if not lifetime.die_with_parent(parent):
        return 1
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    os.environ["PATIENCE_WORKER_INDEX"] = str(index)
    try:
        return int(serve_one(settings, reuse_port=True))
    except KeyboardInterrupt:
        return 0
    except BaseException:
        log.exception("worker %d failed", index)
        return 1
    finally:  # stopped already: a second SIGTERM (say, to the whole process group) must not kill the exit
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)


def run(settings: Settings, serve_one: ServeOne) -> int:
    """Fork ``settings.workers`` servers on one port, supervise them, return the exit status."""
    count = settings.workers
    listen = fixed_listen(settings.listen)
    http_listen = fixed_listen(settings.http_listen) if settings.http_listen else None
    metrics_dir, made_dir = _prepare_metrics_dir()
    # Workers serve gRPC (and REST, which reads `workers` to share its port too); the parent serves the summed
    # /metrics on the configured address.
    operator_listen = fixed_listen(settings.operator_listen) if settings.operator_listen else None
    child_settings = dataclasses.replace(
        settings, listen=listen, http_listen=http_listen, operator_listen=operator_listen, metrics_listen=None
    )

    sys.stdout.flush()
    sys.stderr.flush()
    children: dict[int, int] = {}  # pid -> worker index
    parent = os.getpid()
    for index in range(count):
        pid = os.fork()
        if pid == 0:  # the worker: never return into the parent's code (its ExitStack owns the local Redis)
            code = 1
            try:
                code = _worker(index, child_settings, serve_one, parent)
            finally:
                logging.shutdown()
                os._exit(code)
        children[pid] = index

    stopping = False

    def forward(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            _kill(pid, signal.SIGTERM)  # each worker stops gracefully, whichever signal the parent got

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    metrics_server: Any = None
    status = 0
    try:
        from service.observe import logs

        logs.configure(settings.log_level, settings.log_format)
        if settings.metrics_listen:
            from service.observe import metrics

            metrics_server, port = metrics.start_http_server(settings.metrics_listen)
            log.info("metrics", extra={"metrics_port": port})
        log.info(
            "workers started",
            extra={"listen": listen, "http_listen": http_listen, "workers": count, "pids": sorted(children)},
        )
        while children:
            pid, wait_status = os.wait()
            if pid not in children:
                continue
            index = children.pop(pid)
            code = os.waitstatus_to_exitcode(wait_status)
            _mark_dead(pid, metrics_dir)
            if code != 0 or not stopping:
                log.error("worker exited", extra={"worker": index, "pid": pid, "exit_code": code})
                status = status or (code if code > 0 else 1)
                if not stopping:  # fail fast: stop the rest and let the orchestrator restart us
                    stopping = True
                    for other in list(children):
                        _kill(other, signal.SIGTERM)
        log.info("workers stopped", extra={"exit_code": status})
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if metrics_server is not None:
            metrics_server.shutdown()
        if made_dir:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return status


def _kill(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _mark_dead(pid: int, directory: str) -> None:
    """Let the multi-process collector drop a dead worker's live-gauge files (counters stay summed)."""
    try:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
    except Exception:  # the metrics are a convenience; supervising the workers is not
        log.debug("mark_process_dead(%d) failed", pid, exc_info=True)
