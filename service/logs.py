"""Structured logs: one JSON object a line, each carrying the request id of the RPC it was written in.

The request id is the client's ``x-request-id`` metadata when it sends a sane one (so a trace crosses
services), otherwise a fresh random id. ``RequestIdInterceptor`` keeps it in a context variable for the whole
call, so any ``logging`` call in the use cases carries it without passing it around, sends it back to the
client in the initial metadata (it survives an error status, whose trailers belong to the error details), and
writes one access line per RPC: method, status code, duration, peer.

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
from datetime import UTC, datetime
from typing import Any, TextIO

import grpc

from service.rpcwrap import HandlerWrapper

REQUEST_ID_HEADER = "x-request-id"
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)

_SANE_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
# Everything a LogRecord carries by itself; any other attribute came from ``extra=`` and is logged as a field.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime", "taskName"}

access_log = logging.getLogger("service.access")


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", "pid", "request_id"?, ...extra fields, "exc"?}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
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
        return json.dumps(out, ensure_ascii=False, default=str)


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


def new_request_id() -> str:
    return uuid.uuid4().hex


def incoming_request_id(metadata: Any) -> str | None:
    """The client's x-request-id if it is short and plain (it lands in logs: no newlines, no JSON tricks)."""
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER:
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            return text if _SANE_ID.fullmatch(text) else None
    return None


class RequestIdInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Gives every RPC a request id (in logs and in the reply's initial metadata) and logs one access line."""

    def __init__(self) -> None:
        self._wrapper: HandlerWrapper[tuple[float, str]] = HandlerWrapper(self._begin, self._end)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        return self._wrapper.wrap(handler_call_details.method, await continuation(handler_call_details))

    @staticmethod
    async def _begin(method: str, context: Any) -> tuple[float, str]:
        rid = incoming_request_id(context.invocation_metadata()) or new_request_id()
        request_id.set(rid)  # the call runs in its own task, so this stays inside the call
        await context.send_initial_metadata(((REQUEST_ID_HEADER, rid),))
        return time.perf_counter(), rid

    @staticmethod
    def _end(token: tuple[float, str], method: str, context: Any, code: str, response: Any) -> None:
        start, rid = token
        if access_log.isEnabledFor(logging.INFO):
            access_log.info(
                "rpc",
                extra={
                    "request_id": rid,
                    "method": method,
                    "code": code,
                    "duration_ms": round((time.perf_counter() - start) * 1000, 3),
                    "peer": context.peer(),
                },
            )
