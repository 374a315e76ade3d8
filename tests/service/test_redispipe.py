"""The store's pipelined Redis connection (service/store/redispipe.py) against real redis-server processes: replies
reach their callers under concurrency and cancellation, error replies are redis-py's ResponseError and the store
reads them as it reads redis-py's, credentials and db numbers are honoured, a Unix socket works, a frozen Redis
times out and a thawed one is used again, and the store picks the pipe only where it can speak for redis-py."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
import redis.exceptions
import redis_support

from service.store import RedisGameStore, StoreFull, StoreUnavailable, open_store
from service.store.failures import unavailable
from service.store.redispipe import PipelinedRedis, pack_command

T = TypeVar("T")


def run(body: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(body())  # type: ignore[arg-type]


def test_commands_are_packed_as_redis_py_packs_them() -> None:
    from redis.asyncio.connection import Connection

    args = ("EVALSHA", "abc", 3, "k1", b"\x00\xff", 7, 1.5, "ход")
    assert pack_command(args) == b"".join(Connection().pack_command(*args))
    with pytest.raises(redis.exceptions.DataError):
        pack_command(("SET", "k", True))


def test_evalsha_is_packed_as_one_command_whatever_is_cached() -> None:
    pipe = PipelinedRedis(host="127.0.0.1", port=1)
    sha = "a" * 40
    for keys, args in (
        (("{g1}:m", "{g1}:s", "{g1}:l"), ("86400000", "5", b"\x00\xffstate", b"\xf1", "", "1")),
        (("{g1}:m", "{g1}:s", "{g1}:l"), ("86400000", "6", b"other", b"\xf2", "won", "")),  # cached head
        (("{g2}:m",), ()),
        ((), (1, 2.5, "ход")),
    ):
        for _ in range(2):
            assert pipe.pack_evalsha(sha, keys, args) == pack_command(("EVALSHA", sha, len(keys), *keys, *args))
    with pytest.raises(redis.exceptions.DataError):
        pipe.pack_evalsha(sha, ("k",), (True,))


def test_concurrent_calls_each_get_their_own_reply(redis_db: str) -> None:
    async def body() -> None:
        pipe = PipelinedRedis.from_url(redis_db)
        assert pipe is not None
        await asyncio.gather(*(pipe.execute("SET", f"k{i}", f"v{i}") for i in range(300)))
        order = list(range(300))
        random.Random(4).shuffle(order)
        replies = await asyncio.gather(*(pipe.execute("GET", f"k{i}") for i in order))
        assert replies == [f"v{i}".encode() for i in order]
        await pipe.close()

    run(body)


def test_a_cancelled_call_leaves_the_next_reply_to_the_next_caller(redis_db: str) -> None:
    async def body() -> None:
        pipe = PipelinedRedis.from_url(redis_db)
        assert pipe is not None
        await pipe.execute("SET", "a", "1")
        await pipe.execute("SET", "b", "2")
        first = asyncio.ensure_future(pipe.execute("GET", "a"))
        await asyncio.sleep(0)  # queued and flushed, its reply not read yet
        first.cancel()
        assert await pipe.execute("GET", "b") == b"2"
        assert first.cancelled()
        await pipe.close()

    run(body)


def test_error_replies_raise_response_errors_and_the_connection_stays(redis_db: str) -> None:
    async def body() -> None:
        pipe = PipelinedRedis.from_url(redis_db)
        assert pipe is not None
        await pipe.execute("SET", "text", "abc")
        with pytest.raises(redis.exceptions.ResponseError, match="not an integer"):
            await pipe.execute("INCR", "text")
        with pytest.raises(redis.exceptions.ResponseError, match=r"^NOSCRIPT "):  # the reply whole, its code first
            await pipe.execute("EVALSHA", "0" * 40, 0)
        assert await pipe.evalsha("0" * 40, "return 41 + 1", [], []) == 42  # unknown SHA: the script is sent whole
        assert await pipe.execute("GET", "text") == b"abc"
        await pipe.close()

    run(body)


def test_the_store_reads_both_clients_errors_alike_on_real_error_replies(redis_db: str) -> None:
    """The same failing command, through redis-py and through the pipe: both raise a ResponseError, and the store
    makes the same of it (service.store.failures): full (OOM), not now (READONLY), or a plain error (NOPERM, ERR)."""
    admin = redis.Redis.from_url(redis_db)
    admin.acl_setuser("reader", enabled=True, passwords=["+pw"], keys=["*"], commands=["+@read", "+ping"])
    host = redis_db.split("//")[1].split("/")[0]
    cases: list[tuple[str, tuple[Any, ...], type[Exception] | None]] = [
        (redis_db, ("INCR", "text"), None),
        (f"redis://reader:pw@{host}/0", ("SET", "denied", "1"), None),
        (redis_db, ("SET", "big", "x" * 4096), StoreFull),  # under maxmemory: OOM
        (redis_db, ("SET", "on-a-replica", "1"), StoreUnavailable),  # a replica's: READONLY
    ]
    admin.set("text", "abc")
    try:
        for url, command, made in cases:
            if command[1] == "big":
                admin.config_set("maxmemory", 1)
            if command[1] == "on-a-replica":
                admin.replicaof("127.0.0.1", 1)  # a master that never answers: the replica stays read-only
            try:
                with pytest.raises(redis.exceptions.ResponseError) as by_redis_py:
                    redis.Redis.from_url(url).execute_command(*command)

                async def body(url: str = url, command: tuple[Any, ...] = command) -> BaseException:
                    pipe = PipelinedRedis.from_url(url)
                    assert pipe is not None
                    try:
                        with pytest.raises(redis.exceptions.ResponseError) as by_pipe:
                            await pipe.execute(*command)
                    finally:
                        await pipe.close()
                    return by_pipe.value

                by_pipe = run(body)
                assert str(by_pipe).endswith(str(by_redis_py.value)), command  # redis-py drops some code words
                for error in (by_pipe, by_redis_py.value):
                    found = unavailable(error)
                    assert (type(found) if found is not None else None) is made, (command, error)
            finally:
                admin.config_set("maxmemory", 0)
                admin.replicaof("NO", "ONE")
    finally:
        admin.acl_deluser("reader")


def test_the_store_uses_the_pipe_only_where_it_speaks_for_redis_py(redis_db: str, redis_cluster_db: str) -> None:
    assert open_store(redis_db, idle_seconds=60).pipe is not None
    assert open_store(redis_db, idle_seconds=60, socket_timeout=1, socket_connect_timeout=1).pipe is not None
    assert open_store(redis_db, idle_seconds=60, max_connections=3).pipe is None
    tls = open_store(redis_db.replace("redis://", "rediss://"), idle_seconds=60).pipe  # TLS: the pipe too
    assert (
        tls is not None
        and tls.ssl_context is not None
        and open_store(redis_db, idle_seconds=60).pipe.ssl_context is None
    )
    assert PipelinedRedis.from_url(redis_db.replace("redis://", "rediss://"), ssl_check_hostname=False) is None
    assert PipelinedRedis.from_url(redis_db, ssl_ca_certs="ca.pem") is None  # TLS options without TLS: redis-py's call
    assert open_store(redis_cluster_db, idle_seconds=60).pipe is None
    assert PipelinedRedis.from_url(redis_db + "?protocol=3") is None
    pipe = PipelinedRedis.from_url("redis://127.0.0.1:1/0?socket_timeout=0.5")
    assert pipe is not None and pipe.timeout == 0.5 and pipe.connect_timeout == 5.0


def test_credentials_and_the_db_number_are_used(redis_db: str) -> None:
    admin = redis.Redis.from_url(redis_db)
    admin.acl_setuser("player", enabled=True, passwords=["+s3cret"], keys=["*"], commands=["+@all"])
    admin.config_set("requirepass", "rootpw")
    admin = redis.Redis.from_url(redis_db, password="rootpw")
    try:
        host = redis_db.split("//")[1].split("/")[0]

        async def body() -> None:
            store = open_store(f"redis://player:s3cret@{host}/3", idle_seconds=60, key_prefix="acl")
            assert store.pipe is not None
            assert await store.pipe.execute("SET", "here", "db3") == b"OK"
            await store.ping()
            await store.close()
            refused = open_store(f"redis://player:wrong@{host}/3", idle_seconds=60)
            with pytest.raises(StoreUnavailable):
                await refused.ping()
            await refused.close()

        run(body)
        assert redis.Redis.from_url(f"redis://{host}/3", password="rootpw").get("here") == b"db3"
        assert admin.get("here") is None  # not in db 0
    finally:
        admin.config_set("requirepass", "")
        admin.acl_deluser("player")


def test_a_unix_socket(tmp_path: Path) -> None:
    sock = tmp_path / "r.sock"
    node = redis_support.start_redis_process(extra=("--unixsocket", str(sock), "--unixsocketperm", "700"))
    try:

        async def body() -> None:
            pipe = PipelinedRedis.from_url(f"unix://{sock}?db=2")
            assert pipe is not None and pipe.path == str(sock)
            await pipe.execute("SET", "via", "socket")
            assert await pipe.execute("GET", "via") == b"socket"
            await pipe.close()

        run(body)
        assert redis.Redis.from_url(node.url.replace("/0", "/2")).get("via") == b"socket"
    finally:
        node.stop()


def test_a_frozen_redis_times_out_and_a_thawed_one_serves_again() -> None:
    """SIGSTOP: the calls waiting fail after the reply timeout (StoreUnavailable, no hang); SIGCONT: the next
    call opens a new connection and works."""
    node = redis_support.start_redis_process()
    try:

        async def body(store: RedisGameStore) -> None:
            await store.ping()
            os.kill(node.proc.pid, signal.SIGSTOP)
            try:
                started = time.monotonic()
                results: list[Any] = await asyncio.gather(
                    *(store.fetch(f"g{i}") for i in range(5)), return_exceptions=True
                )
                assert all(isinstance(r, StoreUnavailable) for r in results), results
                assert time.monotonic() - started < 5
            finally:
                os.kill(node.proc.pid, signal.SIGCONT)
            await store.ping()

        async def main() -> None:
            store = open_store(node.url, idle_seconds=60, socket_timeout=0.5, socket_connect_timeout=1)
            try:
                await body(store)
            finally:
                await store.close()

        run(main)
    finally:
        node.stop()


def test_one_pipe_across_event_loops(redis_db: str) -> None:
    """asyncio.run twice (tests, the benchmark's memory probe): the second loop gets a connection of its own."""
    pipe = PipelinedRedis.from_url(redis_db)
    assert pipe is not None

    async def first() -> None:
        await pipe.execute("SET", "loop", "1")

    async def second() -> bytes:
        value: bytes = await pipe.execute("GET", "loop")
        await pipe.close()
        return value

    asyncio.run(first())
    assert asyncio.run(second()) == b"1"
