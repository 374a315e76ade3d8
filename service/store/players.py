"""What the service keeps of a player, in the games' Redis: a small hash and a list of games per pseudonymous id.

``{prefix}:pl:{<player id>}`` holds the display name, the identity's kind, when the player was first and last
seen; ``{prefix}:pg:{<player id>}`` is a sorted set of the player's games (member: the game id, score: when it
was dealt, in milliseconds), the newest :data:`MAX_GAMES` of them. Both expire :data:`RETAIN_SECONDS` after the
last write (a player who never comes back is forgotten). The player id is the hash tag, so everything of one
player sits in one cluster slot (the games themselves sit in theirs).
"""

from __future__ import annotations

import time
from typing import NamedTuple

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.store.failures import guarded

#: A player record outlives the player's last visit by this much (docs/players.md).
RETAIN_SECONDS = 400 * 86400
#: A player's list holds their newest games up to this many; an older one falls off it and is unlinked from them.
MAX_GAMES = 1000
#: A place in a player's list, newest first: (when dealt in ms, game id).
Cursor = tuple[int, str]


class PlayerRecord(NamedTuple):
    display_name: str
    kind: str
    created_ms: int


class PlayerRecords:
    """Players' records over the game store's Redis client (one Redis or Redis Cluster)."""

    def __init__(self, client: Redis | RedisCluster, key_prefix: str, *, max_games: int = MAX_GAMES) -> None:
        self.client = client
        self.key_prefix = key_prefix
        self.max_games = max_games

    def key(self, player_id: str) -> str:
        return f"{self.key_prefix}:pl:{{{player_id}}}"

    async def get(self, player_id: str) -> PlayerRecord | None:
        fields = await guarded(self.client.hgetall(self.key(player_id)))
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
        replies = await guarded(pipe.execute())
        name, created = replies[-2], replies[-1]
        return PlayerRecord(
            name.decode() if isinstance(name, bytes) else str(name),
            kind,
            int(created.decode() if isinstance(created, bytes) else created),
        )

    async def delete(self, player_id: str) -> bool:
        """Forget the player: their record and their list of games (one slot: one DEL)."""
        return bool(await guarded(self.client.delete(self.key(player_id), self.games_key(player_id))))

    # -- the player's games

    def games_key(self, player_id: str) -> str:
        return f"{self.key_prefix}:pg:{{{player_id}}}"

    async def add_game(self, player_id: str, game_id: str, dealt_ms: int) -> list[str]:
        """List a game as the player's; the games that fell off the list for it (beyond ``max_games``), which the
        caller unlinks and then :meth:`drop_games`."""
        key = self.games_key(player_id)
        pipe = self.client.pipeline(transaction=False)
        pipe.zadd(key, {game_id: dealt_ms})
        pipe.expire(key, RETAIN_SECONDS)
        pipe.zrange(key, 0, -self.max_games - 1)
        replies = await guarded(pipe.execute())
        return [_text(m) for m in replies[-1]]

    async def games(self, player_id: str, after: Cursor | None, count: int) -> list[Cursor]:
        """Up to ``count`` of the player's games, newest first, after ``after`` in that order (None: from the
        newest). Games dealt in the same millisecond come in descending id order."""
        key = self.games_key(player_id)
        if after is None:
            found = await guarded(self.client.zrange(key, 0, count - 1, desc=True, withscores=True))
            return [(int(score), _text(m)) for m, score in found]
        score, game_id = after
        ties = int(await guarded(self.client.zcount(key, score, score)))
        found = await guarded(
            self.client.zrange(key, score, "-inf", desc=True, byscore=True, offset=0, num=count + ties, withscores=True)
        )
        page = [(int(s), _text(m)) for m, s in found]
        return [c for c in page if c[0] < score or c[1] < game_id][:count]

    async def all_games(self, player_id: str) -> list[str]:
        return [_text(m) for m in await guarded(self.client.zrange(self.games_key(player_id), 0, -1))]

    async def drop_games(self, player_id: str, game_ids: list[str]) -> None:
        """Take games off the player's list (gone from the store, or unlinked)."""
        if game_ids:
            await guarded(self.client.zrem(self.games_key(player_id), *game_ids))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
