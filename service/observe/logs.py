"""Structured logs: one JSON object a line, each carrying the request id of the RPC it was written in.

The request id is the client's ``x-request-id`` metadata when it sends a sane one (so a trace crosses
services), otherwise a fresh random id. ``service.grpc.operations`` keeps it in a context variable for the whole
call, so any ``logging`` call in the use cases carries it without passing it around, sends it back to the
client in the trailing metadata (errors included), and writes one access line per RPC: method, status code,
duration, peer.

Secrets stay out: the access line never holds a request or response body, and metadata values are never
logged (the game token travels there).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import sys
import time
from contextvars import ContextVar
from typing import Any, TextIO

REQUEST_ID_HEADER = "x-request-id"
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
#: The call's trace id (32 hex digits) while traces are on and the call is sampled (service.observe.tracing).
trace_id: ContextVar[str | None] = ContextVar("trace_id", default=None)

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
    """``{"ts", "level", "logger", "msg", "pid", "request_id"?, "trace_id"?, ...extra fields, "exc"?}`` on one
    line."""

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
        tid = trace_id.get()
        if tid:
            out["trace_id"] = tid
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in out:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return _ENCODE(out)


class TextFormatter(logging.Formatter):
    """For a person at a terminal: the usual line, then the extra fields as key=value, then the request id (and the
    trace id, when the call is traced)."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(
            f"{key}={value}" for key, value in record.__dict__.items() if key not in _STANDARD and key != "request_id"
        )
        rid = getattr(record, "request_id", None) or request_id.get()
        tid = trace_id.get()
        ids = f"{rid} trace_id={tid}" if rid and tid else rid
        return line + (f" {fields}" if fields else "") + (f" [{ids}]" if ids else "")


#: The handler configure() installed last (replaced by the next call).
_handler: logging.Handler | None = None


def configure(level: str | int = "INFO", fmt: str = "json", stream: TextIO | None = None) -> None:
    """Send every log record to ``stream`` (stderr) in ``fmt`` ("json" or "text"); idempotent."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    elif fmt == "text":
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    else:
        raise ValueError(f"log format must be 'json' or 'text', not {fmt!r}")
    global _handler
    root = logging.getLogger()
    if _handler is not None:
        root.removeHandler(_handler)
    _handler = handler
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


_id_prefix = os.urandom(8).hex()
_id_counter = itertools.count()


def _reseed_ids() -> None:
    global _id_prefix, _id_counter
    _id_prefix, _id_counter = os.urandom(8).hex(), itertools.count()


os.register_at_fork(after_in_child=_reseed_ids)  # forked workers must not repeat each other's ids


def new_request_id() -> str:
    """32 hex digits, the size of a UUID: a random prefix per process and a counter. Unique, not secret (an id
    only ties log lines together), and without uuid4's system call for randomness on every call."""
    return f"{_id_prefix}{next(_id_counter):016x}"


def with_request_id(trailing_metadata: Any) -> tuple[tuple[str, str], ...]:
    """``trailing_metadata`` plus this call's ``x-request-id``: for an abort that sets trailers of its own (they
    replace those ``service.grpc.operations`` set when the call began)."""
    out = tuple(trailing_metadata or ())
    rid = request_id.get()
    return (*out, (REQUEST_ID_HEADER, rid)) if rid else out


def incoming_request_id(metadata: Any) -> str | None:
    """The client's x-request-id if it is short and plain (it lands in logs: no newlines, no JSON tricks)."""
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER:
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            return text if _SANE_ID.fullmatch(text) else None
    return None
