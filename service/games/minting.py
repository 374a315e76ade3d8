"""Deal tickets: MintDeal, for the operator (a deal that every player of a tournament gets)."""

from __future__ import annotations

import hashlib

from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import convert, messages
from service.games.ports import Credentials
from service.games.steps import Steps, now_ms


class Minting:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def mint_deal(self, request: pb.MintDealRequest, credentials: Credentials) -> pb.MintDealResponse:
        self.steps.check_operator(credentials)
        if self.steps.tickets is None:
            raise errors.tickets_unavailable()
        game = self.steps.game(request.variant, request.options)
        validity = request.valid_seconds or self.steps.settings.ticket_validity
        if not 0 < validity <= self.steps.settings.max_ticket_validity:
            raise errors.bad_validity(self.steps.settings.max_ticket_validity)
        if len(request.label) > 200:
            raise errors.bad_label()
        expires = now_ms() // 1000 + validity
        options = convert.options_map(game)
        text, ticket = self.steps.tickets.mint(game.id, options, expires_at=expires, label=request.label)
        seed = self.steps.tickets.seed(ticket)
        return pb.MintDealResponse(
            deal_ticket=text,
            ticket_id=ticket.ticket_id,
            variant=game.id,
            options=options,
            commitment=hashlib.sha256(seed).digest(),
            expires_at=messages.ts(expires * 1000),
        )
