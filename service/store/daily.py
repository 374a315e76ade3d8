"""The daily deals in the games' Redis (docs/competition.md): each day's seed, and each player's one ranked game of it.

Keys, under the board's hash tag (one cluster slot per daily deal, its leaderboard's too)::

    <prefix>:dd:{<board>}     string  the deal's 32-byte seed: drawn by the first replica that asks (SET NX), so
                                      every replica deals the same one, and no key of the service derives it (a
                                      rotated key cannot change a deal committed to)
    <prefix>:dd:{<board>}:r   hash    player id -> the game id of their ranked game (set once: HSETNX in a script)

The seed is kept as long as the board; the claims only until the day is over (a NewGame with daily is always
today's), so that erasing a player during the day cannot buy a second ranked game.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.store.failures import guarded

# KEYS[1] = the claims; ARGV = player id, game id, keep until (Unix ms), the stale game id to replace ('' none).
# The game id holding the player's claim after it: theirs if they had one (unless it is the stale one), else ours.
_CLAIM = """#!lua
local held = redis.call('HGET', KEYS[1], ARGV[1])
if (not held) or (ARGV[4] ~= '' and held == ARGV[4]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  held = ARGV[2]
end
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return held
"""


class DailyDeals:
    """Daily seeds and ranked-game claims over the game store's Redis client (one Redis or Redis Cluster)."""

    def __init__(self, client: Redis | RedisCluster, key_prefix: str) -> None:
        self.client = client
        self.key_prefix = key_prefix
        self._claim = client.register_script(_CLAIM)

    def seed_key(self, board: str) -> str:
        if not board or any(c in board for c in "{} "):
            raise ValueError(f"bad board name {board!r:.80}")
        return f"{self.key_prefix}:dd:{{{board}}}"

    def claims_key(self, board: str) -> str:
        return self.seed_key(board) + ":r"

    async def seed(self, board: str, drawn: bytes, keep_until_ms: int) -> bytes:
        """The deal's seed: ``drawn`` if this call is the first to ask (kept until ``keep_until_ms``), else the one
        drawn first. One command (SET NX GET), so two replicas asking at once agree."""
        earlier = await guarded(self.client.set(self.seed_key(board), drawn, nx=True, get=True, pxat=keep_until_ms))
        return bytes(earlier) if isinstance(earlier, bytes) and earlier else drawn

    async def peek(self, board: str) -> bytes | None:
        """The deal's seed if one was drawn (and is still kept), else None: nothing is drawn."""
        seed = await guarded(self.client.get(self.seed_key(board)))
        return bytes(seed) if isinstance(seed, bytes) and seed else None

    async def claim(self, board: str, player_id: str, game_id: str, until_ms: int, *, stale: str = "") -> str:
        """Make ``game_id`` the player's ranked game of the deal unless they have one (or theirs is ``stale``: a game
        the store no longer holds); the game id that is theirs after the call."""
        args: list[str | int] = [player_id, game_id, until_ms, stale]
        held = await guarded(self._claim(keys=[self.claims_key(board)], args=args))
        return held.decode() if isinstance(held, bytes) else str(held)

    async def ranked_game(self, board: str, player_id: str) -> str:
        """The player's ranked game of the deal, "" if none."""
        held = await guarded(self.client.hget(self.claims_key(board), player_id))
        return held.decode() if isinstance(held, bytes) else ""
