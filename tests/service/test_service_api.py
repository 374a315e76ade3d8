"""The gRPC API end to end: a real server on a free port, a real Redis, ordinary stubs.

Every error code the API promises is provoked here and its ErrorInfo reason checked.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import pytest
from patience.certificates import CertificateContents
from patience.v1 import patience_pb2 as pb
from service_harness import (
    Client,
    FixedSeeds,
    ServerThread,
    assert_no_secret,
    bearer,
    refusal,
    settings_for,
    solve,
    state_after,
)

from engine.catalogue import VARIANT_IDS, get_game
from engine.encoding import state_hash
from engine.errors import MoveError
from engine.moves import Move
from engine.view import player_view
from service.games import MIX_LABEL
from service.games.convert import view_message
from service.security.signing import KeyRing

SEED = bytes.fromhex("5eed" * 16)
KEY_RING = KeyRing.generate()


@pytest.fixture(scope="module")
def seeds() -> FixedSeeds:
    return FixedSeeds()


@pytest.fixture(scope="module")
def server(redis_url: str, seeds: FixedSeeds) -> Iterator[ServerThread]:
    srv = ServerThread(
        settings_for(redis_url, max_moves=500, max_message_bytes=64 * 1024),
        seed_source=seeds,
        crypto=(KEY_RING, None),
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def new_game(client: Client, seeds: FixedSeeds, variant: str = "sultan-36", seed: bytes = SEED, **kw: object):
    seeds.seeds.insert(0, seed)
    reply = client.NewGame(pb.NewGameRequest(variant=variant, **kw))  # type: ignore[arg-type]
    return reply.game, reply.game_token


# -- catalogue and dealing -------------------------------------------------------------------


def test_list_variants_is_the_catalogue(client: Client) -> None:
    reply = client.ListVariants(pb.ListVariantsRequest())
    assert tuple(v.id for v in reply.variants) == VARIANT_IDS
    cats = next(v for v in reply.variants if v.id == "cats-tail")
    assert cats.deck_size == 104 and cats.name_ru == "Кошачий хвост"
    [opt] = cats.options
    assert (opt.name, opt.type, opt.default_value, list(opt.allowed_values)) == (
        "sequence_moves",
        "bool",
        "true",
        ["true", "false"],
    )


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_new_game_deals_from_the_committed_seed_and_shows_no_secret(
    client: Client, seeds: FixedSeeds, variant: str
) -> None:
    game, token = new_game(client, seeds, variant)
    assert game.version == 1 and game.move_count == 0 and game.undo_count == 0
    assert game.status in (pb.GAME_STATUS_IN_PROGRESS, pb.GAME_STATUS_STUCK)
    assert game.commitment == hashlib.sha256(SEED).digest()
    assert game.deal_algorithm == "deal-v2"
    assert not game.seed and not game.server_seed
    assert game.HasField("expires_at") and not game.HasField("finished_at")
    assert len(token) >= 40
    engine_game = get_game(variant)
    start = engine_game.deal(SEED)
    assert game.view == view_message(player_view(engine_game, start))
    assert_no_secret(game, engine_game, start, SEED)


def test_the_four_king_chain_games_offer_sequence_moves(client: Client) -> None:
    reply = client.ListVariants(pb.ListVariantsRequest())
    with_option = {v.id for v in reply.variants if [o.name for o in v.options] == ["sequence_moves"]}
    assert with_option == {"royal-retinue", "royal-retinue-aces", "royal-retinue-kings-last", "cats-tail"}


def test_options_are_signed_into_the_game(client: Client, seeds: FixedSeeds) -> None:
    game, _ = new_game(client, seeds, "cats-tail", options={"sequence_moves": "false"})
    assert dict(game.options) == {"sequence_moves": "false"}
    game, _ = new_game(client, seeds, "royal-retinue", options={"sequence_moves": "false"})
    assert dict(game.options) == {"sequence_moves": "false"}
    game, _ = new_game(client, seeds, "picture-gallery")
    assert dict(game.options) == {"deals": "2"}


def test_client_seed_is_mixed_in_and_checkable_after_the_end(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-52", client_seed=b"my own luck")
    mixed = hmac.new(SEED, MIX_LABEL + b"my own luck", hashlib.sha256).digest()
    assert game.client_seed == b"my own luck"
    assert game.commitment == hashlib.sha256(mixed).digest()
    engine_game = get_game("sultan-52")
    assert_no_secret(game, engine_game, engine_game.deal(mixed), mixed, (SEED,))
    over = client.Resign(pb.ResignRequest(game_id=game.game_id), metadata=bearer(token)).game
    assert over.seed == mixed and over.server_seed == SEED
    assert hashlib.sha256(over.seed).digest() == game.commitment


def test_a_prepared_game_commits_the_server_seed_before_the_client_seed_is_chosen(
    client: Client, seeds: FixedSeeds
) -> None:
    server_seed = bytes.fromhex("ab" * 32)
    seeds.seeds.insert(0, server_seed)
    prepared = client.PrepareGame(pb.PrepareGameRequest())
    assert prepared.server_seed_commitment == hashlib.sha256(server_seed).digest()
    assert len(prepared.prepared_id) == 24 and prepared.HasField("expires_at")
    assert server_seed not in prepared.SerializeToString()
    # Only now does the player choose: the deal mixes the committed seed, and NewGame draws none of its own.
    seeds.seeds.insert(0, b"\x07" * 32)
    reply = client.NewGame(
        pb.NewGameRequest(variant="sultan-52", client_seed=b"after", prepared_id=prepared.prepared_id)
    )
    game, token = reply.game, reply.game_token
    assert seeds.seeds.pop(0) == b"\x07" * 32
    mixed = hmac.new(server_seed, MIX_LABEL + b"after", hashlib.sha256).digest()
    assert game.commitment == hashlib.sha256(mixed).digest()
    assert game.server_seed_commitment == prepared.server_seed_commitment and not game.server_seed
    engine_game = get_game("sultan-52")
    assert game.view == view_message(player_view(engine_game, engine_game.deal(mixed)))
    assert_no_secret(game, engine_game, engine_game.deal(mixed), mixed, (server_seed,))
    over = client.Resign(pb.ResignRequest(game_id=game.game_id), metadata=bearer(token)).game
    assert over.server_seed == server_seed and over.seed == mixed
    assert hashlib.sha256(over.server_seed).digest() == prepared.server_seed_commitment
    # One game per preparation: the seed is gone once used.
    r = refusal(
        lambda: client.NewGame(
            pb.NewGameRequest(variant="sultan-52", client_seed=b"again", prepared_id=prepared.prepared_id)
        )
    )
    assert (r.code, r.reason, r.metadata["prepared_id"]) == (
        grpc.StatusCode.NOT_FOUND,
        "PREPARED_NOT_FOUND",
        prepared.prepared_id,
    )


def test_an_unprepared_client_seed_game_also_shows_the_server_seed_commitment(
    client: Client, seeds: FixedSeeds
) -> None:
    game, _ = new_game(client, seeds, "sultan-52", client_seed=b"one trip")
    assert game.server_seed_commitment == hashlib.sha256(SEED).digest()
    game, _ = new_game(client, seeds, "sultan-52")
    assert game.server_seed_commitment == b""


def test_prepared_game_refusals_keep_the_preparation(client: Client) -> None:
    prepared = client.PrepareGame(pb.PrepareGameRequest()).prepared_id
    cases = [
        (pb.NewGameRequest(variant="sultan-52", prepared_id=prepared), "PREPARED_NEEDS_CLIENT_SEED", "client_seed"),
        (pb.NewGameRequest(variant="klondike", client_seed=b"c", prepared_id=prepared), "UNKNOWN_VARIANT", "variant"),
        (
            pb.NewGameRequest(variant="sultan-52", client_seed=b"", prepared_id=prepared),
            "BAD_CLIENT_SEED",
            "client_seed",
        ),
        (
            pb.NewGameRequest(variant="sultan-52", client_seed=b"c", prepared_id="x" * 65),
            "BAD_PREPARED_ID",
            "prepared_id",
        ),
        (pb.NewGameRequest(variant="sultan-52", client_seed=b"c", prepared_id=""), "BAD_PREPARED_ID", "prepared_id"),
        (pb.NewGameRequest(deal_ticket="t", prepared_id=prepared), "PREPARED_WITH_TICKET", "prepared_id"),
    ]
    for request, reason, field in cases:
        r = refusal(lambda request=request: client.NewGame(request))
        assert (r.code, r.reason, r.metadata["field"]) == (grpc.StatusCode.INVALID_ARGUMENT, reason, field)
    for unknown in ("0" * 24, "not/an id"):
        r = refusal(
            lambda u=unknown: client.NewGame(pb.NewGameRequest(variant="sultan-52", client_seed=b"c", prepared_id=u))
        )
        assert (r.code, r.reason) == (grpc.StatusCode.NOT_FOUND, "PREPARED_NOT_FOUND")
    # None of the refusals used it up.
    reply = client.NewGame(pb.NewGameRequest(variant="sultan-52", client_seed=b"c", prepared_id=prepared))
    assert reply.game.version == 1 and reply.game.server_seed_commitment


def test_an_unused_preparation_expires(redis_url: str) -> None:
    srv = ServerThread(settings_for(redis_url, prepare_validity=1)).start()
    client = Client(srv.address)
    try:
        prepared = client.PrepareGame(pb.PrepareGameRequest())
        import time

        time.sleep(1.3)
        r = refusal(
            lambda: client.NewGame(
                pb.NewGameRequest(variant="tribunal", client_seed=b"late", prepared_id=prepared.prepared_id)
            )
        )
        assert (r.code, r.reason) == (grpc.StatusCode.NOT_FOUND, "PREPARED_NOT_FOUND")
    finally:
        client.close()
        srv.stop()


def test_unknown_variant_bad_option_and_bad_client_seed_are_invalid_arguments(client: Client) -> None:
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="klondike")))
    assert (r.code, r.reason, r.domain, r.metadata["field"]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "UNKNOWN_VARIANT",
        "patience.v1",
        "variant",
    )
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail", options={"sequence_moves": "maybe"})))
    assert (r.code, r.reason, r.metadata["field"]) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION", "options")
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="tribunal", options={"deals": "3"})))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", client_seed=b"x" * 65)))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CLIENT_SEED")
    r = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", client_seed=b"")))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CLIENT_SEED")
    assert client.NewGame(pb.NewGameRequest(variant="sultan-36", client_seed=b"x" * 64)).game.version == 1


# -- playing ---------------------------------------------------------------------------------


def test_apply_move_as_text_and_structured(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    reply = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token)
    )
    assert reply.applied.text == "s" and reply.applied.move.kind == pb.MOVE_KIND_STOCK
    assert reply.game.version == 2 and reply.game.move_count == 1
    structured = pb.Move(kind=pb.MOVE_KIND_STOCK)
    reply = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=2, structured=structured), metadata=bearer(token)
    )
    assert reply.game.version == 3 and reply.game.move_count == 2
    engine_game, state = state_after("sultan-36", None, SEED, ["s", "s"])
    assert reply.game.view == view_message(player_view(engine_game, state))
    assert_no_secret(reply, engine_game, state, SEED)


def test_applied_move_comes_back_explicit(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "cats-tail")
    legal = client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token))
    to_foundation = next((m for m in legal.moves if m.move.target.kind == pb.PILE_KIND_FOUNDATION), None)
    assert to_foundation is not None, "this seed's deal has a free ace"
    implicit = to_foundation.text.rsplit("f", 1)[0] + "f"  # "3-f1" -> "3-f"
    reply = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text=implicit), metadata=bearer(token)
    )
    assert reply.applied.text == to_foundation.text
    assert reply.applied.move == to_foundation.move
    r = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=bearer(token))
    assert list(r.game.moves) == [to_foundation.text]


def test_legal_moves_are_the_engines(client: Client, seeds: FixedSeeds) -> None:
    for variant in ("cats-tail", "captives", "tribunal", "sultan-52"):
        game, token = new_game(client, seeds, variant)
        reply = client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token))
        engine_game = get_game(variant)
        assert [m.text for m in reply.moves] == [m.text() for m in engine_game.legal_moves(engine_game.deal(SEED))]
        assert reply.version == 1
        for m in reply.moves:  # the structured form says the same as the text
            from service.games.convert import move_from_message

            assert move_from_message(m.move).text() == m.text


def test_refused_move_leaves_the_game_unchanged(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token))
    before = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=bearer(token)).game
    r = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=2, text="rd"), metadata=bearer(token)
        )
    )
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "STOCK_NOT_EMPTY")
    assert r.metadata == {"rule": "STOCK_NOT_EMPTY", "move_index": "1", "move_text": "rd"}
    after = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=bearer(token)).game
    assert after.version == before.version == 2
    assert after.view == before.view and list(after.moves) == list(before.moves) == ["s"]


def test_bad_notation_is_invalid_argument_with_the_move(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    r = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="3-7-2"), metadata=bearer(token)
        )
    )
    assert (r.code, r.reason, r.metadata["move_index"], r.metadata["move_text"]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_NOTATION",
        "0",
        "3-7-2",
    )
    bad = pb.Move(kind=pb.MOVE_KIND_TRANSFER, sources=[pb.PileRef(kind=pb.PILE_KIND_COLUMN)], target=pb.PileRef())
    r = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, structured=bad), metadata=bearer(token)
        )
    )
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_NOTATION")
    r = refusal(
        lambda: client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1), metadata=bearer(token))
    )
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_MOVE")
    r = refusal(lambda: client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, text="s"), metadata=bearer(token)))
    assert (r.code, r.reason, r.metadata["field"]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "MISSING_EXPECTED_VERSION",
        "expected_version",
    )


def test_stale_version_is_aborted_with_the_current_version(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token))
    for expected in (1, 3, 99):
        r = refusal(
            lambda e=expected: client.ApplyMove(
                pb.ApplyMoveRequest(game_id=game.game_id, expected_version=e, text="s"), metadata=bearer(token)
            )
        )
        assert (r.code, r.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
        assert r.metadata == {"expected_version": str(expected), "current_version": "2"}
    r = refusal(
        lambda: client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=1), metadata=bearer(token))
    )
    assert (r.code, r.metadata["current_version"]) == (grpc.StatusCode.ABORTED, "2")


def test_unknown_game_is_not_found(client: Client) -> None:
    for game_id in ("nope", "x" * 64, "{bad}", "a" * 200):
        r = refusal(lambda g=game_id: client.GetGame(pb.GetGameRequest(game_id=g), metadata=bearer("t")))
        assert (r.code, r.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    r = refusal(lambda: client.GetGame(pb.GetGameRequest(), metadata=bearer("t")))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_GAME_ID")


def test_every_call_on_a_game_needs_its_token(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    gid = game.game_id
    calls = {
        "GetGame": lambda md: client.GetGame(pb.GetGameRequest(game_id=gid), metadata=md),
        "ApplyMove": lambda md: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=gid, expected_version=1, text="s"), metadata=md
        ),
        "UndoMove": lambda md: client.UndoMove(pb.UndoMoveRequest(game_id=gid, expected_version=1), metadata=md),
        "LegalMoves": lambda md: client.LegalMoves(pb.LegalMovesRequest(game_id=gid), metadata=md),
        "Resign": lambda md: client.Resign(pb.ResignRequest(game_id=gid), metadata=md),
        "SubmitSolution": lambda md: client.SubmitSolution(
            pb.SubmitSolutionRequest(game_id=gid, moves=["s"]), metadata=md
        ),
    }
    for name, call in calls.items():
        for md in ((), (("authorization", token),), (("authorization", "Bearer "),)):
            r = refusal(lambda c=call, m=md: c(m))
            assert (r.code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN"), name
        for wrong in ("Bearer " + token[:-1], "Bearer " + token + "x", "Bearer someone-elses-token"):
            r = refusal(lambda c=call, w=wrong: c((("authorization", w),)))
            assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_TOKEN"), name
    again = client.GetGame(pb.GetGameRequest(game_id=gid), metadata=(("authorization", "bearer " + token),))
    assert again.game.version == 1 and again.game.move_count == 0


# -- undo, resign, expiry --------------------------------------------------------------------


def test_undo_takes_back_the_last_move_and_is_counted(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    v = 1
    for text in ("s", "s", "s"):
        v = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=v, text=text), metadata=md
        ).game.version
    reply = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=v), metadata=md)
    assert reply.undone.text == "s" and reply.game.version == v + 1
    assert (reply.game.move_count, reply.game.undo_count) == (2, 1)
    engine_game, state = state_after("sultan-36", None, SEED, ["s", "s"])
    assert reply.game.view == view_message(player_view(engine_game, state))
    assert_no_secret(reply, engine_game, state, SEED)
    reply = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=v + 1), metadata=md)
    reply = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=v + 2), metadata=md)
    assert (reply.game.move_count, reply.game.undo_count) == (0, 3)
    assert reply.game.view == game.view
    r = refusal(lambda: client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=v + 3), metadata=md))
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOTHING_TO_UNDO")


def test_undo_can_be_forbidden_at_new_game(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36", allow_undo=False)
    assert not game.allow_undo
    client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token))
    r = refusal(
        lambda: client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=2), metadata=bearer(token))
    )
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "UNDO_FORBIDDEN")
    assert client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token)).game.move_count == 1


def test_resign_ends_the_game_and_reveals_the_seed(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "captives")
    md = bearer(token)
    client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=md)
    r = refusal(lambda: client.Resign(pb.ResignRequest(game_id=game.game_id, expected_version=1), metadata=md))
    assert (r.code, r.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
    over = client.Resign(pb.ResignRequest(game_id=game.game_id), metadata=md).game
    assert over.status == pb.GAME_STATUS_RESIGNED and over.version == 3
    assert over.seed == SEED and hashlib.sha256(over.seed).digest() == game.commitment
    assert over.HasField("finished_at") and not over.HasField("expires_at")
    assert client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=md).game.seed == SEED
    for call in (
        lambda: client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=3, text="s"), metadata=md),
        lambda: client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=3), metadata=md),
        lambda: client.Resign(pb.ResignRequest(game_id=game.game_id), metadata=md),
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=["s"]), metadata=md),
    ):
        r = refusal(call)
        assert (r.code, r.reason, r.metadata["status"]) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "GAME_OVER",
            "resigned",
        )
    assert list(client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=md).moves) == []


def test_idle_game_expires_and_reveals_its_seed(redis_url: str) -> None:
    seeds = FixedSeeds(SEED)
    srv = ServerThread(settings_for(redis_url, idle_timeout=1), seed_source=seeds).start()
    client = Client(srv.address)
    try:
        reply = client.NewGame(pb.NewGameRequest(variant="tribunal"))
        md = bearer(reply.game_token)
        gid = reply.game.game_id
        assert not reply.game.seed
        import time

        time.sleep(1.2)
        game = client.GetGame(pb.GetGameRequest(game_id=gid), metadata=md).game
        assert game.status == pb.GAME_STATUS_EXPIRED and game.seed == SEED and game.HasField("finished_at")
        r = refusal(
            lambda: client.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=1, text="d"), metadata=md)
        )
        assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_EXPIRED")
    finally:
        client.close()
        srv.stop()


# -- winning ---------------------------------------------------------------------------------


def test_a_game_won_through_apply_move_shows_no_secret_until_the_end(client: Client, seeds: FixedSeeds) -> None:
    engine_game = get_game("sultan-36")
    start = engine_game.deal(SEED)
    solution = solve(engine_game, start)
    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    version = game.version
    state = start
    for i, text in enumerate(solution):
        reply = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=text), metadata=md
        )
        state = engine_game.play(state, text)[0]
        version = reply.game.version
        assert reply.game.move_count == i + 1
        if i < len(solution) - 1:
            assert reply.game.status == pb.GAME_STATUS_IN_PROGRESS
            assert_no_secret(reply, engine_game, state, SEED)
            if i % 40 == 0:
                legal = client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=md)
                assert_no_secret(legal, engine_game, state, SEED)
                got = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=md)
                assert_no_secret(got, engine_game, state, SEED)
    assert reply.game.status == pb.GAME_STATUS_WON and reply.game.view.status == pb.GAME_STATUS_WON
    assert reply.game.seed == SEED and reply.game.HasField("finished_at")
    cert = reply.game.certificate
    assert cert.encoded and list(cert.moves) == solution and cert.move_count == len(solution)
    assert (cert.variant, cert.seed, cert.commitment, cert.undo_count) == ("sultan-36", SEED, game.commitment, 0)
    assert cert.game_id == game.game_id and cert.key_id == KEY_RING.active_key_id
    assert cert.started_at == game.created_at and cert.finished_at == reply.game.finished_at
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=cert.encoded, replay=True))
    assert (checked.valid, checked.reason) == (True, "")
    assert checked.certificate == cert
    shown = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=md).game
    assert shown.status == pb.GAME_STATUS_WON and shown.certificate == cert  # re-signed: the same bytes
    r = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text="s"), metadata=md
        )
    )
    assert (r.code, r.reason, r.metadata["status"]) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER", "won")
    r = refusal(
        lambda: client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=version), metadata=md)
    )
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")


def test_verify_certificate_reads_a_member_written_twice_as_malformed(client: Client) -> None:
    """VerifyCertificate reads a certificate the one way docs/certificates.md ("One reading") says: the envelope
    or the payload naming a member twice is MALFORMED, whichever copy is genuine (issue 23: with the genuine
    payload last it was valid, while a viewer reading the first copy showed another payload)."""
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    final = engine_game.deal(SEED)
    for text in solution:
        final = engine_game.play(final, text)[0]
    contents = CertificateContents(
        game_id="g-twice",
        variant="sultan-36",
        options={},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=tuple(solution),
        move_count=len(solution),
        undo_count=0,
        started_at=1,
        finished_at=2,
        final_state_hash=state_hash(engine_game, final),
    )
    genuine = KEY_RING.sign(contents)
    key_id, payload, signature = (json.loads(genuine)[k] for k in ("key_id", "payload", "signature"))
    other = base64.b64encode(replace(contents, undo_count=5).payload(key_id)).decode()

    def members(*pairs: tuple[str, str]) -> bytes:
        return ("{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}").encode()

    def signed(raw: bytes) -> bytes:
        assert KEY_RING.signing_key is not None
        sig = base64.b64encode(KEY_RING.signing_key.sign(raw)).decode()
        return members(("key_id", key_id), ("payload", base64.b64encode(raw).decode()), ("signature", sig))

    raw = base64.b64decode(payload)
    twice = {
        "genuine payload last": members(("key_id", key_id), ("payload", other), ("payload", payload),
                                        ("signature", signature)),
        "genuine payload first": members(("key_id", key_id), ("payload", payload), ("payload", other),
                                         ("signature", signature)),
        "undo_count twice in the payload": signed(raw.replace(b'"undo_count":0', b'"undo_count":5,"undo_count":0')),
        "options twice, nested": signed(raw.replace(b'"options":{}', b'"options":{"x":"1","x":"1"}')),
    }  # fmt: skip
    for replay in (False, True):
        checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=genuine, replay=replay))
        assert (checked.valid, checked.reason) == (True, "")
        for name, certificate in twice.items():
            assert certificate != genuine
            checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=certificate, replay=replay))
            assert (checked.valid, checked.reason) == (False, "MALFORMED"), name


# -- solutions -------------------------------------------------------------------------------


def first_detour(solution: list[str], variant: str = "sultan-36") -> tuple[int, str]:
    """The first index where the solution's position has another legal move, and that move."""
    engine_game = get_game(variant)
    state = engine_game.deal(SEED)
    for k, text in enumerate(solution):
        other = [m.text() for m in engine_game.legal_moves(state) if m.text() != text]
        if other:
            return k, other[0]
        state = engine_game.play(state, text)[0]
    raise AssertionError("the solution is forced all the way")


def test_submitted_solution_verdicts_end_the_game(client: Client, seeds: FixedSeeds) -> None:
    """SubmitSolution on a game in progress is final: a verdict that is not a win forfeits the game and reveals
    its seed, so no verdict ever answers a question about the hidden cards of a game still being played."""
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))

    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    unfinished = client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution[:-1]), metadata=md)
    assert unfinished.verdict.outcome == pb.OUTCOME_UNFINISHED
    assert unfinished.verdict.move_count == len(solution) - 1 and not unfinished.HasField("certificate")
    assert unfinished.verdict.final_state_hash  # one move short of the win: nothing hidden any more
    over = unfinished.game
    assert (over.status, over.seed, over.version, over.move_count) == (pb.GAME_STATUS_FORFEITED, SEED, 2, 0)
    assert over.HasField("finished_at")
    # The game is over: no second question, no move.
    r = refusal(
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=md)
    )
    assert (r.code, r.reason, r.metadata["status"]) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER", "forfeited")
    r = refusal(
        lambda: client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=2, text="s"), metadata=md)
    )
    assert r.reason == "GAME_OVER"
    after = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=md).game
    assert (after.status, after.seed) == (pb.GAME_STATUS_FORFEITED, SEED)
    assert not client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=md).moves

    game, token = new_game(client, seeds, "sultan-36")
    bad = [*solution[:5], "rd", *solution[5:]]
    illegal = client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=bad), metadata=bearer(token))
    v = illegal.verdict
    assert (v.outcome, v.error_index, v.error_reason, v.error_move_text, v.move_count) == (
        pb.OUTCOME_ILLEGAL,
        5,
        "STOCK_NOT_EMPTY",
        "rd",
        5,
    )
    assert v.error_message and not v.final_state_hash  # the final position still hides cards
    assert (illegal.game.status, illegal.game.seed) == (pb.GAME_STATUS_FORFEITED, SEED)

    game, token = new_game(client, seeds, "sultan-36")
    junk = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=["s", "zz top"]), metadata=bearer(token)
    )
    assert (junk.verdict.outcome, junk.verdict.error_index, junk.verdict.error_reason) == (
        pb.OUTCOME_ILLEGAL,
        1,
        "BAD_NOTATION",
    )
    assert junk.game.status == pb.GAME_STATUS_FORFEITED


def test_a_submitted_win_is_certified_as_submitted_and_a_played_one_as_played(
    client: Client, seeds: FixedSeeds
) -> None:
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    for version, move in enumerate(solution[:3], start=1):  # three played, then a take-back of one
        client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=move), metadata=md)
    client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=4), metadata=md)
    won = client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=md)
    assert won.verdict.outcome == pb.OUTCOME_WON and won.game.status == pb.GAME_STATUS_WON
    cert = won.certificate
    assert (cert.played, cert.undo_count, cert.move_count) == ("submitted", 1, len(solution))
    assert won.game.certificate.encoded == cert.encoded
    assert client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=cert.encoded, replay=True)).valid

    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    reply: Any = None
    for version, move in enumerate(solution, start=1):
        reply = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=move), metadata=md
        )
    assert reply.game.status == pb.GAME_STATUS_WON
    assert (reply.game.certificate.played, reply.game.certificate.undo_count) == ("moves", 0)
    again = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=md).game.certificate
    assert again.encoded == reply.game.certificate.encoded  # signed again from the store, to the same bytes


def test_without_undo_a_solution_starts_with_the_played_moves(client: Client, seeds: FixedSeeds) -> None:
    """Decided on the moves the player sees, before any replay: the refusal tells nothing of hidden cards, and
    the game stays open."""
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    game, token = new_game(client, seeds, "sultan-36", allow_undo=False)
    md = bearer(token)
    played = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text=solution[0]), metadata=md
    ).applied.text
    other = ["s" if played != "s" else "rd"]
    r = refusal(lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=other), metadata=md))
    assert (r.code, r.reason, r.metadata["move_index"], r.metadata["taken_back"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "UNDO_FORBIDDEN",
        "0",
        "1",
    )
    assert (
        client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=md).game.status == pb.GAME_STATUS_IN_PROGRESS
    )
    won = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=[played, *solution[1:]]), metadata=md
    )
    assert won.verdict.outcome == pb.OUTCOME_WON and won.certificate.undo_count == 0


def test_submission_limits_are_resource_exhausted(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    r = refusal(
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=["s"] * 501), metadata=md)
    )
    assert (r.code, r.reason, r.metadata["limit"]) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MOVES", "500")
    r = refusal(
        lambda: client.SubmitSolution(
            pb.SubmitSolutionRequest(game_id=game.game_id, moves=[" ".join(["s"] * 501)]), metadata=md
        )
    )
    assert (r.code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MOVES")
    with pytest.raises(grpc.RpcError) as exc:  # over the server's max message size (64 KiB here)
        client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=["s" * 70_000]), metadata=md)
    assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
    r = refusal(lambda: client.SubmitSolution(pb.SubmitSolutionRequest(moves=["s"])))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_DEAL")


def test_the_secret_scan_catches_leaks() -> None:
    """The scan above is only worth something if it fails on a leak: show it the stock, or the seed."""
    engine_game = get_game("tribunal")
    start = engine_game.deal(SEED)
    honest = view_message(player_view(engine_game, start))
    assert_no_secret(honest, engine_game, start, SEED)
    leaky = pb.View()
    leaky.CopyFrom(honest)
    leaky.stock.extend(["AC"])
    with pytest.raises(AssertionError):
        assert_no_secret(leaky, engine_game, start, SEED)
    with pytest.raises(AssertionError):
        assert_no_secret(pb.Game(view=honest, seed=SEED), engine_game, start, SEED)
    with pytest.raises(AssertionError):
        assert_no_secret(pb.Game(view=honest, ticket_id=SEED.hex()), engine_game, start, SEED)


def test_a_solution_submitted_for_a_game_wins_a_certificate_that_counts_dropped_moves(
    client: Client, seeds: FixedSeeds
) -> None:
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    game, token = new_game(client, seeds, "sultan-36")
    md = bearer(token)
    # Play the solution up to its first choice, take a detour, undo it, take it again: the log then ends in one
    # move that the solution drops.
    k, detour = first_detour(solution)
    version = 1
    for text in [*solution[:k], detour]:
        version = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=text), metadata=md
        ).game.version
    version = client.UndoMove(
        pb.UndoMoveRequest(game_id=game.game_id, expected_version=version), metadata=md
    ).game.version
    version = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=detour), metadata=md
    ).game.version
    reply = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=[" ".join(solution)]), metadata=md
    )
    assert reply.verdict.outcome == pb.OUTCOME_WON and reply.game_id == game.game_id
    cert = reply.certificate
    assert list(cert.moves) == solution and cert.undo_count == 2  # one undo + the dropped detour
    assert client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=cert.encoded, replay=True)).valid
    after = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=md).game
    assert after.status == pb.GAME_STATUS_WON and list(after.moves) == solution and after.seed == SEED
    assert after.certificate == cert and after.undo_count == cert.undo_count
    r = refusal(
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=md)
    )
    assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")


def test_without_undo_a_solution_may_not_drop_played_moves(client: Client, seeds: FixedSeeds) -> None:
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    game, token = new_game(client, seeds, "sultan-36", allow_undo=False)
    md = bearer(token)
    k, detour = first_detour(solution)
    version = 1
    for text in [*solution[:k], detour]:
        version = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=text), metadata=md
        ).game.version
    r = refusal(
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=md)
    )
    assert (r.code, r.reason, r.metadata["taken_back"]) == (grpc.StatusCode.FAILED_PRECONDITION, "UNDO_FORBIDDEN", "1")


def test_certificates_verify_and_tampering_is_refused(client: Client, seeds: FixedSeeds) -> None:
    engine_game = get_game("sultan-36")
    solution = solve(engine_game, engine_game.deal(SEED))
    game, token = new_game(client, seeds, "sultan-36")
    cert = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=bearer(token)
    ).certificate
    keys = client.GetSigningKeys(pb.GetSigningKeysRequest()).keys
    assert [(k.key_id, k.algorithm, k.active) for k in keys] == [(KEY_RING.active_key_id, "Ed25519", True)]
    # Offline: anyone with the public key checks the signature without the server.
    import base64
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    envelope = json.loads(cert.encoded)
    payload = base64.b64decode(envelope["payload"])
    Ed25519PublicKey.from_public_bytes(keys[0].public_key).verify(base64.b64decode(envelope["signature"]), payload)
    # One changed move in the signed payload: the signature no longer matches.
    forged = json.loads(payload)
    forged["undo_count"] = 0 if forged["undo_count"] else 5
    envelope["payload"] = base64.b64encode(json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()).decode()
    tampered = json.dumps(envelope, sort_keys=True, separators=(",", ":")).encode()
    reply = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=tampered))
    assert (reply.valid, reply.reason) == (False, "BAD_SIGNATURE")
    reply = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=b"not a certificate"))
    assert (reply.valid, reply.reason) == (False, "MALFORMED")


def shuffle_hidden(game, state, rnd):  # type: ignore[no-untyped-def]
    """``state`` with its hidden cards (stock order unless visible, face-down captives) dealt out differently."""

    stock = list(state.stock)
    slots = [i for i, c in enumerate(state.captives) if c >= 0 and not game.captive_released(state, i)]
    pool = ([] if game.stock_visible(state) else stock) + [state.captives[i] for i in slots]
    rnd.shuffle(pool)
    if not game.stock_visible(state):
        stock, pool = pool[: len(stock)], pool[len(stock) :]
    captives = list(state.captives)
    for i, c in zip(slots, pool, strict=True):
        captives[i] = c
    return state._replace(stock=tuple(stock), captives=tuple(captives))


CANDIDATE_MOVES = ["s", "d", "rd", "w-f", "w-r", "w-1", "1-k", "3-k", "1-2", "2-1", "8-1", "1-f", "5-f"] + [
    f"{a}-{b}" for a in ("c1", "c3", "c7", "r1", "r4", "f1", "f2") for b in ("f", "f1", "f8", "1", "r", "k")
]


@pytest.mark.parametrize("variant", ["tribunal", "picture-gallery", "captives", "sultan-52"])
def test_random_play_never_shows_a_hidden_card_or_the_seed(client: Client, seeds: FixedSeeds, variant: str) -> None:
    """Random legal moves (and undos) through the API; every response is scanned against the engine's hidden
    cards of the position it describes."""
    import random

    rnd = random.Random(variant)
    engine_game = get_game(variant)
    game, token = new_game(client, seeds, variant)
    md = bearer(token)
    played: list[str] = []
    version = game.version
    for step in range(80):
        state = state_after(variant, None, SEED, played)[1]
        legal = client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=md)
        assert_no_secret(legal, engine_game, state, SEED)
        if not legal.moves:
            break
        # A refusal says the same whatever the hidden cards are: the engine refuses the move with the same words
        # in the position with its hidden cards shuffled.
        shuffled = shuffle_hidden(engine_game, state, rnd)
        for text in rnd.sample(CANDIDATE_MOVES, 6):
            if engine_game.is_legal(state, text):
                continue
            r = refusal(
                lambda t=text, v=version: client.ApplyMove(
                    pb.ApplyMoveRequest(game_id=game.game_id, expected_version=v, text=t), metadata=md
                )
            )
            with pytest.raises(MoveError) as again:
                engine_game.play(shuffled, Move.parse(text))
            assert (r.metadata["rule"], r.message) == (again.value.reason.value, again.value.message), text
        if played and step % 7 == 6:
            reply = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=version), metadata=md)
            played.pop()
        else:
            choice = rnd.choice(list(legal.moves))
            reply = client.ApplyMove(
                pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, structured=choice.move),
                metadata=md,
            )
            assert reply.applied.text == choice.text
            played.append(choice.text)
        version = reply.game.version
        state = state_after(variant, None, SEED, played)[1]
        if reply.game.status == pb.GAME_STATUS_WON:
            break
        assert_no_secret(reply, engine_game, state, SEED)
        got = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=md)
        assert list(got.game.moves) == played
        assert_no_secret(got, engine_game, state, SEED)
    assert len(played) > 10


def test_the_final_state_hash_is_given_when_nothing_is_hidden(client: Client, seeds: FixedSeeds) -> None:
    from engine.encoding import state_hash

    engine_game = get_game("cats-tail")  # every card face up from the start
    start = engine_game.deal(SEED)
    first = next(iter(engine_game.legal_moves(start))).text()
    game, token = new_game(client, seeds, "cats-tail")
    reply = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=[first, "9-9"]), metadata=bearer(token)
    )
    v = reply.verdict
    assert (v.outcome, v.error_index, v.move_count) == (pb.OUTCOME_ILLEGAL, 1, 1)
    assert v.final_state_hash == state_hash(engine_game, engine_game.play(start, first)[0])
