"""Rate limits per client address, against real servers and a real Redis (single and cluster).

The limits are set small here (3 a minute) so that a test meets them in a few calls; the defaults are checked
to let a person playing through.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from prometheus_client import REGISTRY
from service_harness import Client, ServerThread, bearer, refusal, settings_for

from service.security.ratelimit import RateLimiter, address_key
from service.settings.config import Settings, load

FRONT_END_KEY = "front-end-key-0123456789"


def limited(redis_url: str, keys: Path, **overrides: Any) -> Settings:
    base = settings_for(
        redis_url,
        keys_dir=keys,  # signing keys for VerifyCertificate, shared by every server of a test
        generate_keys=True,
        http_listen="127.0.0.1:0",
        rate_limits=True,
        limit_new_game="3/minute",
        limit_prepare_game="3/minute",
        limit_submit_solution="3/minute",
        limit_verify_certificate="3/minute",
        front_end_key=FRONT_END_KEY,
        store_prefix=f"rl{secrets.token_hex(3)}",
    )
    return dataclasses.replace(base, **overrides)


@pytest.fixture
def server(redis_db: str, tmp_path: Path) -> Iterator[ServerThread]:
    srv = ServerThread(limited(redis_db, tmp_path)).start()
    yield srv
    srv.stop()


def refused_count(method: str) -> float:
    return REGISTRY.get_sample_value("patience_rate_limited_total", {"method": method}) or 0.0


def retry_info(exc: grpc.RpcError) -> error_details_pb2.RetryInfo | None:
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info
    return None


def test_the_fourth_new_game_in_a_minute_is_resource_exhausted_with_retry_info(server: ServerThread) -> None:
    client = Client(server.address)
    try:
        before = refused_count("NewGame")
        games = [client.NewGame(pb.NewGameRequest(variant="cats-tail")) for _ in range(3)]
        with pytest.raises(grpc.RpcError) as caught:
            client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        info = retry_info(caught.value)
        assert info is not None and 1 <= info.retry_delay.seconds <= 60
        r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail")))
        assert (r.reason, r.metadata["method"], r.metadata["limit"]) == ("RATE_LIMITED", "NewGame", "3 per 1 minute")
        assert refused_count("NewGame") == before + 2
        # Only the calls that cost are limited: playing the games goes on.
        game, token = games[0].game, games[0].game_token
        for _ in range(10):
            client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token))
            client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token))
        # Each limited RPC counts on its own.
        for _ in range(3):
            client.PrepareGame(pb.PrepareGameRequest())
        assert refusal(lambda: client.PrepareGame(pb.PrepareGameRequest())).reason == "RATE_LIMITED"
        for _ in range(3):
            client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=b"{}"))
        assert refusal(lambda: client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=b"{}"))).reason == (
            "RATE_LIMITED"
        )
    finally:
        client.close()


def test_rest_answers_429_with_retry_after_and_shares_the_count_with_grpc(server: ServerThread) -> None:
    client = Client(server.address)
    base = f"http://127.0.0.1:{server.server.http_port}"
    with contextlib.suppress(grpc.RpcError):  # refused (no such game), but counted: the limit comes first
        client.SubmitSolution(pb.SubmitSolutionRequest(game_id="nope", moves=["s"]), metadata=bearer("x"))
    try:
        for _ in range(2):
            reply = httpx.post(f"{base}/v1/solutions", json={"gameId": "nope", "moves": ["s"]})
            assert reply.status_code == 401  # MISSING_TOKEN: through the limit, refused after
        reply = httpx.post(f"{base}/v1/solutions", json={"gameId": "nope", "moves": ["s"]})
        assert reply.status_code == 429
        assert 1 <= int(reply.headers["retry-after"]) <= 60
        details = reply.json()["details"]
        assert details[0]["reason"] == "RATE_LIMITED"
        assert any(d["@type"].endswith("google.rpc.RetryInfo") for d in details)
    finally:
        client.close()


def test_replicas_share_the_counts_through_redis(redis_db: str, tmp_path: Path) -> None:
    settings = limited(redis_db, tmp_path)
    first, second = ServerThread(settings).start(), ServerThread(settings).start()
    a, b = Client(first.address), Client(second.address)
    try:
        a.NewGame(pb.NewGameRequest(variant="cats-tail"))
        b.NewGame(pb.NewGameRequest(variant="cats-tail"))
        a.NewGame(pb.NewGameRequest(variant="cats-tail"))
        assert refusal(lambda: b.NewGame(pb.NewGameRequest(variant="cats-tail"))).reason == "RATE_LIMITED"
    finally:
        a.close()
        b.close()
        first.stop()
        second.stop()


def test_an_ipv6_caller_counts_by_its_64_over_both_transports(redis_db: str, tmp_path: Path) -> None:
    """gRPC's peer and the HTTP client become the same plain address in the call's context: one IPv6 host is one
    client whichever transport it calls over (gRPC writes an IPv6 peer as ``ipv6:%5B::1%5D:port``)."""
    server = ServerThread(limited(redis_db, tmp_path, listen="[::1]:0", http_listen="[::1]:0")).start()
    client = Client(f"[::1]:{server.port}")
    try:
        client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        reply = httpx.post(f"http://[::1]:{server.server.http_port}/v1/games", json={"variant": "cats-tail"})
        assert reply.status_code == 200
        client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        assert refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"))).reason == "RATE_LIMITED"
        reply = httpx.post(f"http://[::1]:{server.server.http_port}/v1/games", json={"variant": "cats-tail"})
        assert reply.status_code == 429
    finally:
        client.close()
        server.stop()


def test_the_limits_work_on_redis_cluster(redis_cluster_db: str, tmp_path: Path) -> None:
    server = ServerThread(limited(redis_cluster_db, tmp_path)).start()
    client = Client(server.address)
    try:
        for _ in range(3):
            client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        assert refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"))).reason == "RATE_LIMITED"
    finally:
        client.close()
        server.stop()


def test_a_trusted_front_end_names_its_end_users(server: ServerThread) -> None:
    client = Client(server.address)

    def as_user(address: str, key: str = FRONT_END_KEY) -> tuple[tuple[str, str], ...]:
        return (("x-client-address", address), ("x-front-end-key", key))

    try:
        for _ in range(3):
            client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("203.0.113.7"))
        assert refusal(
            lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("203.0.113.7"))
        ).reason == ("RATE_LIMITED")
        # Another end user behind the same front end, and the front end's own address, are counted apart.
        client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("198.51.100.1"))
        client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        # An IPv6 end user is counted by its /64.
        for host in ("2001:db8::1", "2001:db8::2", "2001:db8::ffff"):
            client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user(host))
        assert refusal(
            lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("2001:db8::3"))
        ).reason == ("RATE_LIMITED")
        # No client picks the address it is counted under.
        r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("1.2.3.4", "no")))
        assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "UNTRUSTED_CLIENT_ADDRESS")
        r = refusal(
            lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=(("x-client-address", "1.2.3.4"),))
        )
        assert r.reason == "UNTRUSTED_CLIENT_ADDRESS"
        r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=as_user("not-an-ip")))
        assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CLIENT_ADDRESS")
        base = f"http://127.0.0.1:{server.server.http_port}"
        reply = httpx.post(
            f"{base}/v1/games",
            json={"variant": "cats-tail"},
            headers={"x-client-address": "192.0.2.55", "x-front-end-key": FRONT_END_KEY},
        )
        assert reply.status_code == 200
        reply = httpx.post(f"{base}/v1/games", json={"variant": "cats-tail"}, headers={"x-client-address": "1.1.1.1"})
        assert reply.status_code == 403 and reply.json()["details"][0]["reason"] == "UNTRUSTED_CLIENT_ADDRESS"
    finally:
        client.close()


def test_the_defaults_let_a_person_play_and_are_on() -> None:
    settings = Settings()
    assert settings.rate_limits
    assert settings.rate_limits_by_rpc() == {
        "NewGame": "20/minute;300/hour",
        "PrepareGame": "20/minute;300/hour",
        "SubmitSolution": "20/minute;300/hour",
        "VerifyCertificate": "60/minute;1000/hour",
        "Hint": "30/minute;600/hour",
        "CreateGuest": "20/minute;300/hour",
        "WatchGame": "30/minute;600/hour",
    }
    assert load(["--limit-new-game", "5/second;100/day"], {}).limit_new_game == "5/second;100/day"
    with pytest.raises(SystemExit):
        load(["--limit-new-game", "lots"], {})
    assert not load(["--rate-limits", "off"], {}).rate_limits


def test_a_person_playing_never_meets_the_default_limits(redis_db: str, tmp_path: Path) -> None:
    """A quick player: a new deal, prepared, every few seconds for a minute, each ended by a submission, and the
    certificate checked -- twelve of each in a minute, under the defaults (the counts, not the clock, decide)."""
    settings = dataclasses.replace(
        limited(redis_db, tmp_path), **{f.name: getattr(Settings(), f.name) for f in _limit_fields()}
    )
    server = ServerThread(settings).start()
    client = Client(server.address)
    try:
        for _ in range(12):
            prepared = client.PrepareGame(pb.PrepareGameRequest())
            new = client.NewGame(
                pb.NewGameRequest(variant="cats-tail", prepared_id=prepared.prepared_id, client_seed=b"me")
            )
            md = bearer(new.game_token)
            client.SubmitSolution(pb.SubmitSolutionRequest(game_id=new.game.game_id, moves=["1-1"]), metadata=md)
            client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=b"{}"))
    finally:
        client.close()
        server.stop()


def _limit_fields() -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(Settings) if f.name.startswith("limit_")]


def test_what_an_address_counts_under() -> None:
    assert address_key("203.0.113.9") == "203.0.113.9"
    assert address_key("2001:db8:0:0:abcd::1") == "2001:db8::/64"
    assert address_key("::ffff:203.0.113.9") == "203.0.113.9"


def test_a_limiter_whose_redis_is_gone_lets_calls_through() -> None:
    import redis_support

    limiter = RateLimiter(
        f"redis://127.0.0.1:{redis_support.free_port()}/0", {"NewGame": "1/minute"}, key_prefix="x", front_end_key=None
    )

    async def calls() -> None:
        for _ in range(3):
            await limiter.check("NewGame", "203.0.113.9")

    asyncio.run(calls())


def test_the_python_client_says_when_to_retry(server: ServerThread) -> None:
    from patience_client import LimitExceeded, PatienceClient
    from patience_client.config import ClientSettings

    with PatienceClient(ClientSettings(target=server.address, timeout=10)) as client:
        for _ in range(3):
            client.prepare_game()
        with pytest.raises(LimitExceeded) as caught:
            client.prepare_game()
    assert caught.value.reason == "RATE_LIMITED" and 1 <= (caught.value.retry_after or 0) <= 60


def test_hint_has_its_own_limit(redis_db: str, tmp_path: Path) -> None:
    """A hint costs a solver's CPU: counted under --limit-hint, apart from every other call."""
    server = ServerThread(limited(redis_db, tmp_path, limit_hint="2/minute", hint_states=100)).start()
    client = Client(server.address)
    try:
        dealt = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
        gid, token = dealt.game.game_id, dealt.game_token
        before = refused_count("Hint")
        for _ in range(2):
            client.Hint(pb.HintRequest(game_id=gid), metadata=bearer(token))
        r = refusal(lambda: client.Hint(pb.HintRequest(game_id=gid), metadata=bearer(token)))
        assert (r.code, r.reason, r.metadata["method"]) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", "Hint")
        assert refused_count("Hint") == before + 1
        # The player plays on, and the other limits have their own counts.
        client.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=1, text="s"), metadata=bearer(token))
        client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    finally:
        client.close()
        server.stop()
