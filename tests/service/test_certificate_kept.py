"""A certificate keeps its bytes: GetGame answers the certificate as it was first issued, whatever keys rotate
later, over a real service and a real Redis (issue: "A certificate keeps its bytes")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, settings_for

from service.security.signing import KeyRing

FIXTURE = sorted((Path(__file__).parents[1] / "data" / "fcs").glob("cats-tail-*.txt"))[0]
SEED = bytes.fromhex(FIXTURE.stem.rpartition("-")[2])
MOVES = FIXTURE.read_text().split()
OLD = KeyRing.generate()
NEW = KeyRing.generate(retired=[OLD.signing_key.public_key()])  # type: ignore[union-attr]


@pytest.fixture
def servers(redis_db: str) -> Iterator[tuple[Client, Client, FixedSeeds]]:
    """Two replicas on one Redis: one still signing with the old key, one rotated to the new key."""
    seeds = FixedSeeds()
    old = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(OLD, None)).start()
    new = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(NEW, None)).start()
    a, b = Client(old.address), Client(new.address)
    try:
        yield a, b, seeds
    finally:
        a.close()
        b.close()
        old.stop()
        new.stop()


def win(client: Client, seeds: FixedSeeds, *, submitted: bool) -> tuple[str, str, bytes]:
    seeds.seeds.insert(0, SEED)
    dealt = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
    game_id, token = dealt.game.game_id, dealt.game_token
    if submitted:
        reply = client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game_id, moves=MOVES), metadata=bearer(token))
        return game_id, token, reply.certificate.encoded
    version = dealt.game.version
    for text in MOVES:
        moved = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text), metadata=bearer(token)
        )
        version = moved.game.version
    assert moved.game.status == pb.GAME_STATUS_WON
    return game_id, token, moved.game.certificate.encoded


@pytest.mark.parametrize("submitted", [False, True], ids=["move-by-move", "submitted"])
def test_getgame_answers_the_certificate_first_issued_after_a_key_rotation(
    servers: tuple[Client, Client, FixedSeeds], submitted: bool
) -> None:
    old, new, seeds = servers
    game_id, token, issued = win(old, seeds, submitted=submitted)
    assert issued and OLD.verify(issued).valid
    for client in (old, new, new):  # the rotated replica too, and again
        shown = client.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token)).game.certificate
        assert shown.encoded == issued
        assert shown.key_id == OLD.active_key_id
    checked = new.VerifyCertificate(pb.VerifyCertificateRequest(certificate=issued))
    assert checked.valid  # the old key stays published as retired


def test_a_win_shown_before_certificates_were_kept_is_kept_from_then_on(
    servers: tuple[Client, Client, FixedSeeds], redis_db: str
) -> None:
    """A game won before the service kept certificates (no ``ct`` field) is signed once more when shown, with the
    key of that moment, and from then on keeps those bytes."""
    old, new, seeds = servers
    game_id, token, _ = win(old, seeds, submitted=True)
    meta = next(k for k in redis.Redis.from_url(redis_db).keys(f"*{{{game_id}}}") if b":" not in k.split(b"}")[-1])
    assert redis.Redis.from_url(redis_db).hdel(meta, "ct") == 1
    first = new.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token)).game.certificate
    assert first.key_id == NEW.active_key_id
    again = old.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token)).game.certificate
    assert again.encoded == first.encoded
