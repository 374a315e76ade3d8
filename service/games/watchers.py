"""What a replica keeps for its WatchGame streams: the games they follow (one subscription and one read per change,
whatever the number of watchers) and the stream slots (per replica, per client address).

A watcher never waits for another: a game's latest answer is read once and shared, and each watcher takes the
latest when it is ready for it. One that is slow to take its messages simply skips the versions it was too slow
for (its queue holds one entry, the latest), and nothing it does holds back the others.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from service import errors

#: A read of the game: what a followed game shares between its watchers.
Shown = TypeVar("Shown")

#: Seconds a refused client is told to wait before opening a stream again (RetryInfo, Retry-After).
RETRY_AFTER = 5


class Followed(Generic[Shown]):
    """One game this replica's watchers follow: ``changed`` is its listener (the store's notifications), ``read``
    the game as last read, read again once a change was announced, by one watcher for all."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.watchers = 0
        self.latest: Shown | None = None
        self.latest_version = 0
        self.read_at = 0.0  # time.monotonic() when the latest read began
        self.stale = True
        self.lock = asyncio.Lock()
        #: Set when the game changed (then replaced by a new one): a watcher takes it before it reads, and waits on it.
        self.tick = asyncio.Event()

    def changed(self, version: int) -> None:
        """A notification: the game is at ``version`` now (0: it may have changed). The watchers wake."""
        if version and self.latest is not None and version <= self.latest_version:
            return  # a notification that crossed a read which saw it already
        self.stale = True
        self.wake()

    def wake(self) -> None:
        self.tick.set()
        self.tick = asyncio.Event()

    async def read(
        self, fetch: Callable[[str], Awaitable[tuple[int, Shown]]], *, fresher_than: float = 0.0
    ) -> tuple[int, Shown]:
        """The game's version and answer: as last read unless a change was announced since, or that read began
        before ``fresher_than`` (``time.monotonic()``: a watcher whose game may have expired meanwhile)."""
        async with self.lock:
            if self.latest is None or self.stale or self.read_at < fresher_than:
                self.stale = False  # a change announced while this read runs makes it stale again
                self.read_at = time.monotonic()
                try:
                    self.latest_version, self.latest = await fetch(self.game_id)
                except BaseException:
                    self.stale = True
                    raise
            assert self.latest is not None
            return self.latest_version, self.latest


class Slots:
    """The streams open on this replica, in all and per client address: a stream takes a slot before it starts
    and gives it back when it ends (``--watch-streams``, ``--watch-per-client``)."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self.open = 0
        self.by_client: Counter[str] = Counter()

    def take(self, client: str) -> None:
        """One slot for ``client``; RESOURCE_EXHAUSTED (WATCH_STREAMS_PER_CLIENT, WATCH_STREAMS_FULL) when none."""
        if self.by_client[client] >= self.per_client:
            raise errors.watch_streams_per_client(self.per_client, RETRY_AFTER)
        if self.open >= self.total:
            raise errors.watch_streams_full(self.total, RETRY_AFTER)
        self.open += 1
        self.by_client[client] += 1

    def give(self, client: str) -> None:
        self.open -= 1
        self.by_client[client] -= 1
        if self.by_client[client] <= 0:
            del self.by_client[client]
