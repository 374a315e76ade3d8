"""The Game message of a stored game, the answer of nearly every call: the player's view (never a hidden card),
the counts and times, the seed once it may be shown, and a won game's certificate. A replica builds what a game's
messages share once (``Templates``) and checks a kept certificate once (``Wins.kept``)."""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from engine.game import Game, Status
from engine.state import State
from engine.view import player_view
from service.games import convert, messages
from service.games.caches import Templates
from service.games.competition import Competition
from service.games.ports import KeyRing
from service.games.wins import Wins
from service.store import GameRecord


class Answers:
    """Game messages over this replica's templates, the daily deals' seal (``Competition.sealed``) and the won
    games' certificates (none without a key ring)."""

    def __init__(self, templates: Templates, competition: Competition, wins: Wins, key_ring: KeyRing | None) -> None:
        self.templates = templates
        self.competition = competition
        self.wins = wins
        self.key_ring = key_ring

    def game(
        self,
        record: GameRecord,
        game: Game,
        state: State,
        *,
        with_moves: bool = False,
        into: pb.Game | None = None,
        status: Status | None = None,
        certificate: pb.Certificate | None = None,
    ) -> pb.Game:
        """The Game message (into ``into`` when given: a response's own field, which saves a copy; ``status`` when
        the caller has ``game.status(state)`` already; ``certificate`` when the caller signed it)."""
        view = player_view(game, state, status)
        shown = messages.shown_status(record, view.status)
        sealed = self.competition.sealed(record)  # a daily deal's seed, until its day is over
        msg = pb.Game() if into is None else into
        key = messages.template_key(record, game)
        template = self.templates.get(record.game_id, key)
        if template is None:
            template = messages.template(record, game)
            self.templates.put(record.game_id, key, template)
        msg.MergeFrom(template)
        msg.version = record.version
        msg.status = shown
        convert.fill_view(msg.view, view)
        msg.move_count = record.move_count
        msg.undo_count = record.undo_count
        msg.hint_count = record.hint_count
        messages.set_ms(msg.updated_at, record.updated_at)
        if messages.seed_revealed(record, shown) and not sealed:
            msg.seed = record.seed
            msg.server_seed = record.server_seed
            if record.solution:  # dealt as winnable: the line that proves it, beside the seed, never before
                msg.solution.extend(messages.solution_texts(record))
        if record.finished_at:
            messages.set_ms(msg.finished_at, record.finished_at)
        elif record.expired:
            messages.set_ms(msg.finished_at, record.expires_at)
        else:
            messages.set_ms(msg.expires_at, record.expires_at)
        if with_moves and record.moves is not None:
            msg.moves.extend([m.text() for m in record.moves])
        if shown == pb.GAME_STATUS_WON and self.key_ring is not None and not sealed:
            kept = self.wins.kept(record) if certificate is None else None
            if certificate is not None:
                msg.certificate.CopyFrom(certificate)
            elif kept is not None:
                msg.certificate.MergeFromString(kept)
            elif record.moves is not None:
                msg.certificate.CopyFrom(self.wins.certificate(record, game, state))
        return msg
