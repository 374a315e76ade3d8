"""No process of the service outlives the one that started it.

A ``--workers`` worker, the embedded winnable filler and the local redis-server are children of the service's
main process. When that process stops normally it stops them; when it is killed (SIGKILL, the OOM killer), a
child would go on serving, orphaned, with nobody to stop it. So each child asks the kernel to send it SIGTERM
when its parent dies (Linux's ``PR_SET_PDEATHSIG``), which its usual graceful stop then handles; where there is
no such request (another OS), a daemon thread polls the parent's id instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
import time

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
#: How often the fallback thread looks at the parent's id (seconds).
POLL = 1.0


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> bool:
    """Have ``sig`` sent to this process when ``parent`` (the process that started it) exits; False, and nothing
    asked, when it is gone already (the caller stops in its own way).

    Call it first thing in the child, from its main thread.
    """
    if os.getppid() != parent:
        return False
    if _ask_kernel(sig):
        return os.getppid() == parent  # else it died between the look and the request
    threading.Thread(target=_watch, args=(parent, sig), name="parent-watch", daemon=True).start()
    return True


def preexec_die_with_parent() -> None:
    """``preexec_fn`` for a child that runs someone else's program (redis-server): the same request, made
    between the fork and the exec. Popen's docs warn against ``preexec_fn`` in a process with threads: the
    service starts these children before it starts any thread."""
    _ask_kernel(signal.SIGTERM)


def _ask_kernel(sig: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0)
    return False


def _watch(parent: int, sig: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    log.warning("the parent process %d is gone: stopping", parent)
    os.kill(os.getpid(), sig)
