"""Where games live: a small storage interface and its Redis implementation.

The interface is boardgame.io's: ``create``, ``fetch``, and ``set_state`` with
the move appended to the log, plus ``undo`` and ``finish``. Every write is one
Lua script that compares the version and writes in a single step, so of N
concurrent writers that read the same version exactly one succeeds and the
others get :class:`VersionConflict` with the current version.

Layout: a game's keys share the hash tag ``{game_id}``, so every script touches
one cluster slot and the same code runs on a single Redis and on Redis Cluster
(the URL scheme ``redis+cluster://`` / ``rediss+cluster://`` picks the cluster
client; nothing else differs)::

    <prefix>:{<id>}     hash    small fields only (each < 64 bytes keeps it a listpack)
    <prefix>:{<id>}:s   string  the engine's encoded state (~150 bytes)
    <prefix>:{<id>}:m   string  the move log, packed (about 2.3 bytes a move; see pack_move)

The state and the log sit outside the hash because a hash value over 64 bytes
turns the whole hash into a hashtable, which costs far more memory than a
second key. Times come from the Redis server's clock (``TIME`` inside the
scripts), so every replica of the service agrees on them.

Expiry: every write to an open game sets the TTL of all its keys to
``idle_seconds + retain_seconds``. A game untouched for ``idle_seconds`` is
*expired*: writes are refused (:class:`GameExpired`), and for
``retain_seconds`` more it can still be fetched (so the service can reveal its
seed) before Redis drops it. Closing a game (won, resigned) sets the TTL to
``retain_seconds`` (default: ``idle_seconds``).
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    MasterDownError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.redispipe import PipelinedRedis

__all__ = [
    "CLUSTER_SCHEMES",
    "AlreadyExists",
    "GameClosed",
    "GameExpired",
    "GameRecord",
    "GameStore",
    "NewGameRecord",
    "NotFound",
    "NothingToUndo",
    "RedisGameStore",
    "StoreError",
    "StoreStatus",
    "StoreUnavailable",
    "VersionConflict",
    "open_store",
]

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_MOVE_TEXT = 64
MAX_SMALL_FIELD = 64  # bytes; longer hash values would turn the hash into a hashtable


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base of every error the store raises on purpose."""


class NotFound(StoreError):
    """No such game (never created, malformed id, or dropped after expiry)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id[:64]!r}")
        self.game_id = game_id


class AlreadyExists(StoreError):
    """``create`` with an id that is taken (ids are random, so this means a bug or a replay)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} exists already")
        self.game_id = game_id


class VersionConflict(StoreError):
    """The game is no longer at the expected version; ``current`` is the version it is at."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"the game is at version {current}, not {expected}")
        self.expected = expected
        self.current = current


class GameClosed(StoreError):
    """A write to a game that is over (won or resigned); ``status`` says how it ended."""

    def __init__(self, status: str, version: int) -> None:
        super().__init__(f"the game is over ({status})")
        self.status = status
        self.version = version


class GameExpired(StoreError):
    """A write to a game left untouched for longer than the idle time."""

    def __init__(self, version: int) -> None:
        super().__init__("the game expired")
        self.version = version


class NothingToUndo(StoreError):
    """``undo`` with an empty move log."""

    def __init__(self, version: int) -> None:
        super().__init__("no move to take back")
        self.version = version


class StoreUnavailable(StoreError):
    """Redis cannot be reached (connection refused, timeout, cluster down): retry later."""


# --------------------------------------------------------------------------- records


class StoreStatus(StrEnum):
    """The stored status. ``expired`` is never stored: see :attr:`GameRecord.expired`."""

    IN_PROGRESS = "in-progress"
    WON = "won"
    RESIGNED = "resigned"


@dataclass(frozen=True, slots=True)
class NewGameRecord:
    """What ``create`` needs: everything fixed when the game is dealt."""

    game_id: str
    token_hash: bytes  # SHA-256 of the bearer token; the token itself is never stored
    variant: str
    options: str  # the engine's canonical options text (``Game.options_text()``)
    seed: bytes  # the 32-byte deal seed
    state: bytes  # the engine's encoded starting position
    allow_undo: bool = True
    server_seed: bytes = b""  # the server's part when a client seed was mixed in
    client_seed: bytes = b""  # at most 64 bytes
    ticket_id: str = ""  # when dealt from a deal ticket
    # A game recorded whole (a solution submitted for a deal ticket): its log, and a closing status.
    moves: tuple[str, ...] = ()
    status: str = "in-progress"


@dataclass(slots=True)
class GameRecord:
    """A game as stored. Times are Unix milliseconds from the Redis server's clock.

    Never changed once built (``dataclasses.replace`` makes the variants), but not ``frozen``: a frozen
    dataclass sets each of these twenty fields through ``object.__setattr__``, four times the cost of building
    one, and a record is built on every move.
    """

    game_id: str
    token_hash: bytes
    variant: str
    options: str
    seed: bytes
    server_seed: bytes
    client_seed: bytes
    ticket_id: str
    allow_undo: bool
    state: bytes
    version: int
    status: str
    created_at: int
    updated_at: int
    finished_at: int  # 0 while the game is open
    move_count: int
    undo_count: int
    idle_ms: int  # the store's idle time when read: see ``expires_at``
    now: int  # the server's clock when read (for ``expired``)
    moves: tuple[str, ...] | None = None  # None when not asked for

    @property
    def commitment(self) -> bytes:
        """SHA-256 of the seed: published when the game is dealt."""
        return hashlib.sha256(self.seed).digest()

    @property
    def open(self) -> bool:
        """Neither won nor resigned (it may still be expired)."""
        return self.finished_at == 0

    @property
    def expires_at(self) -> int:
        """When the game expires if nobody writes to it (ms)."""
        return self.updated_at + self.idle_ms

    @property
    def expired(self) -> bool:
        """An open game untouched for the idle time: no more moves, and its seed may be revealed."""
        return self.open and self.now >= self.expires_at


# --------------------------------------------------------------------------- interface


class GameStore(ABC):
    """Storage of games. Every write is a compare-and-set on ``version`` that bumps it by one."""

    @abstractmethod
    async def create(self, game: NewGameRecord) -> GameRecord:
        """Store a new game at version 1; AlreadyExists if the id is taken."""

    @abstractmethod
    async def fetch(self, game_id: str, *, moves: bool = False) -> GameRecord:
        """The game (with its move log if ``moves``); NotFound."""

    @abstractmethod
    async def set_state(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        move: str,
        *,
        status: str | None = None,
        previous: GameRecord | None = None,
    ) -> GameRecord:
        """Replace the state, append ``move`` to the log, and (with a ``status``, e.g. won) close the game.

        NotFound, VersionConflict, GameClosed, GameExpired. The result carries no move log. ``previous``, the
        game's record as the caller read it, lets the store read back only the fields a write changes.
        """

    @abstractmethod
    async def undo(self, game_id: str, expected_version: int, state: bytes) -> GameRecord:
        """Drop the last move of the log, set ``state`` (the position before it), count the undo.

        NotFound, VersionConflict, GameClosed, GameExpired, NothingToUndo.
        """

    @abstractmethod
    async def replace(
        self,
        game_id: str,
        expected_version: int | None,
        state: bytes,
        moves: Sequence[str],
        *,
        status: str | None = None,
        undos: int = 0,
    ) -> GameRecord:
        """Replace the whole log with ``moves`` and the state with ``state`` (a solution submitted for a game),
        add ``undos`` to the undo count (played moves the solution drops), and close the game with ``status`` if
        given. ``expected_version`` None = whatever the version.

        NotFound, VersionConflict, GameClosed, GameExpired. The result carries the new log.
        """

    @abstractmethod
    async def finish(self, game_id: str, expected_version: int | None, status: str) -> GameRecord:
        """Close the game with ``status`` (e.g. resigned); ``expected_version`` None = whatever the version.

        NotFound, VersionConflict, GameClosed, GameExpired.
        """

    @abstractmethod
    async def delete(self, game_id: str) -> bool:
        """Remove the game now; whether it existed."""

    @abstractmethod
    async def put_prepared(self, prepared_id: str, server_seed: bytes, ttl_seconds: int) -> None:
        """Keep a PrepareGame server seed for ``ttl_seconds``; AlreadyExists if the id is taken."""

    @abstractmethod
    async def take_prepared(self, prepared_id: str) -> bytes | None:
        """The prepared server seed, removed in the same step (each serves one game); None if unknown,
        already taken or expired."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable unless the storage answers."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections."""


# --------------------------------------------------------------------------- the move log codec

# The log is packed, about 2.3 bytes a move instead of 6-7 as text: each move ends with a byte that
# says how far back it starts, so the Lua undo script can pop the last move without decoding the log.
#   pile code     kind * 10 + index (index 0 = none): kinds column, r, f, w, c, k -> 0..59
#   transfer      [count byte 0x80+n-1, n = 1..112] source codes (< 64) ... target (64 + code)
#   d, s, rd      0xF0, 0xF1, 0xF2
#   anything else the ASCII text, its length byte, 0xFF (so no text is ever refused or altered)
_PILE_KINDS = ("", "r", "f", "w", "c", "k")
_SPECIAL_MOVES = {"d": 0xF0, "s": 0xF1, "rd": 0xF2}
_SPECIAL_TEXT = {v: k for k, v in _SPECIAL_MOVES.items()}
_ESCAPE = 0xFF
_TARGET = 64
_COUNT = 0x80
_MAX_COUNT = 0xF0 - _COUNT


def _pile_code(tok: str) -> int | None:
    if len(tok) == 1 and tok in "123456789":
        return int(tok)
    if tok[:1] in ("r", "f", "c") and (len(tok) == 1 or (len(tok) == 2 and tok[1] in "123456789")):
        return _PILE_KINDS.index(tok[0]) * 10 + (int(tok[1]) if len(tok) == 2 else 0)
    if tok in ("w", "k"):
        return _PILE_KINDS.index(tok) * 10
    return None


def _pile_text(code: int) -> str:
    kind, index = divmod(code, 10)
    return _PILE_KINDS[kind] + (str(index) if index else "")


def pack_move(text: str) -> bytes:
    """One move of the log in its packed form (lossless for any 1-64 character ASCII text)."""
    raw = _check_move(text)
    if text in _SPECIAL_MOVES:
        return bytes([_SPECIAL_MOVES[text]])
    packed = _pack_transfer(text)
    if packed is not None and _unpack_last(packed, len(packed)) == (text, 0):
        return packed
    return raw + bytes([len(raw), _ESCAPE])


def _pack_transfer(text: str) -> bytes | None:
    head, sep, target = text.partition("-")
    if not sep or "-" in target:
        return None
    count = b""
    if "/" in target:
        target, _, n = target.partition("/")
        if not n.isdigit() or not 1 <= int(n) <= _MAX_COUNT:
            return None
        count = bytes([_COUNT + int(n) - 1])
    codes = [_pile_code(tok) for tok in head.split(",")]
    goal = _pile_code(target)
    if goal is None or any(c is None for c in codes) or len(codes) > 63:
        return None
    return count + bytes(c for c in codes if c is not None) + bytes([_TARGET + goal])


def _unpack_last(log: bytes, end: int) -> tuple[str, int]:
    """The move that ends at ``log[end - 1]`` and where it starts (ValueError if the log is corrupt)."""
    last = log[end - 1]
    if last == _ESCAPE:
        start = end - 2 - log[end - 2]
        if start < 0:
            raise ValueError("corrupt move log")
        return log[start : end - 2].decode("ascii"), start
    if last in _SPECIAL_TEXT:
        return _SPECIAL_TEXT[last], end - 1
    if not _TARGET <= last < _TARGET + 60:
        raise ValueError("corrupt move log")
    i = end - 1
    while i > 0 and log[i - 1] < _TARGET:
        i -= 1
    sources = ",".join(_pile_text(c) for c in log[i : end - 1])
    text = f"{sources}-{_pile_text(last - _TARGET)}"
    if i > 0 and _COUNT <= log[i - 1] < _COUNT + _MAX_COUNT:
        i -= 1
        text += f"/{log[i] - _COUNT + 1}"
    return text, i


def unpack_moves(log: bytes) -> tuple[str, ...]:
    """Every move of a packed log, first to last."""
    out: list[str] = []
    end = len(log)
    while end > 0:
        text, end = _unpack_last(log, end)
        out.append(text)
    out.reverse()
    return tuple(out)


# --------------------------------------------------------------------------- Redis

# Hash fields (short names: they are stored once per game).
_F_TOKEN = "th"
_F_VARIANT = "var"
_F_OPTIONS = "opt"
_F_SEED = "seed"
_F_SERVER_SEED = "ss"
_F_CLIENT_SEED = "cs"
_F_TICKET = "tk"
_F_UNDO_OK = "au"
_F_VERSION = "v"
_F_STATUS = "st"
_F_CREATED = "ca"
_F_UPDATED = "ua"
_F_FINISHED = "fa"
_F_MOVES = "mc"
_F_UNDOS = "uc"
_B_TOKEN, _B_VARIANT, _B_OPTIONS, _B_SEED = (f.encode() for f in (_F_TOKEN, _F_VARIANT, _F_OPTIONS, _F_SEED))
_B_SERVER_SEED, _B_CLIENT_SEED, _B_TICKET, _B_UNDO_OK = (
    f.encode() for f in (_F_SERVER_SEED, _F_CLIENT_SEED, _F_TICKET, _F_UNDO_OK)
)
_B_VERSION, _B_STATUS, _B_CREATED, _B_UPDATED, _B_FINISHED, _B_MOVES, _B_UNDOS = (
    f.encode() for f in (_F_VERSION, _F_STATUS, _F_CREATED, _F_UPDATED, _F_FINISHED, _F_MOVES, _F_UNDOS)
)

# Every script: KEYS = meta, state, log; ARGV[1] = TTL of an open game (ms), ARGV[2] = idle time (ms),
# ARGV[3] = TTL of a closed game (ms). They return {code, ...}: 1 = done (then the meta hash as a flat
# list, the server time, and whatever the script adds), 0 = version conflict (current version),
# -1 = not found, -2 = closed (version, status), -3 = expired (version), -4 = nothing to undo (version),
# -5 = exists already.
_NOW = """
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
"""

# ARGV[4] = expected version ('' = any). Defines touch(ttl): bump the version, stamp, refresh every TTL.
_GUARD = (
    _NOW
    + """
local h = redis.call('HMGET', KEYS[1], 'v', 'st', 'ua', 'fa', 'mc', 'uc')
if not h[1] then return {-1} end
local v = tonumber(h[1])
if ARGV[4] ~= '' and v ~= tonumber(ARGV[4]) then return {0, v} end
if h[4] ~= '0' then return {-2, v, h[2]} end
if tonumber(h[3]) + tonumber(ARGV[2]) <= tonumber(now) then return {-3, v} end
local function touch(ttl)
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
"""
)

# ARGV[4] = '1' to read the move log too
_FETCH = (
    _NOW
    + """
local m = redis.call('HGETALL', KEYS[1])
if #m == 0 then return {-1} end
local log = false
if ARGV[4] == '1' then log = redis.call('GET', KEYS[3]) end
return {1, m, now, redis.call('GET', KEYS[2]), log}
"""
)

# ARGV[4] = state, ARGV[5] = packed log, ARGV[6] = move count, ARGV[7] = status, ARGV[8..] = field/value pairs
_CREATE = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return {-5} end
redis.call('DEL', KEYS[2], KEYS[3])
local ttl = ARGV[1]
local fa = 0
if ARGV[7] ~= 'in-progress' then
  ttl = ARGV[3]
  fa = now
end
redis.call('HSET', KEYS[1], 'v', 1, 'st', ARGV[7], 'ca', now, 'ua', now, 'fa', fa, 'mc', ARGV[6], 'uc', 0,
           unpack(ARGV, 8))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl)
if ARGV[5] ~= '' then redis.call('SET', KEYS[3], ARGV[5], 'PX', ttl) end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state, ARGV[6] = move, ARGV[7] = closing status or '', ARGV[8] = '1' to return only the fields a
# write changes (v, st, ua, fa, mc, uc: the caller has the rest) instead of the whole meta hash
_SET_STATE = (
    _GUARD
    + """
-- The move of every ApplyMove: seven Redis calls (each costs the server a few microseconds), so the meta hash is
-- written once and the TTLs come with the SETs.
local mc = tonumber(h[5]) + 1
local st, fa, ttl = h[2], h[4], ARGV[1]
if ARGV[7] ~= '' then
  st, fa, ttl = ARGV[7], now, ARGV[3]
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now, 'mc', mc, 'st', st, 'fa', fa)
else
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now, 'mc', mc)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[5], 'PX', ttl)
-- GET + SET rather than APPEND: APPEND preallocates up to twice the length, and that costs memory.
redis.call('SET', KEYS[3], (redis.call('GET', KEYS[3]) or '') .. ARGV[6], 'PX', ttl)
if ARGV[8] == '1' then return {1, {v + 1, st, now, fa, mc, h[6]}, now} end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state, ARGV[6] = packed log, ARGV[7] = move count, ARGV[8] = closing status or '', ARGV[9] = undos
_REPLACE = (
    _GUARD
    + """
redis.call('SET', KEYS[2], ARGV[5])
if ARGV[6] == '' then redis.call('DEL', KEYS[3]) else redis.call('SET', KEYS[3], ARGV[6]) end
redis.call('HSET', KEYS[1], 'mc', ARGV[7])
redis.call('HINCRBY', KEYS[1], 'uc', ARGV[9])
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'st', ARGV[8], 'fa', now)
  touch(ARGV[3])
else
  touch(ARGV[1])
end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state
_UNDO = (
    _GUARD
    + """
local log = redis.call('GET', KEYS[3])
if not log or log == '' then return {-4, v} end
-- where the last move starts (the codec in Python: _unpack_last)
local n = #log
local b = string.byte(log, n)
local i
if b == 255 then
  i = n - 1 - string.byte(log, n - 1)
elseif b >= 240 then
  i = n
else
  i = n - 1
  while i >= 1 and string.byte(log, i) < 64 do i = i - 1 end
  if i >= 1 then
    local c = string.byte(log, i)
    if c >= 128 and c < 240 then i = i - 1 end
  end
  i = i + 1
end
local undone = string.sub(log, i)
if i <= 1 then
  redis.call('DEL', KEYS[3])
else
  redis.call('SET', KEYS[3], string.sub(log, 1, i - 1))
end
redis.call('SET', KEYS[2], ARGV[5])
redis.call('HINCRBY', KEYS[1], 'mc', -1)
redis.call('HINCRBY', KEYS[1], 'uc', 1)
touch(ARGV[1])
return {1, redis.call('HGETALL', KEYS[1]), now, undone}
"""
)

# ARGV[5] = status
_FINISH = (
    _GUARD
    + """
redis.call('HSET', KEYS[1], 'st', ARGV[5], 'fa', now)
touch(ARGV[3])
return {1, redis.call('HGETALL', KEYS[1]), now, redis.call('GET', KEYS[2])}
"""
)

_T = TypeVar("_T")


#: What Redis raises while it cannot answer for a moment: connection trouble, a timeout, a cluster in failover
#: (the slot's master is down, a write reached a demoted master, redis-py's redirections ran out: "TTL
#: exhausted"), a server still loading its data. redis-py strips the reply's first word from the message
#: ("CLUSTERDOWN", "LOADING"), so the classes are what tells them apart.
_NOT_NOW = (
    RedisConnectionError,
    RedisTimeoutError,
    RedisClusterException,
    ClusterError,
    ClusterDownError,
    TryAgainError,
    MasterDownError,
    ReadOnlyError,
    BusyLoadingError,
    OSError,
)


def _unavailable(exc: BaseException) -> StoreUnavailable | None:
    """StoreUnavailable for what means "Redis cannot answer now" (connection, timeout, cluster trouble)."""
    if isinstance(exc, _NOT_NOW) or ("CLUSTERDOWN" in str(exc) or "LOADING" in str(exc) or "TRYAGAIN" in str(exc)):
        return StoreUnavailable(f"Redis is unavailable: {exc}")
    return None


def _check_game_id(game_id: str) -> bool:
    return isinstance(game_id, str) and GAME_ID_RE.match(game_id) is not None


def _check_move(move: str) -> bytes:
    if not isinstance(move, str) or not move or len(move) > MAX_MOVE_TEXT or not move.isascii():
        raise ValueError(f"a logged move is 1-{MAX_MOVE_TEXT} ASCII characters, not {move!r:.80}")
    if any(c.isspace() for c in move):
        raise ValueError(f"a logged move has no whitespace: {move!r}")
    return move.encode("ascii")


def _small(name: str, value: bytes) -> bytes:
    if len(value) > MAX_SMALL_FIELD:
        raise ValueError(f"{name} is at most {MAX_SMALL_FIELD} bytes, not {len(value)}")
    return value


class RedisGameStore(GameStore):
    """The store on one Redis or on Redis Cluster (``client`` is either; see the module docstring)."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        idle_seconds: float,
        retain_seconds: float | None = None,
        key_prefix: str = "patience",
        pipe: PipelinedRedis | None = None,
    ) -> None:
        retain = idle_seconds if retain_seconds is None else retain_seconds
        if idle_seconds <= 0 or retain <= 0:
            raise ValueError("idle_seconds > 0 and retain_seconds > 0")
        if not key_prefix or any(c in key_prefix for c in "{} "):
            raise ValueError(f"bad key prefix {key_prefix!r}")
        self.client = client
        # The scripts go through ``pipe`` when there is one (a single Redis: see service/redispipe.py), else
        # through redis-py; either way they are the same scripts, called by SHA-1 and loaded when missing.
        self.pipe = pipe
        self.idle_ms = max(1, round(idle_seconds * 1000))
        self.retain_ms = max(1, round(retain * 1000))
        self._ttl_args = (self.idle_ms + self.retain_ms, self.idle_ms, self.retain_ms)
        self.key_prefix = key_prefix
        # register_script hashes each script once; EVALSHA loads it on first use (and after a restart).
        self._fetch = client.register_script(_FETCH)
        self._create = client.register_script(_CREATE)
        self._set_state = client.register_script(_SET_STATE)
        self._undo = client.register_script(_UNDO)
        self._replace = client.register_script(_REPLACE)
        self._finish = client.register_script(_FINISH)

    @property
    def is_cluster(self) -> bool:
        return isinstance(self.client, RedisCluster)

    def keys(self, game_id: str) -> list[str]:
        """The game's keys: meta hash, state, move log (one hash tag, hence one cluster slot)."""
        base = f"{self.key_prefix}:{{{game_id}}}"
        return [base, base + ":s", base + ":m"]

    # -- reads --------------------------------------------------------------------

    async def fetch(self, game_id: str, *, moves: bool = False) -> GameRecord:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply = await self._script(self._fetch, self.keys(game_id), [*self._ttl_args, int(moves)])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log = reply
        record = self._record(game_id, meta, now, state or b"")
        if moves:
            record = replace(record, moves=unpack_moves(log) if log else ())
        return record

    # -- writes -------------------------------------------------------------------

    async def create(self, game: NewGameRecord) -> GameRecord:
        if not _check_game_id(game.game_id):
            raise ValueError(f"a game id is 1-64 characters of A-Z a-z 0-9 _ -, not {game.game_id!r:.80}")
        if not game.state:
            raise ValueError("a game needs a state")
        fields: list[bytes | str] = [
            _F_TOKEN, _small("token_hash", game.token_hash),
            _F_VARIANT, _small("variant", game.variant.encode()),
            _F_OPTIONS, _small("options", game.options.encode()),
            _F_SEED, _small("seed", game.seed),
            _F_SERVER_SEED, _small("server_seed", game.server_seed),
            _F_CLIENT_SEED, _small("client_seed", game.client_seed),
            _F_TICKET, _small("ticket_id", game.ticket_id.encode()),
            _F_UNDO_OK, b"1" if game.allow_undo else b"0",
        ]  # fmt: skip
        if not game.status or len(game.status) > MAX_SMALL_FIELD:
            raise ValueError(f"bad status {game.status!r}")
        log = b"".join(pack_move(m) for m in game.moves)
        args = [*self._ttl_args, game.state, log, len(game.moves), game.status, *fields]
        reply = await self._script(self._create, self.keys(game.game_id), args)
        if reply[0] == -5:
            raise AlreadyExists(game.game_id)
        return self._record(game.game_id, reply[1], reply[2], game.state, moves=tuple(game.moves))

    async def set_state(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        move: str,
        *,
        status: str | None = None,
        previous: GameRecord | None = None,
    ) -> GameRecord:
        packed = pack_move(move)
        if not state:
            raise ValueError("a game needs a state")
        if status is not None and status == StoreStatus.IN_PROGRESS:
            status = None
        short = previous is not None and previous.game_id == game_id
        args: list[bytes | str] = [
            self._version_arg(expected_version),
            state,
            packed,
            status or "",
            "1" if short else "",
        ]
        reply = await self._write(self._set_state, game_id, args)
        if short:
            assert previous is not None
            return self._changed(previous, reply[1], reply[2], state)
        return self._record(game_id, reply[1], reply[2], state)

    async def undo(self, game_id: str, expected_version: int, state: bytes) -> GameRecord:
        if not state:
            raise ValueError("a game needs a state")
        reply = await self._write(self._undo, game_id, [self._version_arg(expected_version), state])
        return self._record(game_id, reply[1], reply[2], state)

    async def replace(
        self,
        game_id: str,
        expected_version: int | None,
        state: bytes,
        moves: Sequence[str],
        *,
        status: str | None = None,
        undos: int = 0,
    ) -> GameRecord:
        if isinstance(undos, bool) or not isinstance(undos, int) or undos < 0:
            raise ValueError(f"undos is a whole number >= 0, not {undos!r}")
        if not state:
            raise ValueError("a game needs a state")
        if status is not None and status == StoreStatus.IN_PROGRESS:
            status = None
        if status is not None and len(status) > MAX_SMALL_FIELD:
            raise ValueError(f"bad status {status!r}")
        moves = tuple(moves)
        log = b"".join(pack_move(m) for m in moves)
        arg = "" if expected_version is None else self._version_arg(expected_version)
        reply = await self._write(self._replace, game_id, [arg, state, log, str(len(moves)), status or "", str(undos)])
        return self._record(game_id, reply[1], reply[2], state, moves=moves)

    async def finish(self, game_id: str, expected_version: int | None, status: str) -> GameRecord:
        if not status or status == StoreStatus.IN_PROGRESS or len(status) > MAX_SMALL_FIELD:
            raise ValueError(f"finish needs a closing status, not {status!r}")
        arg = "" if expected_version is None else self._version_arg(expected_version)
        reply = await self._write(self._finish, game_id, [arg, status])
        return self._record(game_id, reply[1], reply[2], reply[3] or b"")

    async def delete(self, game_id: str) -> bool:
        if not _check_game_id(game_id):
            return False
        # One slot, so a multi-key DEL is fine on a cluster too.
        return bool(await self._call(self.client.delete(*self.keys(game_id))))

    def prepared_key(self, prepared_id: str) -> str:
        """A prepared server seed's key (its own hash tag: it belongs to no game yet)."""
        return f"{self.key_prefix}:prep:{{{prepared_id}}}"

    async def put_prepared(self, prepared_id: str, server_seed: bytes, ttl_seconds: int) -> None:
        if not _check_game_id(prepared_id):
            raise ValueError(f"a prepared id is 1-64 characters of A-Z a-z 0-9 _ -, not {prepared_id!r:.80}")
        if not server_seed or ttl_seconds < 1:
            raise ValueError("a prepared seed needs bytes and a positive TTL")
        stored = self.client.set(self.prepared_key(prepared_id), server_seed, px=ttl_seconds * 1000, nx=True)
        if not await self._call(stored):
            raise AlreadyExists(prepared_id)

    async def take_prepared(self, prepared_id: str) -> bytes | None:
        if not _check_game_id(prepared_id):
            return None
        # GETDEL: two replicas handed the same id cannot both get the seed.
        seed = await self._call(self.client.getdel(self.prepared_key(prepared_id)))
        return seed if isinstance(seed, bytes) and seed else None  # the client never decodes replies

    async def ping(self) -> None:
        await self._call(self.pipe.ping() if self.pipe is not None else self.client.ping())

    async def close(self) -> None:
        if self.pipe is not None:
            await self.pipe.close()
        await self.client.aclose()

    # -- helpers ------------------------------------------------------------------

    @staticmethod
    def _version_arg(expected_version: int) -> str:
        if isinstance(expected_version, bool) or not isinstance(expected_version, int):
            raise TypeError("expected_version is an int")
        return str(expected_version)

    async def _write(self, script: Any, game_id: str, args: Sequence[bytes | str]) -> list[Any]:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply: list[Any] = await self._script(script, self.keys(game_id), [*self._ttl_args, *args])
        code = reply[0]
        if code == 1:
            return reply
        if code == 0:
            raise VersionConflict(int(args[0] or 0), int(reply[1]))
        if code == -1:
            raise NotFound(game_id)
        if code == -2:
            raise GameClosed(reply[2].decode(), int(reply[1]))
        if code == -3:
            raise GameExpired(int(reply[1]))
        if code == -4:
            raise NothingToUndo(int(reply[1]))
        raise StoreError(f"unexpected reply {reply!r:.200}")

    async def _script(self, script: Any, keys: list[str], args: Sequence[Any]) -> Any:
        """Run one of the registered scripts (``script.sha``/``script.script``) on the pipe, else via redis-py."""
        if self.pipe is None:
            return await self._call(script(keys=keys, args=args))
        try:  # _call's mapping, inline: one coroutine less on the path of every move
            return await self.pipe.evalsha(script.sha, script.script, keys, args)
        except (RedisError, OSError) as exc:
            error = _unavailable(exc)
            if error is None:
                raise
            raise error from exc

    @staticmethod
    async def _call(awaitable: Awaitable[_T]) -> _T:
        try:
            return await awaitable
        except (RedisError, OSError) as exc:
            error = _unavailable(exc)
            if error is None:
                raise
            raise error from exc

    def _changed(self, previous: GameRecord, changed: list[bytes], now: bytes, state: bytes) -> GameRecord:
        """``previous`` after a write, from the fields the write changes (v, st, ua, fa, mc, uc): the others are
        set once, when the game is created."""
        v, st, ua, fa, mc, uc = changed
        p = previous
        return GameRecord(
            p.game_id, p.token_hash, p.variant, p.options, p.seed, p.server_seed, p.client_seed, p.ticket_id,
            p.allow_undo, state, int(v), st.decode(), p.created_at, int(ua), int(fa), int(mc), int(uc),
            self.idle_ms, int(now),
        )  # fmt: skip

    def _record(
        self, game_id: str, meta: list[bytes], now: bytes | int, state: bytes, moves: tuple[str, ...] | None = None
    ) -> GameRecord:
        m = dict(zip(meta[::2], meta[1::2], strict=True))  # names stay bytes (the _B_ constants)
        return GameRecord(
            game_id=game_id,
            token_hash=m[_B_TOKEN],
            variant=m[_B_VARIANT].decode(),
            options=m[_B_OPTIONS].decode(),
            seed=m[_B_SEED],
            server_seed=m.get(_B_SERVER_SEED, b""),
            client_seed=m.get(_B_CLIENT_SEED, b""),
            ticket_id=m.get(_B_TICKET, b"").decode(),
            allow_undo=m.get(_B_UNDO_OK, b"1") == b"1",
            state=state,
            version=int(m[_B_VERSION]),
            status=m[_B_STATUS].decode(),
            created_at=int(m[_B_CREATED]),
            updated_at=int(m[_B_UPDATED]),
            finished_at=int(m[_B_FINISHED]),
            move_count=int(m[_B_MOVES]),
            undo_count=int(m[_B_UNDOS]),
            idle_ms=self.idle_ms,
            now=int(now),
            moves=moves,
        )


def open_store(
    url: str,
    *,
    idle_seconds: float,
    retain_seconds: float | None = None,
    key_prefix: str = "patience",
    **client_options: Any,
) -> RedisGameStore:
    """A store for ``url``: ``redis://``, ``rediss://``, ``unix://`` for one server, ``redis+cluster://HOST:PORT``
    (or ``rediss+cluster://``) for a cluster, given by any one of its nodes. ``client_options`` go to redis-py
    (e.g. ``socket_timeout``, ``max_connections``)."""
    scheme = url.split("://", 1)[0].lower()
    client: aioredis.Redis | RedisCluster
    pipe: PipelinedRedis | None = None
    if scheme in CLUSTER_SCHEMES:
        client = RedisCluster.from_url(url.replace("+cluster", "", 1), **client_options)
    else:
        client = aioredis.Redis.from_url(url, **client_options)
        pipe = PipelinedRedis.from_url(url, **client_options)  # None for TLS or unusual options: redis-py then
    return RedisGameStore(
        client, idle_seconds=idle_seconds, retain_seconds=retain_seconds, key_prefix=key_prefix, pipe=pipe
    )


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES
