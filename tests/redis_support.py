"""Real Redis servers for the tests: a container, a local process, or a 3-master cluster.

No mocks: the store's compare-and-set is a Lua script, and only a real server
shows that it is atomic. Order of preference for a single server:

1. ``PATIENCE_TEST_REDIS_URL`` if set (CI or a developer's own server; it is
   flushed between tests, so never point it at data you want to keep);
2. testcontainers' Redis container when a Docker engine answers a ping within
   a second or two;
3. a ``redis-server`` process on a free loopback port in a temporary
   directory, with persistence off.

The cluster is always local processes (three masters, no replicas), joined
with ``redis-cli --cluster create``. A missing ``redis-server`` is a failure,
not a skip: CI installs it (Debian: ``apt-get install -y redis-server
redis-tools``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

#: The scheme that tells ``service.store.open_store`` to speak the cluster protocol.
CLUSTER_SCHEME = "redis+cluster"

MISSING_SERVER = (
    "redis-server was not found on PATH and no Docker engine is reachable. The tests need a real Redis: "
    "install it (Debian/Ubuntu: `apt-get install -y redis-server redis-tools`) or set PATIENCE_TEST_REDIS_URL."
)


class RedisStartError(RuntimeError):
    """A server or cluster that did not come up; the message says why (with its log)."""


def _find(program: str) -> str:
    path = shutil.which(program) or next(
        (
            p
            for p in (f"/usr/bin/{program}", f"/usr/local/bin/{program}", f"/usr/sbin/{program}")
            if os.access(p, os.X_OK)
        ),
        None,
    )
    if path is None:
        raise RedisStartError(MISSING_SERVER if program == "redis-server" else f"{program} not found; {MISSING_SERVER}")
    return path


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(*, with_bus: bool = False) -> int:
    """A loopback port free now; with ``with_bus`` its cluster bus port (+10000) is free too."""
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if not with_bus:
            return port
        if port + 10000 <= 65535 and _port_free(port + 10000):
            return port
    raise RedisStartError("no free loopback port (with a free cluster bus port) found")


def docker_reachable(timeout: float = 2.0) -> bool:
    """True when a Docker engine answers a ping quickly (the client alone is not enough)."""
    try:
        import docker  # type: ignore[import-untyped]  # testcontainers depends on it

        client = docker.from_env(timeout=int(max(1, timeout)))
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _wait_ping(url: str, proc: subprocess.Popen[bytes] | None, log: Path | None, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            break
        try:
            with redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1) as r:
                if r.ping():
                    return
        except redis.RedisError as exc:
            last = exc
        time.sleep(0.05)
    text = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
    raise RedisStartError(f"Redis at {url} did not answer ({last!r}); server log:\n{text}")


@dataclass
class RedisProcess:
    """One ``redis-server`` on loopback in its own temporary directory."""

    port: int
    directory: Path
    proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


def start_redis_process(*, cluster: bool = False, extra: tuple[str, ...] = (), port: int | None = None) -> RedisProcess:
    """Start ``redis-server`` on a free loopback port (or ``port``), persistence off; retried if a free port was
    taken meanwhile."""
    server = _find("redis-server")
    last: RedisStartError | None = None
    for _ in range(1 if port is not None else 5):
        chosen = port if port is not None else free_port(with_bus=cluster)
        directory = Path(tempfile.mkdtemp(prefix=f"patience-redis-{chosen}-"))
        log = directory / "redis.log"
        args = [
            server,
            "--port", str(chosen),
            "--bind", "127.0.0.1",
            "--dir", str(directory),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(log),
            "--protected-mode", "yes",
        ]  # fmt: skip
        if cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(directory / "nodes.conf")]
        args += list(extra)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        node = RedisProcess(chosen, directory, proc)
        try:
            _wait_ping(node.url, proc, log)
        except RedisStartError as exc:
            last = exc
            node.stop()
            continue
        return node
    assert last is not None
    raise last


@dataclass
class RedisClusterProcesses:
    """Three cluster-enabled masters on loopback, joined into one cluster."""

    nodes: list[RedisProcess] = field(default_factory=list)

    @property
    def url(self) -> str:
        """A startup node in the form ``redis+cluster://127.0.0.1:PORT`` (see ``service.store.open_store``)."""
        return f"{CLUSTER_SCHEME}://127.0.0.1:{self.nodes[0].port}"

    @property
    def node_urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    def flush(self) -> None:
        for n in self.nodes:
            with redis.Redis.from_url(n.url) as r:
                r.flushall()

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()


def start_redis_cluster(masters: int = 3, timeout: float = 30.0, *, replicas: int = 0) -> RedisClusterProcesses:
    """Start ``masters`` cluster-enabled servers (and ``replicas`` replicas of each) and join them with
    ``redis-cli --cluster create``."""
    cli = _find("redis-cli")
    cluster = RedisClusterProcesses()
    try:
        for _ in range(masters * (1 + replicas)):
            cluster.nodes.append(start_redis_process(cluster=True))
        addresses = [f"127.0.0.1:{n.port}" for n in cluster.nodes]
        created = subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", str(replicas), "--cluster-yes"],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        if created.returncode != 0:
            raise RedisStartError(
                "redis-cli --cluster create failed:\n"
                + created.stdout.decode(errors="replace")[-2000:]
                + created.stderr.decode(errors="replace")[-2000:]
            )
        _wait_cluster_ok(cluster, timeout)
        if replicas:
            _wait_replicas_linked(cluster.node_urls, timeout)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait_replicas_linked(urls: list[str], timeout: float) -> None:
    """Every replica among ``urls`` has its link to its master up (its first sync done)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = []
        for url in urls:
            with redis.Redis.from_url(url) as r:
                info = r.info("replication")
                if info.get("role") == "slave" and info.get("master_link_status") != "up":
                    pending.append(url)
        if not pending:
            return
        time.sleep(0.1)
    raise RedisStartError(f"replicas not linked to their masters in {timeout}s")


def start_replica_pair() -> tuple[RedisProcess, RedisProcess]:
    """A Redis primary and one replica of it, linked."""
    primary = start_redis_process()
    try:
        replica = start_redis_process(extra=("--replicaof", "127.0.0.1", str(primary.port)))
    except BaseException:
        primary.stop()
        raise
    try:
        _wait_replicas_linked([replica.url], 30.0)
    except BaseException:
        replica.stop()
        primary.stop()
        raise
    return primary, replica


def _wait_cluster_ok(cluster: RedisClusterProcesses, timeout: float) -> None:
    """Every node says cluster_state:ok and knows every node (the gossip has settled)."""
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        ready = True
        for n in cluster.nodes:
            with redis.Redis.from_url(n.url) as r:
                info = r.execute_command("CLUSTER", "INFO")
                text = info.decode() if isinstance(info, bytes) else str(info)
                state = text
                known = int(
                    next(
                        (line.split(":")[1] for line in text.splitlines() if line.startswith("cluster_known_nodes:")),
                        "0",
                    )
                )
                if "cluster_state:ok" not in text or known < len(cluster.nodes):
                    ready = False
                    break
        if ready:
            return
        time.sleep(0.1)
    raise RedisStartError(f"the cluster did not reach cluster_state:ok in {timeout}s:\n{state}")


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A single Redis for a test session: its URL, torn down at the end (see the module docstring)."""
    given = os.environ.get("PATIENCE_TEST_REDIS_URL")
    if given:
        yield given
        return
    if docker_reachable():
        yield from _container()
        return
    node = start_redis_process()
    try:
        yield node.url
    finally:
        node.stop()


def _container() -> Iterator[str]:
    try:
        from testcontainers.community.redis import RedisContainer  # testcontainers >= 4.14
    except ImportError:
        from testcontainers.redis import RedisContainer

    with RedisContainer("redis:7-alpine") as container:
        host = container.get_container_host_ip()
        port = container.get_exposed_port(6379)
        yield f"redis://{host}:{port}/0"


def flush(url: str) -> None:
    """Empty every database of the server at ``url``."""
    with redis.Redis.from_url(url) as r:
        r.flushall()


def plain_url(url: str) -> str:
    """``redis+cluster://h:p`` as the ``redis://h:p`` that redis-py's cluster client takes."""
    for scheme in (CLUSTER_SCHEME, "rediss+cluster"):
        if url.startswith(scheme + "://"):
            return url.replace("+cluster", "", 1)
    return url


def flush_cluster(url: str) -> None:
    """Empty every master of the cluster at ``url``."""
    from redis.cluster import RedisCluster

    client = RedisCluster.from_url(plain_url(url))
    try:
        client.flushall(target_nodes=RedisCluster.PRIMARIES)
    finally:
        client.close()
