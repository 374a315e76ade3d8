"""Wrap any kind of gRPC method handler with a before/after hook: the one piece that interceptors share.

An asyncio server interceptor only gets the handler; to see how a call ended (its status code, its response) it
must wrap the handler's behaviour, and that differs for each of the four RPC kinds. ``HandlerWrapper`` does it
once, caches the wrapped handler per method (so a call costs one dict lookup, not four closures), and calls
``begin`` before and ``end`` after the behaviour with the final status code's name. ``substitute`` may hand the
behaviour a wrapper of its context (the request-id interceptor adds its trailer that way).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, TypeVar

import grpc

T = TypeVar("T")

#: begin(method, context) -> token; end(token, method, context, code_name, response or None);
#: substitute(token, context) -> the context the behaviour gets (a wrapper of the real one).
Begin = Callable[[str, Any], T]
End = Callable[[T, str, Any, str, Any], None]
Substitute = Callable[[T, Any], Any]

_BY_VALUE = {code.value[0]: code.name for code in grpc.StatusCode}


def status_name(context: Any, default: str) -> str:
    """The name of the status code set on a server context ("NOT_FOUND"), or ``default`` when none is set."""
    code = context.code()
    if code is None:
        return default
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    return str(_BY_VALUE.get(code, default))  # some grpc versions keep the bare integer


def _ending(context: Any, error: BaseException) -> str:
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return "CANCELLED"
    return status_name(context, "UNKNOWN")  # abort() set it; an unhandled exception leaves it unset


class HandlerWrapper(Generic[T]):
    """Wraps handlers with ``begin``/``end``; one instance per interceptor."""

    def __init__(self, begin: Begin[T], end: End[T], substitute: Substitute[T] | None = None) -> None:
        self._begin = begin
        self._end = end
        self._substitute = substitute
        self._cache: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def wrap(self, method: str, handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler | None:
        if handler is None:
            return None
        cached = self._cache.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._build(method, handler)
        self._cache[method] = (handler, wrapped)
        return wrapped

    def _build(self, method: str, h: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        ser = {"request_deserializer": h.request_deserializer, "response_serializer": h.response_serializer}
        if h.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(self._coroutine(method, h.unary_unary), **ser)
        if h.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(self._coroutine(method, h.stream_unary), **ser)
        if h.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(self._any(method, h.unary_stream), **ser)
        return grpc.stream_stream_rpc_method_handler(self._any(method, h.stream_stream), **ser)

    def _any(self, method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isasyncgenfunction(behavior):
            return self._generator(method, behavior)
        return self._coroutine(method, behavior)  # a streaming handler that writes with context.write()

    def _coroutine(self, method: str, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        begin, end, substitute = self._begin, self._end, self._substitute

        async def wrapper(request: Any, context: Any) -> Any:
            token = begin(method, context)
            try:
                response = await behavior(request, substitute(token, context) if substitute else context)
            except BaseException as e:
                end(token, method, context, _ending(context, e), None)
                raise
            code = status_name(context, "OK")
            end(token, method, context, code, response if code == "OK" else None)
            return response

        return wrapper

    def _generator(self, method: str, behavior: Callable[..., AsyncIterator[Any]]) -> Callable[..., Any]:
        begin, end, substitute = self._begin, self._end, self._substitute

        async def wrapper(request: Any, context: Any) -> AsyncIterator[Any]:
            token = begin(method, context)
            try:
                async for item in behavior(request, substitute(token, context) if substitute else context):
                    yield item
            except BaseException as e:
                end(token, method, context, _ending(context, e), None)
                raise
            end(token, method, context, status_name(context, "OK"), None)

        return wrapper
