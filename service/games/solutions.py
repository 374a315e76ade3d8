"""Solutions: SubmitSolution, for a game being played or for a deal ticket's deal."""

from __future__ import annotations

import logging

from patience.v1 import patience_pb2 as pb

from engine.encoding import encode_state
from engine.verify import Outcome
from engine.view import hidden_cards
from service import errors
from service.games import messages
from service.games.ports import Credentials
from service.games.steps import Steps, parse_options, refusal
from service.games.wins import won_by_solution
from service.security.tokens import new_game_id, new_token, token_hash
from service.store import Dealt, NewGameRecord, Played, StoreError, StoreStatus

log = logging.getLogger("service.games")


class Solutions:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def submit_solution(
        self, request: pb.SubmitSolutionRequest, credentials: Credentials
    ) -> pb.SubmitSolutionResponse:
        await self.steps.limit("SubmitSolution", credentials)
        moves = self.steps.solution_moves(request.moves)
        which = request.WhichOneof("deal")
        if which is None:
            raise errors.missing_deal()
        if which == "deal_ticket":
            return await self._submit_for_ticket(request.deal_ticket, moves)
        return await self._submit_for_game(request.game_id, credentials, moves)

    async def _submit_for_game(
        self, game_id: str, credentials: Credentials, moves: list[str]
    ) -> pb.SubmitSolutionResponse:
        """Final, whatever the verdict: a win ends the game won (a certificate), anything else ends it forfeited.
        A verdict on a game that stayed open would answer questions about its hidden cards (issue 17: looping
        `s s s w-k` over the stock named every card of it) and let the player go on playing with them known."""
        record = await self.steps.fetch(game_id, credentials, moves=True)
        self.steps.check_open(record, None)
        played = tuple(m.text() for m in record.moves or ())
        if not record.allow_undo and tuple(moves[: len(played)]) != played:
            # Decided on what the player sees (the moves played, as GetGame lists them), before any replay.
            kept = next((i for i, (a, b) in enumerate(zip(played, moves, strict=False)) if a != b), len(moves))
            raise errors.solution_takes_back(record.game_id, len(played) - kept, kept)
        game = self.steps.game(record.variant, parse_options(record.options))
        result = await self.steps.replay(game, self.steps.deal(game, record.seed), moves)
        response = pb.SubmitSolutionResponse(game_id=record.game_id)
        if result.verdict.outcome is not Outcome.WON:
            try:
                updated = await self.steps.store.finish(record.game_id, record.version, StoreStatus.FORFEITED)
            except StoreError as exc:
                raise refusal(exc, game_id) from exc
            self.steps.recent.forget(record.game_id)
            now_game, now_state = self.steps.decode(updated)
            self.steps.answers.game(updated, now_game, now_state, into=response.game)
            if response.game.seed:
                response.verdict.CopyFrom(messages.verdict(game, result))
            else:  # a live ticket's deal stays secret: how the moves failed would tell its hidden cards
                response.verdict.CopyFrom(pb.Verdict(outcome=pb.OUTCOME_NOT_WON, final_status=pb.GAME_STATUS_FORFEITED))
            log.info("game forfeited", extra={"game_id": record.game_id})
            return response
        response.verdict.CopyFrom(messages.verdict(game, result))
        # Moves the game had played that the solution does not keep count as taken back.
        explicit = tuple(m.text() for m in result.moves)
        kept = 0
        while kept < min(len(played), len(explicit)) and played[kept] == explicit[kept]:
            kept += 1
        # Signed before the write that wins, from the game as read above, and kept by that write (``Wins``).
        signed = await self.steps.wins.before_write(
            won_by_solution(record, result.moves, len(played) - kept), game, result.state
        )
        try:
            updated = await self.steps.store.replace(
                record.game_id,
                record.version,
                encode_state(game, result.state),
                result.moves,
                status=StoreStatus.WON,
                undos=len(played) - kept,
                played=Played.SUBMITTED,
                win=None if signed is None else signed[1],
            )
        except StoreError as exc:
            raise refusal(exc, game_id) from exc
        self.steps.recent.forget(record.game_id)
        certificate = None
        if signed is not None:  # kept, and on its board if it counts on one
            certificate = await self.steps.wins.after_write(updated, game, result.state, signed[0])
        # A daily deal's certificate holds its seed: it is shown once the day is over (docs/competition.md).
        self.steps.answers.game(updated, game, result.state, into=response.game, certificate=certificate)
        if response.game.HasField("certificate"):
            response.certificate.CopyFrom(response.game.certificate)
        return response

    async def _submit_for_ticket(self, text: str, moves: list[str]) -> pb.SubmitSolutionResponse:
        tickets, ticket = self.steps.open_ticket(text)
        game = self.steps.game(ticket.variant, ticket.options)
        seed = tickets.seed(ticket)
        start = self.steps.deal(game, seed)
        if hidden_cards(game, start):
            # A verdict would score moves against cards nobody may see while the ticket is valid, and the same
            # question could be asked again and again (no game to end): play the ticket through NewGame.
            raise errors.ticket_deal_secret(game.id)
        result = await self.steps.replay(game, start, moves)
        game_id = new_game_id()
        response = pb.SubmitSolutionResponse(verdict=messages.verdict(game, result), game_id=game_id)
        if result.verdict.outcome is Outcome.WON:  # kept whole, for the record; nobody holds a token to it
            whole = NewGameRecord(
                game_id=game_id,
                token_hash=token_hash(new_token()),
                variant=game.id,
                options=game.options_text(),
                seed=seed,
                state=encode_state(game, result.state),
                ticket_id=messages.ticket_field(ticket.ticket_id, ticket.expires_at),
                moves=result.moves,
                status=StoreStatus.WON,
                played=Played.SUBMITTED,
                dealt=Dealt.TICKET,
            )
            try:
                record = await self.steps.store.create(whole)
            except StoreError as exc:
                raise refusal(exc, game_id) from exc
            signed = await self.steps.wins.signed(record, game, result.state)
            if signed is None:
                raise errors.signing_unavailable()
            response.certificate.CopyFrom(signed)
            await self.steps.wins.keep(record, response.certificate)
        return response
