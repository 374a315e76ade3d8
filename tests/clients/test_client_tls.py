"""TLS settings, per-call deadlines and request limits, against the real service.

The service serves TLS itself (``--tls-cert-file``, with mutual TLS for the operator calls), with a certificate
from a throwaway CA made in the test, so the client's and patience-cli's TLS settings (PATIENCE_TLS,
PATIENCE_CA_FILE, PATIENCE_CERT_FILE, PATIENCE_KEY_FILE) meet real handshakes.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from client_harness import OPERATOR_KEY, ServiceThread, service
from patience_client import (
    ClientSettings,
    DeadlineExceeded,
    LimitExceeded,
    PatienceClient,
    RetryPolicy,
    ServiceUnavailable,
    cli,
)
from patience_client.errors import Unauthenticated
from tls_support import Authority, write_pair

__all__ = ["service"]


@dataclass
class TlsService:
    service: ServiceThread
    ca_file: Path
    operator_cert: Path
    operator_key: Path

    @property
    def target(self) -> str:
        return f"localhost:{self.service.port}"

    @property
    def operator_target(self) -> str:
        return f"localhost:{self.service.server.operator_port}"


@pytest.fixture
def tls_service(redis_db: str, tmp_path: Path) -> Iterator[TlsService]:
    ca, operators = Authority(), Authority("operators CA")
    cert, key, ca_file, client_ca = (tmp_path / n for n in ("tls.crt", "tls.key", "ca.crt", "operators.crt"))
    write_pair(ca.server_pair(), cert, key)
    ca_file.write_bytes(ca.cert_pem)
    client_ca.write_bytes(operators.cert_pem)
    operator_cert, operator_key = tmp_path / "operator.crt", tmp_path / "operator.key"
    write_pair(operators.client_pair(), operator_cert, operator_key)
    server = ServiceThread(redis_db, tmp_path / "keys").with_settings(
        tls_cert_file=cert,
        tls_key_file=key,
        tls_client_ca_file=client_ca,
        operator_listen="127.0.0.1:0",
    )
    server.start()
    try:
        yield TlsService(server, ca_file, operator_cert, operator_key)
    finally:
        server.stop()


def test_tls_with_the_servers_ca(tls_service: TlsService) -> None:
    roots = tls_service.ca_file.read_bytes()
    with PatienceClient(ClientSettings(target=tls_service.target, tls=True, root_certificates=roots)) as client:
        gid = client.new_game("cats-tail").game.game_id
        assert client.get_game(gid).version == 1
    # the same from the environment, as patience-cli reads it
    settings = ClientSettings.from_env(
        {"PATIENCE_TARGET": tls_service.target, "PATIENCE_CA_FILE": str(tls_service.ca_file)}
    )
    assert settings.tls and settings.root_certificates == roots
    with PatienceClient(settings) as client:
        assert client.list_variants()


def test_tls_refuses_a_server_it_cannot_trust(tls_service: TlsService) -> None:
    settings = ClientSettings(
        target=tls_service.target,
        tls=True,
        root_certificates=Authority("another CA").cert_pem,
        retry=RetryPolicy(max_attempts=2, initial_backoff=0.01),
        timeout=5,
    )
    with PatienceClient(settings) as client, pytest.raises(ServiceUnavailable) as info:
        client.list_variants()
    assert info.value.attempts == 2  # a read: retried, then given up
    # and a plain-text client cannot speak to the TLS port at all
    plain = ClientSettings(target=f"127.0.0.1:{tls_service.service.port}", retry=RetryPolicy(1))
    with PatienceClient(plain) as client, pytest.raises(ServiceUnavailable):
        client.list_variants()


def test_the_client_mints_with_its_certificate_on_the_operator_port(tls_service: TlsService) -> None:
    env = {
        "PATIENCE_CA_FILE": str(tls_service.ca_file),
        "PATIENCE_CERT_FILE": str(tls_service.operator_cert),
        "PATIENCE_KEY_FILE": str(tls_service.operator_key),
        "PATIENCE_OPERATOR_KEY": OPERATOR_KEY,
    }
    operator = ClientSettings.from_env({**env, "PATIENCE_TARGET": tls_service.operator_target})
    with PatienceClient(operator) as client:
        assert client.mint_deal("cats-tail").deal_ticket
    # the players' port refuses the operator call, certificate or not
    player = ClientSettings.from_env({**env, "PATIENCE_TARGET": tls_service.target})
    with PatienceClient(player) as client, pytest.raises(Unauthenticated) as info:
        client.mint_deal("cats-tail")
    assert info.value.reason == "CLIENT_CERTIFICATE_REQUIRED"


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_patience_cli_plays_over_tls_and_mints_with_a_client_certificate(
    tls_service: TlsService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(tmp_path / "state.json"))
    ca = ("--ca-file", str(tls_service.ca_file))
    code, out = run_cli("--target", tls_service.target, *ca, "new", "cats-tail")
    assert code == 0 and "new game" in out
    code, _ = run_cli("--target", tls_service.target, *ca, "show")
    assert code == 0
    mint = ("--operator-key", OPERATOR_KEY, "mint", "cats-tail")
    code, out = run_cli("--target", tls_service.target, *ca, *mint)
    assert code == 1 and "CLIENT_CERTIFICATE_REQUIRED" in out
    code, _ = run_cli("--target", tls_service.operator_target, *ca, *mint)
    assert code == 2 and "cannot reach" in capsys.readouterr().err  # no handshake without a certificate
    pair = ("--cert-file", str(tls_service.operator_cert), "--key-file", str(tls_service.operator_key))
    code, out = run_cli("--target", tls_service.operator_target, *ca, *pair, *mint)
    assert code == 0 and out.strip()


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
