"""Deal tickets end to end: minting (operator key), playing a ticket's deal, solutions for a ticket."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator

import grpc
import pytest
from patience.v1 import patience_pb2 as pb
from service_harness import Client, ServerThread, bearer, operator, refusal, running, settings_for, solve

from engine.catalogue import get_game
from engine.view import player_view
from service.games.convert import view_message
from service.security.signing import KeyRing
from service.security.tickets import TicketMinter

KEY_RING = KeyRing.generate()
MINTER = TicketMinter.generate()


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[ServerThread]:
    srv = ServerThread(settings_for(redis_url), crypto=(KEY_RING, MINTER))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def mint(client: Client, variant: str = "sultan-36", **kw: object) -> pb.MintDealResponse:
    return client.MintDeal(pb.MintDealRequest(variant=variant, **kw), metadata=operator())  # type: ignore[arg-type]


def test_minting_needs_the_operator_key(client: Client) -> None:
    r = refusal(lambda: client.MintDeal(pb.MintDealRequest(variant="sultan-36")))
    assert (r.code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_OPERATOR_KEY")
    r = refusal(lambda: client.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator("guess")))
    assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_OPERATOR_KEY")
    r = refusal(lambda: mint(client, "klondike"))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_VARIANT")
    r = refusal(lambda: mint(client, "cats-tail", options={"sequence_moves": "sometimes"}))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
    r = refusal(lambda: mint(client, valid_seconds=10**9))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_VALIDITY")


def test_minting_is_refused_without_a_configured_operator_key(redis_url: str) -> None:
    with running(settings_for(redis_url, operator_key=None), crypto=(KEY_RING, MINTER)) as srv:
        c = Client(srv.address)
        try:
            r = refusal(lambda: c.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator()))
            assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "MINTING_DISABLED")
        finally:
            c.close()


def test_a_ticket_deals_the_same_game_to_everyone_and_hides_its_seed(client: Client) -> None:
    minted = mint(client, "cats-tail", options={"sequence_moves": "false"}, label="daily 2026-11-30")
    assert minted.variant == "cats-tail" and dict(minted.options) == {"sequence_moves": "false"}
    seed = MINTER.seed(MINTER.open(minted.deal_ticket, now=int(time.time())))
    assert minted.commitment == hashlib.sha256(seed).digest()
    payload = base64.urlsafe_b64decode(minted.deal_ticket.split(".")[1] + "==")
    assert seed not in payload and seed.hex().encode() not in payload and seed.hex() not in minted.deal_ticket
    one = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
    two = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket, variant="cats-tail"))
    assert one.game.game_id != two.game.game_id and one.game_token != two.game_token
    for g in (one.game, two.game):
        assert g.commitment == minted.commitment and g.ticket_id == minted.ticket_id and not g.seed
        assert dict(g.options) == {"sequence_moves": "false"}
    game = get_game("cats-tail", {"sequence_moves": "false"})
    assert one.game.view == two.game.view == view_message(player_view(game, game.deal(seed)))


@pytest.mark.parametrize("variant", ["royal-retinue", "royal-retinue-aces", "royal-retinue-kings-last"])
def test_a_ticket_signs_sequence_moves_into_a_royal_retinue_deal(client: Client, variant: str) -> None:
    minted = mint(client, variant, options={"sequence_moves": "false"})
    game = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket)).game
    assert game.variant == variant and dict(game.options) == {"sequence_moves": "false"}
    r = refusal(lambda: mint(client, variant, options={"sequence_moves": "sometimes"}))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")


def test_a_deal_v1_ticket_is_refused_with_its_own_reason(client: Client) -> None:
    """A ticket authenticated by our own key but naming the withdrawn deal-v1 (or, minted before tickets named their
    algorithm, none) would deal another layout than it did: refused, never dealt."""
    minted = mint(client)
    data = json.loads(base64.urlsafe_b64decode(minted.deal_ticket.split(".")[1] + "=="))
    assert data["deal"] == "deal-v2"
    for old in ({**data, "deal": "deal-v1"}, {k: v for k, v in data.items() if k != "deal"}):
        payload = json.dumps(old, sort_keys=True, separators=(",", ":")).encode()
        tag = hmac.new(MINTER.key, b"ticket-auth|" + payload, hashlib.sha256).digest()
        text = f"pt1.{b64u(payload)}.{b64u(tag)}"
        r = refusal(lambda t=text: client.NewGame(pb.NewGameRequest(deal_ticket=t)))
        assert (r.code, r.reason, r.metadata["why"]) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_TICKET",
            "UNSUPPORTED_DEAL_ALGORITHM",
        )
        r = refusal(lambda t=text: client.SubmitSolution(pb.SubmitSolutionRequest(deal_ticket=t, moves=["s"])))
        assert (r.code, r.reason, r.metadata["why"]) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_TICKET",
            "UNSUPPORTED_DEAL_ALGORITHM",
        )


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_bad_tickets_are_refused(client: Client) -> None:
    minted = mint(client)
    head, payload, tag = minted.deal_ticket.split(".")
    altered = f"{head}.{payload}.{tag[:-2]}{'AA' if tag[-2:] != 'AA' else 'BA'}"
    foreign_text, _ = TicketMinter.generate().mint("sultan-36", {}, expires_at=int(time.time()) + 60)
    for text, why in ((altered, "BAD_SIGNATURE"), (foreign_text, "UNKNOWN_KEY"), ("pt1.nope", "MALFORMED")):
        r = refusal(lambda t=text: client.NewGame(pb.NewGameRequest(deal_ticket=t)))
        assert (r.code, r.reason, r.metadata["why"]) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_TICKET", why)
        r = refusal(lambda t=text: client.SubmitSolution(pb.SubmitSolutionRequest(deal_ticket=t, moves=["s"])))
        assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_TICKET")
    now = int(time.time())
    expired, _ = MINTER.mint("sultan-36", {}, issued_at=now - 100, expires_at=now - 50)
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(deal_ticket=expired)))
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TICKET_EXPIRED")
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket, variant="sultan-52")))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "TICKET_FIXES_DEAL")
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket, client_seed=b"mine")))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "CLIENT_SEED_WITH_TICKET")


def test_a_resigned_ticket_game_keeps_the_seed_until_the_ticket_expires(client: Client) -> None:
    now = int(time.time())
    text, ticket = MINTER.mint("tribunal", {}, expires_at=now + 2)
    new = client.NewGame(pb.NewGameRequest(deal_ticket=text))
    md = bearer(new.game_token)
    over = client.Resign(pb.ResignRequest(game_id=new.game.game_id), metadata=md).game
    assert over.status == pb.GAME_STATUS_RESIGNED and not over.seed  # others may still be playing this deal
    time.sleep(max(0.0, ticket.expires_at - time.time()) + 0.2)
    later = client.GetGame(pb.GetGameRequest(game_id=new.game.game_id), metadata=md).game
    assert later.seed == MINTER.seed(ticket) and hashlib.sha256(later.seed).digest() == new.game.commitment


def test_a_ticket_with_hidden_cards_is_played_through_new_game(client: Client) -> None:
    """SubmitSolution with the ticket alone would score moves against cards nobody may see while the ticket is
    valid, as often as asked: refused. The ticket's game, dealt by NewGame, takes the solution."""
    minted = mint(client, "sultan-36")
    seed = MINTER.seed(MINTER.open(minted.deal_ticket, now=int(time.time())))
    game = get_game("sultan-36")
    solution = solve(game, game.deal(seed))
    r = refusal(lambda: client.SubmitSolution(pb.SubmitSolutionRequest(deal_ticket=minted.deal_ticket, moves=solution)))
    assert (r.code, r.reason, r.metadata["variant"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "TICKET_DEAL_SECRET",
        "sultan-36",
    )

    def win() -> pb.SubmitSolutionResponse:
        new = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
        request = pb.SubmitSolutionRequest(game_id=new.game.game_id, moves=solution)
        return client.SubmitSolution(request, metadata=bearer(new.game_token))  # type: ignore[no-any-return]

    won = win()
    assert won.verdict.outcome == pb.OUTCOME_WON
    cert = won.certificate
    assert (cert.ticket_id, cert.variant, cert.seed, cert.commitment, cert.played) == (
        minted.ticket_id,
        "sultan-36",
        seed,
        minted.commitment,
        "submitted",
    )
    assert cert.game_id == won.game_id and list(cert.moves) == solution and cert.undo_count == 0
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=cert.encoded, replay=True))
    assert checked.valid, checked.message
    # Another player's solution of the same deal gets its own game id and certificate.
    again = win()
    assert again.game_id != won.game_id and again.certificate.encoded != cert.encoded


def test_a_forfeited_ticket_game_keeps_its_deal_secret_and_the_verdict_too(client: Client) -> None:
    """A failed submission ends the game, but the ticket is still valid for others: no seed, and no detail of
    how the moves failed (it would tell hidden cards of a deal still in play)."""
    minted = mint(client, "captives")
    new = client.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
    request = pb.SubmitSolutionRequest(game_id=new.game.game_id, moves=["s s s w-k"])
    reply = client.SubmitSolution(request, metadata=bearer(new.game_token))
    assert reply.verdict == pb.Verdict(outcome=pb.OUTCOME_NOT_WON, final_status=pb.GAME_STATUS_FORFEITED)
    assert reply.game.status == pb.GAME_STATUS_FORFEITED and not reply.game.seed
    assert not reply.HasField("certificate")


def test_a_ticket_without_hidden_cards_still_takes_a_solution_alone(client: Client) -> None:
    minted = mint(client, "cats-tail")
    reply = client.SubmitSolution(pb.SubmitSolutionRequest(deal_ticket=minted.deal_ticket, moves=["1-1"]))
    assert (reply.verdict.outcome, reply.verdict.error_reason) == (pb.OUTCOME_ILLEGAL, "SAME_PILE")
