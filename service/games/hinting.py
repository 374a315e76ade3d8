"""Hint: a move the player can make now, from the solver, in the hint pool (``service.solving.hints``).

Hints never lead back (docs/solver.md): the game keeps a trail in the store (``HintTrail``: the winning line the
last hint came from, and the keys of the positions met), so that on any replica the next hint continues that
line while the player follows it, and no hint is a move back to a position already met.
"""

from __future__ import annotations

import logging

from patience.v1 import patience_pb2 as pb

from engine import movelog
from engine.encoding import encode_state
from engine.errors import PatienceError
from engine.game import Game
from engine.moves import Move
from engine.solver.follow import Followed, continued, position_key, split_keys
from engine.view import player_view
from service import errors
from service.games import convert
from service.games.ports import Credentials
from service.games.steps import Steps, refusal
from service.solving.hint_worker import HintAnswer, HintWork
from service.store import HintBase, HintTrail, StoreError

log = logging.getLogger("service.games")


class Hinting:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def hint(self, request: pb.HintRequest, credentials: Credentials) -> pb.HintResponse:
        """The next move of the line the game's last hint came from while the player follows it; else the engine's
        hint (engine.solver.hint), seeded by the pool's key, the version and the player's view only, computed in a
        pool process (shared fairly by client address, once for every caller asking at the same version), never a
        move back to a position met. Counted on the game (once per version) with the trail for the next hint."""
        client = await self.steps.limit("Hint", credentials)
        if self.steps.hints is None:
            raise errors.hints_unavailable()
        # The game: open, and the caller holds its token; with its trail.
        base = await self._fetch_hint_base(request.game_id, credentials)
        record = base.record
        self.steps.check_open(record, None)
        game, state = self.steps.decode(record)
        trail = base.trail
        followed = self._continued(base, position_key(game, state))
        if followed is not None:  # the player is on the kept line: its next move, no search
            found = _answer(game, followed)
            keep, walked = None, b""
            if trail is not None and trail.version != record.version:
                keep = HintTrail(0, 0, 0, record.state, movelog.pack_all(followed.line), b"".join(followed.keys),
                                 followed.to_end)  # fmt: skip
                walked = trail.keys[: (len(trail.keys) - len(b"".join(followed.keys)))]
        else:
            # The hint: computed in the pool from the position, a seed the player cannot choose and the path (or,
            # asked again at the same version, as this replica computed it then or is computing it now: a position
            # at a version never changes).
            hints = self.steps.hints
            found = await hints.answer(record.game_id, record.version, client, lambda: self._work(game, base))
            keep, walked = None, found.walked
            if trail is None or trail.version != record.version:
                keep = HintTrail(0, 0, 0, record.state, found.line, found.keys, found.to_end)
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
        # The count: once per version, and only for a game still open (the store checks both); the trail, only
        # while the game is at this version and nobody kept another since.
        previous = 0 if trail is None else trail.version
        try:
            response.hint_count = await self.steps.store.count_hint(
                record.game_id, record.version, keep, previous=previous, walked=walked, anew=trail is None
            )
        except StoreError as exc:
            raise refusal(exc, request.game_id) from exc
        return response

    async def _fetch_hint_base(self, game_id: str, credentials: Credentials) -> HintBase:
        """What Hint needs of the game (``GameStore.fetch_hint_base``), if the caller holds its token."""
        return await self.steps.owned(game_id, credentials, self.steps.store.fetch_hint_base)

    @staticmethod
    def _continued(base: HintBase, here: bytes) -> Followed | None:
        """The kept line's next move, when the moves made since it was kept are its first ones and the position
        now is the one it expects (``here``, its key); None otherwise (no line, the player left it, an undo)."""
        trail, record = base.trail, base.record
        if trail is None or not trail.line or record.move_count - trail.moves != record.version - trail.version:
            return None
        try:
            played = movelog.unpack(base.since)
            line = movelog.unpack(trail.line)
        except movelog.CorruptLog:
            log.warning("a hint trail that does not unpack", extra={"game_id": record.game_id})
            return None
        if len(played) != record.move_count - trail.moves:
            return None
        return continued(line, split_keys(trail.keys), trail.to_end, played, here)

    def _work(self, game: Game, base: HintBase) -> HintWork:
        """The pool's work: the position, its seed, and the path to walk (from the trail, or from the deal)."""
        record, trail = base.record, base.trail
        hints = self.steps.hints
        assert hints is not None
        view = convert.view_message(player_view(game, self.steps.decode(record)[1]))
        seed = hints.seed(record.version, view.SerializeToString(deterministic=True))
        if trail is None:
            start = encode_state(game, self.steps.deal(game, record.seed))
            return HintWork(record.state, seed, b"", start, base.since)
        return HintWork(record.state, seed, base.path, trail.state, base.since)


def _answer(game: Game, followed: Followed) -> HintAnswer:
    h = followed.hint
    return HintAnswer(h.text(), h.reason, h.code.value, h.wins, h.tried, h.moves_to_end, game.id)
