"""A small OTLP/HTTP trace receiver: what an OpenTelemetry collector does with ``POST /v1/traces``, decoded.

It answers each export with an empty ``ExportTraceServiceResponse`` and keeps every span it got, with the
``service.name`` of the process that sent it, so a test can wait for a trace and read its parent links.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as the receiver decoded it (ids in hex, "" for a root span's parent)."""

    service: str
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    attributes: dict[str, Any]


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Receiver:
    """``POST /v1/traces`` on 127.0.0.1 (a free port); the spans it got, in order."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.exports = 0
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.path != "/v1/traces" or self.headers.get("content-type") != "application/x-protobuf":
                    self.send_error(404)
                    return
                receiver.add(ExportTraceServiceRequest.FromString(body))
                out = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The value of ``OTEL_EXPORTER_OTLP_ENDPOINT`` for a process that should send its spans here."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def add(self, request: ExportTraceServiceRequest) -> None:
        got = []
        for resource_spans in request.resource_spans:
            attributes = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            service = str(attributes.get("service.name", ""))
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    got.append(
                        ReceivedSpan(
                            service,
                            span.name,
                            span.trace_id.hex(),
                            span.span_id.hex(),
                            span.parent_span_id.hex(),
                            span.kind,
                            {a.key: _value(a.value) for a in span.attributes},
                        )
                    )
        with self._changed:
            self.spans.extend(got)
            self.exports += 1
            self._changed.notify_all()

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        with self._changed:
            return [span for span in self.spans if span.trace_id == trace_id]

    def wait_for(
        self, done: Callable[[list[ReceivedSpan]], bool], trace_id: str | None = None, timeout: float = 60
    ) -> list[ReceivedSpan]:
        """The spans of ``trace_id`` (every span without one) once ``done(spans)`` holds; AssertionError with what
        came after ``timeout`` seconds (generous: the exporters send in batches, from processes on a busy
        machine)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                spans = [span for span in self.spans if trace_id is None or span.trace_id == trace_id]
                if done(spans):
                    return spans
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"trace {trace_id} incomplete after {timeout} s: {spans}")
                self._changed.wait(left)


@contextmanager
def receiving() -> Iterator[Receiver]:
    """A receiver serving for the duration."""
    receiver = Receiver()
    receiver.thread.start()
    try:
        yield receiver
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
        receiver.thread.join(10)
