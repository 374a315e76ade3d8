"""The service's own TLS, against a throwaway CA made in the test: who is refused, who is served, rotation without
a restart, mutual TLS for the operator calls, and what crosses the wire.

Everything is real: gRPC and REST listeners of ``create_server`` on loopback ports, handshakes by grpc and by
Python's ssl module, a byte-copying TCP proxy that records the traffic, and real Redis.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status
from http_support import OPERATOR_KEY, LiveServer, live_server
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from tls_support import Authority, Pair, RecordingProxy, client_context, served_certificate, write_pair

from service.errors import error_info
from service.settings.config import Settings


@dataclass
class TlsFiles:
    ca: Authority
    cert: Path
    key: Path
    client_ca: Path


@pytest.fixture
def files(tmp_path: Path) -> TlsFiles:
    ca = Authority()
    cert, key, client_ca = tmp_path / "tls.crt", tmp_path / "tls.key", tmp_path / "operators-ca.crt"
    write_pair(ca.server_pair(), cert, key)
    return TlsFiles(ca, cert, key, client_ca)


@pytest.fixture
def tls_server(redis_db: str, tmp_path: Path, files: TlsFiles) -> Iterator[LiveServer]:
    with live_server(redis_db, tmp_path / "keys", tls_cert_file=files.cert, tls_key_file=files.key) as server:
        yield server


def channel(port: int, roots: bytes | None, client: Pair | None = None) -> grpc.Channel:
    credentials = grpc.ssl_channel_credentials(
        root_certificates=roots,
        private_key=client.key if client else None,
        certificate_chain=client.cert if client else None,
    )
    return grpc.secure_channel(f"localhost:{port}", credentials)


def list_variants(ch: grpc.Channel) -> pb.ListVariantsResponse:
    response: pb.ListVariantsResponse = pb_grpc.PatienceServiceStub(ch).ListVariants(
        pb.ListVariantsRequest(), timeout=10
    )
    return response


def https(
    port: int,
    path: str,
    context: ssl.SSLContext,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"https://localhost:{port}{path}",
        data=data,
        headers={"content-type": "application/json", **(headers or {})},
        method="POST" if data is not None else "GET",
    )
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# ------------------------------------------------------------------------------- refused and served


def test_a_client_with_the_ca_is_served_over_grpc_and_rest(tls_server: LiveServer, files: TlsFiles) -> None:
    with channel(tls_server.grpc_port, files.ca.cert_pem) as ch:
        assert list_variants(ch).variants
    status, body = https(tls_server.http_port, "/v1/variants", client_context(files.ca.cert_pem))
    assert status == 200 and body["variants"]


def test_a_client_without_the_ca_is_refused(tls_server: LiveServer) -> None:
    stranger = Authority("another CA")
    with channel(tls_server.grpc_port, stranger.cert_pem) as ch, pytest.raises(grpc.RpcError) as info:
        list_variants(ch)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(urllib.error.URLError) as refused:
        https(tls_server.http_port, "/v1/variants", client_context(stranger.cert_pem))
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)


def test_plain_text_is_not_served_on_a_tls_port(tls_server: LiveServer) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{tls_server.grpc_port}") as ch, pytest.raises(grpc.RpcError) as info:
        list_variants(ch)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    with socket.create_connection(("127.0.0.1", tls_server.http_port), timeout=10) as raw:
        raw.sendall(b"GET /v1/variants HTTP/1.1\r\nhost: localhost\r\n\r\n")
        answer = raw.recv(4096)
    assert b"variants" not in answer  # a TLS alert or nothing, never the API


# ------------------------------------------------------------------------------------------ rotation


def test_a_rotated_certificate_is_served_to_new_connections_without_a_restart(
    tls_server: LiveServer, files: TlsFiles
) -> None:
    old_serial = served_certificate(tls_server.grpc_port)
    assert served_certificate(tls_server.http_port, alpn="http/1.1") == old_serial
    kept = channel(tls_server.grpc_port, files.ca.cert_pem)
    assert list_variants(kept).variants  # a connection made before the rotation

    successor = Authority("the next CA")  # a new CA too: only the new certificate can satisfy its clients
    rotated = successor.server_pair()
    write_pair(rotated, files.cert, files.key)

    assert served_certificate(tls_server.grpc_port) == rotated.serial
    assert served_certificate(tls_server.http_port, alpn="http/1.1") == rotated.serial
    with channel(tls_server.grpc_port, successor.cert_pem) as ch:
        assert list_variants(ch).variants
    status, _ = https(tls_server.http_port, "/v1/variants", client_context(successor.cert_pem))
    assert status == 200
    with pytest.raises(urllib.error.URLError):  # the old CA no longer vouches for what is served
        https(tls_server.http_port, "/v1/variants", client_context(files.ca.cert_pem))
    assert list_variants(kept).variants  # and the old connection was not cut
    kept.close()


def test_a_half_written_rotation_keeps_the_old_certificate_until_the_pair_matches(
    tls_server: LiveServer, files: TlsFiles, caplog: pytest.LogCaptureFixture
) -> None:
    old_serial = served_certificate(tls_server.grpc_port)
    rotated = files.ca.server_pair()
    files.cert.write_bytes(rotated.cert)  # the certificate first, its key not yet
    assert served_certificate(tls_server.grpc_port) == old_serial
    assert served_certificate(tls_server.http_port, alpn="http/1.1") == old_serial
    assert any("refused" in r.getMessage() for r in caplog.records)
    files.key.write_bytes(rotated.key)
    assert served_certificate(tls_server.grpc_port) == rotated.serial
    assert served_certificate(tls_server.http_port, alpn="http/1.1") == rotated.serial


def test_a_file_missing_for_a_moment_keeps_the_old_certificate_serving(
    tls_server: LiveServer, files: TlsFiles, caplog: pytest.LogCaptureFixture
) -> None:
    old_serial = served_certificate(tls_server.grpc_port)
    key = files.key.read_bytes()
    files.key.unlink()  # say, between the two steps of a careless copy
    for _ in range(3):
        assert served_certificate(tls_server.grpc_port) == old_serial
        assert served_certificate(tls_server.http_port, alpn="http/1.1") == old_serial
    assert sum("unreadable" in r.getMessage() for r in caplog.records) == 1  # once, not at every handshake
    files.key.write_bytes(key)
    assert served_certificate(tls_server.grpc_port) == old_serial


def test_a_server_with_unusable_tls_files_does_not_start(redis_db: str, tmp_path: Path, files: TlsFiles) -> None:
    from service.security.tls import TlsError

    other = files.ca.server_pair()
    files.key.write_bytes(other.key)  # a key of another certificate
    with pytest.raises(TlsError), live_server(redis_db, None, tls_cert_file=files.cert, tls_key_file=files.key):
        pass
    with (
        pytest.raises(TlsError),
        live_server(redis_db, None, tls_cert_file=tmp_path / "no.crt", tls_key_file=files.key),
    ):
        pass


# ------------------------------------------------------------------------------ mutual TLS for operators


@pytest.fixture
def mtls(redis_db: str, tmp_path: Path, files: TlsFiles) -> Iterator[tuple[LiveServer, Authority]]:
    operators = Authority("operators CA")
    files.client_ca.write_bytes(operators.cert_pem)
    with live_server(
        redis_db,
        tmp_path / "keys",
        tls_cert_file=files.cert,
        tls_key_file=files.key,
        tls_client_ca_file=files.client_ca,
        operator_listen="127.0.0.1:0",
    ) as server:
        yield server, operators


def mint(ch: grpc.Channel) -> pb.MintDealResponse:
    response: pb.MintDealResponse = pb_grpc.PatienceServiceStub(ch).MintDeal(
        pb.MintDealRequest(variant="cats-tail"), metadata=(("x-operator-key", OPERATOR_KEY),), timeout=10
    )
    return response


def test_grpc_operator_calls_need_the_operator_port_and_a_client_certificate(
    mtls: tuple[LiveServer, Authority], files: TlsFiles
) -> None:
    server, operators = mtls
    operator_port = server.server.operator_port
    assert operator_port
    # players: server-side TLS only, on their port
    with channel(server.grpc_port, files.ca.cert_pem) as ch:
        assert list_variants(ch).variants
        with pytest.raises(grpc.RpcError) as info:
            mint(ch)  # the right operator key, but no client certificate
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        detail = error_info(rpc_status.from_call(info.value))
        assert detail is not None and detail.reason == "CLIENT_CERTIFICATE_REQUIRED"
    # the operator port: no handshake without a certificate from the operators' CA
    with channel(operator_port, files.ca.cert_pem) as ch, pytest.raises(grpc.RpcError) as info:
        mint(ch)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    stranger = Authority("not the operators").client_pair()
    with channel(operator_port, files.ca.cert_pem, stranger) as ch, pytest.raises(grpc.RpcError) as info:
        mint(ch)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    # with one: served (and the operator key is still checked)
    with channel(operator_port, files.ca.cert_pem, operators.client_pair()) as ch:
        assert mint(ch).deal_ticket
        with pytest.raises(grpc.RpcError) as info:
            pb_grpc.PatienceServiceStub(ch).MintDeal(pb.MintDealRequest(variant="cats-tail"), timeout=10)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_rest_operator_calls_need_a_client_certificate_on_the_same_port(
    mtls: tuple[LiveServer, Authority], files: TlsFiles, tmp_path: Path
) -> None:
    server, operators = mtls
    ca = files.ca.cert_pem
    body = {"variant": "cats-tail"}
    key = {"x-operator-key": OPERATOR_KEY}
    status, _ = https(server.http_port, "/v1/variants", client_context(ca))
    assert status == 200  # a player needs no certificate
    status, refused = https(server.http_port, "/v1/deals", client_context(ca), body, key)
    assert status == 401 and refused["details"][0]["reason"] == "CLIENT_CERTIFICATE_REQUIRED"
    status, minted = https(
        server.http_port, "/v1/deals", client_context(ca, operators.client_pair(), tmp_path), body, key
    )
    assert status == 200 and minted["dealTicket"]
    stranger = Authority("not the operators").client_pair()
    with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
        https(server.http_port, "/v1/deals", client_context(ca, stranger, tmp_path), body, key)


def test_settings_that_cannot_work_together_are_refused() -> None:
    p = Path("x.pem")
    assert Settings(tls_cert_file=p).tls_problem()
    assert Settings(tls_client_ca_file=p).tls_problem()
    assert Settings(tls_cert_file=p, tls_key_file=p, operator_listen="127.0.0.1:0").tls_problem()
    assert Settings(tls_cert_file=p, tls_key_file=p, tls_client_ca_file=p, operator_listen=":1").tls_problem() is None
    assert Settings(redis_url="redis://h:6379/0", redis_ca_file=p).tls_problem()
    assert Settings(redis_url="rediss://h:6379/0", redis_cert_file=p).tls_problem()
    assert Settings(redis_url="rediss://h:6379/0", redis_ca_file=p).tls_problem() is None
    assert Settings(redis_url="rediss+cluster://h:6379", redis_ca_file=p).tls_problem() is None


# --------------------------------------------------------------------------- what crosses the wire


def play_over(port: int, roots: bytes | None) -> tuple[str, str]:
    """NewGame, then a token-bearing GetGame and ApplyMove through ``port``: (game id, token)."""
    ch = channel(port, roots) if roots else grpc.insecure_channel(f"127.0.0.1:{port}")
    with ch:
        stub = pb_grpc.PatienceServiceStub(ch)
        game = stub.NewGame(pb.NewGameRequest(variant="cats-tail"), timeout=10)
        auth = (("authorization", f"Bearer {game.game_token}"),)
        got = stub.GetGame(pb.GetGameRequest(game_id=game.game.game_id), metadata=auth, timeout=10)
        legal = stub.LegalMoves(pb.LegalMovesRequest(game_id=game.game.game_id), metadata=auth, timeout=10)
        if legal.moves:
            request = pb.ApplyMoveRequest(
                game_id=game.game.game_id, text=legal.moves[0].text, expected_version=got.game.version
            )
            stub.ApplyMove(request, metadata=auth, timeout=10)
    return game.game.game_id, game.game_token


def rest_over(port: int, context: ssl.SSLContext | None) -> str:
    """NewGame and a token-bearing GetGame over REST through ``port``: the token."""
    scheme = "https" if context else "http"
    host = "localhost" if context else "127.0.0.1"

    def call(path: str, body: dict[str, Any] | None, token: str | None = None) -> dict[str, Any]:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{scheme}://{host}:{port}{path}", data=data, headers=headers)
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            result: dict[str, Any] = json.loads(response.read())
            return result

    created = call("/v1/games", {"variant": "cats-tail"})
    token = str(created["gameToken"])
    call(f"/v1/games/{created['game']['gameId']}", None, token)
    return token


def test_a_token_never_crosses_the_wire_in_clear_over_tls(tls_server: LiveServer, files: TlsFiles) -> None:
    for port, kind in ((tls_server.grpc_port, "grpc"), (tls_server.http_port, "rest")):
        proxy = RecordingProxy(port)
        try:
            if kind == "grpc":
                game_id, token = play_over(proxy.port, files.ca.cert_pem)
            else:
                token, game_id = rest_over(proxy.port, client_context(files.ca.cert_pem)), ""
        finally:
            proxy.close()
        seen = bytes(proxy.seen)
        assert len(seen) > 1000, f"{kind}: the proxy saw the calls"
        assert token.encode() not in seen, f"{kind}: the token crossed in clear"
        assert not game_id or game_id.encode() not in seen


def test_the_same_calls_over_plain_text_show_the_token(redis_db: str, tmp_path: Path) -> None:
    """The control: the recording proxy does see a token when there is no TLS (so the test above can fail)."""
    with live_server(redis_db, tmp_path / "keys") as server:
        for port, kind in ((server.grpc_port, "grpc"), (server.http_port, "rest")):
            proxy = RecordingProxy(port)
            try:
                token = play_over(proxy.port, None)[1] if kind == "grpc" else rest_over(proxy.port, None)
            finally:
                proxy.close()
            assert token.encode() in bytes(proxy.seen), kind


# ------------------------------------------------------------------------------------- health check


def healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    return subprocess.run(
        [sys.executable, "-m", "service.grpc.healthcheck", "--timeout", "5"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_the_container_health_check_follows_the_server_into_tls(tls_server: LiveServer, files: TlsFiles) -> None:
    listen = f"0.0.0.0:{tls_server.grpc_port}"
    served = healthcheck({"PATIENCE_LISTEN": listen, "PATIENCE_TLS_CERT_FILE": str(files.cert)})
    assert served.returncode == 0, served.stderr
    plain = healthcheck({"PATIENCE_LISTEN": listen})
    assert plain.returncode == 1  # a plain-text probe cannot speak to a TLS port
    # a certificate the server does not serve is not trusted: the probe checks whom it talks to
    other = files.cert.with_name("other.crt")
    other.write_bytes(Authority("elsewhere").server_pair().cert)
    refused = healthcheck({"PATIENCE_LISTEN": listen, "PATIENCE_TLS_CERT_FILE": str(other)})
    assert refused.returncode == 1


# ------------------------------------------------------------------------------ development certificates


def test_development_certificates_serve_players_and_operators(redis_db: str, tmp_path: Path) -> None:
    from service.security import dev_certificates

    out = tmp_path / "tls"
    assert dev_certificates.main(["--out", str(out)]) == 0
    assert dev_certificates.main(["--out", str(out)]) == 1  # never overwrites
    assert oct(os.stat(out / "tls.key").st_mode & 0o777) == "0o600"
    operator = Pair((out / "operator.crt").read_bytes(), (out / "operator.key").read_bytes())
    ca = (out / "ca.crt").read_bytes()
    with live_server(
        redis_db,
        tmp_path / "keys",
        tls_cert_file=out / "tls.crt",
        tls_key_file=out / "tls.key",
        tls_client_ca_file=out / "ca.crt",
        operator_listen="127.0.0.1:0",
    ) as server:
        with channel(server.grpc_port, ca) as ch:
            assert list_variants(ch).variants
        with channel(server.server.operator_port, ca, operator) as ch:
            assert mint(ch).deal_ticket
