"""TLS settings, per-call deadlines and request limits, against the real service.

The service itself listens in plain text (TLS ends at the deployment's proxy or
ingress); here the test adds a TLS port with a freshly made self-signed
certificate to a server built by ``create_server``, before it starts, so the
client's TLS settings meet a real TLS handshake.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from client_harness import ServiceThread, service
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from patience_client import (
    ClientSettings,
    DeadlineExceeded,
    LimitExceeded,
    PatienceClient,
    RetryPolicy,
    ServiceUnavailable,
)

__all__ = ["service"]


def self_signed() -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) for localhost and 127.0.0.1."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


class TlsServiceThread(ServiceThread):
    """The real service with an extra TLS port."""

    def __init__(self, *args: Any, cert: bytes, key: bytes, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cert, self.key = cert, key
        self.tls_port = 0

    def start(self) -> TlsServiceThread:
        from service.server import create_server

        self.thread.start()

        async def boot() -> tuple[Any, int, int]:
            server, port = await create_server(self.settings, seed_source=self.seeds)
            creds = grpc.ssl_server_credentials([(self.key, self.cert)])
            tls_port = server.grpc.add_secure_port("127.0.0.1:0", creds)
            await server.start()
            return server, port, tls_port

        self.server, self.port, self.tls_port = asyncio.run_coroutine_threadsafe(boot(), self.loop).result(30)
        return self


@pytest.fixture
def tls_service(redis_db: str, tmp_path: Path) -> Iterator[TlsServiceThread]:
    cert, key = self_signed()
    server = TlsServiceThread(redis_db, tmp_path / "keys", cert=cert, key=key).start()
    try:
        yield server
    finally:
        server.stop()


def test_tls_with_the_servers_root_certificate(tls_service: TlsServiceThread, tmp_path: Path) -> None:
    target = f"localhost:{tls_service.tls_port}"
    with PatienceClient(ClientSettings(target=target, tls=True, root_certificates=tls_service.cert)) as client:
        gid = client.new_game("cats-tail").game.game_id
        assert client.get_game(gid).version == 1
    # the same from the environment, as patience-cli reads it
    ca = tmp_path / "ca.pem"
    ca.write_bytes(tls_service.cert)
    settings = ClientSettings.from_env({"PATIENCE_TARGET": target, "PATIENCE_CA_FILE": str(ca)})
    assert settings.tls and settings.root_certificates == tls_service.cert
    with PatienceClient(settings) as client:
        assert client.list_variants()


def test_tls_refuses_a_server_it_cannot_trust(tls_service: TlsServiceThread) -> None:
    other_cert, _ = self_signed()
    settings = ClientSettings(
        target=f"localhost:{tls_service.tls_port}",
        tls=True,
        root_certificates=other_cert,
        retry=RetryPolicy(max_attempts=2, initial_backoff=0.01),
        timeout=5,
    )
    with PatienceClient(settings) as client, pytest.raises(ServiceUnavailable) as info:
        client.list_variants()
    assert info.value.attempts == 2  # a read: retried, then given up
    # and a plain-text client cannot speak to the TLS port at all
    plain = ClientSettings(target=f"127.0.0.1:{tls_service.tls_port}", retry=RetryPolicy(1))
    with PatienceClient(plain) as client, pytest.raises(ServiceUnavailable):
        client.list_variants()


def test_a_deadline_too_short_is_deadline_exceeded_and_not_retried(service: ServiceThread) -> None:
    with PatienceClient(ClientSettings(target=service.target)) as client:
        with pytest.raises(DeadlineExceeded) as info:
            client.list_variants(timeout=-1.0)  # already past: no race with a fast local server
        assert info.value.attempts == 1
        assert client.list_variants(timeout=10)  # the per-call deadline beats the default


def test_a_solution_over_the_limit_is_limit_exceeded(service: ServiceThread) -> None:
    with PatienceClient(ClientSettings(target=service.target)) as client:
        gid = client.new_game("sultan-36").game.game_id
        with pytest.raises(LimitExceeded) as info:
            client.submit_solution(["s"] * (service.settings.max_moves + 1), game_id=gid)
        assert info.value.reason == "TOO_MANY_MOVES" and info.value.metadata["limit"] == str(service.settings.max_moves)
