"""The Redis protocol under the pipelined connection (``service.store.redispipe``): commands packed in RESP2 as
redis-py would send them, and one socket's asyncio protocol that writes every command queued in an event-loop turn
in one ``write`` and hands the replies, parsed by hiredis, to the waiting futures in the order sent."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Sequence
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, InvalidResponse, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


def _encode(value: Any) -> bytes:
    """An argument as redis-py's Encoder would send it (bytes as is, text as UTF-8, numbers as digits)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):  # redis-py refuses booleans too
        raise DataError("Invalid input of type: 'bool'. Convert to a bytes, string, int or float first.")
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, float):
        return repr(value).encode()
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    raise DataError(f"Invalid input of type: {type(value).__name__!r}. Convert to a bytes, string, int or float first.")


def pack_command(args: Sequence[Any]) -> bytes:
    """One command in RESP2: ``*N`` then each argument as a bulk string (hiredis packs it in C; what hiredis
    refuses -- a bool, a bytearray, anything else -- is packed or refused here exactly as redis-py would)."""
    try:
        return hiredis.pack_command(args if type(args) is tuple else tuple(args))  # type: ignore[no-any-return]
    except TypeError:
        return _pack_command_python(args)


def _pack_command_python(args: Sequence[Any]) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        kind = type(arg)  # the common types first, without isinstance chains: this runs for every argument
        if kind is bytes:
            data = arg
        elif kind is str:
            data = arg.encode()
        elif kind is int:
            data = b"%d" % arg
        else:
            data = _encode(arg)
        out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


class Connection(asyncio.Protocol):
    """One socket: commands written in one ``write`` per loop turn, replies handed to the waiting futures in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float | None) -> None:
        self.loop = loop
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._reader = hiredis.Reader(protocolError=InvalidResponse, replyError=ResponseError)
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._out: list[bytes] = []
        self._flush_due = False
        self._progress = 0.0  # loop time of the last reply (or of the first command sent after an idle spell)
        self._watchdog: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        waiting = self._waiting
        while waiting:
            reply = self._reader.gets()
            if reply is False:
                break
            future = waiting.popleft()
            if not future.done():  # a caller that gave up (cancelled) leaves its reply unread
                future.set_result(reply)
        self._progress = self.loop.time()

    def eof_received(self) -> bool:
        return False  # close the transport: Redis closed its end

    def connection_lost(self, exc: Exception | None) -> None:
        reason = f"Connection closed by server: {exc}" if exc else "Connection closed by server."
        self._fail(RedisConnectionError(reason))

    # -- commands ------------------------------------------------------------------------

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        """Queue one packed command; the future gets its reply (an error reply as a ResponseError instance)."""
        if self.closed:
            raise RedisConnectionError("Connection closed.")
        future = self.loop.create_future()
        if not self._waiting:
            self._progress = self.loop.time()
            if self.timeout is not None and self._watchdog is None:
                self._watchdog = self.loop.call_later(self.timeout, self._check_progress)
        self._waiting.append(future)
        self._out.append(packed)
        if not self._flush_due:
            self._flush_due = True
            self.loop.call_soon(self._flush)
        return future

    def _flush(self) -> None:
        self._flush_due = False
        if self._out and not self.closed and self.transport is not None:
            data = b"".join(self._out) if len(self._out) > 1 else self._out[0]
            self._out.clear()
            self.transport.write(data)

    def _check_progress(self) -> None:
        """A read timeout for a pipeline: no reply for ``timeout`` seconds while commands wait fails them all."""
        self._watchdog = None
        if self.closed or not self._waiting or self.timeout is None:
            return
        idle = self.loop.time() - self._progress
        if idle >= self.timeout:
            self._fail(RedisTimeoutError("Timeout reading from the Redis server"))
            return
        self._watchdog = self.loop.call_later(self.timeout - idle, self._check_progress)

    def _fail(self, error: Exception) -> None:
        """Close for good: every waiting command gets ``error`` (its fate on the server is unknown)."""
        if not self.closed:
            self.closed = True
            if self.transport is not None:
                with contextlib.suppress(RuntimeError):  # the loop may be closed already
                    self.transport.abort()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._out.clear()
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                with contextlib.suppress(RuntimeError):  # a future of a loop that is closed by now
                    future.set_exception(error)

    def close(self) -> None:
        self._fail(RedisConnectionError("Connection closed by the client."))
