"""OpenID Connect providers (docs/players.md, "Signing in"): tokens signed with real RSA, EC and Ed25519 keys whose
key sets the tests serve over real HTTP, verified by a real service over both transports; every refusal with
its reason; several issuers; key rotation at the provider, and a flood of made-up key ids that must not make the
service hammer the provider.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from http_support import LiveServer, live_server
from oidc_support import AUDIENCE, ISSUER, JwksServer, ProviderKey, claims, jwks_server, provider_settings
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer, refusal

from service.errors import ServiceError
from service.security.identity_keys import load_service_identities
from service.security.keys import KeyConfigError
from service.security.players import player_id
from service.security.providers import Provider, ProviderKeys, settings_problem
from service.settings.config import Settings, load

SECOND_ISSUER = "https://accounts.second.test"
ROTATING_ISSUER = "https://rotating.test"


@pytest.fixture(scope="module")
def keys() -> dict[str, ProviderKey]:
    return {
        "rsa": ProviderKey.rsa(),
        "ec": ProviderKey.ec(),
        "rs512": ProviderKey.rsa("RS512", declare_alg=False),  # a key that names no algorithm
        "ed": ProviderKey.ed25519(),
        "old": ProviderKey.rsa(),
    }


@pytest.fixture(scope="module")
def provider(keys: dict[str, ProviderKey]) -> Iterator[JwksServer]:
    with jwks_server(keys["rsa"], keys["ec"], keys["rs512"]) as server:
        yield server


@pytest.fixture(scope="module")
def second(keys: dict[str, ProviderKey]) -> Iterator[JwksServer]:
    with jwks_server(keys["ed"]) as server:
        yield server


@pytest.fixture(scope="module")
def rotating(keys: dict[str, ProviderKey]) -> Iterator[JwksServer]:
    with jwks_server(keys["old"]) as server:
        yield server


@pytest.fixture(scope="module")
def keys_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("keys")


@pytest.fixture(scope="module")
def server(
    redis_url: str, keys_dir: Path, provider: JwksServer, second: JwksServer, rotating: JwksServer
) -> Iterator[LiveServer]:
    providers = provider_settings(
        (ISSUER, AUDIENCE, provider.url),
        (SECOND_ISSUER, "patience-second", second.url),
        (ROTATING_ISSUER, AUDIENCE, rotating.url),
    )
    with live_server(redis_url, keys_dir, **providers) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[Client]:
    stub = Client(f"127.0.0.1:{server.grpc_port}")
    yield stub
    stub.close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def both(server: LiveServer, client: Client, token: str) -> tuple[tuple[int, str], tuple[grpc.StatusCode, str]]:
    """GetPlayer with ``token`` over REST and over gRPC: (HTTP status, reason), (gRPC code, reason)."""
    answer = httpx.get(server.base_url + "/v1/players/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    rest = (answer.status_code, "")
    if answer.status_code != 200:
        (info,) = [d for d in answer.json()["details"] if d["@type"].endswith("ErrorInfo")]
        rest = (answer.status_code, str(info["reason"]))
        assert token not in answer.text
    try:
        client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(token))
        grpc_answer = (grpc.StatusCode.OK, "")
    except grpc.RpcError:
        refused = refusal(lambda: client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(token)))
        assert token not in refused.message
        grpc_answer = (refused.code, refused.reason)
    return rest, grpc_answer


def accepted(server: LiveServer, client: Client, token: str) -> pb.Player:
    assert both(server, client, token) == ((200, ""), (grpc.StatusCode.OK, ""))
    return client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(token)).player


def refused_as(server: LiveServer, client: Client, token: str, reason: str) -> None:
    assert both(server, client, token) == ((401, reason), (grpc.StatusCode.UNAUTHENTICATED, reason)), reason


# --------------------------------------------------------------------------- the legal cases


@pytest.mark.parametrize("which", ["rsa", "ec", "rs512"])
def test_a_providers_token_signs_a_player_in_over_both_transports(
    server: LiveServer, client: Client, keys: dict[str, ProviderKey], keys_dir: Path, which: str
) -> None:
    subject = "user-" + secrets.token_hex(4)
    player = accepted(server, client, keys[which].sign(claims(sub=subject)))
    id_key = base64.b64decode((keys_dir / "player-id-key").read_text())
    assert (player.id, player.display_name, player.kind) == (player_id(id_key, ISSUER, subject), "Ada Lovelace", "oidc")
    # Another token of the same identity (a new ID token, another key of the provider) is the same player.
    again = accepted(server, client, keys["rsa"].sign(claims(sub=subject, name="Someone Else")))
    assert again.id == player.id and again.display_name == "Ada Lovelace"  # the first name stays until changed


def test_the_name_comes_from_name_then_preferred_username_then_the_id(
    server: LiveServer, client: Client, keys: dict[str, ProviderKey]
) -> None:
    key = keys["ec"]
    assert accepted(server, client, key.sign(claims(name=None, preferred_username="ada"))).display_name == "ada"
    nameless = accepted(server, client, key.sign(claims(name=None)))
    assert nameless.display_name == "Player " + nameless.id[2:8]
    # A claimed name that breaks the rules is not shown (the fallback is): a right-to-left override.
    bad = accepted(server, client, key.sign(claims(name="Ada\u202eecalevol")))
    assert bad.display_name == "Player " + bad.id[2:8]


def test_several_issuers_each_with_its_audience_and_keys(
    server: LiveServer, client: Client, keys: dict[str, ProviderKey]
) -> None:
    second = keys["ed"].sign(claims(issuer=SECOND_ISSUER, audience="patience-second", sub="same-subject"))
    first = keys["rsa"].sign(claims(sub="same-subject"))
    a, b = accepted(server, client, first), accepted(server, client, second)
    assert a.id != b.id  # a player is issuer + subject: the same subject at two providers is two players
    # Each issuer's tokens verify with that issuer's keys and audience only.
    refused_as(server, client, keys["ed"].sign(claims(issuer=SECOND_ISSUER)), "IDENTITY_WRONG_AUDIENCE")
    refused_as(server, client, keys["rsa"].sign(claims(issuer=SECOND_ISSUER, audience="patience-second")),
               "IDENTITY_UNKNOWN_KEY")  # fmt: skip
    refused_as(server, client, keys["ed"].sign(claims(), kid=keys["rsa"].kid), "IDENTITY_ALGORITHM")


# --------------------------------------------------------------------------- every refusal


def test_every_bad_token_is_refused_with_its_reason_over_both_transports(
    server: LiveServer, client: Client, keys: dict[str, ProviderKey]
) -> None:
    rsa_key, ec_key = keys["rsa"], keys["ec"]
    now = int(time.time())
    stranger = ProviderKey.rsa(kid=rsa_key.kid)  # another key that claims a published key's id
    public_pem = rsa_key.private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)

    def hmac_forgery(secret: bytes) -> str:
        # The classic confusion: HS256 "signed" with the public key as the secret (by hand: PyJWT refuses to).
        head = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": rsa_key.kid}).encode())
        signing_input = f"{head}.{b64url(json.dumps(claims()).encode())}"
        return f"{signing_input}.{b64url(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())}"

    unsigned = f"{b64url(json.dumps({'alg': 'none', 'typ': 'JWT'}).encode())}.{b64url(json.dumps(claims()).encode())}."
    cases = [
        ("IDENTITY_EXPIRED", rsa_key.sign(claims(iat=now - 7200, nbf=now - 7200, exp=now - 3600))),
        ("IDENTITY_NOT_YET_VALID", rsa_key.sign(claims(nbf=now + 3600))),
        ("IDENTITY_WRONG_AUDIENCE", rsa_key.sign(claims(audience="another-app"))),
        ("IDENTITY_UNKNOWN_ISSUER", rsa_key.sign(claims(issuer="https://evil.test"))),
        ("IDENTITY_ALGORITHM", unsigned),
        ("IDENTITY_ALGORITHM", hmac_forgery(public_pem)),
        ("IDENTITY_ALGORITHM", hmac_forgery(json.dumps(rsa_key.jwk()).encode())),
        ("IDENTITY_ALGORITHM", rsa_key.sign(claims(), algorithm="RS512")),  # its JWK says RS256
        ("IDENTITY_ALGORITHM", ec_key.sign(claims(), kid=rsa_key.kid)),  # an EC signature for an RSA key
        ("IDENTITY_UNKNOWN_KEY", ProviderKey.rsa().sign(claims())),
        ("IDENTITY_BAD_SIGNATURE", stranger.sign(claims())),
        ("IDENTITY_MALFORMED", rsa_key.sign(claims(sub=None))),
    ]
    for reason, token in cases:
        refused_as(server, client, token, reason)
    # Each neighbour's legal twin passes: the same key, valid claims, inside the leeway.
    accepted(server, client, rsa_key.sign(claims(nbf=now + 30)))
    accepted(server, client, rsa_key.sign(claims(exp=now - 30, iat=now - 600, nbf=now - 600)))
    accepted(server, client, keys["rs512"].sign(claims(), algorithm="RS384"))  # no "alg" in its JWK: any RSA one


def test_a_token_without_a_key_id_is_refused(server: LiveServer, client: Client, keys: dict[str, ProviderKey]) -> None:
    token = jwt.encode(claims(), keys["rsa"].private, algorithm="RS256")
    refused_as(server, client, token, "IDENTITY_UNKNOWN_KEY")


# --------------------------------------------------------------------------- rotation and floods


def test_a_rotated_key_is_accepted_after_one_fetch_and_a_flood_of_unknown_keys_fetches_once_a_minute(
    server: LiveServer, client: Client, keys: dict[str, ProviderKey], rotating: JwksServer
) -> None:
    old = keys["old"]
    accepted(server, client, old.sign(claims(issuer=ROTATING_ISSUER)))
    assert rotating.count() == 1  # fetched on first use, then kept
    for _ in range(3):
        accepted(server, client, old.sign(claims(issuer=ROTATING_ISSUER)))
    assert rotating.count() == 1
    new = ProviderKey.ec()
    rotating.publish(old, new)
    accepted(server, client, new.sign(claims(issuer=ROTATING_ISSUER)))
    looked = time.monotonic()
    assert rotating.count() == 2  # one fetch for the key id it did not know
    # A flood of tokens with made-up key ids, over both transports: no fetch at all within the minute.
    for _ in range(20):
        refused_as(server, client, ProviderKey.rsa().sign(claims(issuer=ROTATING_ISSUER)), "IDENTITY_UNKNOWN_KEY")
    # ... and a key published meanwhile waits for the minute too (the price of the cap).
    newest = ProviderKey.ec()
    rotating.publish(old, new, newest)
    newest_token = newest.sign(claims(issuer=ROTATING_ISSUER))
    rest, _ = both(server, client, newest_token)
    minutes = int((time.monotonic() - looked) // 60)
    assert rotating.count() <= 2 + minutes
    if minutes == 0:
        assert rest == (401, "IDENTITY_UNKNOWN_KEY")
    # The keys already known go on verifying.
    accepted(server, client, new.sign(claims(issuer=ROTATING_ISSUER)))


class Clock:
    """Time for ProviderKeys that a test moves on (the fetches themselves are real HTTP)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_provider_keys_fetch_on_the_schedule_the_docs_give() -> None:
    """The schedule, with the clock moved by the test: first use; an unknown key id at most once a minute; again when
    the keys are 10 minutes old (a key the provider dropped then goes); never twice at once."""
    a, b, c = ProviderKey.rsa(), ProviderKey.ec(), ProviderKey.ed25519()
    clock = Clock()

    async def run(server: JwksServer) -> None:
        keys = ProviderKeys(server.url, clock=clock)
        found = await asyncio.gather(*(keys.key(a.kid) for _ in range(20)))
        assert all(k["kid"] == a.kid for k in found)
        assert server.count() == 1  # twenty at once on a cold start: one fetch
        server.publish(a, b)
        assert (await keys.key(b.kid))["kid"] == b.kid and server.count() == 2
        for _ in range(10):
            with pytest.raises(ServiceError) as refused:
                await keys.key("made-up-" + secrets.token_hex(4))
            assert refused.value.reason == "IDENTITY_UNKNOWN_KEY"
        assert server.count() == 2
        server.publish(a, b, c)
        clock.now += 59
        with pytest.raises(ServiceError):
            await keys.key(c.kid)
        assert server.count() == 2
        clock.now += 1
        assert (await keys.key(c.kid))["kid"] == c.kid and server.count() == 3
        server.publish(b, c)  # the provider drops a
        clock.now += 599
        assert (await keys.key(a.kid))["kid"] == a.kid and server.count() == 3  # 9 minutes 59: kept
        clock.now += 1
        await keys.key(b.kid)
        assert server.count() == 4  # 10 minutes: fetched again
        clock.now += 60
        with pytest.raises(ServiceError) as gone:
            await keys.key(a.kid)
        assert gone.value.reason == "IDENTITY_UNKNOWN_KEY" and server.count() == 5

    with jwks_server(a) as server:
        asyncio.run(run(server))


def test_a_provider_that_does_not_answer() -> None:
    """Never answered: UNAVAILABLE IDENTITY_PROVIDER_UNAVAILABLE, asked again only after a minute. Answered before:
    the keys it gave go on verifying while it is down."""
    a = ProviderKey.rsa()
    clock = Clock()

    async def run(server: JwksServer) -> None:
        cold = ProviderKeys(server.url, clock=clock)
        server.down = True
        for _ in range(5):
            with pytest.raises(ServiceError) as refused:
                await cold.key(a.kid)
            assert refused.value.reason == "IDENTITY_PROVIDER_UNAVAILABLE" and refused.value.retry_after == 60
        assert server.count() == 1
        clock.now += 60
        server.down = False
        assert (await cold.key(a.kid))["kid"] == a.kid and server.count() == 2
        server.down = True
        clock.now += 3600  # the keys are old, the provider is down: they still verify, and it is asked once a minute
        for _ in range(5):
            assert (await cold.key(a.kid))["kid"] == a.kid
        assert server.count() == 3
        with pytest.raises(ServiceError) as unknown:
            await cold.key("made-up")
        assert unknown.value.reason == "IDENTITY_UNKNOWN_KEY" and server.count() == 3

    with jwks_server(a) as server:
        asyncio.run(run(server))
    # A provider that is not there at all (the port closed): the same refusal, and nothing hangs.
    closed = ProviderKeys(server.url, timeout=2)
    with pytest.raises(ServiceError) as refused:
        asyncio.run(Provider(ISSUER, AUDIENCE, closed).verify(a.sign(claims()), {"alg": "RS256", "kid": a.kid}))
    assert refused.value.reason == "IDENTITY_PROVIDER_UNAVAILABLE"


# --------------------------------------------------------------------------- configuration


def test_the_provider_lists_must_line_up() -> None:
    good = ("https://a.test", "https://b.test"), ("app-a", "app-b"), ("https://a.test/k", "http://b.internal/k")
    assert settings_problem(*good) is None
    assert "same length" in (settings_problem(good[0], good[1][:1], good[2]) or "")
    assert "twice" in (settings_problem(("https://a.test",) * 2, good[1], good[2]) or "")
    assert "guest" in (settings_problem(("urn:patience:guest",), ("a",), ("https://k",)) or "")
    assert "http" in (settings_problem(("https://a.test",), ("a",), ("file:///etc/passwd",)) or "")
    env = {
        "PATIENCE_OIDC_ISSUER": "https://a.test, https://b.test",
        "PATIENCE_OIDC_AUDIENCE": "app-a,app-b",
        "PATIENCE_OIDC_JWKS_URL": "https://a.test/k,http://b.internal/k",
    }
    settings = load([], env)
    assert settings.oidc_issuer == good[0] and settings.oidc_audience == good[1] and settings.oidc_jwks_url == good[2]
    with pytest.raises(SystemExit) as stopped:
        load(["--oidc-audience", "app-a"], env)
    assert stopped.value.code == 2


def test_a_provider_needs_the_player_id_key(tmp_path: Path) -> None:
    settings = Settings(keys_dir=tmp_path, oidc_issuer=(ISSUER,), oidc_audience=(AUDIENCE,),
                        oidc_jwks_url=("https://id.provider.test/jwks",))  # fmt: skip
    with pytest.raises(KeyConfigError):
        load_service_identities(settings)
    with_key = load_service_identities(Settings(**{**settings.__dict__, "generate_keys": True}))
    assert with_key is not None and list(with_key.providers) == [ISSUER]
