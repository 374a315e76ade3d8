"""What the daily-deal and leaderboard tests share (docs/competition.md): a clock the tests move, guests, whole games.

The service reads the time of day through a clock it is given (``create_server(clock=...)``); ``DayClock`` is one a
test sets to noon of a day of its own choosing, and moves a day on, instead of sleeping until midnight. Its days lie
ahead of the real date, so that what Redis keeps until a day's end plus the retention is never already gone.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading

from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer

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
