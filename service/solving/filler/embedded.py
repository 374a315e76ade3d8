"""The filler ``python -m service`` starts beside itself (``--winnable-filler embedded``, the default), so that
winnable deals work with nothing else set up: a child process, not a thread (the solver is CPU-bound and
would stall the event loop), one per ``python -m service`` whatever ``--workers`` (the parent starts it,
before it forks the workers), at a lower CPU priority than the service, stopped when the service stops and
stopping by itself if the service dies without stopping it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator

from service.settings.config import FILLER_SETTINGS, Settings
from service.solving.filler.__main__ import PARENT_ENV

log = logging.getLogger("service.solving.filler")

#: Seconds the filler gets to finish its seed after SIGTERM before it is killed.
STOP_WAIT = 15.0


def filler_environment(settings: Settings, base: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: this process's, with the filler's settings as ``PATIENCE_*`` variables (so a
    flag given to the service reaches the filler too) and no metrics port (the service has it)."""
    env = dict(os.environ if base is None else base)
    for name in FILLER_SETTINGS:
        variable = "PATIENCE_" + name.upper()
        value = getattr(settings, name)
        env.pop(variable, None)
        if value is None or value == () or name == "metrics_listen":
            continue
        env[variable] = ",".join(value) if isinstance(value, tuple) else str(value)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # the workers' shared samples are not the filler's
    env[PARENT_ENV] = str(os.getpid())
    return env


@contextlib.contextmanager
def embedded_filler(settings: Settings) -> Iterator[subprocess.Popen[bytes] | None]:
    """Run one filler for the duration (None when ``--winnable-filler off``)."""
    if settings.winnable_filler != "embedded" or not settings.redis_url:
        yield None
        return
    proc = subprocess.Popen([sys.executable, "-m", "service.solving.filler"], env=filler_environment(settings))
    log.info("embedded filler started", extra={"filler_pid": proc.pid})
    try:
        yield proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not stopped within STOP_WAIT seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
