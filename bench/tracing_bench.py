"""What traces cost per ApplyMove: the service with traces off, on sampling 1 % of calls, and on sampling all,
measured in one run (and, with ``--baseline REV``, the service as it was at a git revision before traces).

What runs, all on this machine in one go:

- a private ``redis-server`` (persistence off) on a free loopback port;
- an OTLP/HTTP sink in this process (``POST /v1/traces`` answered 200; it counts the bytes it got): the
  service's exporter really sends, and the sink's work is not the service's;
- ``python -m service`` once per configuration: ``off`` (no OTEL_* variable), ``1%``
  (``OTEL_TRACES_SAMPLER=traceidratio``, ``OTEL_TRACES_SAMPLER_ARG=0.01``), ``100%``
  (``OTEL_TRACES_SAMPLER=always_on``), and ``off-again`` -- a second service with traces off, so the run shows
  its own noise: two identical services differ by that much;
- with ``--baseline REV``: the ``service`` package of that revision (``git archive``) in a folder of its own,
  run the same way (the engine and the generated API of this checkout): the service before traces existed, so
  ``off`` minus ``baseline`` is what the hooks cost when off;
- the ApplyMove load of bench/service_bench.py (``sultan-52`` games, ``s`` and ``rd``), at ``--concurrency``
  coroutines, taken in turn against every service in ``--slices`` slices, so that all meet the same good and bad
  moments of a shared host.

"cpu" is the CPU time per call of the service process -- every thread, the exporter's included -- read from
``/proc``. The figures are in docs/operations.md (Traces).

Usage: python bench/tracing_bench.py [--seconds 10] [--slices 10] [--concurrency 16] [--baseline REV]
       [--json out.json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from processes import ROOT, machine, start_redis, start_service, stop
from service_loads import run_loads

#: The OTEL_* variables of each configuration (every service gets none but these).
CONFIGURATIONS: dict[str, dict[str, str]] = {
    "off": {},
    "1%": {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.01"},
    "100%": {"OTEL_TRACES_SAMPLER": "always_on"},
    "off-again": {},
}


class Sink:
    """An OTLP/HTTP endpoint that takes every export and keeps only the count of bytes."""

    def __init__(self) -> None:
        self.received = 0
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # the exporter keeps its connection

            def do_POST(self) -> None:
                sink.received += len(self.rfile.read(int(self.headers.get("content-length", "0"))))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def baseline_root(revision: str, tmp: Path) -> Path:
    """A folder holding the ``service`` package as it was at ``revision``."""
    folder = tmp / "baseline"
    folder.mkdir()
    archive = subprocess.run(["git", "archive", revision, "service"], cwd=ROOT, check=True, capture_output=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load per service, in all")
    parser.add_argument("--slices", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--client-procs", type=int, default=1)
    parser.add_argument("--baseline", help="a git revision whose service package is measured too (before traces)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="patience-tracing-bench-"))
    sink = Sink()
    children: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {"machine_before": machine(), "args": vars(args) | {"json": None}}
    try:
        redis, redis_url = start_redis()
        children.append(redis)
        services: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        for name, variables in CONFIGURATIONS.items():
            env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.endpoint, "OTEL_SERVICE_NAME": "patience-bench", **variables}
            services[name] = start_service(redis_url, tmp, "WARNING", otel=env if variables else {})
            children.append(services[name][0])
        if args.baseline:
            # The old package first on the path: ``python -m`` puts the working folder first.
            path = os.pathsep.join([str(ROOT), str(ROOT / "proto"), str(ROOT / "clients" / "python")])
            services["baseline"] = start_service(
                redis_url, tmp, "WARNING", otel={}, cwd=baseline_root(args.baseline, tmp), pythonpath=path
            )
            children.append(services["baseline"][0])
        specs = [("apply_move", address, (proc.pid, redis.pid), {}) for proc, address in services.values()]
        figures = run_loads(specs, args.concurrency, args.seconds, args.client_procs, slices=args.slices)
        by_name = dict(zip(services, figures, strict=True))
        off = by_name["off"]["server_cpu_us_per_call"]
        for name, f in by_name.items():
            f["extra_cpu_us_per_call_vs_off"] = f["server_cpu_us_per_call"] - off
            print(
                f"{name:>9}: {f['per_second']:6.0f} ApplyMove/s  p50 {f['p50_ms']:5.2f} ms  p99 {f['p99_ms']:5.2f} ms"
                f"  service cpu {f['server_cpu_us_per_call']:6.1f} us/call ({f['extra_cpu_us_per_call_vs_off']:+.1f}"
                " vs off)"
            )
        results["services"] = by_name
        results["machine_after"] = machine()
    finally:
        for child in reversed(children):
            stop(child)  # a service sends the spans it still holds before it exits
        sink.server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    results["sink_bytes"] = sink.received
    print(f"the sink received {sink.received} bytes of spans")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
