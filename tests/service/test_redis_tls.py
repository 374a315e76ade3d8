"""The service speaks TLS to Redis (``rediss://``) with the Redis CA, and optionally a client certificate, from its
settings; tested against a real redis-server listening on a TLS port only (Debian's build has TLS).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import pytest
import redis
from http_support import live_server
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from redis_support import free_port
from tls_support import Authority, Pair, RecordingProxy, write_pair


@dataclass
class TlsRedis:
    port: int
    ca: Authority
    ca_file: Path
    client_cert: Path
    client_key: Path
    proc: subprocess.Popen[bytes]

    def url(self, port: int | None = None) -> str:
        return f"rediss://127.0.0.1:{port or self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1",
            port=self.port,
            ssl=True,
            ssl_ca_certs=str(self.ca_file),
            ssl_certfile=str(self.client_cert),
            ssl_keyfile=str(self.client_key),
        )


def start_tls_redis(directory: Path, *, auth_clients: bool) -> TlsRedis:
    server = shutil.which("redis-server")
    assert server, "redis-server is needed (deploy/setup.sh installs it)"
    ca = Authority("redis CA")
    server_cert, server_key, ca_file = directory / "redis.crt", directory / "redis.key", directory / "redis-ca.crt"
    write_pair(ca.server_pair(), server_cert, server_key)
    ca_file.write_bytes(ca.cert_pem)
    client: Pair = ca.client_pair("patience-service")
    client_cert, client_key = directory / "client.crt", directory / "client.key"
    write_pair(client, client_cert, client_key)
    port = free_port()
    args = [
        server,
        "--port", "0",
        "--tls-port", str(port),
        "--bind", "127.0.0.1",
        "--tls-cert-file", str(server_cert),
        "--tls-key-file", str(server_key),
        "--tls-ca-cert-file", str(ca_file),
        "--tls-auth-clients", "yes" if auth_clients else "no",
        "--dir", str(directory),
        "--save", "",
        "--appendonly", "no",
        "--logfile", str(directory / "redis.log"),
    ]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    node = TlsRedis(port, ca, ca_file, client_cert, client_key, proc)
    deadline = time.monotonic() + 15
    while True:
        try:
            with node.client() as r:
                r.ping()
            return node
        except redis.RedisError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError((directory / "redis.log").read_text()[-2000:]) from None
            time.sleep(0.05)


@pytest.fixture
def tls_redis(tmp_path: Path) -> Iterator[TlsRedis]:
    node = start_tls_redis(tmp_path, auth_clients=False)
    yield node
    node.proc.terminate()
    node.proc.wait(10)


@pytest.fixture
def mtls_redis(tmp_path: Path) -> Iterator[TlsRedis]:
    node = start_tls_redis(tmp_path, auth_clients=True)
    yield node
    node.proc.terminate()
    node.proc.wait(10)


def new_game(port: int) -> str:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        reply = pb_grpc.PatienceServiceStub(ch).NewGame(pb.NewGameRequest(variant="cats-tail"), timeout=10)
    return str(reply.game.game_id)


def test_the_service_stores_games_over_tls_with_the_configured_ca(tls_redis: TlsRedis, tmp_path: Path) -> None:
    with live_server(tls_redis.url(), tmp_path / "keys", redis_ca_file=tls_redis.ca_file) as server:
        game_id = new_game(server.grpc_port)
        pipe = server.server.store.pipe  # the moves' fast path speaks TLS too, not only redis-py
        assert pipe is not None and pipe.ssl_context is not None
    with tls_redis.client() as r:
        assert any(game_id.encode() in key for key in r.keys("*")), "the game went to the TLS Redis"


def test_a_redis_the_ca_does_not_vouch_for_is_refused(tls_redis: TlsRedis, tmp_path: Path) -> None:
    stranger = tmp_path / "other-ca.crt"
    stranger.write_bytes(Authority("not the Redis CA").cert_pem)
    with live_server(tls_redis.url(), tmp_path / "keys", redis_ca_file=stranger) as server:
        with pytest.raises(grpc.RpcError) as info:
            new_game(server.grpc_port)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    with tls_redis.client() as r:
        assert r.dbsize() == 0


def test_a_redis_that_requires_client_certificates_gets_the_configured_one(
    mtls_redis: TlsRedis, tmp_path: Path
) -> None:
    keys = tmp_path / "keys"
    with live_server(mtls_redis.url(), keys, redis_ca_file=mtls_redis.ca_file) as server:
        with pytest.raises(grpc.RpcError) as info:
            new_game(server.grpc_port)  # no client certificate: Redis ends the handshake
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    with live_server(
        mtls_redis.url(),
        keys,
        redis_ca_file=mtls_redis.ca_file,
        redis_cert_file=mtls_redis.client_cert,
        redis_key_file=mtls_redis.client_key,
    ) as server:
        game_id = new_game(server.grpc_port)
    with mtls_redis.client() as r:
        assert any(game_id.encode() in key for key in r.keys("*"))


def test_nothing_of_a_game_crosses_to_redis_in_clear(tls_redis: TlsRedis, tmp_path: Path) -> None:
    proxy = RecordingProxy(tls_redis.port)
    try:
        with live_server(tls_redis.url(proxy.port), tmp_path / "keys", redis_ca_file=tls_redis.ca_file) as server:
            game_id = new_game(server.grpc_port)
    finally:
        proxy.close()
    seen = bytes(proxy.seen)
    assert len(seen) > 1000
    assert game_id.encode() not in seen and b"EVALSHA" not in seen.upper()


def test_the_control_a_plain_redis_link_shows_the_game(redis_db: str, tmp_path: Path) -> None:
    """Over redis:// the same recording shows the game id, so the test above can fail."""
    where = urlsplit(redis_db)
    assert where.port is not None
    proxy = RecordingProxy(where.port, where.hostname or "127.0.0.1")
    try:
        with live_server(f"redis://127.0.0.1:{proxy.port}/0", tmp_path / "keys") as server:
            game_id = new_game(server.grpc_port)
    finally:
        proxy.close()
    assert game_id.encode() in bytes(proxy.seen)


def test_redis_cluster_over_tls(tmp_path: Path) -> None:
    """Three TLS-only masters (cluster bus over TLS too), joined by redis-cli over TLS; the service reaches them
    with ``rediss+cluster://`` and the Redis CA."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    assert server and cli, "redis-server and redis-cli are needed (deploy/setup.sh installs them)"
    ca = Authority("redis cluster CA")
    cert, key, ca_file = tmp_path / "node.crt", tmp_path / "node.key", tmp_path / "ca.crt"
    write_pair(ca.peer_pair(), cert, key)  # the nodes also dial each other with it (the bus over TLS)
    ca_file.write_bytes(ca.cert_pem)
    tls_args = ["--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file", str(ca_file)]
    procs: list[subprocess.Popen[bytes]] = []
    ports = [free_port(with_bus=True) for _ in range(3)]
    try:
        for port in ports:
            directory = tmp_path / str(port)
            directory.mkdir()
            args = [
                server, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1", *tls_args,
                "--tls-auth-clients", "no", "--tls-cluster", "yes", "--cluster-enabled", "yes",
                "--cluster-config-file", str(directory / "nodes.conf"), "--dir", str(directory),
                "--save", "", "--appendonly", "no", "--logfile", str(directory / "redis.log"),
            ]  # fmt: skip
            procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in ports:
            deadline = time.monotonic() + 15
            while True:
                try:
                    with redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=str(ca_file)) as r:
                        r.ping()
                    break
                except redis.RedisError:
                    assert time.monotonic() < deadline, f"TLS node {port} did not start"
                    time.sleep(0.05)
        created = subprocess.run(
            [cli, "--tls", "--cacert", str(ca_file), "--cluster", "create",
             *(f"127.0.0.1:{p}" for p in ports), "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert created.returncode == 0, created.stdout[-2000:] + created.stderr[-2000:]
        deadline = time.monotonic() + 30
        while True:
            with redis.Redis(host="127.0.0.1", port=ports[0], ssl=True, ssl_ca_certs=str(ca_file)) as r:
                if "cluster_state:ok" in r.execute_command("CLUSTER", "INFO").decode():
                    break
            assert time.monotonic() < deadline, "the TLS cluster did not settle"
            time.sleep(0.2)
        url = f"rediss+cluster://127.0.0.1:{ports[0]}"
        with live_server(url, tmp_path / "keys", redis_ca_file=ca_file) as live:
            game_id = new_game(live.grpc_port)
        assert game_id
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
