"""The warnings a client can cause at will, throttled to a line a minute: uvicorn's on malformed requests, the
REST connection guard's (``service.rest.connections``) on refused and slow connections, and asyncio's on a failed
``accept()`` (once per queued connection every second, with a traceback, while descriptors run short).

Apart from the guard because it is about the process's logs, set up once by the server (``throttle_logs``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

log = logging.getLogger(__name__)


class OncePerInterval:
    """A logging filter: each message (by its format string) at most once per ``interval`` seconds; the next one
    let through says how many were dropped (field ``suppressed``). A flood of refusals or malformed requests then
    costs a line a minute, not a line each."""

    def __init__(self, interval: float = 60.0) -> None:
        self.interval = interval
        self._last: dict[tuple[str, object], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.name != __name__:
            return True  # an error (a traceback of ours) is never hidden
        if len(self._last) > 1000:  # messages written preformatted: keep the table small
            self._last.clear()
        key = (record.name, record.msg)
        now = time.monotonic()
        seen = self._last.get(key)
        if seen is not None and now - seen[0] < self.interval:
            self._last[key] = (seen[0], seen[1] + 1)
            return False
        if seen is not None and seen[1]:
            record.suppressed = seen[1]
        self._last[key] = (now, 0)
        return True


#: The loggers whose warnings a client can cause at will: uvicorn's (malformed requests), the connection guard's
#: and this module's (failed accepts).
THROTTLED_LOGGERS = ("uvicorn.error", "service.rest.connections", __name__)
#: The filter on those loggers (one for the process).
LOG_THROTTLE = OncePerInterval()

#: asyncio's message when accept() fails for want of descriptors or memory: it logs it, with a traceback, once
#: per connection still queued (up to the listen backlog) every second while the shortage lasts.
ACCEPT_FAILED = "socket.accept() out of system resource"


def throttle_logs(loop: asyncio.AbstractEventLoop, interval: float = 60.0) -> None:
    """Throttle the warnings clients can cause, and asyncio's accept failures, to one line per ``interval``."""
    LOG_THROTTLE.interval = interval
    for name in THROTTLED_LOGGERS:
        logger = logging.getLogger(name)
        if LOG_THROTTLE not in logger.filters:
            logger.addFilter(LOG_THROTTLE)
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_FAILED:
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        log.error("cannot accept a connection: %s", context.get("exception"))  # throttled, no traceback

    loop.set_exception_handler(handler)
