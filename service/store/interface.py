"""The interface every store implements (its records in ``service.store.records``, its errors in
``service.store.errors``).

The interface is boardgame.io's: ``create``, ``fetch``, and ``set_state`` with the move appended to the log,
plus ``undo`` and ``finish``. Every write is a compare-and-set on the version, so of N concurrent writers that
read the same version exactly one succeeds and the others get :class:`VersionConflict` with the current
version. Moves are the engine's :class:`~engine.moves.Move` values, in and out.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from engine.moves import Move
from service.store.records import GameRecord, HintBase, HintTrail, NewGameRecord, SignedWin, UndoBase


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
