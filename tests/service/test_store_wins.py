"""A win signed before its write is kept by that write (``SignedWin``), on a single Redis and on a Redis Cluster:
kept with the finish time it names while the game is as it was signed, and never kept -- the game closed at the
write's own time -- when a hint was counted, the owner unlinked, or the time does not fit, since the read. And the
write a ranked win adds, its board entry."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.encoding import encode_state
from engine.moves import Move
from service.store import GameRecord, NewGameRecord, RedisGameStore, SignedWin, StoreStatus, open_store

T = TypeVar("T")
SEED = bytes(range(32))
LINE = tuple(Move.parse(t) for t in ("1-r1", "2-r2", "3-f"))


@pytest.fixture(params=["single", "cluster"])
def url(request: pytest.FixtureRequest) -> str:
    fixture = "redis_db" if request.param == "single" else "redis_cluster_db"
    return str(request.getfixturevalue(fixture))


def with_store(url: str, body: Callable[[RedisGameStore], Awaitable[T]]) -> T:
    async def main() -> T:
        store = open_store(url, idle_seconds=600)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def new_game(game_id: str, owner: str = "") -> NewGameRecord:
    game = get_game("royal-retinue")
    extra: dict[str, Any] = {"owner": owner, "owner_name": "Ada", "owner_kind": "guest"} if owner else {}
    return NewGameRecord(
        game_id=game_id,
        token_hash=hashlib.sha256(game_id.encode()).digest(),
        variant=game.id,
        options=game.options_text(),
        seed=SEED,
        state=encode_state(game, game.deal(SEED)),
        **extra,
    )


async def near_win(store: RedisGameStore, game_id: str, owner: str = "") -> GameRecord:
    """A game one move before its win, read with its log as the service reads it before signing."""
    record = await store.create(new_game(game_id, owner))
    for move in LINE[:-1]:
        record = await store.set_state(game_id, record.version, b"s", move, previous=record)
    return await store.fetch(game_id, moves=True)


def signed(read: GameRecord, **changes: Any) -> SignedWin:
    """What the service passes: a certificate (any bytes here: the store never reads them) naming the read's clock,
    hint count and owner."""
    win = SignedWin(b"certificate of " + read.game_id.encode(), read.now, read.hint_count, read.owner)
    return replace(win, **changes)


#: The three writes that win: one move, several moves at once (AutoPlay), a submitted solution.
WRITES: dict[str, Callable[[RedisGameStore, GameRecord, SignedWin], Awaitable[GameRecord]]] = {
    "set_state": lambda store, read, win: store.set_state(
        read.game_id, read.version, b"won", LINE[-1], status=StoreStatus.WON, previous=read, win=win
    ),
    "set_state, whole reply": lambda store, read, win: store.set_state(
        read.game_id, read.version, b"won", LINE[-1], status=StoreStatus.WON, win=win
    ),
    "play_moves": lambda store, read, win: store.play_moves(
        read.game_id, read.version, b"won", LINE[-1:], status=StoreStatus.WON, win=win
    ),
    "replace": lambda store, read, win: store.replace(
        read.game_id, read.version, b"won", LINE, status=StoreStatus.WON, played="submitted", win=win
    ),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_win_signed_before_its_write_is_kept_by_it_with_its_finish_time(url: str, write: str) -> None:
    async def body(store: RedisGameStore) -> tuple[GameRecord, GameRecord, SignedWin]:
        read = await near_win(store, "g1", owner="p_owner")
        win = signed(read)
        return await WRITES[write](store, read, win), await store.fetch("g1"), win

    written, stored, win = with_store(url, body)
    assert written.certificate == stored.certificate == win.certificate
    assert written.finished_at == stored.finished_at == win.finished_at
    assert stored.status == "won" and stored.updated_at >= stored.finished_at
    assert replace(written, now=stored.now, moves=None) == stored


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("since", ["a hint", "the owner unlinked", "an earlier time", "a later time"])
def test_a_win_whose_game_changed_since_its_read_is_closed_now_and_keeps_nothing(
    url: str, write: str, since: str
) -> None:
    async def body(store: RedisGameStore) -> tuple[GameRecord, GameRecord, SignedWin]:
        read = await near_win(store, "g1", owner="p_owner")
        win = signed(read)
        if since == "a hint":
            await store.count_hint("g1", read.version)
        elif since == "the owner unlinked":
            assert await store.unlink_owner("g1", "p_owner")
        elif since == "an earlier time":
            win = replace(win, finished_at=read.updated_at - 1)
        else:
            win = replace(win, finished_at=read.now + 3_600_000)
        return await WRITES[write](store, read, win), await store.fetch("g1"), win

    written, stored, win = with_store(url, body)
    assert written.certificate == stored.certificate == b""
    assert stored.status == "won" and stored.finished_at == stored.updated_at
    assert written.finished_at == stored.finished_at
    if since.endswith("time"):  # (a hint's or an erasure's write may fall in the same millisecond as the read)
        assert stored.finished_at != win.finished_at


def test_the_write_that_wins_without_a_certificate_is_as_before(redis_db: str) -> None:
    """No ``win`` (a server without signing keys): the game closes at the write's time and keeps nothing."""

    async def body(store: RedisGameStore) -> GameRecord:
        read = await near_win(store, "g1")
        await store.set_state("g1", read.version, b"won", LINE[-1], status=StoreStatus.WON, previous=read)
        return await store.fetch("g1")

    stored = with_store(redis_db, body)
    assert stored.certificate == b"" and stored.finished_at == stored.updated_at > 0


@settings(max_examples=25)
@given(hints=st.integers(0, 3), signed_hints=st.integers(0, 3), owner=st.sampled_from(["", "p_a", "p_b"]))
def test_kept_exactly_when_the_signed_counts_are_the_games(
    redis_url: str, hints: int, signed_hints: int, owner: str
) -> None:
    """Whatever the hints counted and the owner named, the certificate is kept exactly when it names the game's
    own hint count and owner, and the game's finish time is then the certificate's."""

    async def body(store: RedisGameStore) -> tuple[GameRecord, GameRecord]:
        game_id = f"h{hints}{signed_hints}{owner or 'x'}"
        await store.delete(game_id)
        record = await near_win(store, game_id, owner="p_a")
        for _ in range(hints):  # a hint counts once a version: a move between two
            await store.count_hint(game_id, record.version)
            record = await store.set_state(game_id, record.version, b"s", Move.parse("4-r3"), previous=record)
        read = await store.fetch(game_id, moves=True)
        win = signed(read, hint_count=signed_hints, owner=owner)
        written = await store.set_state(
            game_id, read.version, b"won", LINE[-1], status=StoreStatus.WON, previous=read, win=win
        )
        return written, read

    written, read = with_store(redis_url, body)
    holds = signed_hints == hints and owner == "p_a"
    assert (written.certificate != b"") is holds
    assert written.finished_at == (read.now if holds else written.updated_at)


def test_a_board_entry_and_its_players_index_on_either_redis(url: str) -> None:
    """A win's board entry (the board's script, then the player's index of boards in one pipelined round trip):
    the index names the board and lives as long as the board, on a single Redis and across a cluster's slots."""
    from patience.boards import rank_key

    from service.store.boards import BoardEntry, Boards

    async def body(store: RedisGameStore) -> tuple[list[str], int, int, list[str]]:
        boards = Boards(store.client, store.key_prefix)
        until = 4_000_000_000_000
        entry = BoardEntry("p_a", "Ada", "guest", "g1", 290, 0, 0, 1000, 2000, "moves", b"certificate")
        for board in ("public-cats-tail-1", "public-cats-tail-2"):
            assert await boards.enter(board, entry, rank_key(0, 290, 1000, 2000), until)
        listed = await boards.boards_of("p_a")
        expiry = int(await store.client.pexpiretime(boards.index_key("p_a")))
        removed = await boards.erase_player("p_a")
        return listed, expiry, removed, await boards.boards_of("p_a")

    listed, expiry, removed, after = with_store(url, body)
    assert listed == ["public-cats-tail-1", "public-cats-tail-2"] and expiry == 4_000_000_000_000
    assert removed == 2 and after == []
