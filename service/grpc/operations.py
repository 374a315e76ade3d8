"""The gRPC side of ``service.observe.calls``: one server interceptor for request ids, metrics and the access line.

grpc.aio's public extension point: :class:`Operations` gets each method's handler from grpc and wraps it once per
method (the wrapped handler is cached), so a call pays grpc's interceptor step and one extra coroutine frame. (Its
hand-written predecessor, a generic handler wrapping the others with the services registered from their
descriptors, saved an ApplyMove 4-7 % of its CPU time, 12 % of its instructions, most of it grpc.aio's handling of
registered methods: under the 15 % a replacement must save to stay, docs/service-benchmark.md.)

Per call, besides what ``service.observe.calls`` does for both transports: the request id goes back in the trailing
metadata (``abort`` below appends it to the trailers of the rich error statuses, which replace the
trailers set here), and a request that does not decode is refused INVALID_ARGUMENT ``UNDECODABLE_REQUEST``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc_status import rpc_status

from service import errors
from service.errors import ServiceError, to_status
from service.observe import tracing
from service.observe.calls import Calls, request_id_of
from service.observe.logs import REQUEST_ID_HEADER, access_log, with_request_id

log = logging.getLogger(__name__)
_NAME_BY_VALUE = {code.value[0]: code.name for code in grpc.StatusCode}


def status_name(context: Any, default: str) -> str:
    """The name of the status code set on a server context ("NOT_FOUND"), or ``default`` when none is set."""
    code = context.code()
    if code is None:
        return default
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    return str(_NAME_BY_VALUE.get(code, default))  # some grpc versions keep the bare integer


def _ending(context: Any, error: BaseException) -> str:
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return "CANCELLED"
    return status_name(context, "UNKNOWN")  # abort() set it; an unhandled exception leaves it unset


class _Method(Calls):
    """One gRPC method's calls."""

    __slots__ = ()

    def begin_call(self, context: Any) -> tuple[float, str, str, tracing.CallSpan | None]:
        """Everything the access line needs from the call is read here, while the call is alive: once a client
        has cancelled, grpc.aio frees the core call under the context, and ``context.peer()`` then reads freed
        memory (a segmentation fault, found by a client that opens and cancels streams)."""
        metadata = context.invocation_metadata()
        rid = request_id_of(metadata)
        # Each call runs in its own task: the request id (and the span made current) stay inside the call.
        start, _, span = self.begin(rid, metadata if tracing.on else ())
        context.set_trailing_metadata(((REQUEST_ID_HEADER, rid),))
        peer = context.peer() if access_log.isEnabledFor(logging.INFO) else ""
        return start, rid, peer, span

    def end_call(self, began: tuple[float, str, str, tracing.CallSpan | None], code: str, response: Any) -> None:
        """Takes no context: the call may be over (see ``begin_call``)."""
        start, rid, peer, span = began
        self.end(start, rid, code, response, peer, span)


class Undecodable:
    """What a request that is not a valid message of its type decodes to: the handler refuses it with
    INVALID_ARGUMENT instead of grpc answering UNKNOWN and logging a traceback at error level."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


def _lenient(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def parse(raw: bytes) -> Any:
        try:
            return deserialize(raw)
        except Exception as exc:  # DecodeError, or anything a generated parser raises on hostile bytes
            return Undecodable(str(exc)[:200] or type(exc).__name__)

    return parse


#: When each method last logged an undecodable request, and how many it has not logged since.
_UNDECODABLE: dict[str, tuple[float, int]] = {}
_UNDECODABLE_EVERY = 60.0  # seconds: a client sending garbage in a loop must not flood the log


async def _refuse_undecodable(m: _Method, request: Undecodable, context: Any) -> None:
    """A warning line without a traceback -- one a minute per method, with the count of those not logged (the
    access line of each call says INVALID_ARGUMENT anyway) -- and INVALID_ARGUMENT ``UNDECODABLE_REQUEST``."""
    now = time.monotonic()
    last, unlogged = _UNDECODABLE.get(m.full, (-_UNDECODABLE_EVERY, 0))
    if now - last >= _UNDECODABLE_EVERY:
        _UNDECODABLE[m.full] = (now, 0)
        extra = {"method": m.full, "error": request.error, "not_logged_since": unlogged}
        log.warning("undecodable request", extra=extra)
    else:
        _UNDECODABLE[m.full] = (last, unlogged + 1)
    await abort(context, errors.undecodable_request(m.name))


def _unary_response(m: _Method, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def handle(request: Any, context: Any) -> Any:
        began = m.begin_call(context)
        try:
            if request.__class__ is Undecodable:
                await _refuse_undecodable(m, request, context)
            response = await behavior(request, context)
        except BaseException as e:
            m.end_call(began, _ending(context, e), None)
            raise
        code = status_name(context, "OK")
        m.end_call(began, code, response if code == "OK" else None)
        return response

    return handle


def _streaming_response(m: _Method, behavior: Callable[..., AsyncIterator[Any]]) -> Callable[..., Any]:
    async def handle(request: Any, context: Any) -> AsyncIterator[Any]:
        began = m.begin_call(context)
        try:
            if request.__class__ is Undecodable:
                await _refuse_undecodable(m, request, context)
            async for item in behavior(request, context):
                yield item
        except BaseException as e:
            m.end_call(began, _ending(context, e), None)
            raise
        m.end_call(began, status_name(context, "OK"), None)

    return handle


def _checked_stream(m: _Method, behavior: Callable[..., Any]) -> Callable[..., Any]:
    """A request-streaming behaviour whose requests are read through a filter that refuses an undecodable one."""

    def call(requests: Any, context: Any) -> Any:
        async def checked() -> AsyncIterator[Any]:
            async for request in requests:
                if request.__class__ is Undecodable:
                    await _refuse_undecodable(m, request, context)
                yield request

        return behavior(checked(), context)

    if inspect.isasyncgenfunction(behavior):

        async def stream(requests: Any, context: Any) -> AsyncIterator[Any]:
            async for item in call(requests, context):
                yield item

        return stream

    async def unary(requests: Any, context: Any) -> Any:
        return await call(requests, context)

    return unary


def _wrap(m: _Method, h: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    ser = {"request_deserializer": _lenient(h.request_deserializer), "response_serializer": h.response_serializer}
    if h.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(_unary_response(m, h.unary_unary), **ser)
    if h.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(_unary_response(m, _checked_stream(m, h.stream_unary)), **ser)
    # A streaming handler is an async generator, or a coroutine that writes with context.write().
    b: Any = h.unary_stream
    if b is not None:
        wrapped = _streaming_response(m, b) if inspect.isasyncgenfunction(b) else _unary_response(m, b)
        return grpc.unary_stream_rpc_method_handler(wrapped, **ser)
    b = _checked_stream(m, h.stream_stream)  # type: ignore[arg-type]
    wrapped = _streaming_response(m, b) if inspect.isasyncgenfunction(b) else _unary_response(m, b)
    return grpc.stream_stream_rpc_method_handler(wrapped, **ser)


class Operations(grpc.aio.ServerInterceptor):
    """The server's interceptor: wraps each method's handler once (cached per method, as long as grpc hands over
    the same handler)."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:  # an unknown method: grpc answers UNIMPLEMENTED, and the cache does not grow
            return None
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is None or cached[0] is not handler:
            cached = self._wrapped[method] = (handler, _wrap(_Method(method), handler))
        return cached[1]


async def abort(context: grpc.aio.ServicerContext[object, object], error: ServiceError) -> None:
    """End the call with ``error`` as a rich status (never returns); the trailers keep the call's request id."""
    status = rpc_status.to_status(to_status(error))
    await context.abort(status.code, status.details, with_request_id(status.trailing_metadata))
