"""Retries: exponential backoff on UNAVAILABLE, only for calls that are safe to send twice.

A real server that is down and then comes up on the same port (no mocks): the
client keeps trying the reads and the version-guarded writes, and gives up at
once on the calls that would create something twice.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis_support
from client_harness import ServiceThread, seed_for
from patience.v1 import patience_pb2 as pb
from patience_client import (
    NO_RETRY,
    AsyncPatienceClient,
    ClientSettings,
    PatienceClient,
    RetryPolicy,
    ServiceError,
    ServiceUnavailable,
)

from engine.catalogue import get_game

FAST = RetryPolicy(max_attempts=40, initial_backoff=0.05, max_backoff=0.3, multiplier=2.0, jitter=0.1)


def test_backoff_grows_exponentially_up_to_the_cap_with_jitter_below() -> None:
    exact = RetryPolicy(max_attempts=6, initial_backoff=0.2, max_backoff=1.0, multiplier=2.0, jitter=0.0)
    assert list(exact.backoffs()) == [0.2, 0.4, 0.8, 1.0, 1.0]
    jittered = list(RetryPolicy(max_attempts=6, jitter=0.5).backoffs(random.Random(7)))
    assert len(jittered) == 5
    for got, base in zip(jittered, [0.2, 0.4, 0.8, 1.6, 3.0], strict=True):
        assert base * 0.5 <= got <= base
    assert list(NO_RETRY.backoffs()) == []
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)


class Retries:
    """Records the client's on_retry calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, float, grpc.StatusCode]] = []

    def __call__(self, rpc: str, attempt: int, pause: float, error: ServiceError) -> None:
        self.calls.append((rpc, attempt, pause, error.code))


def start_later(server: ServiceThread, delay: float) -> threading.Thread:
    def run() -> None:
        time.sleep(delay)
        server.start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def port() -> int:
    return redis_support.free_port()


@pytest.fixture
def keys_dir(tmp_path: Path) -> Path:
    return tmp_path / "keys"


@pytest.fixture
def servers() -> Iterator[list[ServiceThread]]:
    started: list[ServiceThread] = []
    yield started
    for s in started:
        if s.server is not None:
            s.stop()


def test_a_read_waits_for_a_server_that_comes_up(
    redis_db: str, port: int, keys_dir: Path, servers: list[ServiceThread]
) -> None:
    server = ServiceThread(redis_db, keys_dir, port=port)
    servers.append(server)
    retries = Retries()
    with PatienceClient(ClientSettings(target=f"127.0.0.1:{port}", retry=FAST, timeout=5)) as client:
        client.on_retry = retries
        starter = start_later(server, 1.0)
        t0 = time.monotonic()
        variants = client.list_variants()
        starter.join()
    assert variants and time.monotonic() - t0 >= 1.0
    assert retries.calls and all(c[0] == "ListVariants" and c[3] == grpc.StatusCode.UNAVAILABLE for c in retries.calls)
    assert [c[1] for c in retries.calls] == list(range(1, len(retries.calls) + 1))


def test_a_guarded_move_survives_a_server_restart(
    redis_db: str, port: int, keys_dir: Path, servers: list[ServiceThread]
) -> None:
    first = ServiceThread(redis_db, keys_dir, port=port).start()
    servers.append(first)
    retries = Retries()
    with PatienceClient(ClientSettings(target=first.target, retry=FAST, timeout=5)) as client:
        client.on_retry = retries
        gid = client.new_game("cats-tail").game.game_id
        first.stop()
        second = ServiceThread(redis_db, keys_dir, port=port)
        servers.append(second)
        starter = start_later(second, 0.8)
        game = get_game("cats-tail")
        move = next(iter(game.legal_moves(game.deal(seed_for(0))))).text()
        resp = client.apply_move(gid, move, expected_version=1)
        starter.join()
        assert resp.game.version == 2 and resp.applied.text == move
        assert {c[0] for c in retries.calls} == {"ApplyMove"}
        # the game lives in Redis, not in the server: every call goes on
        assert client.get_game(gid, include_moves=True).moves == [move]


def test_calls_that_would_create_twice_are_not_retried(redis_db: str, port: int) -> None:
    retries = Retries()
    few = RetryPolicy(max_attempts=3, initial_backoff=0.01, max_backoff=0.02)
    with PatienceClient(ClientSettings(target=f"127.0.0.1:{port}", retry=few, timeout=2)) as client:
        client.on_retry = retries
        for call in (
            lambda: client.new_game("cats-tail"),
            lambda: client.submit_solution(["d"], game_id="g", token="t"),
            lambda: client.mint_deal("cats-tail", operator_key="k"),
            lambda: client.resign("g", token="t"),  # no version: a repeat is not guarded
        ):
            with pytest.raises(ServiceUnavailable) as info:
                call()
            assert info.value.attempts == 1
        assert retries.calls == []
        # the guarded and read calls do retry, up to max_attempts
        for guarded in (
            lambda: client.resign("g", expected_version=3, token="t"),
            lambda: client.apply_move("g", "1-2", expected_version=1, token="t"),
            lambda: client.undo_move("g", expected_version=2, token="t"),
            lambda: client.get_game("g", token="t"),
            lambda: client.legal_moves("g", token="t"),
            lambda: client.get_signing_keys(),
            lambda: client.verify_certificate(b"x"),
        ):
            with pytest.raises(ServiceUnavailable) as info:
                guarded()
            assert info.value.attempts == 3
        assert len(retries.calls) == 7 * 2


def test_the_asyncio_client_retries_too(redis_db: str, port: int, keys_dir: Path, servers: list[ServiceThread]) -> None:
    server = ServiceThread(redis_db, keys_dir, port=port)
    servers.append(server)
    retries = Retries()

    async def scenario() -> list[pb.Variant]:
        async with AsyncPatienceClient(ClientSettings(target=f"127.0.0.1:{port}", retry=FAST, timeout=5)) as client:
            client.on_retry = retries
            with pytest.raises(ServiceUnavailable) as info:
                await client.new_game("cats-tail")
            assert info.value.attempts == 1
            starter = start_later(server, 0.8)
            variants = await client.list_variants()
            await asyncio.to_thread(starter.join)
            return variants

    assert asyncio.run(scenario())
    assert retries.calls and {c[0] for c in retries.calls} == {"ListVariants"}
