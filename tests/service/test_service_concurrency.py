"""Concurrency and statelessness: racing writers, several servers on one Redis, restarts and kills."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import grpc
import pytest
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import (
    Client,
    FixedSeeds,
    ServerThread,
    bearer,
    operator,
    refusal,
    running,
    settings_for,
    start_process,
)

from engine.catalogue import get_game
from engine.view import player_view
from service.errors import error_info
from service.games.convert import view_message

SEED = bytes.fromhex("c0ffee" * 10 + "c0de")


def test_twenty_concurrent_moves_on_one_version_exactly_one_wins(redis_db: str) -> None:
    with running(settings_for(redis_db), seed_source=FixedSeeds(SEED)) as server:

        async def race() -> tuple[pb.NewGameResponse, list[object]]:
            async with grpc.aio.insecure_channel(server.address) as channel:
                stub = pb_grpc.PatienceServiceStub(channel)
                new = await stub.NewGame(pb.NewGameRequest(variant="sultan-52"))
                md = bearer(new.game_token)
                request = pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=1, text="s")
                results = await asyncio.gather(
                    *(stub.ApplyMove(request, metadata=md) for _ in range(20)), return_exceptions=True
                )
                return new, results

        new, results = asyncio.run(race())
        won = [r for r in results if isinstance(r, pb.ApplyMoveResponse)]
        lost = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(won) == 1 and len(lost) == 19, results
        assert won[0].game.version == 2
        for error in lost:
            assert error.code() == grpc.StatusCode.ABORTED
            info = error_info(rpc_status.from_call(error))  # type: ignore[arg-type]
            assert info is not None and info.reason == "STALE_VERSION"
            assert info.metadata["current_version"] == "2" and info.metadata["expected_version"] == "1"
        client = Client(server.address)
        try:
            game = client.GetGame(
                pb.GetGameRequest(game_id=new.game.game_id, include_moves=True), metadata=bearer(new.game_token)
            ).game
        finally:
            client.close()
        assert (game.version, game.move_count, list(game.moves)) == (2, 1, ["s"])  # applied once, not lost


def test_two_servers_share_one_redis(redis_db: str) -> None:
    seeds = FixedSeeds(SEED)
    with running(settings_for(redis_db), seed_source=seeds) as a, running(settings_for(redis_db)) as b:
        ca, cb = Client(a.address), Client(b.address)
        try:
            new = ca.NewGame(pb.NewGameRequest(variant="sultan-36"))
            md = bearer(new.game_token)
            gid = new.game.game_id
            version = 1
            for i in range(6):  # alternate servers move by move
                c = ca if i % 2 else cb
                version = c.ApplyMove(
                    pb.ApplyMoveRequest(game_id=gid, expected_version=version, text="s"), metadata=md
                ).game.version
            assert version == 7
            r = refusal(
                lambda: ca.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=6, text="s"), metadata=md)
            )
            assert (r.code, r.metadata["current_version"]) == (grpc.StatusCode.ABORTED, "7")
            # A replica's memory of the position it wrote last never outvotes Redis: a game moved on elsewhere
            # is ABORTED, whether the move would have been legal or not in the remembered position.
            a_game = ca.NewGame(pb.NewGameRequest(variant="sultan-36"))
            a_md, a_id = bearer(a_game.game_token), a_game.game.game_id
            cb.ApplyMove(pb.ApplyMoveRequest(game_id=a_id, expected_version=1, text="s"), metadata=a_md)
            for text in ("s", "rd", "junk"):
                r = refusal(
                    lambda t=text: ca.ApplyMove(
                        pb.ApplyMoveRequest(game_id=a_id, expected_version=1, text=t), metadata=a_md
                    )
                )
                assert (r.code, r.reason, r.metadata["current_version"]) == (
                    grpc.StatusCode.ABORTED,
                    "STALE_VERSION",
                    "2",
                ), text
            cb.Resign(pb.ResignRequest(game_id=a_id), metadata=a_md)
            r = refusal(
                lambda: ca.ApplyMove(pb.ApplyMoveRequest(game_id=a_id, expected_version=3, text="s"), metadata=a_md)
            )
            assert (r.code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
            ga = ca.GetGame(pb.GetGameRequest(game_id=gid), metadata=md).game
            gb = cb.GetGame(pb.GetGameRequest(game_id=gid), metadata=md).game
            assert ga == gb and ga.move_count == 6
        finally:
            ca.close()
            cb.close()


def test_a_stopped_server_is_replaced_and_the_game_goes_on(redis_db: str) -> None:
    first = ServerThread(settings_for(redis_db), seed_source=FixedSeeds(SEED)).start()
    client = Client(first.address)
    new = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    md = bearer(new.game_token)
    gid = new.game.game_id
    client.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=1, text="s"), metadata=md)
    client.close()
    first.stop()
    with running(settings_for(redis_db)) as second:
        client = Client(second.address)
        try:
            reply = client.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=2, text="s"), metadata=md)
            assert reply.game.version == 3 and reply.game.move_count == 2
            game = get_game("sultan-36")
            state = game.play(game.play(game.deal(SEED), "s")[0], "s")[0]
            assert reply.game.view == view_message(player_view(game, state))
        finally:
            client.close()


@pytest.mark.slow
def test_a_killed_server_process_loses_no_acknowledged_move(redis_db: str, tmp_path: Path) -> None:
    """Two `python -m service` processes on one Redis; one is killed (SIGKILL) mid-game, the other carries on,
    then a fresh process takes over and a SIGTERM stops it gracefully with exit status 0."""
    one = start_process(redis_db, tmp_path)
    two = start_process(redis_db, tmp_path)
    try:
        c1 = Client(one.address)
        new = c1.NewGame(pb.NewGameRequest(variant="captives"))
        md = bearer(new.game_token)
        gid = new.game.game_id
        version = 1
        for _ in range(3):
            version = c1.ApplyMove(
                pb.ApplyMoveRequest(game_id=gid, expected_version=version, text="s"), metadata=md
            ).game.version
        c1.close()
        one.kill()
        c2 = Client(two.address)
        game = c2.GetGame(pb.GetGameRequest(game_id=gid, include_moves=True), metadata=md).game
        assert (game.version, list(game.moves)) == (4, ["s", "s", "s"])
        version = c2.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=4, text="s"), metadata=md).game.version
        ticket = c2.MintDeal(pb.MintDealRequest(variant="tribunal"), metadata=operator()).deal_ticket
        keys = c2.GetSigningKeys(pb.GetSigningKeysRequest()).keys
        c2.close()
        assert two.terminate() == 0  # SIGTERM: graceful stop, exit status 0
        three = start_process(redis_db, tmp_path)
        try:
            c3 = Client(three.address)
            game = c3.GetGame(pb.GetGameRequest(game_id=gid, include_moves=True), metadata=md).game
            assert (game.version, game.move_count) == (5, 4)
            # The replicas share keys: a ticket minted by one opens on another, and the signing keys agree.
            assert c3.NewGame(pb.NewGameRequest(deal_ticket=ticket)).game.variant == "tribunal"
            assert c3.GetSigningKeys(pb.GetSigningKeysRequest()).keys == keys and len(keys) == 1
            c3.close()
        finally:
            three.proc.send_signal(signal.SIGTERM)
            three.proc.wait(20)
    finally:
        one.kill()
        two.kill()
