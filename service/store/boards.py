"""Leaderboards in the games' Redis (docs/competition.md): a sorted set per board, one entry per player.

Keys, all of one board under its hash tag (one cluster slot: every script touches one board)::

    <prefix>:lb:{<board>}     sorted set  every score 0, so members sort byte by byte: the member is the entry's
                                          rank key (patience.boards.rank_key, fixed-width digits) and the player id
    <prefix>:lb:{<board>}:k   hash        player id -> their member
    <prefix>:lb:{<board>}:e   hash        player id -> the entry (JSON: name, kind, game, counts, times, how played)
    <prefix>:lb:{<board>}:c   hash        player id -> the win's certificate, as issued
    <prefix>:pb:{<player id>} set         the boards the player is on (for erase_player), the player's hash tag

A player keeps their best win on a board (a public deal may be won again; a daily deal is played once ranked).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from patience.boards import RankKey
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.store.failures import guarded

#: The rank part of a member: the undo flag, moves, play time and finish time in fixed-width digits.
RANK_WIDTH = 1 + 6 + 13 + 13
_MAX_MOVES, _MAX_MS = 10**6 - 1, 10**13 - 1

# KEYS = the board's set, members, entries, certificates; ARGV = player id, member, entry, certificate, keep until
# (Unix ms), the member's rank part. 1 when the entry went in, 0 when the player's entry there is as good or better.
_ENTER = """#!lua
local old = redis.call('HGET', KEYS[2], ARGV[1])
local entered = 0
if (not old) or string.sub(old, 1, #ARGV[6]) > ARGV[6] then
  if old then redis.call('ZREM', KEYS[1], old) end
  redis.call('ZADD', KEYS[1], 0, ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
  entered = 1
end
for i = 1, 4 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
return entered
"""

# KEYS as _ENTER; ARGV = first index, how many, the caller's player id ('' none).
# {total, player ids, entries, certificates, false or {own rank (0-based), own entry, own certificate}}
_PAGE = (
    """#!lua flags=no-writes
local total = redis.call('ZCARD', KEYS[1])
local members = redis.call('ZRANGE', KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1)
local ids = {}
for i, m in ipairs(members) do ids[i] = string.sub(m, """
    + str(RANK_WIDTH + 1)
    + """) end
local entries, certificates = {}, {}
if #ids > 0 then
  entries = redis.call('HMGET', KEYS[3], unpack(ids))
  certificates = redis.call('HMGET', KEYS[4], unpack(ids))
end
local own = false
if ARGV[3] ~= '' then
  local member = redis.call('HGET', KEYS[2], ARGV[3])
  if member then
    own = {redis.call('ZRANK', KEYS[1], member), redis.call('HGET', KEYS[3], ARGV[3]),
           redis.call('HGET', KEYS[4], ARGV[3])}
  end
end
return {total, ids, entries, certificates, own}
"""
)

# KEYS as _ENTER; ARGV = player id. 1 when the player had an entry (now gone).
_REMOVE = """#!lua
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], old)
for i = 2, 4 do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1
"""


class BoardEntry(NamedTuple):
    """What a board keeps of a ranked win (the certificate says it all again, signed)."""

    player_id: str
    player_name: str
    player_kind: str
    game_id: str
    move_count: int
    undo_count: int
    hint_count: int
    started_at: int
    finished_at: int
    played: str
    certificate: bytes


class BoardPage(NamedTuple):
    """Entries from ``first`` (0-based) on, the board's size, and the caller's own entry and rank (0-based)."""

    total: int
    entries: list[BoardEntry]
    own: tuple[int, BoardEntry] | None


def member(key: RankKey, player_id: str) -> tuple[str, str]:
    """The sorted set's member for an entry ranked ``key``, and its rank part (digits, fixed width)."""
    rank = (
        f"{int(key.undone)}{min(key.moves, _MAX_MOVES):06d}{min(key.play_ms, _MAX_MS):013d}"
        f"{min(key.finished_at, _MAX_MS):013d}"
    )
    return rank + player_id, rank


class Boards:
    """Leaderboards over the game store's Redis client (one Redis or Redis Cluster)."""

    def __init__(self, client: Redis | RedisCluster, key_prefix: str) -> None:
        self.client = client
        self.key_prefix = key_prefix
        self._enter = client.register_script(_ENTER)
        self._page = client.register_script(_PAGE)
        self._remove = client.register_script(_REMOVE)

    def keys(self, board: str) -> list[str]:
        if not board or any(c in board for c in "{} "):
            raise ValueError(f"bad board name {board!r:.80}")
        base = f"{self.key_prefix}:lb:{{{board}}}"
        return [base, base + ":k", base + ":e", base + ":c"]

    def index_key(self, player_id: str) -> str:
        return f"{self.key_prefix}:pb:{{{player_id}}}"

    async def enter(self, board: str, entry: BoardEntry, key: RankKey, keep_until_ms: int) -> bool:
        """Put the win on the board unless the player's entry there ranks as well or better; whether it went in. The
        board (and the player's index of boards) is kept until ``keep_until_ms``."""
        name, rank = member(key, entry.player_id)
        text = json.dumps(
            {"n": entry.player_name, "t": entry.player_kind, "g": entry.game_id, "m": entry.move_count,
             "u": entry.undo_count, "h": entry.hint_count, "s": entry.started_at, "f": entry.finished_at,
             "p": entry.played},
            ensure_ascii=False, separators=(",", ":"),
        )  # fmt: skip
        args: list[str | bytes | int] = [entry.player_id, name, text, entry.certificate, keep_until_ms, rank]
        entered = await guarded(self._enter(keys=self.keys(board), args=args))
        # The player's index of boards (another hash tag than the board's): its three commands in one round trip.
        index = self.index_key(entry.player_id)
        pipeline = self.client.pipeline(transaction=False)
        pipeline.sadd(index, board)
        pipeline.pexpireat(index, keep_until_ms, gt=True)
        pipeline.pexpireat(index, keep_until_ms, nx=True)
        await guarded(pipeline.execute())
        return bool(entered)

    async def page(self, board: str, first: int, count: int, player_id: str = "") -> BoardPage:
        reply = await guarded(self._page(keys=self.keys(board), args=[first, count, player_id]))
        total, ids, entries, certificates, own = reply
        page = [
            _entry(pid, text, cert)
            for pid, text, cert in zip(ids, entries, certificates, strict=True)
            if text is not None  # an entry erased between the two reads of the script cannot happen; be safe
        ]
        mine = (int(own[0]), _entry(player_id.encode(), own[1], own[2])) if own else None
        return BoardPage(int(total), page, mine)

    async def boards_of(self, player_id: str) -> list[str]:
        names = await guarded(self.client.smembers(self.index_key(player_id)))
        return sorted(n.decode() if isinstance(n, bytes) else str(n) for n in names)

    async def erase_player(self, player_id: str) -> int:
        """Remove the player's entries from every board they are on, and the index of those boards; how many entries
        went. One script per board (each board is its own cluster slot)."""
        removed = 0
        for board in await self.boards_of(player_id):
            removed += int(await guarded(self._remove(keys=self.keys(board), args=[player_id])))
        await guarded(self.client.delete(self.index_key(player_id)))
        return removed


def _entry(pid: bytes | str, text: bytes | None, certificate: bytes | None) -> BoardEntry:
    data = json.loads(text or b"{}")
    return BoardEntry(
        player_id=pid.decode() if isinstance(pid, bytes) else pid,
        player_name=str(data.get("n", "")),
        player_kind=str(data.get("t", "")),
        game_id=str(data.get("g", "")),
        move_count=int(data.get("m", 0)),
        undo_count=int(data.get("u", 0)),
        hint_count=int(data.get("h", 0)),
        started_at=int(data.get("s", 0)),
        finished_at=int(data.get("f", 0)),
        played=str(data.get("p", "")),
        certificate=bytes(certificate or b""),
    )
