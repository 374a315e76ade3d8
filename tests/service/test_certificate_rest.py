"""A certificate over REST, peeled as docs/certificates.md says: a real service on a real port and a real Redis.

A winning ApplyMove carries it in ``game.certificate`` (the response has only ``game`` and ``applied``);
``encoded`` is base64 of the certificate's JSON text, whose ``payload`` is base64 of the signed bytes; the
engine's replay of the certified moves hashes to ``final_state_hash``; the published key verifies it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from http_support import LiveServer, fcs_fixtures, live_server
from patience.certificates import canonical_json

from engine import get_game
from engine.encoding import encode_state
from engine.verify import replay


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys")) as live:
        yield live


def test_a_winning_move_carries_the_certificate_in_its_game(server: LiveServer) -> None:
    seed, moves = fcs_fixtures("cats-tail")[0]
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        server.seeds.push(seed)
        created = client.post("/v1/games", json={"variant": "cats-tail"}).json()
        gid, auth = created["game"]["gameId"], {"Authorization": f"Bearer {created['gameToken']}"}
        version = int(created["game"]["version"])
        for text in moves:
            answer = client.post(
                f"/v1/games/{gid}/moves", headers=auth, json={"expectedVersion": version, "text": text}
            )
            assert answer.status_code == 200, answer.text
            body = answer.json()
            version = int(body["game"]["version"])
        assert set(body) == {"game", "applied"} and body["game"]["status"] == "GAME_STATUS_WON"
        encoded = body["game"]["certificate"]["encoded"]
        again = client.get(f"/v1/games/{gid}", headers=auth).json()["game"]["certificate"]["encoded"]
        keys = client.get("/v1/signing-keys").json()["keys"]

    certificate = base64.b64decode(encoded, validate=True)  # layer 1: REST's base64 of a bytes field
    assert again == encoded
    envelope = json.loads(certificate)  # layer 2: the envelope
    assert set(envelope) == {"key_id", "payload", "signature"} and canonical_json(envelope) == certificate
    payload = base64.b64decode(envelope["payload"], validate=True)  # layer 3: the signed payload
    (key,) = [k for k in keys if k["keyId"] == envelope["key_id"]]
    raw = base64.b64decode(key["publicKey"])
    assert hashlib.sha256(raw).hexdigest()[:16] == envelope["key_id"]
    Ed25519PublicKey.from_public_bytes(raw).verify(base64.b64decode(envelope["signature"]), payload)
    fields = json.loads(payload)
    assert canonical_json(fields) == payload
    assert fields["played"] == "moves" and fields["move_count"] == len(moves) == len(fields["moves"])
    assert fields["started_at"] <= fields["finished_at"]
    game = get_game(fields["variant"], fields["options"])
    result = replay(game, game.deal(bytes.fromhex(fields["seed"])), fields["moves"])
    assert result.verdict.outcome.value == "won"
    assert hashlib.sha256(encode_state(game, result.state)).hexdigest() == fields["final_state_hash"]
