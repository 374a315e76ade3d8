"""patience_client against a real service and Redis: every method, sync and asyncio, and its typed errors."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from collections.abc import Iterator

import pytest
from client_harness import OPERATOR_KEY, ServiceThread, refused_move, seed_for, service, solution_for, ticket_seed
from patience.v1 import patience_pb2 as pb
from patience_client import (
    AsyncPatienceClient,
    ClientSettings,
    GameNotFound,
    IllegalMove,
    InvalidRequest,
    PatienceClient,
    PermissionDenied,
    RetryPolicy,
    Unauthenticated,
    VersionConflict,
    keys_from_proto,
    move_to_proto,
    verify_certificate,
)

from engine.catalogue import VARIANT_IDS, get_game
from engine.errors import Reason
from engine.moves import Move
from engine.solver import autoplay

__all__ = ["service"]  # the fixture, imported for pytest


def settings(service: ServiceThread, **changes: object) -> ClientSettings:
    base: dict[str, object] = {"target": service.target, "timeout": 20.0, "retry": RetryPolicy(max_attempts=2)}
    return ClientSettings(**{**base, **changes})  # type: ignore[arg-type]


@pytest.fixture
def client(service: ServiceThread) -> Iterator[PatienceClient]:
    with PatienceClient(settings(service, operator_key=OPERATOR_KEY)) as c:
        yield c


def engine_legal(variant: str, seed: bytes, moves: list[str] = []) -> list[str]:  # noqa: B006
    game = get_game(variant)
    state = game.deal(seed)
    for m in moves:
        state = game.play(state, m)[0]
    return sorted(m.text() for m in game.legal_moves(state))


# -- reads ---------------------------------------------------------------------------------------------------------


def test_list_variants_is_the_engine_catalogue(client: PatienceClient) -> None:
    variants = client.list_variants()
    assert [v.id for v in variants] == list(VARIANT_IDS)
    cats = next(v for v in variants if v.id == "cats-tail")
    assert cats.deck_size == 104 and [o.name for o in cats.options] == ["sequence_moves"]


def test_new_game_commits_to_the_seed_and_the_client_keeps_the_token(client: PatienceClient) -> None:
    started = client.new_game("cats-tail", {"sequence_moves": False})
    game = started.game
    assert started.game_token and game.version == 1 and game.status == pb.GAME_STATUS_IN_PROGRESS
    assert game.commitment == hashlib.sha256(seed_for(0)).digest()
    assert game.options["sequence_moves"] == "false"  # bool options go as text
    assert not game.seed  # revealed only at the end
    assert client.credentials.tokens[game.game_id] == started.game_token
    again = client.get_game(game.game_id)  # no token passed: the remembered one is sent
    assert again.version == 1 and list(again.view.columns[0].cards) == list(game.view.columns[0].cards)


def test_get_game_lists_moves_on_request(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    first = engine_legal("cats-tail", seed_for(0))[0]
    client.apply_move(gid, first, expected_version=1)
    assert list(client.get_game(gid, include_moves=True).moves) == [first]
    assert list(client.get_game(gid).moves) == []


def test_legal_moves_are_the_engines(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    resp = client.legal_moves(gid)
    assert resp.version == 1
    assert sorted(m.text for m in resp.moves) == engine_legal("cats-tail", seed_for(0))
    assert all(Move.parse(m.text) == Move.parse(m.text) for m in resp.moves)


# -- writes ----------------------------------------------------------------------------------------------------------


def test_apply_move_takes_text_engine_moves_and_structured_moves(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    played: list[str] = []
    for form in ("text", "engine", "structured"):
        text = engine_legal("cats-tail", seed_for(0), played)[0]
        move: str | Move | pb.Move = text
        if form == "engine":
            move = Move.parse(text)
        elif form == "structured":
            move = move_to_proto(Move.parse(text))
        resp = client.apply_move(gid, move, expected_version=len(played) + 1)
        assert resp.applied.text == text
        played.append(text)
        assert resp.game.version == len(played) + 1 and resp.game.move_count == len(played)


def test_a_refused_move_raises_illegal_move_with_reason_index_and_text(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    text, rule = refused_move("cats-tail", seed_for(0))
    with pytest.raises(IllegalMove) as info:
        client.apply_move(gid, text, expected_version=1)
    err = info.value
    assert err.reason == rule  # one spelling: the engine's code is the API's
    assert err.engine_reason is Reason(rule)
    assert err.move_index == 0 and err.move_text == text
    assert err.domain == "patience.v1" and err.message
    assert client.get_game(gid).version == 1  # nothing changed


def test_bad_notation_is_an_invalid_request(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    with pytest.raises(InvalidRequest) as info:
        client.apply_move(gid, "3~7", expected_version=1)
    assert info.value.reason == "BAD_NOTATION" and info.value.engine_reason is Reason.BAD_NOTATION
    with pytest.raises(InvalidRequest) as bad_variant:
        client.new_game("no-such-game")
    assert bad_variant.value.engine_reason is Reason.UNKNOWN_VARIANT


def test_undo_takes_back_the_last_move_unless_the_game_forbids_it(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    first = engine_legal("cats-tail", seed_for(0))[0]
    client.apply_move(gid, first, expected_version=1)
    resp = client.undo_move(gid, expected_version=2)
    assert resp.undone.text == first and resp.game.version == 3 and resp.game.undo_count == 1
    with pytest.raises(IllegalMove) as nothing:
        client.undo_move(gid, expected_version=3)
    assert nothing.value.reason == "NOTHING_TO_UNDO"

    strict = client.new_game("cats-tail", allow_undo=False).game
    assert not strict.allow_undo
    client.apply_move(strict.game_id, engine_legal("cats-tail", seed_for(1))[0], expected_version=1)
    with pytest.raises(IllegalMove) as forbidden:
        client.undo_move(strict.game_id, expected_version=2)
    assert forbidden.value.reason == "UNDO_FORBIDDEN"


def test_resign_reveals_the_seed_and_ends_the_game(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    game = client.resign(gid, expected_version=1)
    assert game.status == pb.GAME_STATUS_RESIGNED and game.seed == seed_for(0)
    with pytest.raises(IllegalMove) as over:
        client.apply_move(gid, engine_legal("cats-tail", seed_for(0))[0], expected_version=game.version)
    assert over.value.reason == "GAME_OVER"
    # without a version guard too
    other = client.new_game("sultan-36").game.game_id
    assert client.resign(other).seed == seed_for(1)


def test_a_prepared_game_mixes_the_committed_server_seed(client: PatienceClient) -> None:
    prepared = client.prepare_game()
    started = client.new_game("tribunal", client_seed=b"mine", prepared_id=prepared.prepared_id)
    assert started.game.server_seed_commitment == prepared.server_seed_commitment
    over = client.resign(started.game.game_id)
    assert hashlib.sha256(over.server_seed).digest() == prepared.server_seed_commitment
    with pytest.raises(GameNotFound) as used:  # NOT_FOUND, whatever the resource
        client.new_game("tribunal", client_seed=b"mine", prepared_id=prepared.prepared_id)
    assert used.value.reason == "PREPARED_NOT_FOUND"
    with pytest.raises(InvalidRequest) as bare:
        client.new_game("tribunal", prepared_id=client.prepare_game().prepared_id)
    assert bare.value.reason == "PREPARED_NEEDS_CLIENT_SEED"


def test_a_replay_and_a_public_deal_say_how_they_were_dealt(client: PatienceClient) -> None:
    first = client.new_game("sultan-36").game
    over = client.resign(first.game_id)
    again = client.new_game("sultan-36", replay_seed=over.seed).game
    assert (again.dealt, again.commitment, again.view) == ("replay", first.commitment, first.view)
    public = client.new_game("sultan-36", deal_number=42).game
    assert (public.dealt, public.deal_number) == ("public", 42)
    assert public.commitment == hashlib.sha256(hashlib.sha256(b"patience-public-deal|42").digest()).digest()
    won = client.submit_solution(
        solution_for("sultan-36", hashlib.sha256(b"patience-public-deal|42").digest()), game_id=public.game_id
    )
    check = client.verify_offline(won.certificate, replay=True)
    assert check.valid and check.contents is not None
    assert (check.contents.dealt, check.contents.deal_number) == ("public", 42)
    with pytest.raises(InvalidRequest) as both:
        client.new_game("sultan-36", replay_seed=over.seed, deal_number=42)
    assert both.value.reason == "DEAL_FIELDS_CONFLICT"
    with pytest.raises(InvalidRequest) as short:
        client.new_game("sultan-36", replay_seed=b"x" * 31)
    assert short.value.reason == "BAD_REPLAY_SEED"
    with pytest.raises(InvalidRequest) as zero:
        client.new_game("sultan-36", deal_number=0)
    assert zero.value.reason == "BAD_DEAL_NUMBER"
    with pytest.raises(ValueError, match="deal number"):
        client.new_game("sultan-36", deal_number=1 << 32)


def test_a_stale_version_is_a_version_conflict_with_the_current_version(client: PatienceClient) -> None:
    gid = client.new_game("cats-tail").game.game_id
    client.apply_move(gid, engine_legal("cats-tail", seed_for(0))[0], expected_version=1)
    with pytest.raises(VersionConflict) as info:
        client.apply_move(gid, engine_legal("cats-tail", seed_for(0))[0], expected_version=1)
    assert info.value.current_version == 2
    with pytest.raises(VersionConflict):
        client.undo_move(gid, expected_version=1)
    assert client.refresh(gid).version == 2


def test_a_session_re_reads_the_game_after_a_conflict(client: PatienceClient, service: ServiceThread) -> None:
    started = client.new_game("cats-tail")
    mine = client.session(started.game)
    with PatienceClient(settings(service)) as other_client:
        theirs = other_client.session(started.game.game_id, token=started.game_token)
        legal = engine_legal("cats-tail", seed_for(0))
        theirs.move(legal[0])  # another device plays first
    with pytest.raises(VersionConflict) as info:
        mine.move(legal[1])
    assert info.value.game is not None and info.value.game.version == 2
    assert mine.version == 2  # the session continues from the fresh game
    after = engine_legal("cats-tail", seed_for(0), [legal[0]])
    resp = mine.move(after[0])
    assert resp.game.version == 3
    # rebase: send the move again at the fresh version (the server judges it again)
    with PatienceClient(settings(service)) as other_client:
        other_client.remember(mine.game_id, started.game_token)
        other_client.session(mine.game_id).undo()
    resp = mine.move(after[0], rebase=True)
    assert resp.applied.text == after[0] and mine.version == 5


def test_hint_and_autoplay(client: PatienceClient) -> None:
    """sultan-36: hidden cards (the hint guesses them), and every move home is safe (AutoPlay plays them)."""
    started = client.new_game("sultan-36")
    gid, seed = started.game.game_id, seed_for(0)
    hint = client.hint(gid)
    assert hint.reason and hint.reason_code in ("WINS_IN_GUESSES", "SAFE_MOVE", "BEST_SCORE")
    assert (hint.version, hint.hint_count, hint.tried) == (1, 1, 6)
    assert hint.move.text in engine_legal("sultan-36", seed)
    assert client.hint(gid) == hint  # the same version: the same hint, counted once
    game = get_game("sultan-36")
    _, safe = autoplay(game, game.deal(seed))
    with pytest.raises(VersionConflict) as stale:
        client.autoplay(gid, expected_version=2)
    assert stale.value.current_version == 1
    played = client.autoplay(gid, expected_version=1)
    assert [m.text for m in played.applied] == [m.text() for m in safe]
    assert played.game.version == 1 + len(safe) and played.game.hint_count == 1
    # A session keeps the version AutoPlay leaves, and asks its own hints.
    session = client.session(played.game)
    again = session.autoplay()
    assert list(again.applied) == [] and session.version == played.game.version
    assert session.hint().hint_count == (2 if safe else 1)


# -- credentials -------------------------------------------------------------------------------------------------


def test_missing_wrong_and_unknown_are_told_apart(client: PatienceClient, service: ServiceThread) -> None:
    gid = client.new_game("cats-tail").game.game_id
    with PatienceClient(settings(service)) as stranger:
        with pytest.raises(Unauthenticated):
            stranger.get_game(gid)
        with pytest.raises(PermissionDenied):
            stranger.get_game(gid, token="not-the-token")
        with pytest.raises(GameNotFound):
            client.get_game("no-such-game-id", token="some-token")
        with pytest.raises((Unauthenticated, PermissionDenied)):
            stranger.mint_deal("cats-tail")


# -- solutions, tickets, certificates ----------------------------------------------------------------------------


def test_submit_solution_wins_with_a_certificate_or_names_the_illegal_move(
    client: PatienceClient, service: ServiceThread
) -> None:
    moves = solution_for("sultan-36", seed_for(0))
    service.seeds.preset.extend([seed_for(0)] * 3)
    gid = client.new_game("sultan-36").game.game_id
    bad = client.submit_solution([*moves[:3], "9-9", *moves[3:]], game_id=gid)
    assert bad.verdict.outcome == pb.OUTCOME_ILLEGAL and bad.verdict.error_index == 3
    assert bad.verdict.error_move_text == "9-9" and bad.verdict.error_reason
    assert bad.game.status == pb.GAME_STATUS_FORFEITED and bad.game.seed == seed_for(0)  # a submission is final
    gid = client.new_game("sultan-36").game.game_id
    short = client.submit_solution(" ".join(moves[:10]), game_id=gid)  # one string, moves separated by spaces
    assert short.verdict.outcome == pb.OUTCOME_UNFINISHED and short.verdict.move_count == 10
    gid = client.new_game("sultan-36").game.game_id
    won = client.submit_solution(moves, game_id=gid)
    assert won.verdict.outcome == pb.OUTCOME_WON and won.game_id == gid
    assert won.certificate.encoded and list(won.certificate.moves) == moves
    assert client.get_game(gid).status == pb.GAME_STATUS_WON


def test_deal_tickets_deal_the_same_game_for_everyone(client: PatienceClient, service: ServiceThread) -> None:
    minted = client.mint_deal("sultan-36", label="daily", valid_seconds=3600)
    assert minted.deal_ticket and minted.variant == "sultan-36"
    a = client.new_game(deal_ticket=minted.deal_ticket).game
    b = client.new_game(deal_ticket=minted.deal_ticket).game
    assert a.game_id != b.game_id and a.commitment == b.commitment == minted.commitment
    assert a.ticket_id == minted.ticket_id
    assert not client.resign(a.game_id).seed  # withheld until the ticket expires: other players share the deal
    moves = solution_for("sultan-36", ticket_seed(service, minted.deal_ticket))
    with pytest.raises(IllegalMove) as refused:  # the deal hides cards: the ticket alone takes no solution
        client.submit_solution(moves, deal_ticket=minted.deal_ticket)
    assert refused.value.reason == "TICKET_DEAL_SECRET"
    won = client.submit_solution(moves, game_id=b.game_id)
    assert won.verdict.outcome == pb.OUTCOME_WON and won.certificate.ticket_id == minted.ticket_id


def test_signing_keys_and_online_certificate_checks(client: PatienceClient) -> None:
    keys = client.get_signing_keys()
    assert keys and all(k.algorithm == "Ed25519" and len(k.public_key) == 32 for k in keys)
    assert any(k.active for k in keys)
    gid = client.new_game("sultan-36").game.game_id
    cert = client.submit_solution(solution_for("sultan-36", seed_for(0)), game_id=gid).certificate
    assert cert.key_id in {k.key_id for k in keys}
    ok = client.verify_certificate(cert, replay=True)
    assert ok.valid and ok.certificate.game_id == gid
    tampered = bytearray(cert.encoded)
    tampered[-1] ^= 1
    bad = client.verify_certificate(bytes(tampered))
    assert not bad.valid and bad.reason

    # offline: the keys fetched once, then no server involved
    offline = client.verify_offline(cert, replay=True)
    assert offline.valid and offline.replayed and offline.contents is not None
    assert offline.contents.game_id == gid and offline.contents.seed == seed_for(0)
    assert offline.contents.final_state_hash == cert.final_state_hash
    keys = keys_from_proto(client.get_signing_keys())
    assert verify_certificate(cert.encoded, keys).valid
    assert verify_certificate(bytes(tampered), keys).reason == bad.reason == "MALFORMED"
    forged = json.loads(cert.encoded)
    payload = json.loads(base64.b64decode(forged["payload"]))
    payload["undo_count"] = 0 if payload["undo_count"] else 1  # a nicer record, not signed by the service
    forged["payload"] = base64.b64encode(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).decode()
    forged_bytes = json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()
    assert verify_certificate(forged_bytes, keys).reason == "BAD_SIGNATURE"
    assert client.verify_certificate(forged_bytes).reason == "BAD_SIGNATURE"


# -- asyncio ---------------------------------------------------------------------------------------------------------


def test_the_asyncio_client_does_the_same(service: ServiceThread) -> None:
    async def scenario() -> None:
        async with AsyncPatienceClient(settings(service, operator_key=OPERATOR_KEY)) as client:
            assert [v.id for v in await client.list_variants()] == list(VARIANT_IDS)
            started = await client.new_game("cats-tail")
            gid = started.game.game_id
            assert (await client.get_game(gid)).version == 1
            legal = await client.legal_moves(gid)
            assert sorted(m.text for m in legal.moves) == engine_legal("cats-tail", seed_for(0))
            text, rule = refused_move("cats-tail", seed_for(0))
            with pytest.raises(IllegalMove) as refused:
                await client.apply_move(gid, text, expected_version=1)
            assert refused.value.engine_reason is Reason(rule)
            assert refused.value.move_index == 0 and refused.value.move_text == text
            first = legal.moves[0].text
            applied = await client.apply_move(gid, first, expected_version=1)
            assert applied.game.version == 2
            assert list((await client.get_game(gid, include_moves=True)).moves) == [applied.applied.text]
            with pytest.raises(VersionConflict) as stale:
                await client.apply_move(gid, first, expected_version=1)
            assert stale.value.current_version == 2
            session = await client.session(gid)
            undone = await session.undo()
            assert undone.undone.text == applied.applied.text and session.version == 3
            assert (await session.legal_moves()) and (await session.move(first)).game.version == 4
            assert (await client.refresh(gid)).version == 4
            hint = await client.hint(gid)
            assert (hint.version, hint.hint_count, hint.reason_code != "") == (4, 1, True)
            assert (await session.hint()) == hint
            with pytest.raises(VersionConflict):
                await client.autoplay(gid, expected_version=3)
            auto = await session.autoplay()
            assert session.version == 4 + len(auto.applied) == auto.game.version
            resigned = await client.resign(gid, expected_version=session.version)
            assert resigned.seed == seed_for(0)

            sultan = (await client.new_game("sultan-36")).game.game_id
            won = await client.submit_solution(solution_for("sultan-36", seed_for(1)), game_id=sultan)
            assert won.verdict.outcome == pb.OUTCOME_WON
            keys = await client.get_signing_keys()
            assert (await client.verify_certificate(won.certificate)).valid
            check = await client.verify_offline(won.certificate, replay=True)
            assert check.valid and check.replayed and check.key_id in {k.key_id for k in keys}
            prepared = await client.prepare_game()
            mixed = await client.new_game("tribunal", client_seed=b"c", prepared_id=prepared.prepared_id)
            assert mixed.game.server_seed_commitment == prepared.server_seed_commitment
            minted = await client.mint_deal("cats-tail")
            assert (await client.new_game(deal_ticket=minted.deal_ticket)).game.ticket_id == minted.ticket_id
            replayed = await client.new_game("cats-tail", replay_seed=seed_for(0))
            assert (replayed.game.dealt, replayed.game.commitment) == ("replay", started.game.commitment)
            public = await client.new_game("cats-tail", deal_number=7)
            assert (public.game.dealt, public.game.deal_number) == ("public", 7)
            with pytest.raises(GameNotFound):
                await client.get_game("nope", token="some-token")

    asyncio.run(scenario())
