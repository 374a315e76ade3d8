"""``--durability replica``: a write is acknowledged only once a replica has it (WAIT on the write's own
connection), on a single Redis through the pipelined connection and through redis-py, and on Redis Cluster.

A replica that does not answer (SIGSTOP) makes the write NotReplicated (UNAVAILABLE to the client) after the
timeout instead of an acknowledgement that a failover could take back."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
import redis
import redis_support

from engine.moves import Move
from service.settings.config import load as load_settings
from service.store import NewGameRecord, NotReplicated, RedisGameStore, durability, open_store

T = TypeVar("T")
SEED = bytes(range(32))


def new_game(game_id: str) -> NewGameRecord:
    return NewGameRecord(
        game_id=game_id, token_hash=b"t" * 32, variant="cats-tail", options="", seed=SEED, state=b"s0", allow_undo=True
    )


def run(body: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(body())  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[redis_support.RedisProcess, redis_support.RedisProcess]]:
    primary, replica = redis_support.start_replica_pair()
    try:
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


@pytest.mark.parametrize("path", ["pipe", "redis-py"])
def test_every_acknowledged_write_is_on_the_replica_already(
    pair: tuple[redis_support.RedisProcess, redis_support.RedisProcess], path: str
) -> None:
    primary, replica = pair
    options: dict[str, Any] = {} if path == "pipe" else {"max_connections": 8}  # an option the pipe leaves to redis-py
    reader = redis.Redis.from_url(replica.url)

    async def body() -> None:
        store = open_store(primary.url, idle_seconds=600, key_prefix=f"d{path[0]}", replicas=1, **options)
        assert (store.pipe is not None) == (path == "pipe")
        try:
            await store.create(new_game("g1"))
            record = await store.fetch("g1")
            for i in range(100):
                record = await store.set_state(
                    "g1", record.version, b"state-%d" % i, Move.parse("1-r1"), previous=record
                )
                # acknowledged: the replica has it at once (without WAIT this read would often see the old state)
                assert reader.get(store.keys("g1")[1]) == b"state-%d" % i
        finally:
            await store.close()

    run(body)


def test_a_silent_replica_makes_the_write_unacknowledged(
    pair: tuple[redis_support.RedisProcess, redis_support.RedisProcess],
) -> None:
    primary, replica = pair

    async def body() -> None:
        store = open_store(primary.url, idle_seconds=600, key_prefix="dz", replicas=1, replica_timeout_ms=300)
        try:
            await store.create(new_game("g1"))
            record = await store.fetch("g1")
            replica.proc.send_signal(signal.SIGSTOP)
            try:
                began = time.monotonic()
                with pytest.raises(NotReplicated, match="0 of 1 replicas"):
                    await store.set_state("g1", record.version, b"unconfirmed", Move.parse("1-r1"), previous=record)
                assert time.monotonic() - began >= 0.25  # it waited for the replica
            finally:
                replica.proc.send_signal(signal.SIGCONT)
            # the primary has the write (its fate was unknown, not refused): a client reading back sees it
            again = await store.fetch("g1")
            assert again.version == record.version + 1
            await store.set_state("g1", again.version, b"confirmed", Move.parse("2-r2"), previous=again)
        finally:
            await store.close()

    run(body)


def test_without_a_replica_nothing_is_acknowledged() -> None:
    lone = redis_support.start_redis_process()

    async def body() -> None:
        store = open_store(lone.url, idle_seconds=600, replicas=1, replica_timeout_ms=100)
        try:
            with pytest.raises(NotReplicated):
                await store.create(new_game("g1"))
        finally:
            await store.close()

    try:
        run(body)
    finally:
        lone.stop()


def test_on_a_cluster_the_write_waits_on_its_masters_connection() -> None:
    cluster = redis_support.start_redis_cluster(masters=3, replicas=1)
    try:

        async def body() -> None:
            store = open_store(cluster.url, idle_seconds=600, replicas=1, replica_timeout_ms=300)
            assert isinstance(store, RedisGameStore) and store.is_cluster
            try:
                for n in range(12):  # games spread over the three masters
                    await store.create(new_game(f"game{n:04d}"))
                    record = await store.fetch(f"game{n:04d}")
                    await store.set_state(f"game{n:04d}", record.version, b"s1", Move.parse("1-r1"), previous=record)
                # silence the replica of one game's master: that game's writes are no longer acknowledged
                game = "game0000"
                master = await durability.master_for(store, store.keys(game)[0])
                port = master.connection_pool.connection_kwargs["port"]
                replica = next(
                    n
                    for n in cluster.nodes
                    if redis.Redis.from_url(n.url).info("replication").get("master_port") == port
                )
                record = await store.fetch(game)
                replica.proc.send_signal(signal.SIGSTOP)
                try:
                    with pytest.raises(NotReplicated):
                        await store.set_state(game, record.version, b"s2", Move.parse("2-r2"), previous=record)
                finally:
                    replica.proc.send_signal(signal.SIGCONT)
            finally:
                await store.close()

        run(body)
    finally:
        cluster.stop()


def test_the_setting() -> None:
    assert load_settings([], {}).durability == "primary"
    settings = load_settings(["--durability", "replica", "--durability-timeout", "0.5"], {})
    assert settings.durability == "replica" and settings.durability_timeout == 0.5
    assert load_settings([], {"PATIENCE_DURABILITY": "replica"}).durability == "replica"
    with pytest.raises(SystemExit):
        load_settings(["--durability", "all"], {})
