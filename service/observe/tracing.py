"""Traces (OpenTelemetry): one trace per call, from the transport through the use case, the Redis script, the hint
pool and its process; and one per seed the winnable filler proves.

Off unless the standard variables ask for it: an OTLP endpoint (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``), ``OTEL_TRACES_EXPORTER`` unset or ``otlp``, ``OTEL_SDK_DISABLED`` not
``true``. The SDK reads the rest itself (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_TRACES_SAMPLER`` and its argument, ``OTEL_BSP_*``, ``OTEL_EXPORTER_OTLP_HEADERS``...). Spans go out over
OTLP/HTTP (protobuf) in batches, from a thread of the SDK.

Why spans of our own and not the OpenTelemetry gRPC and ASGI instrumentations: the service has one interceptor of
its own (``service.grpc.operations``) and no ASGI middleware on API calls (``service.rest.app``), to save work per
call; the one wrapper both transports share (``service.observe.calls``) starts the server span here,
so the two transports give the same spans and attributes. The Redis scripts go through the service's own
pipelined connection (``service.store.redispipe``), which no Redis instrumentation sees.

Off, neither the trace SDK nor the exporter is imported, and every hook is one test of :data:`on` (a module
global): nothing measurable per call (bench/tracing_bench.py, bench/instructions.py --baseline).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import Token
from typing import Any, TypeVar

from opentelemetry import context, propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

log = logging.getLogger(__name__)

#: True once :func:`configure` has set up the SDK in this process: every hook tests it first.
on = False
_tracer: trace.Tracer = trace.NoOpTracer()
_fields: frozenset[str] = frozenset()  # the headers the propagators read (traceparent, tracestate, baggage)
_T = TypeVar("_T")

#: Server span ends in error for these codes only (the OpenTelemetry conventions for a gRPC server): a refusal
#: such as NOT_FOUND or FAILED_PRECONDITION is the service working as it should.
_SERVER_ERRORS = frozenset({"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS"})


def wanted(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the OTEL_* variables ask for traces: an OTLP endpoint, and neither the SDK nor its trace
    exporter turned off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() != "otlp":
        return False
    return bool(environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def configure(default_name: str = "patience") -> bool:
    """Set up the SDK when the variables ask for it (:func:`wanted`); whether traces are on. ``default_name`` is
    the service name when neither ``OTEL_SERVICE_NAME`` nor ``OTEL_RESOURCE_ATTRIBUTES`` gives one. Once per
    process (each ``--workers`` worker, each hint process, the filler)."""
    global on, _tracer, _fields
    if on or not wanted():
        return on
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if protocol and protocol != "http/protobuf":
        log.warning("traces are sent over OTLP/HTTP (http/protobuf) only, not %s", protocol)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: default_name}))
    provider = TracerProvider(resource=resource)  # the sampler from OTEL_TRACES_SAMPLER (default: parent, else all)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _tracer = trace.get_tracer("patience-service")
    _fields = frozenset(propagate.get_global_textmap().fields)
    on = True
    log.info("traces on", extra={"service_name": resource.attributes.get(SERVICE_NAME)})
    return True


def flush(timeout_seconds: float = 5.0) -> None:
    """Send the spans still buffered (before a process that will not run its exit handlers ends)."""
    provider: Any = trace.get_tracer_provider()
    if on and hasattr(provider, "force_flush"):
        provider.force_flush(int(timeout_seconds * 1000))


# ------------------------------------------------------------------------------------------- one call


class CallSpan:
    """The server span of one call while it runs: the span, the token that made it current, its trace id (hex,
    "" when not sampled: no trace of it exists anywhere)."""

    __slots__ = ("span", "token", "trace_id")

    def __init__(self, span: Span, token: Token[Any]) -> None:
        self.span, self.token = span, token
        ctx = span.get_span_context()
        self.trace_id = trace.format_trace_id(ctx.trace_id) if ctx.trace_flags.sampled else ""


def start_call(name: str, attributes: dict[str, Any], carrier: Iterable[tuple[str, Any]]) -> CallSpan | None:
    """The server span of a call named ``name``, child of the caller's span when ``carrier`` (gRPC metadata or
    HTTP headers as pairs) holds a ``traceparent``; made current until :func:`end_call`. None when the sampler
    leaves the call out: nothing is made current, so nothing inside the call makes a span (:func:`recording`)."""
    headers = {key: value for key, value in carrier if key in _fields and isinstance(value, str)}
    parent = propagate.extract(headers) if headers else None
    span = _tracer.start_span(name, context=parent, kind=SpanKind.SERVER, attributes=attributes)
    if not span.is_recording():
        return None
    return CallSpan(span, context.attach(trace.set_span_in_context(span, parent)))


def end_call(call: CallSpan, code: str, **attributes: Any) -> None:
    """The call ended with the gRPC status ``code`` (a name): set it, end the span, make the caller's context
    current again."""
    span = call.span
    span.set_attribute("rpc.response.status_code", code)
    for key, value in attributes.items():
        span.set_attribute(key, value)
    if code in _SERVER_ERRORS:
        span.set_status(Status(StatusCode.ERROR, code))
    span.end()
    context.detach(call.token)


# ---------------------------------------------------------------------------------------------- inside


def recording() -> bool:
    """Whether the current span records (its call was sampled): the spans inside a call are made only then, so
    a call the sampler left out costs its server span's decision and nothing more."""
    return on and trace.get_current_span().is_recording()


async def in_span(name: str, awaitable: Awaitable[_T], **attributes: Any) -> _T:
    """Await ``awaitable`` inside a span of its own (a use case, the hint pool). An exception is recorded as an
    event, not as an error status: a refusal is the service working (the server span's status tells)."""
    with _tracer.start_as_current_span(name, attributes=attributes, set_status_on_exception=False):
        return await awaitable


@contextmanager
def span(name: str, kind: SpanKind = SpanKind.INTERNAL, **attributes: Any) -> Iterator[Span]:
    """A span around a block (a Redis script is ``kind=SpanKind.CLIENT``), current inside it."""
    with _tracer.start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


def carrier() -> dict[str, str]:
    """The current span's context as W3C headers, for work that runs in another process (the hint pool's)."""
    out: dict[str, str] = {}
    propagate.inject(out)
    return out


@contextmanager
def continued(name: str, headers: Mapping[str, str] | None, **attributes: Any) -> Iterator[Span | None]:
    """In another process: a span child of the one ``headers`` (from :func:`carrier`) names; nothing when this
    process does not trace or no context came."""
    if not on or not headers:
        yield None
        return
    with _tracer.start_as_current_span(name, context=propagate.extract(dict(headers)), attributes=attributes) as s:
        yield s
