"""The service on a real 3-master Redis Cluster (started on loopback): the same code as on one Redis."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import grpc
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import Client, FixedSeeds, bearer, running, settings_for

from service.security.signing import KeyRing

FCS = Path(__file__).resolve().parents[1] / "data" / "fcs"


def test_games_on_a_cluster_race_move_and_win(redis_cluster_db: str) -> None:
    fixture = sorted(FCS.glob("cats-tail-*.txt"))[0]
    seed = bytes.fromhex(fixture.stem.rpartition("-")[2])
    moves = fixture.read_text().split()
    seeds = FixedSeeds(*([seed] * 4))
    crypto = (KeyRing.generate(), None)  # both replicas sign with the same key
    cluster = settings_for(redis_cluster_db)
    with running(cluster, seed_source=seeds, crypto=crypto) as a, running(cluster, crypto=crypto) as b:
        # several games: their keys spread over the cluster's slots, each game's keys in one slot
        ca, cb = Client(a.address), Client(b.address)
        try:
            games = [ca.NewGame(pb.NewGameRequest(variant="sultan-52")) for _ in range(3)]

            async def race(new: pb.NewGameResponse) -> list[object]:
                async with grpc.aio.insecure_channel(b.address) as channel:
                    stub = pb_grpc.PatienceServiceStub(channel)
                    request = pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=1, text="s")
                    return await asyncio.gather(
                        *(stub.ApplyMove(request, metadata=bearer(new.game_token)) for _ in range(10)),
                        return_exceptions=True,
                    )

            for new in games:
                results = asyncio.run(race(new))
                assert sum(isinstance(r, pb.ApplyMoveResponse) for r in results) == 1
                assert all(r.code() == grpc.StatusCode.ABORTED for r in results if isinstance(r, grpc.aio.AioRpcError))
                seen = ca.GetGame(pb.GetGameRequest(game_id=new.game.game_id), metadata=bearer(new.game_token))
                assert seen.game.version == 2 and seen.game.move_count == 1

            # a whole Freecell Solver solution played move by move, alternating replicas, to a certified win
            new = ca.NewGame(pb.NewGameRequest(variant="cats-tail"))
            md, gid, version = bearer(new.game_token), new.game.game_id, 1
            for i, move in enumerate(moves):
                client = ca if i % 2 else cb
                reply = client.ApplyMove(
                    pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=move), metadata=md
                )
                version = reply.game.version
            assert reply.game.status == pb.GAME_STATUS_WON
            assert reply.game.HasField("certificate")
            verified = cb.VerifyCertificate(
                pb.VerifyCertificateRequest(certificate=reply.game.certificate.encoded, replay=True)
            )
            assert verified.valid
        finally:
            ca.close()
            cb.close()


def test_a_slot_no_master_serves_is_unavailable_not_internal() -> None:
    """A failover under load can leave redis-py's cluster client with a slot no node covers: it raises
    RedisClusterException ("All slots are not covered", SlotNotCoveredError), which is not a RedisError. The
    store must answer that as "not now" (StoreUnavailable: UNAVAILABLE STORE_UNAVAILABLE), as it answers a
    connection error, never let it through as a bug (INTERNAL): the fault soak's INTERNAL at a master kill."""
    import redis as sync_redis
    from redis_support import start_redis_cluster

    from service.store import StoreUnavailable, open_store

    cluster = start_redis_cluster(masters=3)
    try:
        store = open_store(cluster.url, idle_seconds=60, key_prefix="slots")
        slot = sync_redis.RedisCluster.from_url(cluster.url.replace("redis+cluster://", "redis://")).keyslot(
            store.keys("g1")[0]
        )
        for node_url in cluster.node_urls:  # every node forgets who serves the game's slot
            with sync_redis.Redis.from_url(node_url) as node:
                node.execute_command("CLUSTER", "DELSLOTS", slot)

        async def fetch() -> BaseException | None:
            try:
                await store.fetch("g1")
            except BaseException as exc:  # what the store raises is the subject of the test
                return exc
            finally:
                await store.close()
            return None

        raised = asyncio.run(fetch())
        assert isinstance(raised, StoreUnavailable), repr(raised)
    finally:
        cluster.stop()


def test_watchers_on_a_cluster_see_moves_made_on_another_replica(redis_cluster_db: str) -> None:
    """Sharded pub/sub: each game's channel lives on its own shard; a replica's watchers of games on every shard
    see the moves another replica makes, and a spectator's REST stream too."""
    from watch_support import GrpcWatch, SseWatch

    cluster = settings_for(redis_cluster_db)
    with running(cluster) as a, running(replace(cluster, http_listen="127.0.0.1:0")) as b:
        ca, cb = Client(a.address), Client(b.address)
        streams: list[object] = []
        try:
            games = [ca.NewGame(pb.NewGameRequest(variant="cats-tail", watchable=True)) for _ in range(6)]
            watchers = [GrpcWatch(a.address, new.game.game_id, new.game_token) for new in games]
            spectator = SseWatch(f"http://127.0.0.1:{b.server.http_port}", games[0].game.game_id)
            streams += [*watchers, spectator]
            assert spectator.next().id == "1"
            for new, watcher in zip(games, watchers, strict=True):
                assert watcher.next().game.version == 1
                md = bearer(new.game_token)
                move = cb.LegalMoves(pb.LegalMovesRequest(game_id=new.game.game_id), metadata=md).moves[0].text
                reply = cb.ApplyMove(
                    pb.ApplyMoveRequest(game_id=new.game.game_id, expected_version=1, text=move), metadata=md
                )
                assert watcher.next().game == reply.game
            assert spectator.next().id == "2"
            cb.Resign(pb.ResignRequest(game_id=games[0].game.game_id), metadata=bearer(games[0].game_token))
            assert watchers[0].next().game.status == pb.GAME_STATUS_RESIGNED and watchers[0].end().code == "OK"
            assert spectator.next().data["game"]["status"] == "GAME_STATUS_RESIGNED"
        finally:
            for stream in streams:
                stream.close()  # type: ignore[attr-defined]
            ca.close()
            cb.close()
