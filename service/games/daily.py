"""Daily deals: GetDailyDeal (docs/competition.md). NewGame with ``daily`` deals today's (``dealing``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

from patience.boards import daily_board, day_bounds_ms
from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import convert, messages
from service.games.ports import Credentials
from service.games.steps import Steps

#: The longest options text read (every option of every variant fits in a fraction of it).
MAX_OPTIONS_TEXT = 200
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def read_options(text: str) -> dict[str, str]:
    """``name=value`` pairs joined by commas, as the engine writes ``Game.options_text()``; the engine judges them."""
    if len(text) > MAX_OPTIONS_TEXT:
        raise errors.bad_request("BAD_OPTION", f"options is at most {MAX_OPTIONS_TEXT} characters", "options")
    pairs = (item.partition("=") for item in text.split(",") if item.strip())
    return {name.strip(): value.strip() for name, _, value in pairs}


def read_date(text: str) -> dt.date:
    if not _DATE.fullmatch(text):
        raise errors.bad_date("date")
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise errors.bad_date("date") from exc


class Daily:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def get_daily_deal(
        self, request: pb.GetDailyDealRequest, credentials: Credentials
    ) -> pb.GetDailyDealResponse:
        """The day's commitment (drawn by the first caller, today's or tomorrow's), its seed once the day is over."""
        competition = self.steps.competition
        player = await self.steps.signed_in(credentials)
        game = self.steps.game(request.variant, read_options(request.options))
        today = competition.today()
        day = read_date(request.date) if request.date else today
        latest = today + dt.timedelta(days=1)
        if day > latest:
            raise errors.daily_not_yet(day.isoformat(), latest.isoformat())
        board = daily_board(game, day)
        seed = await competition.daily_seed(board, draw=day >= today)
        if seed is None:
            raise errors.daily_deal_not_found(board.name)
        opens, closes = day_bounds_ms(board.date)
        response = pb.GetDailyDealResponse(
            board=board.name,
            variant=game.id,
            options=convert.options_map(game),
            date=board.date,
            commitment=hashlib.sha256(seed).digest(),
            opens_at=messages.ts(opens),
            closes_at=messages.ts(closes),
        )
        if competition.day_over(board.date):
            response.seed = seed
        if player is not None:
            response.game_id = await competition.ranked_game(board, player.id)
        return response
