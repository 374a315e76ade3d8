"""Structured logs: one JSON object a line, each carrying the request id of the RPC it was written in.

The request id is the client's ``x-request-id`` metadata when it sends a sane one (so a trace crosses
services), otherwise a fresh random id. ``RequestIdInterceptor`` keeps it in a context variable for the whole
call, so any ``logging`` call in the use cases carries it without passing it around, sends it back to the
client in the trailing metadata (errors included), and writes one access line per RPC: method, status code,
duration, peer.

Secrets stay out: the access line never holds a request or response body, and metadata values are never
logged (the game token travels there).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TextIO

import grpc

from service.rpcwrap import HandlerWrapper

REQUEST_ID_HEADER = "x-request-id"
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)

_SANE_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
# Everything a LogRecord carries by itself; any other attribute came from ``extra=`` and is logged as a field.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime", "taskName"}

access_log = logging.getLogger("service.access")
# One encoder for every line: json.dumps() with options builds a new encoder per call, a third of a line's cost.
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode


class _Clock:
    """ISO 8601 UTC timestamps with milliseconds; the part up to the second is computed once a second."""

    second = -1
    prefix = ""

    @classmethod
    def iso(cls, created: float) -> str:
        second = int(created)
        if second != cls.second:
            cls.second, cls.prefix = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{cls.prefix}.{int((created - second) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", "pid", "request_id"?, ...extra fields, "exc"?}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": _Clock.iso(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,  # tells the --workers processes apart
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            out["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in out:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return _ENCODE(out)


class TextFormatter(logging.Formatter):
    """For a person at a terminal: the usual line, then the extra fields as key=value, then the request id."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(
            f"{key}={value}" for key, value in record.__dict__.items() if key not in _STANDARD and key != "request_id"
        )
        rid = getattr(record, "request_id", None) or request_id.get()
        return line + (f" {fields}" if fields else "") + (f" [{rid}]" if rid else "")


def configure(level: str | int = "INFO", fmt: str = "json", stream: TextIO | None = None) -> None:
    """Send every log record to ``stream`` (stderr) in ``fmt`` ("json" or "text"); idempotent."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    elif fmt == "text":
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    else:
        raise ValueError(f"log format must be 'json' or 'text', not {fmt!r}")
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_patience", False)]:
        root.removeHandler(old)
    handler._patience = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    # Neither format shows thread or multiprocessing names: skip collecting them for every record.
    logging.logThreads = False
    logging.logMultiprocessing = False


def log_access(msg: str, **fields: Any) -> None:
    """One access line at INFO, built directly: the same record ``access_log.info(msg, extra=fields)`` makes,
    without looking up the caller's source line on every call (a third of the cost of a line)."""
    record = logging.LogRecord(access_log.name, logging.INFO, __file__, 0, msg, None, None)
    record.__dict__.update(fields)
    access_log.handle(record)


def new_request_id() -> str:
    return uuid.uuid4().hex


def incoming_request_id(metadata: Any) -> str | None:
    """The client's x-request-id if it is short and plain (it lands in logs: no newlines, no JSON tricks)."""
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER:
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            return text if _SANE_ID.fullmatch(text) else None
    return None


class _RequestIdContext:
    """The call's context, keeping ``x-request-id`` in the trailers whatever the handler sets or aborts with.

    The id goes back in the trailing metadata, which travel with the status in the call's last frame; sending
    it in the initial metadata instead would cost a frame of its own on every call. An error status replaces
    the trailers (rich error details live there), so ``abort`` and ``set_trailing_metadata`` add it back.
    """

    __slots__ = ("_context", "_trailer")

    def __init__(self, context: Any, rid: str) -> None:
        self._context = context
        self._trailer = (REQUEST_ID_HEADER, rid)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def set_trailing_metadata(self, trailing_metadata: Any) -> None:
        self._context.set_trailing_metadata((*tuple(trailing_metadata or ()), self._trailer))

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> None:
        await self._context.abort(code, details, (*tuple(trailing_metadata or ()), self._trailer))

    async def abort_with_status(self, status: grpc.Status) -> None:
        await self.abort(status.code, status.details, status.trailing_metadata)


class RequestIdInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Gives every RPC a request id (in logs and in the reply's trailing metadata) and logs one access line."""

    def __init__(self) -> None:
        self._wrapper: HandlerWrapper[tuple[float, str]] = HandlerWrapper(self._begin, self._end, self._context)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        return self._wrapper.wrap(handler_call_details.method, await continuation(handler_call_details))

    @staticmethod
    def _begin(method: str, context: Any) -> tuple[float, str]:
        rid = incoming_request_id(context.invocation_metadata()) or new_request_id()
        request_id.set(rid)  # the call runs in its own task, so this stays inside the call
        context.set_trailing_metadata(((REQUEST_ID_HEADER, rid),))
        return time.perf_counter(), rid

    @staticmethod
    def _context(token: tuple[float, str], context: Any) -> Any:
        return _RequestIdContext(context, token[1])

    @staticmethod
    def _end(token: tuple[float, str], method: str, context: Any, code: str, response: Any) -> None:
        start, rid = token
        if access_log.isEnabledFor(logging.INFO):
            log_access(
                "rpc",
                request_id=rid,
                method=method,
                code=code,
                duration_ms=round((time.perf_counter() - start) * 1000, 3),
                peer=context.peer(),
            )
