"""The store's side of the service: its records, its errors and the interface every store implements.

The interface is boardgame.io's: ``create``, ``fetch``, and ``set_state`` with the move appended to the log,
plus ``undo`` and ``finish``. Every write is a compare-and-set on the version, so of N concurrent writers that
read the same version exactly one succeeds and the others get :class:`VersionConflict` with the current
version. Moves are the engine's :class:`~engine.moves.Move` values, in and out.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine import movelog
from engine.moves import Move

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


class NotReplicated(StoreUnavailable):
    """The write reached the primary but not the replicas the durability setting asks for, in time: it may or may
    not survive a failover, so it is not acknowledged (the client reads the game back, as after any
    UNAVAILABLE)."""


class StoreFull(StoreUnavailable):
    """Redis is at its maxmemory and refused the write whole (nothing of it was written): retry later."""


# --------------------------------------------------------------------------- records


class StoreStatus(StrEnum):
    """The stored status. ``expired`` is never stored: see :attr:`GameRecord.expired`."""

    IN_PROGRESS = "in-progress"
    WON = "won"
    RESIGNED = "resigned"
    FORFEITED = "forfeited"  # a submitted solution did not win: SubmitSolution is final


class Played(StrEnum):
    """How a won game was won (the certificate says so)."""

    MOVES = "moves"  # move by move (ApplyMove)
    SUBMITTED = "submitted"  # a whole solution at once (SubmitSolution)


class Dealt(StrEnum):
    """How a game's deal was chosen (``Game.dealt``, and the certificate's ``dealt``): docs/fairness.md says which
    of them make a fairness claim."""

    RANDOM = "random"  # the service's own seed, perhaps mixed with a client seed
    TICKET = "ticket"  # a minted deal ticket's deal
    WINNABLE = "winnable"  # drawn from deals known to be winnable
    REPLAY = "replay"  # a seed the player gave (a deal played again)
    PUBLIC = "public"  # the numbered public deal ``deal_number``
    DAILY = "daily"  # the daily deal of a UTC day (``board`` names it: docs/competition.md)


def dealt_of(stored: str, ticket_id: str) -> str:
    """How a game was dealt: what its record says, or -- for a record written before the field existed -- what
    it holds (a ticket's id, else the service's own seed)."""
    if stored:
        return stored
    return Dealt.TICKET if ticket_id else Dealt.RANDOM


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
    moves: tuple[Move, ...] = ()
    status: str = "in-progress"
    played: str = ""  # Played, for a game recorded won
    dealt: str = ""  # Dealt; "" = from the ticket id ("ticket" with one, else "random")
    deal_number: int = 0  # the public deal's number (Dealt.PUBLIC only)
    # A deal from a winnable pool (dealt Dealt.WINNABLE): the solver's winning line, packed (engine.movelog).
    solution: bytes = b""
    # The signed-in player who dealt it (docs/players.md): pseudonymous id, display name then, kind; "" = anonymous.
    owner: str = ""
    owner_name: str = ""
    owner_kind: str = ""
    watchable: bool = False  # spectators may watch it without its token (WatchGame)
    # The deal's leaderboard (docs/competition.md): a daily deal's always, a public deal's when a player dealt it;
    # ``ranked``: the player's one ranked game of a daily deal.
    board: str = ""
    ranked: bool = False


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
    idle_ms: int  # the store's idle time when read: see ``expires_at`` (for a game nobody has moved, its fresh time)
    now: int  # the server's clock when read (for ``expired``)
    moves: tuple[Move, ...] | None = None  # the log, first move first; None when not asked for
    played: str = ""  # Played, once won ("" for games won before the field was stored)
    certificate: bytes = b""  # the won game's certificate as first issued (b"" until it is kept)
    dealt: str = Dealt.RANDOM  # Dealt (records written before the field existed: see ``dealt_of``)
    deal_number: int = 0  # the public deal's number, 0 unless dealt is Dealt.PUBLIC
    solution: bytes = b""  # the winning line of a deal dealt as winnable, packed; shown only once the game is over
    hint_count: int = 0  # hints given (Hint), at most one per version
    owner: str = ""  # the signed-in player who dealt the game ("" = anonymous), as in NewGameRecord
    owner_name: str = ""
    owner_kind: str = ""
    watchable: bool = False  # spectators may watch it without its token (WatchGame)
    board: str = ""  # the deal's leaderboard, as in NewGameRecord
    ranked: bool = False

    @property
    def winnable(self) -> bool:
        """Dealt from a winnable pool (``dealt`` is ``winnable``; its line is ``solution``)."""
        return self.dealt == Dealt.WINNABLE

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


@dataclass(frozen=True, slots=True)
class SignedWin:
    """A winning write's certificate, signed before the write (``set_state``, ``play_moves``, ``replace``): the write
    keeps it, and takes its ``finished_at`` as the game's, only if the game is still as it was signed -- its hint
    count and owner unchanged since the read it was signed from, and ``finished_at`` (that read's clock) between
    the game's last write and the write's own time. Else the write closes the game at its own time and keeps
    nothing (the caller signs again from what the write returns)."""

    certificate: bytes
    finished_at: int
    hint_count: int
    owner: str


@dataclass(frozen=True, slots=True)
class UndoBase:
    """What UndoMove needs of a game, whatever its length: the record, the latest checkpoint before its last move
    (the encoded state there; b"" when there is none and the replay starts from the deal) and the log from that
    checkpoint on, packed (``engine.movelog``), the move to take back last. Unpacked only once the caller has
    checked the version, so that a stale undo costs no decoding."""

    record: GameRecord
    checkpoint: bytes
    packed: bytes

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves from the checkpoint on (CorruptLog if the bytes are not a log)."""
        return movelog.unpack(self.packed)


@dataclass(frozen=True, slots=True)
class HintTrail:
    """What a game keeps of its last hint, so that the next one, on any replica, continues it (docs/solver.md,
    "Hints never lead back"): the version the hint was for, the move count and the log's length in bytes then, the
    encoded position then, the winning line it came from (packed, starting with the move it gave; b"" when none
    is kept), the keys of the positions after each move of that line, and the line's moves to the end."""

    version: int
    moves: int
    offset: int
    state: bytes
    line: bytes = b""
    keys: bytes = b""
    to_end: int = 0


@dataclass(frozen=True, slots=True)
class HintBase:
    """What Hint needs of a game: the record, its trail (None before its first hint, and after an undo), the keys
    of the positions met up to the trail's position (``engine.solver.follow``), and the log from there on,
    packed (the whole log without a trail)."""

    record: GameRecord
    trail: HintTrail | None
    path: bytes
    since: bytes


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
    async def fetch_undo_base(self, game_id: str) -> UndoBase:
        """The game with what UndoMove needs to rebuild the position before its last move without replaying the
        whole game (``UndoBase``); NotFound."""

    @abstractmethod
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
        """Replace the state, append ``move`` to the log, and (with a ``status``, e.g. won) close the game, keeping
        the ``win``'s certificate when it still holds (``SignedWin``; the result's ``certificate`` says whether).

        NotFound, VersionConflict, GameClosed, GameExpired. The result carries no move log. ``previous``, the
        game's record as the caller read it, lets the store read back only the fields a write changes.
        """

    @abstractmethod
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
        """Append several ``moves`` (at least one) to the log at once and set ``state`` (the position after the
        last), closing the game with ``status`` if given (and keeping the ``win``'s certificate, as ``set_state``
        does): one compare-and-set, the version up by ``len(moves)`` (each counts as a move, and undo takes them
        back one by one).

        NotFound, VersionConflict, GameClosed, GameExpired. The result carries no move log.
        """

    @abstractmethod
    async def fetch_hint_base(self, game_id: str) -> HintBase:
        """The game with what Hint needs to continue its last hint and to know the positions met (``HintBase``);
        NotFound."""

    @abstractmethod
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
        """Count a hint given at ``version``, unless one was counted at that version already; the game's hint count
        after it. The game keeps its version and times (a hint changes nothing in it).

        With a ``trail`` (its state, line, keys and to_end; the store sets the version, move count and offset),
        keep it for the game, and add ``walked`` to the path's keys (or make them the path, ``anew``: walked from
        the deal): only while the game is still at ``version`` and (unless ``anew``) its trail is still the one of
        version ``previous`` as the hint read it, else nothing is kept (another replica kept one first, or the game
        moved on).

        NotFound, GameClosed, GameExpired.
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
        moves: Sequence[Move],
        *,
        status: str | None = None,
        undos: int = 0,
        played: str = "",
        win: SignedWin | None = None,
    ) -> GameRecord:
        """Replace the whole log with ``moves`` and the state with ``state`` (a solution submitted for a game),
        add ``undos`` to the undo count (played moves the solution drops), and close the game with ``status`` if
        given (``played`` says how a won game was won; the ``win``'s certificate kept as ``set_state`` keeps it).
        ``expected_version`` None = whatever the version.

        NotFound, VersionConflict, GameClosed, GameExpired. The result carries the new log.
        """

    @abstractmethod
    async def finish(self, game_id: str, expected_version: int | None, status: str) -> GameRecord:
        """Close the game with ``status`` (e.g. resigned); ``expected_version`` None = whatever the version.

        NotFound, VersionConflict, GameClosed, GameExpired.
        """

    @abstractmethod
    async def keep_certificate(self, game_id: str, encoded: bytes) -> bytes:
        """Keep a won game's certificate unless one is kept already; the kept one (the first issued, whatever keys
        rotate later). NotFound."""

    @abstractmethod
    async def rotate_token(self, game_id: str, token_hash: bytes) -> GameRecord:
        """Give the game a new token (``token_hash``): the old one stops working. An open game's version goes up by
        one, so that no replica's memory of it (service.games.caches) serves the old token's holder. NotFound."""

    @abstractmethod
    async def delete(self, game_id: str) -> bool:
        """Remove the game now; whether it existed."""

    @abstractmethod
    async def unlink_owner(self, game_id: str, owner: str) -> bool:
        """Remove the game's owner (id, name, kind) if it is ``owner``, leaving the game as it is (version, times,
        TTL): whether it was. ErasePlayer's step, and a game's when it falls off its player's list."""

    @abstractmethod
    async def put_prepared(self, prepared_id: str, server_seed: bytes, ttl_seconds: int) -> None:
        """Keep a PrepareGame server seed for ``ttl_seconds``; AlreadyExists if the id is taken."""

    @abstractmethod
    async def take_prepared(self, prepared_id: str) -> bytes | None:
        """The prepared server seed, removed in the same step (each serves one game); None if unknown,
        already taken or expired."""

    @abstractmethod
    async def push_winnable(self, pool: str, entry: bytes) -> int:
        """Append a proven entry (service.solving.winnable.Entry, packed) to ``pool``; the pool's length after it."""

    @abstractmethod
    async def pop_winnable(self, pool: str) -> bytes | None:
        """Take the oldest entry of ``pool`` in one atomic step (each is dealt once, by one replica); None if the
        pool is empty."""

    @abstractmethod
    async def pool_sizes(self, pools: Sequence[str]) -> dict[str, int]:
        """How many entries each pool holds."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable unless the storage answers."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections."""
