"""One call, whatever the transport: its request id, its metrics, its access line, and its error as a status.

Both transports go through here. ``service.grpc.operations`` wraps each gRPC method handler once (one server
interceptor: see its docstring) and ``service.rest.app`` wraps each REST call; both take a :class:`Calls` for
the RPC and call ``begin`` and ``end`` around the use case, and both turn what the use case raised into an
answer with :func:`failure` and the status mappings below, so the two cannot drift apart.

Per call:

- the request id: the client's ``x-request-id`` when sane, else a fresh one; kept in ``logs.request_id`` for
  the whole call (every log line carries it) and sent back (gRPC: trailing metadata; REST: a header);
- metrics (``service.observe.metrics``): over gRPC ``grpc_server_started_total``, ``grpc_server_handled_total`` and
  ``grpc_server_handling_seconds`` (go-grpc-prometheus names), over REST ``patience_http_requests_total`` and
  ``patience_http_request_duration_seconds``; and the game events read off successful responses;
- one access line at INFO (``rpc`` or ``http``: method, code, duration, peer; never a body or a metadata value);
- with traces on (``service.observe.tracing``): the server span, child of the caller's ``traceparent``; its trace
  id in every log line of the call (``trace_id``) and as the exemplar of the latency histogram's bucket.
"""

from __future__ import annotations

import contextvars
import logging
import time
from typing import Any

from google.rpc import code_pb2, status_pb2
from prometheus_client import Counter

from service import errors
from service.errors import ServiceError
from service.observe import metrics, tracing
from service.observe.logs import access_log, incoming_request_id, log_access, new_request_id, request_id, trace_id

log = logging.getLogger(__name__)

GRPC = "rpc"  # the access line's message for each transport
REST = "http"
#: Services whose calls get no span: probes every few seconds, and tools asking what the server serves.
UNTRACED = frozenset(
    {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection", "grpc.reflection.v1.ServerReflection"}
)


def request_id_of(metadata: Any) -> str:
    """The call's request id: the client's when it is sane, else a fresh one."""
    return incoming_request_id(metadata) or new_request_id()


class Calls:
    """What the calls of one RPC over one transport share: its metric children, looked up once."""

    __slots__ = (
        "_handled", "_handled_by", "_labels", "_seconds", "_started", "full", "line", "name", "record",
        "span_attributes", "span_name", "traced",
    )  # fmt: skip

    def __init__(self, full: str, transport: str = GRPC) -> None:
        """``full`` is gRPC's method path (``/patience.v1.PatienceService/ApplyMove``) or, over REST, the RPC's
        name (``ApplyMove``): the access line's ``method`` either way."""
        parts = full.split("/")
        service, name = (parts[1], parts[2]) if len(parts) == 3 else ("unknown", full)
        self.full, self.name, self.line = full, name, transport
        self.record = metrics.response_recorder(name)
        self.traced = service not in UNTRACED
        self._handled: dict[str, Counter] = {}
        if transport == GRPC:
            self._labels: tuple[str, ...] = (service, name)
            self._started: Counter | None = metrics.STARTED.labels(service, name)
            self._seconds = metrics.HANDLING_SECONDS.labels(service, name)
            self._handled_by = metrics.HANDLED
            self.span_name = f"{service}/{name}"  # the OpenTelemetry conventions' name of a gRPC server span
            self.span_attributes: dict[str, str] = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name}
        else:
            self._labels = (name,)
            self._started = None
            self._seconds = metrics.HTTP_SECONDS.labels(name)
            self._handled_by = metrics.HTTP_HANDLED
            self.span_name = name  # an HTTP server span is renamed "METHOD route" by the REST layer
            self.span_attributes = {"rpc.system": "http", "rpc.method": name}

    def begin(
        self, rid: str, carrier: Any = (), span_name: str = "", **attributes: str
    ) -> tuple[float, contextvars.Token[str | None], tracing.CallSpan | None]:
        """The call starts: its request id is set for its log lines (reset it with the token where the task
        outlives the call); with traces on, its server span starts, child of a ``traceparent`` in ``carrier``
        (the call's metadata or headers as pairs). Returns when, the token, and the span for :meth:`end`."""
        token = request_id.set(rid)
        if self._started is not None:
            self._started.inc()
        call = None
        if tracing.on and self.traced:
            attributes = {**self.span_attributes, **attributes, "request_id": rid}
            call = tracing.start_call(span_name or self.span_name, attributes, carrier)
            if call is not None:
                trace_id.set(call.trace_id or None)
        return time.perf_counter(), token, call

    def end(
        self,
        start: float,
        rid: str,
        code: str,
        response: Any,
        peer: str,
        call: tracing.CallSpan | None = None,
        **more: str,
    ) -> None:
        """The call ended with ``code`` (a gRPC status code name) and, when OK, ``response``. Takes nothing of
        the call itself: a gRPC call may be over and its memory freed (see service.grpc.operations)."""
        elapsed = time.perf_counter() - start
        if call is not None and call.trace_id:
            self._seconds.observe(elapsed, {"trace_id": call.trace_id})
        else:
            self._seconds.observe(elapsed)
        handled = self._handled.get(code)
        if handled is None:
            handled = self._handled[code] = self._handled_by.labels(*self._labels, code)
        handled.inc()
        if response is not None and self.record is not None:
            metrics.record_safely(self.record, response)
        if access_log.isEnabledFor(logging.INFO):
            log_access(
                self.line,
                request_id=rid,
                method=self.full,
                **more,
                code=code,
                duration_ms=round(elapsed * 1000, 3),
                peer=peer,
            )
        if call is not None:
            tracing.end_call(call, code)
            trace_id.set(None)


# ------------------------------------------------------------------------------------- errors as statuses


def failure(exc: Exception, rpc: str) -> ServiceError:
    """What a use case raised, as the caller's error: a refusal as it is; anything else is a bug, logged with its
    traceback here and answered INTERNAL without its details."""
    if isinstance(exc, ServiceError):
        return exc
    log.exception("unexpected error in %s", rpc)
    return errors.internal()


#: RESOURCE_EXHAUSTED is 429 (slow down) unless the request itself is too big, or the game is as long as a game
#: may be: then 413, since retrying the same request cannot help; or the server's store is full: 503, since no
#: client did wrong. The HTTP layer's own refusals of a method or a media type have HTTP statuses of their own.
_HTTP_BY_REASON = {
    "TOO_MANY_MOVES": 413,
    "GAME_TOO_LONG": 413,
    "REQUEST_TOO_LARGE": 413,
    "STORE_FULL": 503,
    "METHOD_NOT_ALLOWED": 405,
    "UNSUPPORTED_MEDIA_TYPE": 415,
}
_BARE_INTERNAL = status_pb2.Status(code=code_pb2.INTERNAL, message="internal error")


def http_status(error: ServiceError) -> int:
    """The HTTP status of a refusal (Google's mapping of its code, but for the reasons above)."""
    return _HTTP_BY_REASON.get(error.reason, error.code.http_status)


def http_answer(error: ServiceError) -> tuple[status_pb2.Status, int, dict[str, str]]:
    """The ``google.rpc.Status`` a REST caller gets (as Envoy's transcoder sends it), its HTTP status, and the
    headers it adds (``retry-after``). A bug's answer carries no ErrorInfo: its details are in the log."""
    if error.code is errors.Code.INTERNAL and error.reason == "INTERNAL":
        return _BARE_INTERNAL, 500, {}
    headers = {} if error.retry_after is None else {"retry-after": str(error.retry_after)}
    return errors.to_status(error), http_status(error), headers
