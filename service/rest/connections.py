"""The REST listener's connections: how many may be open, and how long a request's head and body may take.

Why code of ours: uvicorn 0.55 arms its only timer (``timeout_keep_alive``) after it has answered a request, so a
connection that never sends one, or sends its head or its body a few bytes at a time, stays open for ever; and its
``limit_concurrency`` answers 503 only once a request head is complete, so idle connections still use up the
process's file descriptors until nobody (gRPC included) can connect. uvicorn's ``Config(http=...)`` takes the HTTP
protocol as a class: :meth:`Connections.protocol_class` returns one of ours (made for the listener) whose
protocol *wraps* uvicorn's (composition, no subclass of uvicorn's, no private attribute). It sees every connection
and every byte, and learns from the ASGI application (wrapped by :meth:`Connections.app`) when a request's body
has been read and when its answer is sent. The two find each other through a context variable that the wrapper
sets while uvicorn parses the bytes: asyncio copies the context into the task uvicorn starts for the request.

It also bounds a request head to :data:`MAX_HEAD_BYTES`, as h11 did: uvicorn's httptools protocol (chosen over h11
for its C parser: h11 cost a REST call about 130 µs of CPU more, docs/service-benchmark.md) has no such bound. A
head over it gets uvicorn's answer to a request it cannot parse (400) and the connection is closed, whether it
came whole or is still arriving.

Per connection, one timer at a time:

- waiting for a request head (from the connection's start, or from the previous answer): ``head_timeout``, then
  the connection is closed (408 if part of a head came);
- head received, body not yet read to its end: ``body_timeout``, then the connection is closed;
- the application working on the request: no timer (the use cases bound themselves).

At most ``max_connections`` are open: a new one past the cap closes the connection that has waited longest for a
request head (an idle or slow client), or, when every connection is busy with a request, is answered 503 and
closed at once. Closing costs nothing but the accepted socket, so the process never runs out of descriptors
while it still has :func:`fd_budget`'s headroom.

The descriptor budget (``service.rest.descriptors``) and the throttled warnings (``service.rest.log_throttle``)
live apart; their names are still importable from here.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.observe import metrics
from service.rest.descriptors import FD_RESERVE, FdBudget, accept_backlog, fd_budget, raise_fd_limit
from service.rest.log_throttle import ACCEPT_FAILED, LOG_THROTTLE, THROTTLED_LOGGERS, OncePerInterval, throttle_logs

log = logging.getLogger(__name__)

#: The largest request head (request line and headers) accepted: what h11 allowed (``h11_max_incomplete_event_size``);
#: httptools has no such bound and would buffer one endless header.
MAX_HEAD_BYTES = 64 * 1024
#: The refusal's text: uvicorn's for any request it cannot parse.
INVALID_REQUEST = "Invalid HTTP request received."

_HEAD_END = b"\r\n\r\n"
_HEAD_TOO_LARGE = (
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(INVALID_REQUEST), INVALID_REQUEST.encode())
)
_REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 20\r\nconnection: close\r\n\r\nToo many connections"
)
_TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 16\r\nconnection: close\r\n\r\nRequest too slow"
)

_WAITING, _READING, _WORKING = 0, 1, 2

_current: contextvars.ContextVar[_Guard | None] = contextvars.ContextVar("rest_connection", default=None)


@dataclass(frozen=True)
class Limits:
    """The REST listener's bounds (``--http-max-connections``, ``--http-head-timeout``, ``--http-body-timeout``)."""

    max_connections: int = 4096
    head_timeout: float = 10.0
    body_timeout: float = 30.0
    #: The largest body the application reads (``--max-message-bytes``): while a request is in progress, its
    #: connection may bring at most this and one more head (the next request's, pipelined).
    max_body_bytes: int = 1 << 20


class Connections:
    """The open connections of one listener, and what it closed itself (also in ``/metrics``)."""

    def __init__(self, limits: Limits, *, tls: bool = False) -> None:
        self.limits = limits
        self.tls = tls
        self.open = 0
        #: Connections waiting for a request head, the longest waiting first (a dict keeps insertion order).
        self.waiting: dict[_Guard, None] = {}
        self.refused = 0
        self.evicted = 0
        self.timed_out = 0

    def protocol_class(self, inner: Callable[..., asyncio.Protocol]) -> type[asyncio.Protocol]:
        """What uvicorn's ``Config(http=...)`` takes: a protocol class, called with uvicorn's arguments for
        ``inner`` (this listener's own class of :class:`_Guard`)."""
        return type("GuardedProtocol", (_Guard,), {"connections": self, "inner_class": staticmethod(inner)})

    def app(self, app: ASGIApp) -> ASGIApp:
        """``app`` telling each request's connection when its body has been read and its answer sent; over TLS,
        adding the verified client certificate to the scope (ASGI's TLS extension, which uvicorn does not fill)."""

        async def tracked(scope: Scope, receive: Receive, send: Send) -> None:
            guard = _current.get()
            if guard is None or scope["type"] != "http":
                await app(scope, receive, send)
                return
            request = guard.request_started(scope)
            if guard.tls_extension is not None:
                scope = {**scope, "extensions": {**(scope.get("extensions") or {}), "tls": guard.tls_extension}}

            async def receive_tracked() -> Message:
                message = await receive()
                if message["type"] == "http.request" and not message.get("more_body", False):
                    guard.body_read()
                return message

            async def send_tracked(message: Message) -> None:
                await send(message)
                if message["type"] == "http.response.body" and not message.get("more_body", False):
                    guard.answered(request)

            try:
                await app(scope, receive_tracked, send_tracked)
            finally:  # an application that failed: uvicorn answers 500 and the connection waits for a head again
                guard.answered(request)

        return tracked

    def make_room(self) -> bool:
        """At the cap: close the connection waiting longest for a head; False when every one is busy."""
        if self.open < self.limits.max_connections:
            return True
        oldest = next(iter(self.waiting), None)
        if oldest is None:
            return False
        self.evicted += 1
        metrics.http_connection_closed("evicted")
        log.warning("REST connections at the cap (%d): closing the one waiting longest", self.limits.max_connections)
        oldest.close()
        return True


class _Guard(asyncio.Protocol):
    """One connection: uvicorn's protocol inside, the cap and the deadlines around it."""

    connections: Connections  # set by Connections.protocol_class
    inner_class: Callable[..., asyncio.Protocol]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.inner: Any = self.inner_class(*args, **kwargs)
        self.transport: asyncio.Transport | None = None
        self.refused = False
        self.state = _WAITING
        self.head_bytes = 0
        self.request_bytes = 0  # received since the head of the request in progress ended
        self.tail = b""
        self.requests = 0
        self.timer: asyncio.TimerHandle | None = None
        self.tls_extension: dict[str, Any] | None = None

    # ---------------------------------------------------------------------------- asyncio's side

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        connections = self.connections
        if not connections.make_room():
            self.refused = True
            connections.refused += 1
            metrics.http_connection_closed("refused")
            log.warning("REST connection refused: %d open, all busy", connections.open)
            transport.write(_REFUSED)
            transport.close()
            return
        connections.open += 1
        metrics.observe_http_connections(1)
        if connections.tls:
            self.tls_extension = _client_certificate(transport)
        self.inner.connection_made(transport)
        self._wait_for_head()

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        if self.state == _WAITING:
            if not self._scan_head(data):
                return
        elif not self._count_request(len(data)):
            return
        token = _current.set(self)
        try:
            self.inner.data_received(data)
        finally:
            _current.reset(token)

    def eof_received(self) -> bool | None:
        return None if self.refused else bool(self.inner.eof_received())

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            return
        self.connections.open -= 1
        metrics.observe_http_connections(-1)
        self.connections.waiting.pop(self, None)
        self._cancel_timer()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if not self.refused:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused:
            self.inner.resume_writing()

    # ---------------------------------------------------------------------------- the request's side

    def request_started(self, scope: Scope) -> int:
        """The application got a request (its head was parsed; a pipelined one too): its number on the connection."""
        if self.state != _READING:
            self._head_received()
        if not _has_body(scope):
            self.body_read()
        self.requests += 1
        return self.requests

    def body_read(self) -> None:
        if self.state == _READING:
            self.state = _WORKING
            self._cancel_timer()

    def answered(self, request: int) -> None:
        """The answer to request number ``request`` was sent: wait for the next head (once per request)."""
        if request != self.requests or self.state == _WAITING:
            return
        if self.transport is not None and not self.transport.is_closing():
            self._wait_for_head()

    # ---------------------------------------------------------------------------- the deadlines

    def _wait_for_head(self) -> None:
        self.state, self.head_bytes, self.request_bytes, self.tail = _WAITING, 0, 0, b""
        self.connections.waiting[self] = None
        self._arm(self.connections.limits.head_timeout)

    def _scan_head(self, data: bytes) -> bool:
        """Find the blank line that ends a head in the bytes as they come (split anywhere between reads), and
        measure the head: False when it is over :data:`MAX_HEAD_BYTES` (then refused, 400, and closed)."""
        end = (self.tail + data[:3]).find(_HEAD_END)
        if end >= 0:
            end += 4 - len(self.tail)  # where the head ends in data
        else:
            end = data.find(_HEAD_END)
            end = end + 4 if end >= 0 else -1
        self.head_bytes += len(data) if end < 0 else end
        self.request_bytes = len(data) - end if end >= 0 else 0
        if self.head_bytes > MAX_HEAD_BYTES:
            log.warning("request head over %d bytes", MAX_HEAD_BYTES)
            metrics.http_connection_closed("head_too_large")
            self.close(answer=_HEAD_TOO_LARGE)
            return False
        if end >= 0:
            self._head_received()
        else:
            self.tail = (self.tail + data)[-3:]
        return True

    def _count_request(self, size: int) -> bool:
        """Bound what arrives while a request is in progress: its body and the next head. httptools buffers a head
        it is given whole, and uvicorn keeps feeding it a pipelined one until that head is complete; False when
        past the bound (the connection is then closed)."""
        self.request_bytes += size
        if self.request_bytes <= self.connections.limits.max_body_bytes + MAX_HEAD_BYTES:
            return True
        log.warning("REST connection closed: more than a body and a head while its request was served")
        metrics.http_connection_closed("too_much_data")
        self.close()
        return False

    def _head_received(self) -> None:
        self.state = _READING
        self.connections.waiting.pop(self, None)
        self._arm(self.connections.limits.body_timeout)

    def _arm(self, seconds: float) -> None:
        self._cancel_timer()
        self.timer = asyncio.get_running_loop().call_later(seconds, self._deadline)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _deadline(self) -> None:
        self.timer = None
        self.connections.timed_out += 1
        if self.state == _WAITING and self.head_bytes == 0:
            metrics.http_connection_closed("idle")
            self.close()  # nothing sent since the connection opened or the last answer: nothing to say
            return
        part = _PARTS[self.state]
        metrics.http_connection_closed(f"{part}_timeout")
        log.warning("REST connection closed: its request's %s came too slowly", part)
        self.close(answer=_TIMED_OUT if self.state == _WAITING else None)

    def close(self, *, answer: bytes | None = None) -> None:
        """Close now; a short answer first when the socket can take it at once (never wait on a slow reader)."""
        self.connections.waiting.pop(self, None)
        self._cancel_timer()
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if answer is not None and transport.get_write_buffer_size() == 0:
            transport.write(answer)
        if transport.get_write_buffer_size() == 0:
            transport.close()
        else:
            transport.abort()


_PARTS = {_WAITING: "head", _READING: "body"}


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"0", b"")):
            return True
    return False


def _client_certificate(transport: asyncio.BaseTransport) -> dict[str, Any] | None:
    """The ASGI TLS extension for a connection whose client presented a certificate (CERT_OPTIONAL: one that reached
    here was verified against the client CA during the handshake), else None."""
    ssl_object = transport.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    if not der:
        return None
    return {"client_cert_chain": [ssl.DER_cert_to_PEM_cert(der)], "client_cert_error": None}


__all__ = (
    "ACCEPT_FAILED",
    "FD_RESERVE",
    "INVALID_REQUEST",
    "LOG_THROTTLE",
    "MAX_HEAD_BYTES",
    "THROTTLED_LOGGERS",
    "Connections",
    "FdBudget",
    "Limits",
    "OncePerInterval",
    "accept_backlog",
    "fd_budget",
    "raise_fd_limit",
    "throttle_logs",
)
