"""The processes the fault soak (bench/soak.py) breaks: Redis servers (one, or a cluster of three masters with a
replica each) that can be killed, restarted, paused and resumed on the same port and data, and replicas of
``python -m service`` on fixed ports, so that a restart keeps their addresses."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free loopback port whose +10000 (a cluster node's bus port) is free too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 < 65536:
            with socket.socket() as bus:
                try:
                    bus.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port


# --------------------------------------------------------------------------- Redis


@dataclass
class RedisNode:
    """One redis-server process that can be killed, restarted, paused and resumed on the same port and data."""

    port: int
    home: Path
    cluster: bool = False
    appendfsync: str = "always"
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        args = [
            shutil.which("redis-server") or "redis-server",
            "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.home),
            "--appendonly", "yes", "--appendfsync", self.appendfsync, "--save", "",
            "--protected-mode", "no", "--logfile", str(self.home / "redis.log"),
        ]  # fmt: skip
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(self.home / "nodes.conf")]
            args += ["--cluster-node-timeout", "2000"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_redis(self.port)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def signal(self, sig: int) -> None:
        if self.proc is not None:
            self.proc.send_signal(sig)

    def role(self) -> str:
        return redis_cli(self.port, "ROLE").split()[0] if self.proc and self.proc.poll() is None else "down"


def redis_cli(port: int, *command: str) -> str:
    result = subprocess.run(
        [shutil.which("redis-cli") or "redis-cli", "-p", str(port), *command],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return result.stdout.strip()


def wait_redis(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if redis_cli(port, "PING") == "PONG":
            return
        time.sleep(0.05)
    raise RuntimeError(f"redis on port {port} did not answer")


def start_cluster(base: Path) -> list[RedisNode]:
    nodes = [RedisNode(free_port(), base / f"node{i}", cluster=True) for i in range(6)]
    for node in nodes:
        node.start()
    addresses = [f"127.0.0.1:{n.port}" for n in nodes]
    subprocess.run(
        [shutil.which("redis-cli") or "redis-cli", "--cluster", "create", *addresses, "--cluster-replicas", "1",
         "--cluster-yes"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        infos = [redis_cli(n.port, "CLUSTER", "INFO") for n in nodes]
        if all("cluster_state:ok" in i for i in infos):
            return nodes
        time.sleep(0.2)
    raise RuntimeError("the cluster did not come up")


# --------------------------------------------------------------------------- the service


@dataclass
class Replica:
    """``python -m service`` with gRPC and REST on fixed ports, so a restart keeps its addresses."""

    redis_url: str
    keys: Path
    log: Path
    extra: tuple[str, ...] = ()
    port: int = field(default_factory=free_port)
    http_port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "PATIENCE_KEYS_DIR": str(self.keys),
            "PATIENCE_GENERATE_KEYS": "true",
            "PATIENCE_LOG_FORMAT": "text",
            "PATIENCE_LOG_LEVEL": "WARNING",
            "PATIENCE_WINNABLE_FILLER": "off",  # a solver beside the service would skew its figures
        }
        args = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{self.port}", "--http-listen",
                f"127.0.0.1:{self.http_port}", "--redis-url", self.redis_url, *self.extra]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the service exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.http_port), timeout=0.5):
                return
            time.sleep(0.1)
        raise RuntimeError("the service did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
