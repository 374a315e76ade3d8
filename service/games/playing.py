"""Playing: GetGame, ApplyMove, UndoMove, LegalMoves and Resign."""

from __future__ import annotations

import logging

from patience.moves import move_from_message
from patience.v1 import patience_pb2 as pb

from engine.encoding import encode_state
from engine.errors import PatienceError
from engine.movelog import CorruptLog
from engine.moves import Move
from engine.verify import Outcome
from service import errors
from service.games import convert, messages
from service.games.ports import Credentials
from service.games.steps import Steps, parse_options, refusal
from service.store import NothingToUndo, StoreError, StoreStatus

log = logging.getLogger("service.games")


class Playing:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def get_game(self, request: pb.GetGameRequest, credentials: Credentials) -> pb.GetGameResponse:
        record = await self.steps.fetch(request.game_id, credentials, moves=request.include_moves)
        signable = self.steps.key_ring is not None and record.moves is None
        if signable and record.status == StoreStatus.WON and self.steps.wins.kept(record) is None:
            # No certificate kept yet (its keeping failed at the win): signed from the log, then kept.
            record = await self.steps.fetch(request.game_id, credentials, moves=True)
            game, state = self.steps.decode(record)
            won = pb.GetGameResponse(game=self.steps.answers.game(record, game, state, with_moves=False))
            await self.steps.wins.keep(record, won.game.certificate)
            return won
        game, state = self.steps.decode(record)
        response = pb.GetGameResponse(
            game=self.steps.answers.game(record, game, state, with_moves=request.include_moves)
        )
        await self.steps.wins.keep(record, response.game.certificate)
        return response

    async def apply_move(self, request: pb.ApplyMoveRequest, credentials: Credentials) -> pb.ApplyMoveResponse:
        self.steps.check_version_arg(request.expected_version)
        which = request.WhichOneof("move")
        if which is None:
            raise errors.missing_move()
        # The game: as this replica last wrote it (one Redis call saved), else from the store.
        cached = self.steps.recent.at_version(request.game_id, request.expected_version, credentials.game_token)
        if cached is None:
            record = await self.steps.fetch(request.game_id, credentials)
            self.steps.check_open(record, request.expected_version)
            game, state = self.steps.decode(record)
        else:
            record, game, state = cached
        await self.steps.check_room(record, 1, credentials, cached=cached is not None)
        # The move, by the engine's one reducer.
        try:
            move = Move.parse(request.text) if which == "text" else move_from_message(request.structured)
            new_state, explicit = game.play(state, move)
        except PatienceError as exc:
            if cached is not None:  # a stale version or a closed game says so before the refusal does
                self.steps.check_open(await self.steps.fetch(request.game_id, credentials), request.expected_version)
            given = request.text if which == "text" else convert.move_text_of(request.structured)
            raise errors.from_engine(exc, move_index=record.move_count, move_text=given) from exc
        response = pb.ApplyMoveResponse()
        await self.steps.commit_moves(
            record, request.expected_version, game, new_state, (explicit,), credentials, response.game
        )
        response.applied.MergeFromString(convert.notated_bytes(explicit))
        return response

    async def undo_move(self, request: pb.UndoMoveRequest, credentials: Credentials) -> pb.UndoMoveResponse:
        """The position before the last move, rebuilt from the latest checkpoint before it (at most
        ``CHECKPOINT_EVERY`` moves and an AutoPlay back, whatever the game's length), never from the deal of a
        long game; every refusal is decided before any of that work."""
        self.steps.check_version_arg(request.expected_version)
        base = await self.steps.fetch_undo_base(request.game_id, credentials)
        record = base.record
        self.steps.check_open(record, request.expected_version)
        if not record.allow_undo:
            raise errors.undo_forbidden(record.game_id)
        if not base.packed:
            raise errors.nothing_to_undo(record.version)
        game = self.steps.game(record.variant, parse_options(record.options))
        try:
            moves = base.moves
        except CorruptLog as exc:
            raise errors.corrupt_log() from exc
        start = self.steps.decode_checkpoint(base.checkpoint) if base.checkpoint else self.steps.deal(game, record.seed)
        result = await self.steps.replay(game, start, moves[:-1])
        if result.verdict.outcome is Outcome.ILLEGAL:  # the log only holds moves the engine applied
            raise errors.corrupt_log()
        try:
            updated = await self.steps.store.undo(
                record.game_id, request.expected_version, encode_state(game, result.state)
            )
        except NothingToUndo as exc:
            raise errors.nothing_to_undo(exc.version) from exc
        except StoreError as exc:
            raise refusal(exc, request.game_id) from exc
        self.steps.recent.remember(updated, game, result.state, credentials.game_token)
        undone = convert.notated(moves[-1])
        return pb.UndoMoveResponse(game=self.steps.answers.game(updated, game, result.state), undone=undone)

    async def legal_moves(self, request: pb.LegalMovesRequest, credentials: Credentials) -> pb.LegalMovesResponse:
        record = await self.steps.fetch(request.game_id, credentials)
        response = pb.LegalMovesResponse(version=record.version)
        if messages.shown_status(record, None) in messages.OVER:
            return response
        game, state = self.steps.decode(record)
        response.moves.extend(map(convert.notated, game.legal_moves(state)))
        return response

    async def resign(self, request: pb.ResignRequest, credentials: Credentials) -> pb.ResignResponse:
        if request.expected_version < 0:
            self.steps.check_version_arg(request.expected_version)
        record = await self.steps.fetch(request.game_id, credentials)
        self.steps.check_open(record, request.expected_version or None)
        try:
            updated = await self.steps.store.finish(
                record.game_id, request.expected_version or None, StoreStatus.RESIGNED
            )
        except StoreError as exc:
            raise refusal(exc, request.game_id) from exc
        game, state = self.steps.decode(updated)
        log.info("game resigned", extra={"game_id": record.game_id})
        return pb.ResignResponse(game=self.steps.answers.game(updated, game, state))
