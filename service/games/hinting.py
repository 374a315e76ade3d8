"""Hint: a move the player can make now, from the solver, in the hint pool (``service.solving.hints``)."""

from __future__ import annotations

import logging

from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError
from engine.moves import Move
from engine.view import player_view
from service import errors
from service.games import convert
from service.games.ports import Credentials
from service.games.steps import Steps, refusal
from service.store import StoreError

log = logging.getLogger("service.games")


class Hinting(Steps):
    async def hint(self, request: pb.HintRequest, credentials: Credentials) -> pb.HintResponse:
        """The engine's hint (engine.solver.hint), seeded by the pool's key, the version and the player's view
        only, computed in a pool process (shared fairly by client address, once for every caller asking at the
        same version), then counted on the game (once per version)."""
        client = await self._limit("Hint", credentials)
        if self.hints is None:
            raise errors.hints_unavailable()
        # The game: open, and the caller holds its token.
        record = await self._fetch(request.game_id, credentials)
        self._check_open(record, None)
        game, state = self._decode(record)
        # The hint: computed in the pool from the position and a seed the player cannot choose (or, asked again at
        # the same version, as this replica computed it then or is computing it now: a position at a version never
        # changes).
        hints = self.hints
        found = await hints.answer(
            record.game_id,
            record.version,
            client,
            lambda: (record.state, hints.seed(record.version, convert.view_bytes(player_view(game, state)))),
        )
        response = pb.HintResponse(
            reason=found.reason,
            reason_code=found.code,
            wins=found.wins,
            tried=found.tried,
            moves_to_end=found.moves_to_end,
            version=record.version,
        )
        if found.move:
            try:
                response.move.MergeFromString(convert.notated_bytes(Move.parse(found.move)))
            except PatienceError as exc:  # the engine's own explicit text: a bug, never the caller's fault
                log.error("the hint's move does not parse: %r", found.move, extra={"game_id": record.game_id})
                raise errors.internal() from exc
        # The count: once per version, and only for a game still open (the store checks both).
        try:
            response.hint_count = await self.store.count_hint(record.game_id, record.version)
        except StoreError as exc:
            raise refusal(exc, request.game_id) from exc
        return response
