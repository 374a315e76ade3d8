"""Processes the tests started, found by a variable in their environment (``OWNER``: the pid of the pytest process
that started them, inherited by their own children), so that a test that leaves one behind is caught."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

OWNER = "SUITE_OWNER_PID"
#: Helpers that belong to the test process itself and end with it: multiprocessing's resource tracker (started
#: once per process by a process pool, it exits when its parent does).
OWN_HELPERS = ("multiprocessing.resource_tracker",)


def owned_by(owner: int) -> list[tuple[int, str]]:
    """Live processes (not zombies) whose environment says ``owner`` started them, other than ``owner`` itself."""
    marker = f"{OWNER}={owner}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == owner:
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rpartition(")")[2].split()[0] == "Z":
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if any(helper in command for helper in OWN_HELPERS):
            continue
        found.append((int(entry.name), command[:200]))
    return found


def leftovers(owner: int, grace: float = 15.0) -> list[tuple[int, str]]:
    """The processes ``owner`` started that are still running after ``grace`` seconds (a process told to stop
    may take a moment), each then killed."""
    deadline = time.monotonic() + grace
    left = owned_by(owner)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = owned_by(owner)
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return left
