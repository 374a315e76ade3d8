"""The processes a benchmark starts and measures: free ports, waiting for a listener, the service, stopping,
and CPU time read from /proc (a process's own, or summed with its running children, the ``--workers``)."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    """CPU time of a process so far (Linux /proc): the nanoseconds its threads have run (``schedstat``), so that
    a short run of a lightly loaded process (Redis in a 1 s slice) does not read 0; where the kernel keeps no
    schedstat, user + system time in clock ticks (10 ms steps)."""
    try:
        return (
            sum(int((task / "schedstat").read_text().split()[0]) for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
        )
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a child exited early with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def solver_pids(service: int) -> list[int]:
    """The service's hint processes (its children running multiprocessing's spawn, not its resource tracker)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == service and b"spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


def engine_tree(revision: str, tmp: Path) -> Path:
    """The engine package as it was at ``revision`` (``git archive``), in ``tmp/baseline``, made once: a process
    with that folder first on its path imports the old engine beside this checkout's."""
    folder = tmp / "baseline"
    if not folder.exists():
        folder.mkdir()
        archive = subprocess.run(["git", "archive", revision, "engine"], cwd=ROOT, check=True, capture_output=True)
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
    return folder


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of its children that are still running (the ``--workers`` processes)."""
    total = cpu_seconds(pid)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(pid):
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                total += cpu_seconds(int(entry.name))
    return total


def start_service(
    redis_url: str,
    tmp: Path,
    log_level: str,
    workers: int = 1,
    port: int | None = None,
    stderr: Any = None,
    *,
    otel: dict[str, str] | None = None,
    cwd: Path = ROOT,
    pythonpath: str | None = None,
    args: tuple[str, ...] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    """The service, its output thrown away unless ``stderr`` says where it goes; traces off unless ``otel`` (OTEL_*
    variables) turns them on; run from ``cwd`` (``python -m`` finds the ``service`` package there first)."""
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PROMETHEUS_", "OTEL_"))}
    env.update(otel or {})
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    env.update({"PATIENCE_KEYS_DIR": str(tmp / "keys"), "PATIENCE_GENERATE_KEYS": "true",
                "PATIENCE_LOG_LEVEL": log_level, "PATIENCE_WINNABLE_FILLER": "off"})  # fmt: skip
    command = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url]
    command += ["--rate-limits", "false", *args]  # the benchmark is one client calling as fast as it can
    if workers > 1:
        command += ["--workers", str(workers)]
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr or subprocess.DEVNULL)
    wait_port(port, proc)
    time.sleep(0.5 + 0.5 * workers)  # every worker bound and its store answering
    return proc, f"127.0.0.1:{port}"


def start_redis() -> tuple[subprocess.Popen[bytes], str]:
    """A private ``redis-server`` on a free loopback port, nothing saved: the process and its URL."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is needed")
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_port(port, proc)
    return proc, f"redis://127.0.0.1:{port}/0"


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def machine() -> dict[str, Any]:
    load = os.getloadavg()
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "?",
    )  # fmt: skip
    return {"cpus": os.cpu_count(), "cpu_model": model, "loadavg_1m": round(load[0], 2)}
