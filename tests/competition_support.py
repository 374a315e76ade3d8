"""What the daily-deal and leaderboard tests share (docs/competition.md): a clock the tests move, guests, whole games.

The service reads the time of day through a clock it is given (``create_server(clock=...)``); ``DayClock`` is one a
test sets to noon of a day of its own choosing, and moves a day on, instead of sleeping until midnight. Its days lie
ahead of the real date, so that what Redis keeps until a day's end plus the retention is never already gone.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import threading

from patience.boards import RankKey, rank_key
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer

from service.store import open_store
from service.store.boards import BoardEntry, Boards

_DAYS = itertools.count(3)
_LOCK = threading.Lock()


class DayClock:
    """Unix seconds at noon of a UTC day; ``next_day`` moves it on by 24 hours."""

    def __init__(self) -> None:
        self.now = 0.0
        self.fresh_day()

    def __call__(self) -> float:
        return self.now

    def fresh_day(self) -> dt.date:
        """Noon of a day no earlier test of this process used (each test's daily deals are its own)."""
        with _LOCK:
            day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=next(_DAYS) * 3)
        self.now = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC).timestamp()
        return day

    @property
    def today(self) -> dt.date:
        return dt.datetime.fromtimestamp(self.now, dt.UTC).date()

    def next_day(self) -> None:
        self.now += 86400


def guest(client: Client, name: str) -> str:
    """A new guest's identity token."""
    return str(client.CreateGuest(pb.CreateGuestRequest(display_name=name)).token)


def play(client: Client, game: pb.Game, token: str, moves: list[str]) -> pb.Game:
    """Play ``moves`` move by move from the game's version; the game after the last."""
    version, last = game.version, game
    for text in moves:
        reply = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=text), metadata=bearer(token)
        )
        version, last = reply.game.version, reply.game
    return last


def board_store_round(url: str) -> None:
    """What the board store promises, on ``url`` (one Redis or a cluster): each player's best entry, in rank order,
    paged, with the caller's own rank; erase_player takes a player off every board they are on."""

    async def run() -> None:
        store = open_store(url, idle_seconds=60, key_prefix="lbt")
        boards = Boards(store.client, "lbt")
        until = int((dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).timestamp() * 1000)

        def entry(pid: str, undos: int, moves: int, took: int) -> tuple[BoardEntry, RankKey]:
            e = BoardEntry(pid, pid.upper(), "guest", "g-" + pid, moves, undos, 0, 1000, 1000 + took, "moves", b"{}")
            return e, rank_key(undos, moves, 1000, 1000 + took)

        players = [f"p_{c * 26}" for c in "abcdef"]
        wins = [(0, 200, 50), (1, 150, 10), (0, 200, 40), (0, 180, 90), (2, 100, 1), (0, 199, 999)]
        for board in ("public-cats-tail-1", "public-cats-tail-2"):
            for pid, (undos, moves, took) in zip(players, wins, strict=True):
                e, key = entry(pid, undos, moves, took)
                assert await boards.enter(board, e, key, until)
        worse, key = entry(players[0], 0, 201, 1)
        assert not await boards.enter("public-cats-tail-1", worse, key, until)
        better, key = entry(players[5], 0, 170, 5)
        assert await boards.enter("public-cats-tail-1", better, key, until)
        first = await boards.page("public-cats-tail-1", 0, 4, players[1])
        assert first.total == 6
        assert [e.player_id for e in first.entries] == [players[5], players[3], players[2], players[0]]
        assert first.own is not None and first.own[0] == 5 and first.own[1].undo_count == 1
        rest = await boards.page("public-cats-tail-1", 4, 4)
        assert [e.player_id for e in rest.entries] == [players[4], players[1]] and rest.own is None  # fewer moves first
        assert await boards.boards_of(players[2]) == ["public-cats-tail-1", "public-cats-tail-2"]
        assert await boards.erase_player(players[2]) == 2
        assert await boards.boards_of(players[2]) == []
        for board in ("public-cats-tail-1", "public-cats-tail-2"):
            page = await boards.page(board, 0, 10, players[2])
            assert page.total == 5 and players[2] not in [e.player_id for e in page.entries] and page.own is None
        assert await boards.erase_player(players[2]) == 0
        await store.close()

    asyncio.run(run())
