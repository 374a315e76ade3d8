"""AutoPlay end to end over gRPC and REST: a real server, a real Redis.

Every safe move of the engine (engine.solver.autoplay) in one write, each move in the log; the legal case and
its illegal neighbours (a stale version, a game that is over, a wrong token) refused as ApplyMove refuses them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import grpc
import httpx
import pytest
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, refusal, settings_for

from engine.catalogue import get_game
from engine.solver import autoplay, solve
from engine.view import player_view
from service.games.convert import view_message
from service.security.signing import KeyRing

KEY_RING = KeyRing.generate()


def seed_of(name: str) -> bytes:
    return hashlib.sha256(name.encode()).digest()


#: sultan-36 deals: one safe move at the deal, two, none.
ONE_SAFE, TWO_SAFE = seed_of("t-0"), seed_of("t-4")


@pytest.fixture(scope="module")
def seeds() -> FixedSeeds:
    return FixedSeeds()


@pytest.fixture(scope="module")
def server(redis_url: str, seeds: FixedSeeds) -> Iterator[ServerThread]:
    srv = ServerThread(
        settings_for(redis_url, http_listen="127.0.0.1:0", store_prefix="autoplay"),
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


def new_game(client: Client, seeds: FixedSeeds, seed: bytes, variant: str = "sultan-36") -> tuple[pb.Game, str]:
    seeds.seeds.insert(0, seed)
    reply = client.NewGame(pb.NewGameRequest(variant=variant))
    return reply.game, reply.game_token


def test_autoplay_applies_every_safe_move_in_one_write(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, TWO_SAFE)
    engine_game = get_game("sultan-36")
    final, moves = autoplay(engine_game, engine_game.deal(TWO_SAFE))
    assert len(moves) == 2
    reply = client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=1), metadata=bearer(token))
    assert [m.text for m in reply.applied] == [m.text() for m in moves]
    assert all(m.move.target.kind == pb.PILE_KIND_FOUNDATION for m in reply.applied)
    assert (reply.game.version, reply.game.move_count) == (3, 2)  # one version per move, as ApplyMove counts
    assert reply.game.view == view_message(player_view(engine_game, final))
    listed = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=bearer(token))
    assert list(listed.game.moves) == [m.text() for m in moves] and listed.game.version == 3
    # Nothing safe is left: the game unchanged, no moves, and no error.
    again = client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=3), metadata=bearer(token))
    assert list(again.applied) == [] and again.game.version == 3 and again.game.view == reply.game.view


def test_undo_takes_the_moves_back_one_by_one(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, TWO_SAFE)
    engine_game = get_game("sultan-36")
    start = engine_game.deal(TWO_SAFE)
    _, moves = autoplay(engine_game, start)
    client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=1), metadata=bearer(token))
    undone = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=3), metadata=bearer(token))
    assert undone.undone.text == moves[1].text() and undone.game.move_count == 1 and undone.game.version == 4
    after_first, _ = engine_game.play(start, moves[0])
    assert undone.game.view == view_message(player_view(engine_game, after_first))
    undone = client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=4), metadata=bearer(token))
    assert undone.undone.text == moves[0].text() and undone.game.move_count == 0
    assert undone.game.view == view_message(player_view(engine_game, start))


def test_a_win_by_autoplay_is_a_win_with_a_certificate(client: Client, seeds: FixedSeeds) -> None:
    engine_game = get_game("sultan-36")
    start = engine_game.deal(ONE_SAFE)
    line = solve(engine_game, start, max_states=20_000)
    assert line.outcome.value == "won"
    # Play the line until what is left is safe moves only, then let AutoPlay finish.
    states = [start]
    for move in line.moves:
        states.append(engine_game.play(states[-1], move)[0])
    finishes = [autoplay(engine_game, s) for s in states]
    k = next(i for i, (end, safe) in enumerate(finishes) if safe and engine_game.is_won(end))
    game, token = new_game(client, seeds, ONE_SAFE)
    for version, move in enumerate(line.moves[:k], start=1):
        client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=move.text()),
            metadata=bearer(token),
        )
    reply = client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=k + 1), metadata=bearer(token))
    assert reply.game.status == pb.GAME_STATUS_WON and reply.game.seed == ONE_SAFE
    certificate = reply.game.certificate
    assert certificate.played == "moves" and certificate.move_count == k + len(reply.applied)
    assert list(certificate.moves)[k:] == [m.text for m in reply.applied]
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=certificate.encoded, replay=True))
    assert checked.valid, checked.message
    # Over: AutoPlay is refused as ApplyMove is.
    version = reply.game.version
    r = refusal(
        lambda: client.AutoPlay(
            pb.AutoPlayRequest(game_id=game.game_id, expected_version=version), metadata=bearer(token)
        )
    )
    assert (r.code, r.reason, r.metadata["status"]) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER", "won")


def test_refusals_are_apply_moves(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, ONE_SAFE)
    gid = game.game_id

    def both(version: int, metadata: tuple[tuple[str, str], ...]) -> tuple[object, object]:
        auto = refusal(
            lambda: client.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=version), metadata=metadata)
        )
        move = refusal(
            lambda: client.ApplyMove(
                pb.ApplyMoveRequest(game_id=gid, expected_version=version, text="s"), metadata=metadata
            )
        )
        return (auto.code, auto.reason, auto.metadata), (move.code, move.reason, move.metadata)

    stale, stale_move = both(2, bearer(token))
    assert stale == stale_move and stale[:2] == (grpc.StatusCode.ABORTED, "STALE_VERSION")
    wrong, wrong_move = both(1, bearer("not-the-token"))
    assert wrong == wrong_move and wrong[:2] == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_TOKEN")
    missing, _ = both(0, bearer(token))
    assert missing[:2] == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_EXPECTED_VERSION")
    r = refusal(lambda: client.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=1)))
    assert (r.code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
    # The legal neighbour of all of them: the right version and token.
    reply = client.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=1), metadata=bearer(token))
    assert len(reply.applied) == 1 and reply.game.version == 2
    # A stale version is refused even when nothing would be played.
    r = refusal(lambda: client.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=1), metadata=bearer(token)))
    assert (r.code, r.reason, r.metadata["current_version"]) == (grpc.StatusCode.ABORTED, "STALE_VERSION", "2")
    # Resigned: over.
    client.Resign(pb.ResignRequest(game_id=gid), metadata=bearer(token))
    over, over_move = both(3, bearer(token))
    assert over == over_move and over[:2] == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")


def test_autoplay_over_rest(server: ServerThread, seeds: FixedSeeds) -> None:
    base = f"http://127.0.0.1:{server.server.http_port}"
    seeds.seeds.insert(0, TWO_SAFE)
    with httpx.Client(base_url=base, timeout=30) as http:
        dealt = http.post("/v1/games", json={"variant": "sultan-36"}).json()
        gid, headers = dealt["game"]["gameId"], {"authorization": f"Bearer {dealt['gameToken']}"}
        stale = http.post(f"/v1/games/{gid}/autoplay", json={"expectedVersion": "2"}, headers=headers)
        assert stale.status_code == 409 and stale.json()["details"][0]["reason"] == "STALE_VERSION"
        reply = http.post(f"/v1/games/{gid}/autoplay", json={"expectedVersion": "1"}, headers=headers)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        engine_game = get_game("sultan-36")
        _, moves = autoplay(engine_game, engine_game.deal(TWO_SAFE))
        assert [m["text"] for m in body["applied"]] == [m.text() for m in moves]
        assert body["game"]["version"] == "3" and body["game"]["moveCount"] == 2
        none = http.post(f"/v1/games/{gid}/autoplay", json={"expectedVersion": 3}, headers=headers)
        assert none.status_code == 200 and none.json().get("applied", []) == []
        wrong = http.post(
            f"/v1/games/{gid}/autoplay", json={"expectedVersion": 3}, headers={"authorization": "Bearer x"}
        )
        assert wrong.status_code == 403 and wrong.json()["details"][0]["reason"] == "WRONG_TOKEN"
