"""A game followed by one player (:class:`GameSession`, and :class:`AsyncGameSession` its asyncio twin): the last
game read is kept, so each write sends its version, and a version conflict reads the game again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from patience.v1 import patience_pb2 as pb

from .errors import VersionConflict
from .moves import MoveLike

if TYPE_CHECKING:
    from .aio import AsyncPatienceClient
    from .client import PatienceClient


class GameSession:
    """One game followed by one player: keeps the last game read, so each write sends its version.

    After a VersionConflict (another client moved, or a retried write had in fact landed) it re-reads the
    game: the exception carries the fresh game as ``game`` and the session continues from it. With
    ``rebase=True`` a move is sent once more against the fresh version -- the server checks it again, so a
    move that no longer fits is refused, never misapplied.
    """

    def __init__(self, client: PatienceClient, game: pb.Game) -> None:
        self.client = client
        self.game = game

    @property
    def game_id(self) -> str:
        return self.game.game_id

    @property
    def version(self) -> int:
        return self.game.version

    def refresh(self) -> pb.Game:
        self.game = self.client.get_game(self.game_id)
        return self.game

    def _conflict(self, exc: VersionConflict) -> VersionConflict:
        exc.game = self.refresh()
        return exc

    def move(self, move: MoveLike, *, rebase: bool = False) -> pb.ApplyMoveResponse:
        """Play ``move`` at the session's version; see the class for conflicts."""
        try:
            resp = self.client.apply_move(self.game_id, move, expected_version=self.version)
        except VersionConflict as exc:
            self._conflict(exc)
            if not rebase:
                raise
            resp = self.client.apply_move(self.game_id, move, expected_version=self.version)
        self.game = resp.game
        return resp

    def undo(self) -> pb.UndoMoveResponse:
        try:
            resp = self.client.undo_move(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise self._conflict(exc) from None
        self.game = resp.game
        return resp

    def legal_moves(self) -> list[pb.NotatedMove]:
        return list(self.client.legal_moves(self.game_id).moves)

    def hint(self) -> pb.HintResponse:
        """A move to make now, with its reason (see the client's ``hint``)."""
        return self.client.hint(self.game_id)

    def autoplay(self) -> pb.AutoPlayResponse:
        """Every safe move home at the session's version; see the class for conflicts."""
        try:
            resp = self.client.autoplay(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise self._conflict(exc) from None
        self.game = resp.game
        return resp

    def resign(self) -> pb.Game:
        try:
            self.game = self.client.resign(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise self._conflict(exc) from None
        return self.game

    def submit(self, moves: Iterable[MoveLike] | str) -> pb.SubmitSolutionResponse:
        resp = self.client.submit_solution(moves, game_id=self.game_id)
        self.refresh()
        return resp


class AsyncGameSession:
    """The asyncio twin of :class:`~patience_client.GameSession`."""

    def __init__(self, client: AsyncPatienceClient, game: pb.Game) -> None:
        self.client = client
        self.game = game

    @property
    def game_id(self) -> str:
        return self.game.game_id

    @property
    def version(self) -> int:
        return self.game.version

    async def refresh(self) -> pb.Game:
        self.game = await self.client.get_game(self.game_id)
        return self.game

    async def _conflict(self, exc: VersionConflict) -> VersionConflict:
        exc.game = await self.refresh()
        return exc

    async def move(self, move: MoveLike, *, rebase: bool = False) -> pb.ApplyMoveResponse:
        try:
            resp = await self.client.apply_move(self.game_id, move, expected_version=self.version)
        except VersionConflict as exc:
            await self._conflict(exc)
            if not rebase:
                raise
            resp = await self.client.apply_move(self.game_id, move, expected_version=self.version)
        self.game = resp.game
        return resp

    async def undo(self) -> pb.UndoMoveResponse:
        try:
            resp = await self.client.undo_move(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise await self._conflict(exc) from None
        self.game = resp.game
        return resp

    async def legal_moves(self) -> list[pb.NotatedMove]:
        return list((await self.client.legal_moves(self.game_id)).moves)

    async def hint(self) -> pb.HintResponse:
        """A move to make now, with its reason (see the client's ``hint``)."""
        return await self.client.hint(self.game_id)

    async def autoplay(self) -> pb.AutoPlayResponse:
        """Every safe move home at the session's version; see the class for conflicts."""
        try:
            resp = await self.client.autoplay(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise await self._conflict(exc) from None
        self.game = resp.game
        return resp

    async def resign(self) -> pb.Game:
        try:
            self.game = await self.client.resign(self.game_id, expected_version=self.version)
        except VersionConflict as exc:
            raise await self._conflict(exc) from None
        return self.game

    async def submit(self, moves: Iterable[MoveLike] | str) -> pb.SubmitSolutionResponse:
        resp = await self.client.submit_solution(moves, game_id=self.game_id)
        await self.refresh()
        return resp
