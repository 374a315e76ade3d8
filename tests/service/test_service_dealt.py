"""How a deal was dealt, end to end: ``Game.dealt`` and ``deal_number`` on every answer, in the game's Redis
record and in its certificate; old records without the field read from what they hold; replays of a seed and
numbered public deals, and what they may not be combined with."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, operator, refusal, settings_for, solve

from engine.catalogue import get_game
from engine.view import player_view
from service.games.convert import view_message
from service.security.signing import KeyRing
from service.security.tickets import TicketMinter

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


# -- replays ---------------------------------------------------------------------------------------------------


def test_a_replay_deals_the_revealed_seed_again_and_says_so(client: Client, seeds: FixedSeeds) -> None:
    seeds.seeds.insert(0, SEED)
    first = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    over = client.Resign(pb.ResignRequest(game_id=first.game.game_id), metadata=bearer(first.game_token)).game
    assert over.seed == SEED
    again = client.NewGame(pb.NewGameRequest(variant="sultan-36", replay_seed=over.seed))
    game = again.game
    assert (game.dealt, game.deal_number, game.commitment) == ("replay", 0, first.game.commitment)
    assert game.view == first.game.view and game.game_id != first.game.game_id
    assert (game.seed, game.client_seed, game.server_seed_commitment, game.ticket_id) == (b"", b"", b"", "")
    won = win(client, game, again.game_token, SEED)
    assert (won.dealt, won.certificate.dealt, won.certificate.deal_number) == ("replay", "replay", 0)
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=won.certificate.encoded, replay=True))
    assert checked.valid and checked.certificate.dealt == "replay"


def test_a_replay_seed_of_any_other_length_is_refused(client: Client) -> None:
    for length in (0, 1, 31, 33, 64):
        r = refusal(lambda n=length: client.NewGame(pb.NewGameRequest(variant="sultan-36", replay_seed=bytes(n))))
        assert (r.code, r.reason, r.metadata["field"], r.metadata["length"]) == (
            grpc.StatusCode.INVALID_ARGUMENT, "BAD_REPLAY_SEED", "replay_seed", str(length))  # fmt: skip
    assert client.NewGame(pb.NewGameRequest(variant="sultan-36", replay_seed=bytes(32))).game.dealt == "replay"


def test_a_replay_or_a_public_deal_takes_nothing_else_that_chooses_the_deal(client: Client) -> None:
    minted = client.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator())
    prepared = client.PrepareGame(pb.PrepareGameRequest())
    others: dict[str, Any] = {
        "deal_ticket": minted.deal_ticket,
        "client_seed": b"mine",
        "prepared_id": prepared.prepared_id,
    }
    for field, value in (("replay_seed", SEED), ("deal_number", 7)):
        for other, given in [*others.items(), ("deal_number" if field == "replay_seed" else "replay_seed", None)]:
            if given is None:
                given = 7 if other == "deal_number" else SEED
            request = pb.NewGameRequest(**{field: value, other: given})  # the ticket names the variant
            if other != "deal_ticket":
                request.variant = "sultan-36"
            r = refusal(lambda q=request: client.NewGame(q))
            assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "DEAL_FIELDS_CONFLICT"), (field, other)
            assert {r.metadata["field"], r.metadata["conflicts_with"]} == {field, other}
    # the refusals used up neither the preparation nor anything else
    mixed = client.NewGame(
        pb.NewGameRequest(variant="sultan-36", client_seed=b"mine", prepared_id=prepared.prepared_id)
    )
    assert mixed.game.dealt == "random"


# -- numbered public deals -------------------------------------------------------------------------------------


def test_deal_number_n_is_one_deal_for_everyone_and_its_seed_is_the_published_rule(client: Client) -> None:
    a = client.NewGame(pb.NewGameRequest(variant="sultan-36", deal_number=7))
    b = client.NewGame(pb.NewGameRequest(variant="sultan-36", deal_number=7))
    other = client.NewGame(pb.NewGameRequest(variant="sultan-36", deal_number=8))
    seed = hashlib.sha256(b"patience-public-deal|7").digest()
    assert (a.game.dealt, a.game.deal_number) == ("public", 7)
    assert a.game.commitment == b.game.commitment == hashlib.sha256(seed).digest() != other.game.commitment
    assert a.game.view == b.game.view != other.game.view
    assert a.game.view == view_message(player_view(get_game("sultan-36"), get_game("sultan-36").deal(seed)))
    # the same number in another game: the same seed, that game's deal
    cats = client.NewGame(pb.NewGameRequest(variant="cats-tail", deal_number=7)).game
    assert cats.commitment == a.game.commitment and cats.dealt == "public"
    won = win(client, a.game, a.game_token, seed)
    assert (won.dealt, won.deal_number) == ("public", 7)
    assert (won.certificate.dealt, won.certificate.deal_number, won.certificate.seed) == ("public", 7, seed)
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=won.certificate.encoded, replay=True))
    assert checked.valid and (checked.certificate.dealt, checked.certificate.deal_number) == ("public", 7)


def test_deal_numbers_run_from_one_to_the_largest_uint32(client: Client) -> None:
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", deal_number=0)))
    assert (r.code, r.reason, r.metadata["field"]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_DEAL_NUMBER",
        "deal_number",
    )
    for n in (1, 4_294_967_295):
        game = client.NewGame(pb.NewGameRequest(variant="sultan-36", deal_number=n)).game
        assert (game.dealt, game.deal_number) == ("public", n)
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="klondike", deal_number=3)))
    assert r.reason == "UNKNOWN_VARIANT"
