"""What one client may cost Redis: a game nobody moves expires soon, and a full Redis refuses a write whole.

Against real Redis servers: a single one whose maxmemory the test lowers below what it holds, and the cluster
fixture for the short life of an unmoved game. A refused write must answer RESOURCE_EXHAUSTED (gRPC) or 503
(REST) with the reason STORE_FULL, never INTERNAL, and must leave nothing behind (the store's write scripts are
declared without ``allow-oom``, so Redis refuses each whole, before its first command).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
import redis
import redis_support
from patience.v1 import patience_pb2 as pb
from service_harness import Client, ServerThread, bearer, refusal, settings_for

from engine.moves import Move
from service.store import GameExpired, NewGameRecord, StoreFull, open_store


@pytest.fixture
def own_redis() -> Iterator[str]:
    """A Redis of this test's own (its maxmemory is changed), in noeviction as every deploy config sets it."""
    node = redis_support.start_redis_process(extra=("--maxmemory-policy", "noeviction"))
    try:
        yield node.url
    finally:
        node.stop()


def _record(game_id: str) -> NewGameRecord:
    return NewGameRecord(
        game_id=game_id, token_hash=bytes(32), variant="cats-tail", options="", seed=bytes(32), state=b"state"
    )


def test_a_full_redis_refuses_every_write_whole_and_the_service_says_so(own_redis: str, tmp_path: Path) -> None:
    settings = settings_for(own_redis, http_listen="127.0.0.1:0", keys_dir=tmp_path, generate_keys=True)
    server = ServerThread(settings).start()
    client = Client(server.address)
    r = redis.Redis.from_url(own_redis)
    try:
        new = client.NewGame(pb.NewGameRequest(variant="captives"))
        md = bearer(new.game_token)
        legal = client.LegalMoves(pb.LegalMovesRequest(game_id=new.game.game_id), metadata=md).moves
        played = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=1, text=legal[0].text), metadata=md
        )
        legal = client.LegalMoves(pb.LegalMovesRequest(game_id=new.game.game_id), metadata=md).moves
        keys_before = sorted(r.keys("*"))
        r.config_set("maxmemory", "1")  # far below what it holds: every write that may add memory is refused

        refusals = [
            refusal(lambda: client.NewGame(pb.NewGameRequest(variant="cats-tail"))),
            refusal(lambda: client.PrepareGame(pb.PrepareGameRequest())),
            refusal(
                lambda: client.ApplyMove(
                    pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=2, text=legal[0].text),
                    metadata=md,
                )
            ),
            refusal(
                lambda: client.SubmitSolution(
                    pb.SubmitSolutionRequest(game_id=new.game.game_id, moves=["s"]), metadata=md
                )
            ),
            refusal(lambda: client.Resign(pb.ResignRequest(game_id=new.game.game_id), metadata=md)),
        ]
        for r_ in refusals:
            assert (r_.code, r_.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL"), r_
        rest = httpx.post(f"http://127.0.0.1:{server.server.http_port}/v1/games", json={"variant": "cats-tail"})
        assert rest.status_code == 503 and rest.json()["details"][0]["reason"] == "STORE_FULL"
        # Reads still work, and nothing was written: no key added, the game where it was.
        again = client.GetGame(pb.GetGameRequest(game_id=new.game.game_id), metadata=md).game
        assert again.version == played.game.version and again.status == pb.GAME_STATUS_IN_PROGRESS
        assert sorted(r.keys("*")) == keys_before

        r.config_set("maxmemory", "0")
        assert client.NewGame(pb.NewGameRequest(variant="cats-tail")).game.version == 1
    finally:
        r.config_set("maxmemory", "0")
        r.close()
        client.close()
        server.stop()


def test_the_store_raises_store_full_and_writes_nothing(own_redis: str) -> None:
    async def body() -> None:
        store = open_store(own_redis, idle_seconds=600)
        r = redis.Redis.from_url(own_redis)
        try:
            await store.create(_record("before"))
            r.config_set("maxmemory", "1")
            with pytest.raises(StoreFull):
                await store.create(_record("after"))
            assert r.exists(*store.keys("after")) == 0  # not even the DEL that opens the script
            (await store.fetch("before")).version == 1  # noqa: B015 - a read runs whatever the memory
            with pytest.raises(StoreFull):
                await store.put_prepared("p1", bytes(32), 60)
        finally:
            r.config_set("maxmemory", "0")
            r.close()
            await store.close()

    asyncio.run(body())


@pytest.mark.parametrize("where", ["single", "cluster"])
def test_a_game_nobody_has_moved_expires_soon(where: str, redis_db: str, request: pytest.FixtureRequest) -> None:
    url = redis_db if where == "single" else request.getfixturevalue("redis_cluster_db")

    async def body() -> None:
        store = open_store(url, idle_seconds=600, fresh_seconds=0.4, retain_seconds=60)
        try:
            fresh = await store.create(_record("fresh"))
            moved = await store.create(_record("moved"))
            assert fresh.expires_at - fresh.updated_at == 400
            moved = await store.set_state("moved", 1, b"state2", Move.parse("1-2"))
            assert moved.expires_at - moved.updated_at == 600_000  # moved once: the idle timeout
            ttl = await store.client.pttl(store.keys("fresh")[0])
            assert 0 < ttl <= 60_400  # Redis drops it after the fresh time and an hour, or the retention if shorter
            await asyncio.sleep(0.5)
            assert (await store.fetch("fresh")).expired
            assert not (await store.fetch("moved")).expired
            with pytest.raises(GameExpired):
                await store.set_state("fresh", 1, b"state2", Move.parse("1-2"))
            await store.set_state("moved", 2, b"state3", Move.parse("2-3"))
        finally:
            await store.close()

    asyncio.run(body())


def test_fresh_timeout_is_a_setting_with_an_hour_by_default() -> None:
    from service.settings.config import Settings, load

    assert Settings().fresh_timeout == 3600
    assert load(["--fresh-timeout", "120"], {}).fresh_timeout == 120
