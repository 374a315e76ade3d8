"""The store's records: what a game is as stored (``GameRecord``), what creating one takes (``NewGameRecord``),
what one use case reads beside it (``UndoBase``, ``HintBase`` and its ``HintTrail``), what a winning write keeps
(``SignedWin``), and the stored values (``StoreStatus``, ``Played``, ``Dealt``). Plain values: any store builds
them, the use cases read them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

from engine import movelog
from engine.moves import Move


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
