"""No process of the service outlives the one that started it (service/process/lifetime.py): a SIGKILLed service leaves
no worker serving and no local Redis running; and the suite's own check finds a process a test leaves behind."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import process_support
from service_harness import ROOT, start_process


def children_of(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone_within(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after up to ``seconds`` (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_killed_service_leaves_no_worker_serving(redis_db: str, tmp_path: Path) -> None:
    service = start_process(redis_db, tmp_path, "--workers", "2", "--grace", "1")
    try:
        workers = children_of(service.proc.pid)
        assert len(workers) >= 2, workers
        os.kill(service.proc.pid, signal.SIGKILL)  # the parent only: nobody forwards a signal to the workers
        service.proc.wait(10)
        assert gone_within(workers, 30) == [], "workers outlived their killed parent"
        assert not listening(service.port)
    finally:
        service.kill()


def test_a_killed_service_stops_its_local_redis(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    env.update({"PATIENCE_KEYS_DIR": str(tmp_path / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                "PATIENCE_WINNABLE_FILLER": "off", "XDG_DATA_HOME": str(tmp_path / "data")})  # fmt: skip
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service",
            "--listen",
            f"127.0.0.1:{port}",
            "--local-redis-dir",
            str(tmp_path / "redis"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        redis: list[int] = []
        while time.monotonic() < deadline and not (redis and listening(port)):
            redis = [p for p in children_of(proc.pid) if b"redis-server" in Path(f"/proc/{p}/cmdline").read_bytes()]
            time.sleep(0.1)
        assert redis and listening(port), "the service did not start its local Redis and serve"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert gone_within(redis, 30) == [], "the local redis-server outlived the killed service"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_suite_finds_and_kills_a_process_a_test_leaves_behind() -> None:
    # An owner of its own (no real pid), so that the check sees this process alone, not the session's Redis.
    owner = 2**31 - 7
    env = {**os.environ, process_support.OWNER: str(owner)}
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], env=env)
    try:
        assert [pid for pid, _ in process_support.owned_by(owner)] == [sleeper.pid]
        left = process_support.leftovers(owner, grace=0.5)
        assert [pid for pid, _ in left] == [sleeper.pid]
        assert sleeper.wait(10) == -signal.SIGKILL
        assert process_support.owned_by(owner) == []
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
