"""What the service keeps of a player, in the games' Redis: a small hash per pseudonymous id.

``{prefix}:pl:{<player id>}`` holds the display name, the identity's kind, when the player was first and last
seen; it expires :data:`RETAIN_SECONDS` after the last write (a player who never comes back is forgotten). The
player id is the hash tag, so everything of one player sits in one cluster slot.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.store.failures import REDIS_FAILURES, unavailable

#: A player record outlives the player's last visit by this much (docs/players.md).
RETAIN_SECONDS = 400 * 86400


class PlayerRecord(NamedTuple):
    display_name: str
    kind: str
    created_ms: int


class PlayerRecords:
    """Players' records over the game store's Redis client (one Redis or Redis Cluster)."""

    def __init__(self, client: Redis | RedisCluster, key_prefix: str) -> None:
        self.client = client
        self.key_prefix = key_prefix

    def key(self, player_id: str) -> str:
        return f"{self.key_prefix}:pl:{{{player_id}}}"

    async def get(self, player_id: str) -> PlayerRecord | None:
        fields = await self._call(self.client.hgetall(self.key(player_id)))
        if not fields:
            return None
        values = {k.decode() if isinstance(k, bytes) else k: v for k, v in fields.items()}

        def text(name: str) -> str:
            value = values.get(name, b"")
            return value.decode() if isinstance(value, bytes) else str(value)

        return PlayerRecord(text("name"), text("kind"), int(text("created") or 0))

    async def put(self, player_id: str, display_name: str, kind: str, *, keep_name: bool = False) -> PlayerRecord:
        """Record the player (first visit) or refresh them; ``keep_name`` keeps a name chosen before."""
        now = int(time.time() * 1000)
        key = self.key(player_id)
        pipe = self.client.pipeline(transaction=False)
        pipe.hsetnx(key, "created", now)
        if keep_name:
            pipe.hsetnx(key, "name", display_name)
        else:
            pipe.hset(key, "name", display_name)
        pipe.hset(key, mapping={"kind": kind, "seen": now})
        pipe.expire(key, RETAIN_SECONDS)
        pipe.hget(key, "name")
        pipe.hget(key, "created")
        replies = await self._call(pipe.execute())
        name, created = replies[-2], replies[-1]
        return PlayerRecord(
            name.decode() if isinstance(name, bytes) else str(name),
            kind,
            int(created.decode() if isinstance(created, bytes) else created),
        )

    async def delete(self, player_id: str) -> bool:
        return bool(await self._call(self.client.delete(self.key(player_id))))

    @staticmethod
    async def _call(awaitable: Any) -> Any:
        try:
            return await awaitable
        except REDIS_FAILURES as exc:
            error = unavailable(exc)
            if error is None:
                raise
            raise error from exc
