"""The game store on Redis: every write is one Lua script (``service.store.scripts``) that compares the version
and writes in a single step.

Layout: a game's keys share the hash tag ``{game_id}``, so every script touches
one cluster slot and the same code runs on a single Redis and on Redis Cluster
(the URL scheme ``redis+cluster://`` / ``rediss+cluster://`` picks the cluster
client; nothing else differs)::

    <prefix>:{<id>}     hash    small fields only (each < 64 bytes keeps it a listpack)
    <prefix>:{<id>}:s   string  the engine's encoded state (~150 bytes)
    <prefix>:{<id>}:m   string  the move log, packed (about 2.3 bytes a move: engine.movelog), appended to
    <prefix>:{<id>}:c   list    checkpoints of a game being played: every CHECKPOINT_EVERY moves, the move
                                count, the log's length then and the encoded state ("mc,offset,state")
    <prefix>:{<id>}:h   hash    the hint trail of a game being played (interface.HintTrail): v, mc, o, s, l, k, n
    <prefix>:{<id>}:p   string  the keys of the positions met up to the trail's version, 8 bytes each, appended to
    <prefix>:{<id>}:w   channel a sharded pub/sub channel (SPUBLISH, never a key): each write script publishes the
                                game's new version on it for its watchers (service.store.changes)
    <prefix>:win:{<pool>}  list  a winnable pool (service.solving.winnable): entries of a seed and its winning line

The hint trail and path are written by Hint only (with the hint's count, a compare-and-set on the game's
version and the trail's), dropped by UndoMove, SubmitSolution and the end of the game, and expire with the
idle time of the hint that wrote them.

A game dealt as winnable keeps its winning line (packed) in the hash's ``wl`` field: read with the game, shown
only once it is over.

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

import re
from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import redis.asyncio as aioredis
from opentelemetry.trace import SpanKind
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from engine import movelog
from engine.moves import Move
from service.observe import tracing
from service.store import durability, scripts
from service.store.changes import GameChanges
from service.store.errors import (
    AlreadyExists,
    GameClosed,
    GameExpired,
    NotFound,
    NothingToUndo,
    StoreError,
    VersionConflict,
)
from service.store.failures import REDIS_FAILURES, unavailable
from service.store.interface import GameStore
from service.store.records import (
    GameRecord,
    HintBase,
    HintTrail,
    NewGameRecord,
    Played,
    SignedWin,
    StoreStatus,
    UndoBase,
    dealt_of,
)
from service.store.redispipe import PipelinedRedis

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_SMALL_FIELD = 64  # bytes; longer hash values would turn the hash into a hashtable


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
_F_PLAYED = "pl"
_F_DEALT = "dk"  # how the deal was chosen (absent from records written before it existed)
_F_DEAL_NUMBER = "dn"  # a public deal's number (absent unless dealt is "public")
_B_DEALT, _B_DEAL_NUMBER = _F_DEALT.encode(), _F_DEAL_NUMBER.encode()
_F_SOLUTION = "wl"
_F_OWNER, _F_OWNER_NAME, _F_OWNER_KIND = "ow", "on", "ok"  # the signed-in player who dealt it (absent: anonymous)
_B_OWNER, _B_OWNER_NAME, _B_OWNER_KIND = (f.encode() for f in (_F_OWNER, _F_OWNER_NAME, _F_OWNER_KIND))
_F_WATCHABLE = "wa"  # "1" when spectators may watch the game (absent otherwise)
_B_WATCHABLE = _F_WATCHABLE.encode()
_F_BOARD, _F_RANKED = "bd", "rk"  # the deal's leaderboard, and "1" for a player's one ranked game of a daily deal
_B_BOARD, _B_RANKED = _F_BOARD.encode(), _F_RANKED.encode()
_B_SOLUTION = _F_SOLUTION.encode()
_B_PLAYED = _F_PLAYED.encode()
_B_TOKEN, _B_VARIANT, _B_OPTIONS, _B_SEED = (f.encode() for f in (_F_TOKEN, _F_VARIANT, _F_OPTIONS, _F_SEED))
_B_SERVER_SEED, _B_CLIENT_SEED, _B_TICKET, _B_UNDO_OK = (
    f.encode() for f in (_F_SERVER_SEED, _F_CLIENT_SEED, _F_TICKET, _F_UNDO_OK)
)
_B_VERSION, _B_STATUS, _B_CREATED, _B_UPDATED, _B_FINISHED, _B_MOVES, _B_UNDOS = (
    f.encode() for f in (_F_VERSION, _F_STATUS, _F_CREATED, _F_UPDATED, _F_FINISHED, _F_MOVES, _F_UNDOS)
)

_T = TypeVar("_T")


def _check_game_id(game_id: str) -> bool:
    return isinstance(game_id, str) and GAME_ID_RE.match(game_id) is not None


def _win_args(win: SignedWin | None) -> list[bytes | str]:
    """A win signed before its write, as the write script's last arguments (scripts.py, ``finish``)."""
    if win is None:
        return []
    return [win.certificate, str(win.finished_at), str(win.hint_count), win.owner]


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
        fresh_seconds: float | None = None,
        replicas: int = 0,
        replica_timeout_ms: int = 1000,
        node_url: str = "",
        node_options: dict[str, Any] | None = None,
    ) -> None:
        retain = idle_seconds if retain_seconds is None else retain_seconds
        fresh = idle_seconds if fresh_seconds is None else min(fresh_seconds, idle_seconds)
        if idle_seconds <= 0 or retain <= 0 or fresh <= 0:
            raise ValueError("idle_seconds > 0, retain_seconds > 0 and fresh_seconds > 0")
        if not key_prefix or any(c in key_prefix for c in "{} "):
            raise ValueError(f"bad key prefix {key_prefix!r}")
        self.client = client
        # The scripts go through ``pipe`` when there is one (a single Redis: see service/store/redispipe.py), else
        # through redis-py; either way they are the same scripts, called by SHA-1 and loaded when missing.
        self.pipe = pipe
        self.idle_ms = max(1, round(idle_seconds * 1000))
        self.retain_ms = max(1, round(retain * 1000))
        self.fresh_ms = max(1, round(fresh * 1000))  # a game nobody has moved (version 1) expires sooner
        self._ttl_args = (self.idle_ms + self.retain_ms, f"{self.idle_ms},{self.fresh_ms}", self.retain_ms)
        self.key_prefix = key_prefix
        if replicas < 0 or replica_timeout_ms < 1:
            raise ValueError("replicas >= 0 and replica_timeout_ms >= 1")
        #: Durability: a write is acknowledged only once this many replicas have it (WAIT); 0 = the primary's word.
        self.replicas = replicas
        self.replica_timeout_ms = replica_timeout_ms
        self.masters: dict[str, aioredis.Redis] = {}  # cluster node name -> a client of it (durable writes only)
        #: A cluster's URL and client options, for a client of one of its masters (durable writes only).
        self.node_url = node_url
        self.node_options: dict[str, Any] = dict(node_options or {})
        # register_script hashes each script once; EVALSHA loads it on first use (and after a restart).
        self._fetch = client.register_script(scripts.FETCH)
        self._create = client.register_script(scripts.CREATE)
        self._set_state = client.register_script(scripts.SET_STATE)
        self._undo = client.register_script(scripts.UNDO)
        self._play_moves = client.register_script(scripts.PLAY_MOVES)
        self._count_hint = client.register_script(scripts.COUNT_HINT)
        self._replace = client.register_script(scripts.REPLACE)
        self._finish = client.register_script(scripts.FINISH)
        self._keep_certificate = client.register_script(scripts.KEEP_CERTIFICATE)
        self._unlink_owner = client.register_script(scripts.UNLINK_OWNER)
        self._rotate_token = client.register_script(scripts.ROTATE_TOKEN)
        #: Each script's name by its SHA-1: the name of its span when traces are on (service.observe.tracing).
        self._script_names = {
            script.sha: name.removeprefix("_") for name, script in vars(self).items() if isinstance(script, AsyncScript)
        }

    def changes(self) -> GameChanges:
        """The games' change notifications (their write scripts publish them), on a connection of their own."""
        return GameChanges(self.client, self.key_prefix)

    @property
    def is_cluster(self) -> bool:
        return isinstance(self.client, RedisCluster)

    def keys(self, game_id: str) -> list[str]:
        """The game's keys: meta hash, state, move log, checkpoints, hint trail, hint path (one hash tag, hence one
        cluster slot)."""
        base = f"{self.key_prefix}:{{{game_id}}}"
        return [base, base + ":s", base + ":m", base + ":c", base + ":h", base + ":p"]

    # -- reads --------------------------------------------------------------------

    async def fetch(self, game_id: str, *, moves: bool = False) -> GameRecord:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply = await self._script(self._fetch, self.keys(game_id), [*self._ttl_args, int(moves)])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log = reply[:5]
        record = self._record(game_id, meta, now, state or b"")
        if moves:
            record = replace(record, moves=movelog.unpack(log) if log else ())
        return record

    async def fetch_undo_base(self, game_id: str) -> UndoBase:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply = await self._script(self._fetch, self.keys(game_id), [*self._ttl_args, "u"])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log, checkpoint = reply[:6]
        record = self._record(game_id, meta, now, state or b"")
        if not checkpoint:
            return UndoBase(record, b"", log or b"")
        _, _, encoded = bytes(checkpoint).split(b",", 2)
        return UndoBase(record, encoded, log or b"")

    async def fetch_hint_base(self, game_id: str) -> HintBase:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply = await self._script(self._fetch, self.keys(game_id), [*self._ttl_args, "h"])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log, _, flat, path = reply
        record = self._record(game_id, meta, now, state or b"")
        if not flat or not path:  # no trail (or a path that expired first): the path is walked again
            return HintBase(record, None, b"", log or b"")
        t = dict(zip(flat[::2], flat[1::2], strict=True))
        trail = HintTrail(int(t[b"v"]), int(t[b"mc"]), int(t[b"o"]), t[b"s"], t[b"l"], t[b"k"], int(t[b"n"]))
        return HintBase(record, trail, bytes(path), log or b"")

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
        if game.played:
            fields += [_F_PLAYED, _small("played", game.played.encode())]
        fields += [_F_DEALT, _small("dealt", dealt_of(game.dealt, game.ticket_id).encode())]
        if game.deal_number:
            if isinstance(game.deal_number, bool) or not 0 < game.deal_number < 1 << 32:
                raise ValueError(f"a deal number is 1 to 2**32-1, not {game.deal_number!r}")
            fields += [_F_DEAL_NUMBER, str(game.deal_number)]
        if game.owner:
            fields += [_F_OWNER, _small("owner", game.owner.encode())]
            fields += [_F_OWNER_NAME, _small("owner_name", game.owner_name.encode())]
            fields += [_F_OWNER_KIND, _small("owner_kind", game.owner_kind.encode())]
        if game.watchable:
            fields += [_F_WATCHABLE, "1"]
        if game.board:
            fields += [_F_BOARD, _small("board", game.board.encode())]
        if game.ranked:
            fields += [_F_RANKED, b"1"]
        if game.solution:  # longer than a small field: a winnable game's hash is a hashtable, as a won game's is
            fields += [_F_SOLUTION, game.solution]
        if not game.status or len(game.status) > MAX_SMALL_FIELD:
            raise ValueError(f"bad status {game.status!r}")
        log = movelog.pack_all(game.moves)
        args = [*self._ttl_args, game.state, log, len(game.moves), game.status, *fields]
        reply = await self._script(self._create, self.keys(game.game_id), args, durable=True)
        if reply[0] == -5:
            raise AlreadyExists(game.game_id)
        return self._record(game.game_id, reply[1], reply[2], game.state, moves=tuple(game.moves))

    async def set_state(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        move: Move,
        *,
        status: str | None = None,
        previous: GameRecord | None = None,
        win: SignedWin | None = None,
    ) -> GameRecord:
        packed = movelog.pack(move)
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
            *_win_args(win),
        ]
        reply = await self._write(self._set_state, game_id, args)
        if short:
            assert previous is not None
            return self._changed(previous, reply[1], reply[2], state)
        return self._record(game_id, reply[1], reply[2], state)

    async def play_moves(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        moves: Sequence[Move],
        *,
        status: str | None = None,
        win: SignedWin | None = None,
    ) -> GameRecord:
        if not moves:
            raise ValueError("play_moves needs a move")
        if not state:
            raise ValueError("a game needs a state")
        if status is not None and status == StoreStatus.IN_PROGRESS:
            status = None
        if status is not None and len(status) > MAX_SMALL_FIELD:
            raise ValueError(f"bad status {status!r}")
        packed = movelog.pack_all(moves)
        args: list[bytes | str] = [self._version_arg(expected_version), state, packed, str(len(moves)), status or ""]
        reply = await self._write(self._play_moves, game_id, [*args, *_win_args(win)])
        return self._record(game_id, reply[1], reply[2], state)

    async def count_hint(
        self,
        game_id: str,
        version: int,
        trail: HintTrail | None = None,
        *,
        previous: int = 0,
        walked: bytes = b"",
        anew: bool = False,
    ) -> int:
        args: list[bytes | str] = ["", self._version_arg(version), str(previous)]
        if trail is not None:
            args += ["1", trail.state, trail.line, trail.keys, str(trail.to_end), walked, "1" if anew else ""]
        reply = await self._write(self._count_hint, game_id, args)
        return int(reply[1])

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
        moves: Sequence[Move],
        *,
        status: str | None = None,
        undos: int = 0,
        played: str = "",
        win: SignedWin | None = None,
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
        log = movelog.pack_all(moves)
        arg = "" if expected_version is None else self._version_arg(expected_version)
        if len(played) > MAX_SMALL_FIELD:
            raise ValueError(f"bad played {played!r}")
        args: list[bytes | str] = [arg, state, log, str(len(moves)), status or "", str(undos), played]
        reply = await self._write(self._replace, game_id, [*args, *_win_args(win)])
        return self._record(game_id, reply[1], reply[2], state, moves=moves)

    async def finish(self, game_id: str, expected_version: int | None, status: str) -> GameRecord:
        if not status or status == StoreStatus.IN_PROGRESS or len(status) > MAX_SMALL_FIELD:
            raise ValueError(f"finish needs a closing status, not {status!r}")
        arg = "" if expected_version is None else self._version_arg(expected_version)
        reply = await self._write(self._finish, game_id, [arg, status])
        return self._record(game_id, reply[1], reply[2], reply[3] or b"")

    async def keep_certificate(self, game_id: str, encoded: bytes) -> bytes:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply = await self._script(self._keep_certificate, self.keys(game_id), [encoded], durable=True)
        if reply[0] == -1:
            raise NotFound(game_id)
        return bytes(reply[1])

    async def rotate_token(self, game_id: str, token_hash: bytes) -> GameRecord:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        args = [*self._ttl_args, _small("token_hash", token_hash)]
        reply = await self._script(self._rotate_token, self.keys(game_id), args, durable=True)
        if reply[0] == -1:
            raise NotFound(game_id)
        return self._record(game_id, reply[1], reply[2], reply[3] or b"")

    async def delete(self, game_id: str) -> bool:
        if not _check_game_id(game_id):
            return False
        # One slot, so a multi-key DEL is fine on a cluster too.
        return bool(await self._call(self.client.delete(*self.keys(game_id))))

    async def unlink_owner(self, game_id: str, owner: str) -> bool:
        if not _check_game_id(game_id) or not owner:
            return False
        return bool(await self._script(self._unlink_owner, self.keys(game_id)[:1], [owner], durable=True))

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

    def pool_key(self, pool: str) -> str:
        """A winnable pool's list (service.solving.winnable): its own hash tag, so a pool is one cluster slot."""
        if not pool or any(c in pool for c in "{} "):
            raise ValueError(f"bad pool name {pool!r:.80}")
        return f"{self.key_prefix}:win:{{{pool}}}"

    async def push_winnable(self, pool: str, entry: bytes) -> int:
        if not entry:
            raise ValueError("an empty pool entry")
        return int(await self._call(self.client.rpush(self.pool_key(pool), entry)))

    async def pop_winnable(self, pool: str) -> bytes | None:
        # LPOP is atomic: two replicas popping at once get two entries, or one gets None.
        entry = await self._call(self.client.lpop(self.pool_key(pool)))
        return bytes(entry) if isinstance(entry, bytes) and entry else None

    async def pool_sizes(self, pools: Sequence[str]) -> dict[str, int]:
        # One LLEN per pool: the pools sit in different cluster slots, and there are a dozen or so.
        return {pool: int(await self._call(self.client.llen(self.pool_key(pool)))) for pool in pools}

    async def ping(self) -> None:
        await self._call(self.pipe.ping() if self.pipe is not None else self.client.ping())

    async def close(self) -> None:
        if self.pipe is not None:
            await self.pipe.close()
        for master in self.masters.values():
            await master.aclose()
        await self.client.aclose()

    # -- helpers ------------------------------------------------------------------

    @staticmethod
    def _version_arg(expected_version: int) -> str:
        if isinstance(expected_version, bool) or not isinstance(expected_version, int):
            raise TypeError("expected_version is an int")
        return str(expected_version)

    async def _write(self, script: AsyncScript, game_id: str, args: Sequence[bytes | str]) -> list[Any]:
        if not _check_game_id(game_id):
            raise NotFound(game_id)
        reply: list[Any] = await self._script(script, self.keys(game_id), [*self._ttl_args, *args], durable=True)
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

    async def _script(
        self, script: AsyncScript, keys: list[str], args: Sequence[Any], *, durable: bool = False, span: bool = True
    ) -> Any:
        """Run one of the registered scripts (``script.sha``/``script.script``) on the pipe, else via redis-py;
        a ``durable`` one (a write) is confirmed by ``self.replicas`` replicas first when the setting asks. With
        traces on, inside a client span named after the script."""
        if span and tracing.on and tracing.recording():
            name = self._script_names.get(script.sha, "script")
            attributes = {"db.system.name": "redis", "db.operation.name": "EVALSHA", "db.stored_procedure.name": name}
            with tracing.span(f"EVALSHA {name}", SpanKind.CLIENT, **attributes):
                return await self._script(script, keys, args, durable=durable, span=False)
        if durable and self.replicas:
            return await durability.replicated(self, script, keys, args)
        if self.pipe is None:
            return await self._call(script(keys=keys, args=args))
        try:  # _call's mapping, inline: one coroutine less on the path of every move
            return await self.pipe.evalsha(script.sha, script.script, keys, args)
        except REDIS_FAILURES as exc:
            error = unavailable(exc)
            if error is None:
                raise
            raise error from exc

    @staticmethod
    async def _call(awaitable: Awaitable[_T]) -> _T:
        try:
            return await awaitable
        except REDIS_FAILURES as exc:
            error = unavailable(exc)
            if error is None:
                raise
            raise error from exc

    def _changed(self, previous: GameRecord, changed: list[bytes], now: bytes, state: bytes) -> GameRecord:
        """``previous`` after a write, from the fields the write changes (v, st, ua, fa, mc, uc), the hint count
        (which a Hint may have changed since ``previous`` was read), the owner (which ErasePlayer may have
        removed) and the certificate the write kept: the others are set once, when the game is created."""
        v, st, ua, fa, mc, uc, hc, ow, ct = changed
        p = previous
        owned = bool(ow) and ow.decode() == p.owner
        return GameRecord(
            p.game_id, p.token_hash, p.variant, p.options, p.seed, p.server_seed, p.client_seed, p.ticket_id,
            p.allow_undo, state, int(v), st.decode(), p.created_at, int(ua), int(fa), int(mc), int(uc),
            self.idle_ms if int(v) > 1 else self.fresh_ms, int(now), None, Played.MOVES if st == b"won" else p.played,
            ct or p.certificate, p.dealt, p.deal_number, p.solution, int(hc), p.owner if owned else "",
            p.owner_name if owned else "", p.owner_kind if owned else "", p.watchable, p.board,
            p.ranked,
        )  # fmt: skip

    def _record(
        self, game_id: str, meta: list[bytes], now: bytes | int, state: bytes, moves: tuple[Move, ...] | None = None
    ) -> GameRecord:
        m = dict(zip(meta[::2], meta[1::2], strict=True))  # names stay bytes (the _B_ constants)
        ticket = m.get(_B_TICKET, b"").decode()
        return GameRecord(
            game_id=game_id,
            token_hash=m[_B_TOKEN],
            variant=m[_B_VARIANT].decode(),
            options=m[_B_OPTIONS].decode(),
            seed=m[_B_SEED],
            server_seed=m.get(_B_SERVER_SEED, b""),
            client_seed=m.get(_B_CLIENT_SEED, b""),
            ticket_id=ticket,
            allow_undo=m.get(_B_UNDO_OK, b"1") == b"1",
            state=state,
            version=int(m[_B_VERSION]),
            status=m[_B_STATUS].decode(),
            created_at=int(m[_B_CREATED]),
            updated_at=int(m[_B_UPDATED]),
            finished_at=int(m[_B_FINISHED]),
            move_count=int(m[_B_MOVES]),
            undo_count=int(m[_B_UNDOS]),
            idle_ms=self.idle_ms if int(m[_B_VERSION]) > 1 else self.fresh_ms,
            now=int(now),
            moves=moves,
            played=m.get(_B_PLAYED, b"").decode(),
            certificate=m.get(b"ct", b""),
            dealt=dealt_of(m.get(_B_DEALT, b"").decode(), ticket),
            deal_number=int(m.get(_B_DEAL_NUMBER, b"0")),
            solution=m.get(_B_SOLUTION, b""),
            hint_count=int(m.get(b"hc", b"0")),
            owner=m.get(_B_OWNER, b"").decode(),
            owner_name=m.get(_B_OWNER_NAME, b"").decode(),
            owner_kind=m.get(_B_OWNER_KIND, b"").decode(),
            watchable=m.get(_B_WATCHABLE) == b"1",
            board=m.get(_B_BOARD, b"").decode(),
            ranked=m.get(_B_RANKED) == b"1",
        )
