"""Change notifications of games, for their watchers (WatchGame).

Every write script publishes the game's new version on the game's own sharded channel (``SPUBLISH
<prefix>:{<id>}:w``, ``service.store.scripts``): the channel shares the game's hash tag, so on Redis Cluster it
lives on the shard that holds the game and the same script publishes on a single Redis and on a cluster. A replica
subscribes to a channel once (``SSUBSCRIBE``) however many of its callers follow that game, all channels on one
connection per shard (redis-py's ``PubSub``, or its ``ClusterPubSub`` on a cluster), read by one task that calls the
game's followers with the version announced.

Pub/sub rather than streams: nothing is stored per notification, and a notification only says "the game is now at
version N" -- a follower reads the game itself. So a lost notification (a connection dropped and made again) costs
at most a late update, never a wrong one: when a subscription is (re)confirmed the followers are called with
:data:`RESYNC` and read the game again, and so they are when the reader fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPubSub, RedisCluster

log = logging.getLogger(__name__)

#: What a follower is called with when it may have missed a notification: read the game again.
RESYNC = 0
#: How long one read of the subscription connection waits (seconds): a subscription asked for meanwhile waits for
#: it at most this long on a cluster (redis-py's ClusterPubSub serialises a node's reads and writes).
POLL = 0.5
#: After the reader failed, how long it waits before it reads again (seconds).
RETRY = 1.0

Listener = Callable[[int], None]


class GameChanges:
    """The replica's subscriptions to its watched games' channels: :meth:`follow` a game with a listener, called
    with each version announced (or :data:`RESYNC`); :meth:`unfollow` it when done."""

    def __init__(self, client: aioredis.Redis | RedisCluster, key_prefix: str) -> None:
        self.key_prefix = key_prefix
        self.pubsub: Any = client.pubsub()  # redis-py's PubSub, or its ClusterPubSub for a cluster client
        self.listeners: dict[bytes, set[Listener]] = {}
        self.lock = asyncio.Lock()  # subscribe and unsubscribe in turn (each channel's count decides)
        self.reader: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()  # something to read: the reader waits on it while nothing is followed
        self.closed = False
        self._warned = 0.0

    def channel(self, game_id: str) -> bytes:
        """The game's channel: its meta key and ``:w`` (the write scripts' ``KEYS[1] .. ':w'``)."""
        return f"{self.key_prefix}:{{{game_id}}}:w".encode()

    async def follow(self, game_id: str, listener: Listener) -> None:
        """Call ``listener`` with each version the game is written at, from now until :meth:`unfollow`; the first
        follower of a game on this replica subscribes to its channel."""
        channel = self.channel(game_id)
        async with self.lock:
            listeners = self.listeners.setdefault(channel, set())
            first = not listeners
            listeners.add(listener)
            if first:
                try:
                    await self.pubsub.ssubscribe(channel)
                except BaseException:
                    listeners.discard(listener)
                    if not listeners:
                        del self.listeners[channel]
                    raise
        self.subscribed.set()
        if self.reader is None and not self.closed:
            self.reader = asyncio.get_running_loop().create_task(self._read(), name="game-changes")

    async def unfollow(self, game_id: str, listener: Listener) -> None:
        """Stop calling ``listener``; the last follower of a game unsubscribes (best effort: a failure only leaves a
        subscription whose messages nobody reads, dropped with the connection)."""
        channel = self.channel(game_id)
        async with self.lock:
            listeners = self.listeners.get(channel)
            if listeners is None:
                return
            listeners.discard(listener)
            if listeners:
                return
            del self.listeners[channel]
            if not self.listeners:
                self.subscribed.clear()
            with contextlib.suppress(Exception):
                await self.pubsub.sunsubscribe(channel)

    async def _read(self) -> None:
        """The one reader of the replica's subscriptions: each message to the listeners of its channel."""
        cluster = isinstance(self.pubsub, ClusterPubSub)  # its reads go round the shards' connections
        while not self.closed:
            if not self.listeners:
                await self.subscribed.wait()
                continue
            try:
                if cluster:
                    message = await self.pubsub.get_sharded_message(timeout=POLL)
                else:
                    message = await self.pubsub.get_message(timeout=POLL)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection: redis-py subscribes again when it reconnects
                self._failed(exc)
                await asyncio.sleep(RETRY)
                continue
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        kind = kind.decode() if isinstance(kind, bytes) else kind
        channel = message.get("channel")
        if isinstance(channel, str):
            channel = channel.encode()
        listeners = self.listeners.get(channel) if isinstance(channel, bytes) else None
        if not listeners:
            return
        if kind == "smessage":
            data = message.get("data")
            try:
                version = int(data)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                version = RESYNC
        elif kind == "ssubscribe":  # subscribed, or subscribed again after a reconnection: messages may be lost
            version = RESYNC
        else:
            return
        for listener in list(listeners):
            listener(version)

    def _failed(self, exc: Exception) -> None:
        """Every follower reads its game again (notifications may be lost); a warning once a minute."""
        now = time.monotonic()
        if now - self._warned >= 60:
            self._warned = now
            log.warning("game change notifications interrupted: %s", str(exc)[:200])
        for listeners in list(self.listeners.values()):
            for listener in list(listeners):
                listener(RESYNC)

    async def close(self) -> None:
        """Stop reading and close the subscription connections."""
        self.closed = True
        self.subscribed.set()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
            self.reader = None
        self.listeners.clear()
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
