"""The game store on Redis: every write is one Lua script (``service.store.scripts``) that compares the version
and writes in a single step.

The keys of a game and the fields of its meta hash are in ``service.store.layout``; the times come from the Redis
server's clock (``TIME`` inside the scripts), so every replica of the service agrees on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from engine import movelog
from engine.moves import Move
from service.store import layout, scripts
from service.store.calls import run_script
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
from service.store.failures import guarded
from service.store.interface import GameStore
from service.store.records import (
    GameRecord,
    HintBase,
    HintTrail,
    NewGameRecord,
    SignedWin,
    StoreStatus,
    UndoBase,
)
from service.store.redispipe import PipelinedRedis

_T = TypeVar("_T")


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
        self._idle = (self.idle_ms, self.fresh_ms)  # a record's idle time: moved, and nobody has moved it yet
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
        self.script_names = {
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
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        reply = await run_script(self, self._fetch, self.keys(game_id), [*self._ttl_args, int(moves)])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log = reply[:5]
        record = layout.record(game_id, meta, now, state or b"", self._idle)
        if moves:
            record = replace(record, moves=movelog.unpack(log) if log else ())
        return record

    async def fetch_undo_base(self, game_id: str) -> UndoBase:
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        reply = await run_script(self, self._fetch, self.keys(game_id), [*self._ttl_args, "u"])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log, checkpoint = reply[:6]
        record = layout.record(game_id, meta, now, state or b"", self._idle)
        if not checkpoint:
            return UndoBase(record, b"", log or b"")
        _, _, encoded = bytes(checkpoint).split(b",", 2)
        return UndoBase(record, encoded, log or b"")

    async def fetch_hint_base(self, game_id: str) -> HintBase:
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        reply = await run_script(self, self._fetch, self.keys(game_id), [*self._ttl_args, "h"])
        if reply[0] == -1:
            raise NotFound(game_id)
        _, meta, now, state, log, _, flat, path = reply
        record = layout.record(game_id, meta, now, state or b"", self._idle)
        if not flat or not path:  # no trail (or a path that expired first): the path is walked again
            return HintBase(record, None, b"", log or b"")
        t = dict(zip(flat[::2], flat[1::2], strict=True))
        trail = HintTrail(int(t[b"v"]), int(t[b"mc"]), int(t[b"o"]), t[b"s"], t[b"l"], t[b"k"], int(t[b"n"]))
        return HintBase(record, trail, bytes(path), log or b"")

    # -- writes -------------------------------------------------------------------

    async def create(self, game: NewGameRecord) -> GameRecord:
        if not layout.check_game_id(game.game_id):
            raise ValueError(f"a game id is 1-64 characters of A-Z a-z 0-9 _ -, not {game.game_id!r:.80}")
        if not game.state:
            raise ValueError("a game needs a state")
        fields = layout.new_fields(game)
        if not game.status or len(game.status) > layout.MAX_SMALL_FIELD:
            raise ValueError(f"bad status {game.status!r}")
        log = movelog.pack_all(game.moves)
        args = [*self._ttl_args, game.state, log, len(game.moves), game.status, *fields]
        reply = await run_script(self, self._create, self.keys(game.game_id), args, durable=True)
        if reply[0] == -5:
            raise AlreadyExists(game.game_id)
        return layout.record(game.game_id, reply[1], reply[2], game.state, self._idle, tuple(game.moves))

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
            *layout.win_args(win),
        ]
        reply = await self._write(self._set_state, game_id, args)
        if short:
            assert previous is not None
            return layout.changed(previous, reply[1], reply[2], state, self._idle)
        return layout.record(game_id, reply[1], reply[2], state, self._idle)

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
        if status is not None and len(status) > layout.MAX_SMALL_FIELD:
            raise ValueError(f"bad status {status!r}")
        packed = movelog.pack_all(moves)
        args: list[bytes | str] = [self._version_arg(expected_version), state, packed, str(len(moves)), status or ""]
        reply = await self._write(self._play_moves, game_id, [*args, *layout.win_args(win)])
        return layout.record(game_id, reply[1], reply[2], state, self._idle)

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
        return layout.record(game_id, reply[1], reply[2], state, self._idle)

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
        if status is not None and len(status) > layout.MAX_SMALL_FIELD:
            raise ValueError(f"bad status {status!r}")
        moves = tuple(moves)
        log = movelog.pack_all(moves)
        arg = "" if expected_version is None else self._version_arg(expected_version)
        if len(played) > layout.MAX_SMALL_FIELD:
            raise ValueError(f"bad played {played!r}")
        args: list[bytes | str] = [arg, state, log, str(len(moves)), status or "", str(undos), played]
        reply = await self._write(self._replace, game_id, [*args, *layout.win_args(win)])
        return layout.record(game_id, reply[1], reply[2], state, self._idle, moves)

    async def finish(self, game_id: str, expected_version: int | None, status: str) -> GameRecord:
        if not status or status == StoreStatus.IN_PROGRESS or len(status) > layout.MAX_SMALL_FIELD:
            raise ValueError(f"finish needs a closing status, not {status!r}")
        arg = "" if expected_version is None else self._version_arg(expected_version)
        reply = await self._write(self._finish, game_id, [arg, status])
        return layout.record(game_id, reply[1], reply[2], reply[3] or b"", self._idle)

    async def keep_certificate(self, game_id: str, encoded: bytes) -> bytes:
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        reply = await run_script(self, self._keep_certificate, self.keys(game_id), [encoded], durable=True)
        if reply[0] == -1:
            raise NotFound(game_id)
        return bytes(reply[1])

    async def rotate_token(self, game_id: str, token_hash: bytes) -> GameRecord:
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        args = [*self._ttl_args, layout.small("token_hash", token_hash)]
        reply = await run_script(self, self._rotate_token, self.keys(game_id), args, durable=True)
        if reply[0] == -1:
            raise NotFound(game_id)
        return layout.record(game_id, reply[1], reply[2], reply[3] or b"", self._idle)

    async def delete(self, game_id: str) -> bool:
        if not layout.check_game_id(game_id):
            return False
        # One slot, so a multi-key DEL is fine on a cluster too.
        return bool(await guarded(self.client.delete(*self.keys(game_id))))

    async def unlink_owner(self, game_id: str, owner: str) -> bool:
        if not layout.check_game_id(game_id) or not owner:
            return False
        return bool(await run_script(self, self._unlink_owner, self.keys(game_id)[:1], [owner], durable=True))

    def prepared_key(self, prepared_id: str) -> str:
        """A prepared server seed's key (its own hash tag: it belongs to no game yet)."""
        return f"{self.key_prefix}:prep:{{{prepared_id}}}"

    async def put_prepared(self, prepared_id: str, server_seed: bytes, ttl_seconds: int) -> None:
        if not layout.check_game_id(prepared_id):
            raise ValueError(f"a prepared id is 1-64 characters of A-Z a-z 0-9 _ -, not {prepared_id!r:.80}")
        if not server_seed or ttl_seconds < 1:
            raise ValueError("a prepared seed needs bytes and a positive TTL")
        stored = self.client.set(self.prepared_key(prepared_id), server_seed, px=ttl_seconds * 1000, nx=True)
        if not await guarded(stored):
            raise AlreadyExists(prepared_id)

    async def take_prepared(self, prepared_id: str) -> bytes | None:
        if not layout.check_game_id(prepared_id):
            return None
        # GETDEL: two replicas handed the same id cannot both get the seed.
        seed = await guarded(self.client.getdel(self.prepared_key(prepared_id)))
        return seed if isinstance(seed, bytes) and seed else None  # the client never decodes replies

    def pool_key(self, pool: str) -> str:
        """A winnable pool's list (service.solving.winnable): its own hash tag, so a pool is one cluster slot."""
        if not pool or any(c in pool for c in "{} "):
            raise ValueError(f"bad pool name {pool!r:.80}")
        return f"{self.key_prefix}:win:{{{pool}}}"

    async def push_winnable(self, pool: str, entry: bytes) -> int:
        if not entry:
            raise ValueError("an empty pool entry")
        return int(await guarded(self.client.rpush(self.pool_key(pool), entry)))

    async def pop_winnable(self, pool: str) -> bytes | None:
        # LPOP is atomic: two replicas popping at once get two entries, or one gets None.
        entry = await guarded(self.client.lpop(self.pool_key(pool)))
        return bytes(entry) if isinstance(entry, bytes) and entry else None

    async def pool_sizes(self, pools: Sequence[str]) -> dict[str, int]:
        # One LLEN per pool: the pools sit in different cluster slots, and there are a dozen or so.
        return {pool: int(await guarded(self.client.llen(self.pool_key(pool)))) for pool in pools}

    async def ping(self) -> None:
        await guarded(self.pipe.ping() if self.pipe is not None else self.client.ping())

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
        if not layout.check_game_id(game_id):
            raise NotFound(game_id)
        reply: list[Any] = await run_script(self, script, self.keys(game_id), [*self._ttl_args, *args], durable=True)
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
