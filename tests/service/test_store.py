"""The game store against real servers: a single Redis and a 3-master Redis Cluster on loopback."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import pytest
import redis.exceptions

from engine import get_game
from engine.encoding import encode_state
from engine.moves import Move
from service.store import (
    AlreadyExists,
    GameClosed,
    GameExpired,
    GameRecord,
    NewGameRecord,
    NotFound,
    NothingToUndo,
    RedisGameStore,
    StoreUnavailable,
    VersionConflict,
    open_store,
)
from service.store.failures import unavailable as _unavailable

T = TypeVar("T")
SEED = bytes(range(32))


def moves(*texts: str) -> tuple[Move, ...]:
    return tuple(Move.parse(t) for t in texts)


def texts(log: tuple[Move, ...] | None) -> tuple[str, ...] | None:
    """A log as the texts of its moves (what GetGame shows)."""
    return None if log is None else tuple(m.text() for m in log)


MEMORY_GOAL = 2048


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


@pytest.fixture(params=["single", "cluster"])
def url(request: pytest.FixtureRequest) -> str:
    """Each store test runs on a single Redis and on a Redis Cluster, both flushed first."""
    fixture = "redis_db" if request.param == "single" else "redis_cluster_db"
    return str(request.getfixturevalue(fixture))


def with_store(url: str, body: Callable[[RedisGameStore], Awaitable[T]], **options: Any) -> T:
    async def main() -> T:
        store = open_store(url, idle_seconds=options.pop("idle_seconds", 600), **options)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def new_game(game_id: str = "g1", variant: str = "royal-retinue", **kw: Any) -> NewGameRecord:
    game = get_game(variant)
    return NewGameRecord(
        game_id=game_id,
        token_hash=hashlib.sha256(b"token-" + game_id.encode()).digest(),
        variant=variant,
        options=game.options_text(),
        seed=SEED,
        state=encode_state(game, game.deal(SEED)),
        **kw,
    )


def play_random(variant: str, n: int, rng: random.Random) -> list[tuple[str, bytes]]:
    """``n`` random legal moves from the deal, backtracking out of dead ends: (explicit text, encoded state)."""
    game = get_game(variant)
    start = game.deal(SEED)
    path: list[tuple[str, bytes]] = []
    states = [start]
    untried = [rng.sample(list(game.legal_moves(start)), k=len(list(game.legal_moves(start))))]
    while len(path) < n:
        if not untried[-1]:
            assert path, f"{variant}: no line of {n} moves found"
            path.pop(), states.pop(), untried.pop()
            continue
        state, explicit = game.play(states[-1], untried[-1].pop())
        options = list(game.legal_moves(state))
        rng.shuffle(options)
        path.append((explicit.text(), encode_state(game, state)))
        states.append(state)
        untried.append(options)
    return path


# --------------------------------------------------------------------------- create and fetch


def test_create_and_fetch_round_trip(url: str) -> None:
    record = new_game(client_seed=b"c" * 64, server_seed=b"s" * 32, ticket_id="t-123", allow_undo=False)

    async def body(store: RedisGameStore) -> tuple[GameRecord, GameRecord]:
        return await store.create(record), await store.fetch("g1", moves=True)

    created, fetched = with_store(url, body)
    for got in (created, fetched):
        assert got.game_id == "g1"
        assert got.token_hash == record.token_hash
        assert (got.variant, got.options, got.seed) == (record.variant, record.options, record.seed)
        assert (got.client_seed, got.server_seed, got.ticket_id) == (b"c" * 64, b"s" * 32, "t-123")
        assert got.allow_undo is False
        assert got.state == record.state
        assert (got.version, got.status, got.move_count, got.undo_count) == (1, "in-progress", 0, 0)
        assert got.created_at == got.updated_at > 1_600_000_000_000 and got.finished_at == 0
        assert got.open and not got.expired
        assert got.commitment == hashlib.sha256(SEED).digest()
    assert fetched.moves == ()


def test_a_write_given_the_previous_record_reads_back_only_what_changed(url: str) -> None:
    """``set_state(previous=...)`` builds its result from the record it was given and the changed fields: the
    same record a full read gives, for a move and for the move that closes the game."""
    record = new_game(client_seed=b"c" * 8, server_seed=b"s" * 32, ticket_id="t-9", allow_undo=False,
                      dealt="public", deal_number=77)  # fmt: skip

    async def body(store: RedisGameStore) -> list[tuple[GameRecord, GameRecord]]:
        rec = await store.create(record)
        pairs = []
        for text, status in (("1-r1", None), ("2-r2", None), ("3-f", "won")):
            state = b"state-" + text.encode()
            rec = await store.set_state("g1", rec.version, state, Move.parse(text), status=status, previous=rec)
            pairs.append((rec, await store.fetch("g1")))
        return pairs

    for short, full in with_store(url, body):
        assert replace(short, now=full.now) == full
    assert short.status == "won" and short.finished_at > 0 and short.move_count == 3 and short.version == 4
    assert (short.client_seed, short.ticket_id, short.allow_undo) == (b"c" * 8, "t-9", False)


def test_how_a_game_was_dealt_is_kept_and_derived_for_records_without_it(url: str) -> None:
    """``dealt`` and ``deal_number`` round-trip; left empty they come from the ticket id (as a record written
    before the fields existed reads)."""
    given = [
        new_game("d1"),
        new_game("d2", ticket_id="t-1@99"),
        new_game("d3", dealt="replay"),
        new_game("d4", dealt="public", deal_number=4_294_967_295),
    ]

    async def body(store: RedisGameStore) -> list[tuple[str, int]]:
        return [((r := await store.create(g)).dealt, r.deal_number) for g in given] + [
            ((r := await store.fetch(g.game_id)).dealt, r.deal_number) for g in given
        ]

    expected = [("random", 0), ("ticket", 0), ("replay", 0), ("public", 4_294_967_295)]
    assert with_store(url, body) == expected * 2


@pytest.mark.parametrize("number", [-1, 1 << 32, True])
def test_create_refuses_a_deal_number_out_of_range(url: str, number: int) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.create(new_game("d5", dealt="public", deal_number=number))

    with pytest.raises(ValueError, match="deal number"):
        with_store(url, body)


def test_fetch_without_moves_leaves_them_out(url: str) -> None:
    async def body(store: RedisGameStore) -> GameRecord:
        created = await store.create(new_game())
        await store.set_state("g1", created.version, created.state, Move.parse("1-r1"))
        return await store.fetch("g1")

    got = with_store(url, body)
    assert got.moves is None and got.move_count == 1


def test_create_refuses_a_taken_id_and_fetch_an_unknown_one(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.create(new_game())
        with pytest.raises(AlreadyExists):
            await store.create(new_game())
        for bad in ("nope", "", "a{b}", "x" * 65, "a b"):
            with pytest.raises(NotFound):
                await store.fetch(bad)
            with pytest.raises(NotFound):
                await store.set_state(bad, 1, b"s", Move.parse("1-r1"))

    with_store(url, body)


def test_create_refuses_oversized_fields(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        with pytest.raises(ValueError, match="client_seed"):
            await store.create(new_game(client_seed=b"c" * 65))
        with pytest.raises(ValueError, match="game id"):
            await store.create(new_game(game_id="a{b}"))

    with_store(url, body)


# --------------------------------------------------------------------------- moves and the compare-and-set


def test_set_state_appends_to_the_log_and_bumps_the_version(url: str) -> None:
    played = play_random("cats-tail", 30, random.Random(3))

    async def body(store: RedisGameStore) -> tuple[list[int], GameRecord]:
        rec = await store.create(new_game(variant="cats-tail"))
        versions = []
        for text, state in played:
            rec = await store.set_state("g1", rec.version, state, Move.parse(text))
            versions.append(rec.version)
        return versions, await store.fetch("g1", moves=True)

    versions, final = with_store(url, body)
    assert versions == list(range(2, 32))
    assert texts(final.moves) == tuple(text for text, _ in played)
    assert final.move_count == 30 and final.state == played[-1][1]
    assert final.updated_at >= final.created_at


def test_stale_version_is_a_conflict_that_names_the_current_version(url: str) -> None:
    async def body(store: RedisGameStore) -> GameRecord:
        rec = await store.create(new_game())
        await store.set_state("g1", 1, rec.state, Move.parse("1-r1"))
        with pytest.raises(VersionConflict) as err:
            await store.set_state("g1", 1, b"other", Move.parse("2-r2"))
        assert (err.value.expected, err.value.current) == (1, 2)
        with pytest.raises(VersionConflict):
            await store.set_state("g1", 3, b"other", Move.parse("2-r2"))
        return await store.fetch("g1", moves=True)

    final = with_store(url, body)
    assert texts(final.moves) == ("1-r1",) and final.version == 2 and final.state != b"other"


def test_twenty_concurrent_writers_exactly_one_wins(url: str) -> None:
    """20 writers, each with its own connection pool, all at version 1: one move lands, 19 conflicts at 2."""

    async def main() -> tuple[list[object], GameRecord]:
        stores = [open_store(url, idle_seconds=600) for _ in range(20)]
        try:
            await stores[0].create(new_game())
            await asyncio.gather(*(s.ping() for s in stores))  # connections open before the race
            results = await asyncio.gather(
                *(
                    s.set_state("g1", 1, f"state-{i}".encode(), Move.parse(f"{i % 9 + 1}-r{i % 8 + 1}"))
                    for i, s in enumerate(stores)
                ),
                return_exceptions=True,
            )
            return list(results), await stores[0].fetch("g1", moves=True)
        finally:
            for s in stores:
                await s.close()

    results, final = run(main())
    winners = [(i, r) for i, r in enumerate(results) if isinstance(r, GameRecord)]
    losers = [r for r in results if isinstance(r, VersionConflict)]
    assert len(winners) == 1 and len(losers) == 19, results
    assert all(c.current == 2 for c in losers)
    i, won = winners[0]
    assert won.version == 2 == final.version
    assert texts(final.moves) == (f"{i % 9 + 1}-r{i % 8 + 1}",) and final.state == f"state-{i}".encode()


# --------------------------------------------------------------------------- undo


def test_undo_pops_the_last_move_of_every_packed_form(url: str) -> None:
    moves = ["1-r1", "r1-f", "6-8/12", "3,5,5-r", "w-f2", "c3-k", "d", "s", "rd", "1-2/113", "f3-7/999", "9-k"]

    async def body(store: RedisGameStore) -> None:
        rec = await store.create(new_game())
        for n, text in enumerate(moves):
            rec = await store.set_state("g1", rec.version, f"after-{n}".encode(), Move.parse(text))
        for n in range(len(moves) - 1, -1, -1):
            rec = await store.undo("g1", rec.version, f"after-{n - 1}".encode())
            got = await store.fetch("g1", moves=True)
            assert texts(got.moves) == tuple(moves[:n]), n
            assert got.move_count == n and got.undo_count == len(moves) - n
            assert got.state == f"after-{n - 1}".encode()
        with pytest.raises(NothingToUndo) as err:
            await store.undo("g1", rec.version, b"x")
        assert err.value.version == rec.version
        with pytest.raises(VersionConflict):
            await store.undo("g1", rec.version - 1, b"x")

    with_store(url, body)


# --------------------------------------------------------------------------- the end of a game


def test_a_winning_move_closes_the_game(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        rec = await store.create(new_game())
        rec = await store.set_state("g1", 1, b"won-state", Move.parse("1-f"), status="won")
        assert (rec.status, rec.version, rec.open) == ("won", 2, False)
        assert rec.finished_at == rec.updated_at > 0
        for write in (
            store.set_state("g1", 2, b"x", Move.parse("2-f")),
            store.undo("g1", 2, b"x"),
            store.finish("g1", 2, "resigned"),
            store.replace("g1", 2, b"x", [Move.parse("1-r1")]),
        ):
            with pytest.raises(GameClosed) as err:
                await write
            assert err.value.status == "won"
        got = await store.fetch("g1", moves=True)
        assert (got.status, texts(got.moves), got.state, got.version) == ("won", ("1-f",), b"won-state", 2)

    with_store(url, body)


def test_finish_with_and_without_a_version_guard(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.create(new_game("a"))
        await store.create(new_game("b"))
        await store.set_state("a", 1, b"s", Move.parse("1-r1"))
        with pytest.raises(VersionConflict):
            await store.finish("a", 1, "resigned")
        done = await store.finish("a", None, "resigned")
        assert (done.status, done.version, done.state) == ("resigned", 3, b"s") and done.finished_at > 0
        done = await store.finish("b", 1, "resigned")
        assert done.version == 2 and not done.open
        with pytest.raises(ValueError):
            await store.finish("b", None, "in-progress")

    with_store(url, body)


def test_replace_the_log_and_a_game_created_whole(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        rec = await store.create(new_game())
        await store.set_state("g1", 1, b"s1", Move.parse("1-r1"))
        rec = await store.replace("g1", 2, b"final", moves("2-r1", "d", "3-4/2"), status="won", undos=1)
        assert (rec.version, rec.status, rec.move_count, texts(rec.moves)) == (3, "won", 3, ("2-r1", "d", "3-4/2"))
        assert rec.undo_count == 1
        got = await store.fetch("g1", moves=True)
        assert (texts(got.moves), got.state, got.finished_at > 0) == (("2-r1", "d", "3-4/2"), b"final", True)

        whole = await store.create(new_game("t1", moves=moves("1-r1", "s"), status="won", ticket_id="tk"))
        assert (whole.status, whole.move_count, whole.finished_at > 0) == ("won", 2, True)
        got = await store.fetch("t1", moves=True)
        assert texts(got.moves) == ("1-r1", "s") and got.ticket_id == "tk" and not got.open

    with_store(url, body)


# --------------------------------------------------------------------------- expiry


def test_idle_games_expire_then_vanish_and_writes_refresh_the_ttl(url: str) -> None:
    """Every wait here is a lower bound or a poll, so a loaded machine makes the test slower, never wrong."""
    idle, retain = 1.0, 0.6

    async def poll(check: Callable[[], Awaitable[bool]], limit: float = 15.0) -> None:
        deadline = time.monotonic() + limit
        while not await check():
            assert time.monotonic() < deadline, "timed out"
            await asyncio.sleep(0.05)

    async def body(store: RedisGameStore) -> None:
        rec = await store.create(new_game())
        rec = await store.set_state("g1", 1, b"s", Move.parse("1-r1"))
        for key in store.keys("g1")[:3]:  # the checkpoints' list exists from the 128th move on
            ttl = await store.client.pttl(key)
            assert 0 < ttl <= (idle + retain) * 1000, (key, ttl)
        await asyncio.sleep(0.3)
        before = min([await store.client.pttl(k) for k in store.keys("g1")[:3]])
        rec = await store.set_state("g1", rec.version, b"s2", Move.parse("2-r2"))  # a write: the idle clock restarts
        written = time.monotonic()
        after = min([await store.client.pttl(k) for k in store.keys("g1")[:3]])
        assert after > before, (before, after)
        assert not (await store.fetch("g1")).expired

        async def expired() -> bool:
            return (await store.fetch("g1")).expired

        await poll(expired)
        assert time.monotonic() - written >= idle - 0.05  # not before its time (Redis and this clock may differ)
        got = await store.fetch("g1", moves=True)
        assert got.expired and got.open and texts(got.moves) == ("1-r1", "2-r2")  # readable (seed revealable) ...
        with pytest.raises(GameExpired):
            await store.set_state("g1", got.version, b"s3", Move.parse("3-r3"))  # ... but closed to moves
        with pytest.raises(GameExpired):
            await store.undo("g1", got.version, b"s")

        async def gone() -> bool:
            try:
                await store.fetch("g1")
            except NotFound:
                return True
            return False

        await poll(gone)  # and gone after the retention time
        assert time.monotonic() - written >= idle + retain - 0.05
        assert not any([await store.client.exists(k) for k in store.keys("g1")])

    with_store(url, body, idle_seconds=idle, retain_seconds=retain)


def test_a_finished_game_is_kept_for_the_retention_time(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.create(new_game())
        await store.finish("g1", 1, "resigned")
        ttls = [await store.client.pttl(k) for k in store.keys("g1")[:2]]
        assert all(1000 < t <= 2000 for t in ttls), ttls

    with_store(url, body, idle_seconds=100, retain_seconds=2)


# --------------------------------------------------------------------------- memory


def game_memory(store: RedisGameStore, game_id: str) -> Awaitable[int]:
    async def total() -> int:
        return sum([(await store.client.memory_usage(k)) or 0 for k in store.keys(game_id)])

    return total()


def test_memory_per_game_after_0_and_200_moves(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """MEMORY USAGE over the game's keys, with real states and real explicit moves of the longest notation."""
    played = play_random("royal-retinue-kings-last", 200, random.Random(0))
    assert sum(len(t) + 1 for t, _ in played) > 1100  # about 6 bytes a move as text (Random(0): 1,180 bytes)

    async def body(store: RedisGameStore) -> tuple[int, int]:
        rec = await store.create(new_game("0123456789abcdefghijkl", variant="royal-retinue-kings-last"))
        fresh = await game_memory(store, rec.game_id)
        for text, state in played:
            rec = await store.set_state(rec.game_id, rec.version, state, Move.parse(text))
        return fresh, await game_memory(store, rec.game_id)

    fresh, full = with_store(url, body)
    with capsys.disabled():
        print(f"\n[memory per game, {url.split(':')[0]}] 0 moves: {fresh} B, 200 moves: {full} B")
    assert 0 < fresh < full < MEMORY_GOAL


# --------------------------------------------------------------------------- cluster specifics and failures


def test_a_games_keys_share_one_cluster_slot(redis_cluster_db: str) -> None:
    async def body(store: RedisGameStore) -> set[int]:
        assert store.is_cluster
        return {int(await store.client.cluster_keyslot(k)) for k in store.keys("some-game-id")}

    assert len(with_store(redis_cluster_db, body)) == 1


def test_games_spread_over_the_cluster_masters(redis_cluster_db: str) -> None:
    async def body(store: RedisGameStore) -> int:
        for i in range(30):
            rec = await store.create(new_game(f"game-{i}"))
            await store.set_state(rec.game_id, 1, b"s", Move.parse("1-r1"))
        nodes = store.client.get_primaries()  # type: ignore[union-attr]
        sizes = [await store.client.dbsize(target_nodes=n) for n in nodes]  # type: ignore[call-arg]
        return sum(1 for s in sizes if s > 0)

    assert with_store(redis_cluster_db, body) == 3


def test_scripts_are_reloaded_after_a_script_flush(redis_db: str) -> None:
    async def body(store: RedisGameStore) -> GameRecord:
        await store.create(new_game())
        await store.client.script_flush()
        return await store.set_state("g1", 1, b"s", Move.parse("1-r1"))

    assert with_store(redis_db, body).version == 2


def test_an_unreachable_redis_is_store_unavailable() -> None:
    import redis_support

    port = redis_support.free_port()

    async def body(store: RedisGameStore) -> None:
        with pytest.raises(StoreUnavailable):
            await store.ping()
        with pytest.raises(StoreUnavailable):
            await store.fetch("g1")

    started = time.monotonic()
    with_store(f"redis://127.0.0.1:{port}/0", body, socket_connect_timeout=1)
    assert time.monotonic() - started < 10


def test_the_store_recovers_when_redis_restarts() -> None:
    """Redis down: StoreUnavailable (no hang, no crash); up again on the same port: the same store works,
    its scripts loaded again (a restarted Redis has none)."""
    import redis_support

    node = redis_support.start_redis_process()
    port = node.port
    try:

        async def body(store: RedisGameStore) -> None:
            nonlocal node
            rec = await store.create(new_game())
            node.stop()
            with pytest.raises(StoreUnavailable):
                await store.set_state("g1", rec.version, b"s", Move.parse("1-r1"))
            node = redis_support.start_redis_process(port=port)
            with pytest.raises(NotFound):  # no persistence in this test server: the game is gone
                await store.fetch("g1")
            rec = await store.create(new_game())
            assert (await store.set_state("g1", rec.version, b"s", Move.parse("1-r1"))).version == 2

        with_store(node.url, body, socket_connect_timeout=1, socket_timeout=2)
    finally:
        node.stop()


# --------------------------------------------------------------------------- prepared server seeds


def test_a_prepared_seed_is_taken_once_and_expires(url: str) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.put_prepared("p1", b"s" * 32, 600)
        with pytest.raises(AlreadyExists):
            await store.put_prepared("p1", b"t" * 32, 600)
        assert await store.take_prepared("p1") == b"s" * 32
        assert await store.take_prepared("p1") is None  # one game per preparation
        assert await store.take_prepared("never") is None
        assert await store.take_prepared("bad id!") is None and await store.take_prepared("x" * 65) is None
        with pytest.raises(ValueError):
            await store.put_prepared("bad id!", b"s", 600)
        with pytest.raises(ValueError):
            await store.put_prepared("p2", b"", 600)
        await store.put_prepared("p3", b"u" * 32, 1)
        await asyncio.sleep(1.2)
        assert await store.take_prepared("p3") is None

    with_store(url, body)


def test_two_takers_of_one_preparation_get_it_once(url: str) -> None:
    async def body(store: RedisGameStore) -> list[bytes | None]:
        await store.put_prepared("race", b"r" * 32, 600)
        return list(await asyncio.gather(*(store.take_prepared("race") for _ in range(10))))

    got = with_store(url, body)
    assert got.count(b"r" * 32) == 1 and got.count(None) == 9


# --------------------------------------------------------------------------- a store that cannot answer now


@pytest.mark.parametrize(
    "error",
    [
        redis.exceptions.ConnectionError("Connection refused"),
        redis.exceptions.TimeoutError("Timeout reading from socket"),
        redis.exceptions.ClusterDownError("Hash slot not served"),  # CLUSTERDOWN, its first word stripped
        redis.exceptions.ClusterError("TTL exhausted."),  # redis-py's cluster client gave up redirecting
        redis.exceptions.TryAgainError("Multiple keys request during rehashing of slot"),
        redis.exceptions.MasterDownError("Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
        redis.exceptions.ReadOnlyError("You can't write against a read only replica."),  # a demoted master
        redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"),
        redis.exceptions.SlotNotCoveredError("Command # 1 (EVALSHA) of pipeline caused error"),
        OSError("Network is unreachable"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_failover_and_restart_errors_are_unavailable_not_internal(error: Exception) -> None:
    """What Redis or redis-py raise during a restart or a cluster failover is StoreUnavailable (UNAVAILABLE to the
    client, who may retry), never an unexpected error (INTERNAL)."""
    assert isinstance(_unavailable(error), StoreUnavailable)


@pytest.mark.parametrize(
    "error",
    [redis.exceptions.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")],
    ids=lambda e: type(e).__name__,
)
def test_a_bug_is_not_mistaken_for_an_outage(error: Exception) -> None:
    assert _unavailable(error) is None
