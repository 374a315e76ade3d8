"""Players (docs/players.md): guest identities issued by the service, GetPlayer, and every way an identity token
is refused, over both transports, against a real service on real ports and a real Redis.

The tokens the tests forge are real JWTs signed with real keys: the server's own guest key (read from its keys
directory, as an attacker who stole it would), another Ed25519 key, an RSA key, and none at all.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key
from http_support import LiveServer, live_server
from hypothesis import given
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer, refusal

from service.errors import ServiceError
from service.security.identity_keys import load_identities, rotate_guest_key
from service.security.players import (
    GUEST_AUDIENCE,
    GUEST_ISSUER,
    MAX_NAME_LENGTH,
    clean_display_name,
    guest_key_id,
    is_player_id,
    player_id,
)


@pytest.fixture(scope="module")
def keys_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("keys")


@pytest.fixture(scope="module")
def server(redis_url: str, keys_dir: Path) -> Iterator[LiveServer]:
    with live_server(redis_url, keys_dir) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[Client]:
    stub = Client(f"127.0.0.1:{server.grpc_port}")
    yield stub
    stub.close()


def guest_key(keys_dir: Path) -> Ed25519PrivateKey:
    key = load_pem_private_key((keys_dir / "guest-key.pem").read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key


def claims(**changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": GUEST_ISSUER,
        "aud": GUEST_AUDIENCE,
        "sub": "g_forged",
        "name": "Mallory",
        "iat": now,
        "nbf": now,
        "exp": now + 3600,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def signed(key: Ed25519PrivateKey, kid: str | None = None, **changes: Any) -> str:
    kid = kid or guest_key_id(key.public_key())
    return jwt.encode(claims(**changes), key, algorithm="EdDSA", headers={"kid": kid})


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def rest_reason(server: LiveServer, token: str | None, path: str = "/v1/players/me") -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    answer = httpx.get(server.base_url + path, headers=headers, timeout=30)
    if answer.status_code == 200:
        return 200, ""
    (info,) = [d for d in answer.json()["details"] if d["@type"].endswith("ErrorInfo")]
    return answer.status_code, str(info["reason"])


# --------------------------------------------------------------------------- guests


def test_a_guest_is_created_over_rest_and_known_over_grpc(server: LiveServer, client: Client) -> None:
    answer = httpx.post(server.base_url + "/v1/players:guest", json={"displayName": "  Ада   Лавлейс "}, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    player = body["player"]
    assert player["displayName"] == "Ада Лавлейс" and player["kind"] == "guest" and is_player_id(player["id"])
    token = body["token"]
    assert token.count(".") == 2 and "Лавлейс" not in token.split(".")[0]
    assert body["expiresAt"] > time.strftime("%Y-%m-%dT", time.gmtime(time.time() + 300 * 86400))
    # The same identity over gRPC: the same player, twice (the id is stable).
    for _ in range(2):
        me = client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(token)).player
        assert (me.id, me.display_name, me.kind) == (player["id"], "Ада Лавлейс", "guest")
    # ... and over REST.
    again = httpx.get(server.base_url + "/v1/players/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert again.status_code == 200 and again.json()["player"] == player


def test_two_guests_are_two_players(client: Client) -> None:
    a = client.CreateGuest(pb.CreateGuestRequest(display_name="Twin"))
    b = client.CreateGuest(pb.CreateGuestRequest(display_name="Twin"))
    assert a.player.id != b.player.id and a.token != b.token
    assert a.player.display_name == b.player.display_name == "Twin"


def test_the_player_id_is_the_documented_hmac(keys_dir: Path, client: Client) -> None:
    """docs/players.md: "p_" + base32(HMAC-SHA256(player-id key, "patience-player|" + issuer + "|" + subject)[:16])."""
    created = client.CreateGuest(pb.CreateGuestRequest(display_name="Vector"))
    subject = jwt.decode(created.token, options={"verify_signature": False})["sub"]
    key = base64.b64decode((keys_dir / "player-id-key").read_text())
    digest = hmac.new(key, f"patience-player|{GUEST_ISSUER}|{subject}".encode(), hashlib.sha256).digest()[:16]
    assert created.player.id == "p_" + base64.b32encode(digest).decode().rstrip("=").lower()
    assert player_id(key, GUEST_ISSUER, subject) == created.player.id


def test_a_token_signed_with_the_guest_key_is_accepted_and_its_neighbours_refused(
    server: LiveServer, client: Client, keys_dir: Path
) -> None:
    """A token the attacker signs with the server's real guest key passes (the legal case), and each one-claim
    change of it is refused with its own reason, over both transports."""
    key = guest_key(keys_dir)
    other = Ed25519PrivateKey.generate()
    now = int(time.time())
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_pem = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    body = b64url(json.dumps(claims()).encode())
    cases = {
        "": signed(key),
        "IDENTITY_EXPIRED": signed(key, exp=now - 3600, iat=now - 7200, nbf=now - 7200),
        "IDENTITY_NOT_YET_VALID": signed(key, nbf=now + 3600),
        "IDENTITY_WRONG_AUDIENCE": signed(key, aud="someone-else"),
        "IDENTITY_UNKNOWN_ISSUER": signed(key, iss="https://issuer.example"),
        "IDENTITY_UNKNOWN_KEY": signed(other),
        "IDENTITY_BAD_SIGNATURE": signed(other, kid=guest_key_id(key.public_key())),
        "IDENTITY_ALGORITHM": f"{header}.{body}.",
        "IDENTITY_MALFORMED": "not.a.jwt",
    }
    # The classic confusion: HS256 "signed" with the public key as the HMAC secret (by hand: PyJWT refuses to).
    hs_head = {"alg": "HS256", "typ": "JWT", "kid": guest_key_id(key.public_key())}
    hs_input = f"{b64url(json.dumps(hs_head).encode())}.{b64url(json.dumps(claims()).encode())}"
    hs = f"{hs_input}.{b64url(hmac.new(public_pem, hs_input.encode(), hashlib.sha256).digest())}"
    rs = jwt.encode(claims(), rsa_key, algorithm="RS256", headers={"kid": guest_key_id(key.public_key())})
    missing_sub = signed(key, sub=None)
    for reason, token in [*cases.items(), ("IDENTITY_ALGORITHM", hs), ("IDENTITY_ALGORITHM", rs)]:
        status, got = rest_reason(server, token)
        assert (status, got) == ((200, "") if not reason else (401, reason)), reason
        if reason:
            refused = refusal(lambda t=token: client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(t)))
            assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason)
            assert token not in refused.message
    assert rest_reason(server, missing_sub) == (401, "IDENTITY_MALFORMED")


def test_no_identity_is_missing_identity(server: LiveServer, client: Client) -> None:
    assert rest_reason(server, None) == (401, "MISSING_IDENTITY")
    game = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
    # A game token is a credential for its game, not an identity.
    assert rest_reason(server, game.game_token) == (401, "MISSING_IDENTITY")
    refused = refusal(lambda: client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(game.game_token)))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_IDENTITY")
    # ... and an identity is not a game's token.
    guest = client.CreateGuest(pb.CreateGuestRequest(display_name="Not yours"))
    refused = refusal(
        lambda: client.GetGame(pb.GetGameRequest(game_id=game.game.game_id), metadata=bearer(guest.token))
    )
    assert refused.code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "BAD_DISPLAY_NAME"),
        ("   ", "BAD_DISPLAY_NAME"),
        ("x" * (MAX_NAME_LENGTH + 1), "BAD_DISPLAY_NAME"),
        ("Ada\u202eecalevol", "BAD_DISPLAY_NAME"),  # a right-to-left override
        ("Ada\u2066x\u2069", "BAD_DISPLAY_NAME"),  # an isolate
        ("Ada\u0007", "BAD_DISPLAY_NAME"),
        ("Ada\u200bLovelace", "BAD_DISPLAY_NAME"),  # zero width space
        ("p_" + "a" * 26, "BAD_DISPLAY_NAME"),  # looks like a player id
    ],
)
def test_bad_display_names_are_refused(server: LiveServer, client: Client, name: str, reason: str) -> None:
    answer = httpx.post(server.base_url + "/v1/players:guest", json={"displayName": name}, timeout=30)
    assert answer.status_code == 400
    refused = refusal(lambda: client.CreateGuest(pb.CreateGuestRequest(display_name=name)))
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("x" * MAX_NAME_LENGTH, "x" * MAX_NAME_LENGTH),
        ("\uff2d\uff41\uff4c\uff4c\uff4f\uff52\uff59", "Mallory"),  # fullwidth forms fold (NFKC)
        ("Ada  Lovelace", "Ada Lovelace"),
        ("😀 Ада", "😀 Ада"),
        ("p_" + "a" * 25, "p_" + "a" * 25),
    ],
)
def test_good_display_names_are_kept_normalised(client: Client, name: str, shown: str) -> None:
    assert client.CreateGuest(pb.CreateGuestRequest(display_name=name)).player.display_name == shown


@given(st.text(max_size=80))
def test_a_clean_name_is_short_visible_and_stable(text: str) -> None:
    try:
        name = clean_display_name(text)
    except ServiceError as exc:
        assert exc.reason == "BAD_DISPLAY_NAME"
        return
    assert 1 <= len(name) <= MAX_NAME_LENGTH and name == name.strip()
    assert all(unicodedata.category(c) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} for c in name)
    assert clean_display_name(name) == name


def test_guests_are_rate_limited_like_new_games(redis_db: str, tmp_path: Path) -> None:
    with live_server(redis_db, tmp_path, rate_limits=True, limit_create_guest="2/minute") as live:
        stub = Client(f"127.0.0.1:{live.grpc_port}")
        try:
            for _ in range(2):
                stub.CreateGuest(pb.CreateGuestRequest(display_name="Busy"))
            refused = refusal(lambda: stub.CreateGuest(pb.CreateGuestRequest(display_name="Busy")))
            assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
            # A bad name is refused before it is counted: it cannot spend anyone's share.
            refused = refusal(lambda: stub.CreateGuest(pb.CreateGuestRequest(display_name="")))
            assert refused.reason == "BAD_DISPLAY_NAME"
        finally:
            stub.close()


def test_a_rotated_guest_key_keeps_its_guests(tmp_path: Path) -> None:
    """docs/keys.md: after `rotate --guest`, tokens of the old key verify (same player) and new ones use the new."""
    import asyncio

    before = load_identities(tmp_path, env={}, generate=True)
    assert before is not None and before.guests is not None
    old_token, old_identity = before.guests.issue("Before")
    rotated = rotate_guest_key(tmp_path)
    after = load_identities(tmp_path, env={})
    assert after is not None and after.guests is not None
    assert rotated["retired_guest_key_id"] in after.guests.key_ids and rotated["guest_key_id"] in after.guests.key_ids
    identity = asyncio.run(after.verify(old_token))
    assert after.player_of(identity) == before.player_of(old_identity)
    new_token, _ = after.guests.issue("After")
    assert jwt.get_unverified_header(new_token)["kid"] == rotated["guest_key_id"]
    # The player-id key is never replaced: the keys command refuses to.
    from service.security.identity_keys import generate_identity_keys
    from service.security.keys import KeyConfigError

    with pytest.raises(KeyConfigError):
        generate_identity_keys(tmp_path, guest=False, player_id=True)


def test_without_a_player_id_key_players_are_off(tmp_path: Path) -> None:
    assert load_identities(tmp_path, env={}) is None


def test_a_signed_in_players_game_names_them_and_an_anonymous_one_does_not(server: LiveServer, client: Client) -> None:
    guest = client.CreateGuest(pb.CreateGuestRequest(display_name="Owner"))
    mine = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(guest.token))
    assert mine.game.HasField("player") and mine.game.player == guest.player
    again = client.GetGame(pb.GetGameRequest(game_id=mine.game.game_id), metadata=bearer(mine.game_token))
    assert again.game.player == guest.player
    anonymous = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
    assert not anonymous.game.HasField("player")
    # A bad identity is refused before anything is dealt, not ignored.
    refused = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer("x.y.z")))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "IDENTITY_MALFORMED")
    body = httpx.post(
        server.base_url + "/v1/games",
        json={"variant": "cats-tail"},
        headers={"Authorization": f"Bearer {guest.token}"},
        timeout=30,
    ).json()
    assert body["game"]["player"] == {"id": guest.player.id, "displayName": "Owner", "kind": "guest"}


def test_a_remembered_token_is_refused_once_it_expires() -> None:
    """Each replica remembers the tokens it verified (a player's every call carries the same one), but never past
    their expiry: a token in its last seconds of leeway is accepted and remembered, and refused as expired once
    the leeway is over, as if it had never been seen."""
    import asyncio
    import secrets

    from service.security.players import LEEWAY, GuestIssuer, Identities

    issuer = GuestIssuer.generate()
    issuer.lifetime_seconds = 1
    identities = Identities(secrets.token_bytes(32), issuer)
    token, _ = issuer.issue("Late", now=int(time.time()) - LEEWAY + 4)  # expired 4 s short of the leeway's end
    first = asyncio.run(identities.verify(token))
    assert asyncio.run(identities.verify(token)) == first  # remembered
    time.sleep(6)
    with pytest.raises(ServiceError) as refused:
        asyncio.run(identities.verify(token))
    assert refused.value.reason == "IDENTITY_EXPIRED"
