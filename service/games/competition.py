"""Daily deals and leaderboards: what the use cases share of them (docs/competition.md).

The clock is a seam: the service reads the time of day through ``clock`` (Unix seconds), so that a test can move
a day forward without sleeping. Every decision about days -- which deal is today's, whether a day is over (its seed
published, its board frozen) -- reads it; the games' own times (created, finished) stay the store's.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from patience.boards import DAILY, Board, daily_board, daily_date, day_bounds_ms, rank_key
from patience.v1 import patience_pb2 as pb

from engine.game import Game
from service import errors
from service.store import Dealt, GameRecord, StoreUnavailable
from service.store.boards import BoardEntry, Boards
from service.store.daily import DailyDeals

log = logging.getLogger("service.games")

DAY_MS = 86_400_000


class Competition:
    """The daily seeds, the ranked-game claims and the boards (None each on a server without them), over a clock."""

    def __init__(
        self,
        daily: DailyDeals | None,
        boards: Boards | None,
        *,
        clock: Callable[[], float],
        seed_source: Callable[[], bytes],
        retention_days: int,
    ) -> None:
        self.daily = daily
        self.boards = boards
        self.clock = clock
        self.seed_source = seed_source
        self.retention_ms = retention_days * DAY_MS

    # -- days

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def today(self) -> dt.date:
        return dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()

    def day_over(self, date: str) -> bool:
        """The UTC day is over: its daily seeds are published, its boards frozen."""
        return day_bounds_ms(date)[1] <= self.now_ms()

    def sealed(self, record: GameRecord) -> bool:
        """A daily deal's game while its day lasts: its seed (and so its certificate, which holds it) stays secret,
        whatever became of the game."""
        if record.dealt != Dealt.DAILY:
            return False
        date = daily_date(record.board)
        return not date or not self.day_over(date)

    def keep_until(self, board: Board) -> int:
        """How long a board (and a daily deal's seed) is kept: its day and the retention, or for a public board the
        retention from its latest entry."""
        if board.kind == DAILY:
            return day_bounds_ms(board.date)[1] + self.retention_ms
        return self.now_ms() + self.retention_ms

    # -- daily deals

    def _daily(self) -> DailyDeals:
        if self.daily is None:
            raise errors.competition_unavailable()
        return self.daily

    async def daily_seed(self, board: Board, *, draw: bool) -> bytes | None:
        """The daily deal's seed: drawn now by the first replica that asks (``draw``: only for today and tomorrow),
        else None when none was drawn."""
        store = self._daily()
        try:
            if draw:
                return await store.seed(board.name, self.seed_source(), self.keep_until(board))
            return await store.peek(board.name)
        except StoreUnavailable as exc:
            raise errors.store_unavailable(exc) from exc

    def todays_board(self, game: Game) -> Board:
        return daily_board(game, self.today())

    async def claim(self, board: Board, player_id: str, game_id: str, *, stale: str = "") -> str:
        """The player's ranked game of the daily deal: ``game_id`` unless they have one (see DailyDeals.claim). The
        claim lasts until the day is over (and an hour more, for a clock a little behind)."""
        until = day_bounds_ms(board.date)[1] + 3_600_000
        try:
            return await self._daily().claim(board.name, player_id, game_id, until, stale=stale)
        except StoreUnavailable as exc:
            raise errors.store_unavailable(exc) from exc

    async def ranked_game(self, board: Board, player_id: str) -> str:
        try:
            return await self._daily().ranked_game(board.name, player_id)
        except StoreUnavailable as exc:
            raise errors.store_unavailable(exc) from exc

    # -- boards

    async def enter(self, record: GameRecord, certificate: pb.Certificate, board: Board | None) -> bool:
        """Put a won game on its board, if it counts there: a signed-in player's, certified (naming the player and the
        board), and -- for a daily deal -- their ranked game, won before the day is over (then the board is
        frozen). Whether it went in; a store failure is logged, never the player's error (the win stands)."""
        if self.boards is None or board is None or not record.owner or not certificate.encoded:
            return False
        if certificate.board != record.board or certificate.player.id != record.owner:
            return False
        if board.kind == DAILY and (not record.ranked or self.day_over(board.date)):
            return False
        started, finished = certificate.started_at.ToMilliseconds(), certificate.finished_at.ToMilliseconds()
        entry = BoardEntry(
            player_id=record.owner,
            player_name=certificate.player.display_name,
            player_kind=record.owner_kind,
            game_id=record.game_id,
            move_count=certificate.move_count,
            undo_count=certificate.undo_count,
            hint_count=certificate.hint_count,
            started_at=started,
            finished_at=finished,
            played=certificate.played,
            certificate=certificate.encoded,
        )
        key = rank_key(certificate.undo_count, certificate.move_count, started, finished)
        try:
            entered = await self.boards.enter(board.name, entry, key, self.keep_until(board))
        except StoreUnavailable as exc:
            log.warning("a win was not entered on its board: %s", exc, extra={"game_id": record.game_id})
            return False
        log.info("board entry", extra={"game_id": record.game_id, "board": board.name, "entered": entered})
        return entered
