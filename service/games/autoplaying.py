"""AutoPlay: every safe move to the foundations, in one write."""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from engine.solver import autoplay
from service.games import convert
from service.games.ports import Credentials
from service.games.steps import Steps


class AutoPlaying:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def auto_play(self, request: pb.AutoPlayRequest, credentials: Credentials) -> pb.AutoPlayResponse:
        """The safe moves (docs/rules-decisions.md, "Safe moves to the foundations") are the engine's: each goes
        into the log as a move of its own, so undo takes them back one by one and the version goes up by their
        number, as if each had been played by ApplyMove. Refusals are ApplyMove's (stale version, game over)."""
        self.steps.check_version_arg(request.expected_version)
        # The game: as this replica last wrote it (one Redis call saved), else from the store.
        cached = self.steps.recent.at_version(request.game_id, request.expected_version, credentials.game_token)
        if cached is None:
            record = await self.steps.fetch(request.game_id, credentials)
            self.steps.check_open(record, request.expected_version)
            game, state = self.steps.decode(record)
        else:
            record, game, state = cached
        # The moves, by the engine: none is an answer too (the game unchanged).
        final, moves = autoplay(game, state)
        response = pb.AutoPlayResponse()
        if not moves:
            if cached is not None:  # no write checks the version: the store's word on it, as ApplyMove would give
                record = await self.steps.fetch(request.game_id, credentials)
                self.steps.check_open(record, request.expected_version)
            self.steps.answers.game(record, game, state, into=response.game)
            return response
        await self.steps.check_room(record, len(moves), credentials, cached=cached is not None)
        await self.steps.commit_moves(record, request.expected_version, game, final, moves, credentials, response.game)
        response.applied.extend(convert.notated(m) for m in moves)
        return response
