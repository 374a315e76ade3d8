"""How a deal was dealt, end to end: ``Game.dealt`` and ``deal_number`` on every answer, in the game's Redis
record and in its certificate; old records without the field read from what they hold."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, operator, settings_for, solve

from engine.catalogue import get_game
from service.certificates import KeyRing
from service.tickets import TicketMinter

SEED = bytes.fromhex("5eed" * 16)  # a sultan-36 deal the test solver wins quickly
KEY_RING = KeyRing.generate()
MINTER = TicketMinter.generate()


@pytest.fixture(scope="module")
def seeds() -> FixedSeeds:
    return FixedSeeds()


@pytest.fixture(scope="module")
def server(redis_url: str, seeds: FixedSeeds) -> Iterator[ServerThread]:
    srv = ServerThread(settings_for(redis_url), seed_source=seeds, crypto=(KEY_RING, MINTER))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def win(client: Client, game: pb.Game, token: str, seed: bytes) -> pb.Game:
    """Play the deal of ``seed`` to its win, move by move; the won game."""
    engine_game = get_game(game.variant)
    reply: Any = None
    for version, move in enumerate(solve(engine_game, engine_game.deal(seed)), start=1):
        reply = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=move), metadata=bearer(token)
        )
    assert reply.game.status == pb.GAME_STATUS_WON
    return reply.game  # type: ignore[no-any-return]


def test_a_game_of_the_services_own_seed_is_dealt_random(client: Client, seeds: FixedSeeds) -> None:
    seeds.seeds.insert(0, SEED)
    reply = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    assert (reply.game.dealt, reply.game.deal_number) == ("random", 0)
    got = client.GetGame(pb.GetGameRequest(game_id=reply.game.game_id), metadata=bearer(reply.game_token)).game
    assert (got.dealt, got.deal_number) == ("random", 0)
    won = win(client, reply.game, reply.game_token, SEED)
    assert (won.dealt, won.certificate.dealt, won.certificate.deal_number) == ("random", "random", 0)
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=won.certificate.encoded))
    assert checked.valid and (checked.certificate.dealt, checked.certificate.deal_number) == ("random", 0)
    assert b'"dealt":"random"' in KEY_RING.verify(won.certificate.encoded).payload


def test_a_client_seed_and_a_prepared_seed_are_still_dealt_random(client: Client) -> None:
    mixed = client.NewGame(pb.NewGameRequest(variant="sultan-36", client_seed=b"mine"))
    assert mixed.game.dealt == "random"
    prepared = client.PrepareGame(pb.PrepareGameRequest())
    both = client.NewGame(pb.NewGameRequest(variant="sultan-36", client_seed=b"mine", prepared_id=prepared.prepared_id))
    assert both.game.dealt == "random" and both.game.server_seed_commitment == prepared.server_seed_commitment


def test_a_ticket_is_dealt_ticket_in_the_game_and_its_certificate(client: Client) -> None:
    minted = client.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator())
    reply = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
    assert (reply.game.dealt, reply.game.deal_number) == ("ticket", 0)
    seed = MINTER.seed(MINTER.open(minted.deal_ticket, now=int(time.time())))
    won = win(client, reply.game, reply.game_token, seed)
    assert (won.certificate.dealt, won.certificate.ticket_id) == ("ticket", minted.ticket_id)


def test_a_record_written_before_the_field_existed_reads_from_what_it_holds(
    client: Client, seeds: FixedSeeds, redis_url: str
) -> None:
    seeds.seeds.insert(0, SEED)
    own = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    minted = client.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator())
    ticketed = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
    raw = redis.Redis.from_url(redis_url)
    try:
        for reply in (own, ticketed):
            key = f"pat:{{{reply.game.game_id}}}"
            assert raw.hget(key, "dk") == reply.game.dealt.encode()  # kept in the record ...
            assert raw.hdel(key, "dk") == 1  # ... and gone, as in a record from before the field
    finally:
        raw.close()
    for reply, dealt in ((own, "random"), (ticketed, "ticket")):
        got = client.GetGame(pb.GetGameRequest(game_id=reply.game.game_id), metadata=bearer(reply.game_token)).game
        assert (got.dealt, got.deal_number) == (dealt, 0)
    won = win(client, own.game, own.game_token, SEED)
    assert won.certificate.dealt == "random"
