"""Leaderboards: GetLeaderboard (docs/competition.md). Wins enter their board where they are won
(``Wins.enter``)."""

from __future__ import annotations

import hashlib

from patience.boards import DAILY, Board, BoardNameError, day_bounds_ms, parse_board
from patience.v1 import patience_pb2 as pb

from engine.deal import public_deal_seed
from service import errors
from service.games import convert, messages
from service.games.ports import Credentials
from service.games.steps import Steps, unavailable
from service.store import StoreUnavailable
from service.store.boards import BoardEntry

#: Entries per page: the default and the most (50 certificates of games at --max-moves, 2,000, are about 2 MB).
PAGE_SIZE, MAX_PAGE_SIZE = 25, 50
#: The furthest a page may start (a board holds one entry per player: far more than anyone pages through).
MAX_OFFSET = 10**7


def read_page_token(token: str) -> int:
    """The first entry a page token names: the decimal index this service wrote into next_page_token."""
    if not token:
        return 0
    if not token.isascii() or not token.isdigit() or len(token) > 8 or int(token) > MAX_OFFSET:
        raise errors.bad_page_token()
    return int(token)


class Leaderboards:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def get_leaderboard(
        self, request: pb.GetLeaderboardRequest, credentials: Credentials
    ) -> pb.GetLeaderboardResponse:
        try:
            board = parse_board(request.board)
        except BoardNameError as exc:
            raise errors.bad_board(str(exc)) from exc
        size = request.page_size or PAGE_SIZE
        if not 1 <= size <= MAX_PAGE_SIZE:
            raise errors.bad_page_size(MAX_PAGE_SIZE)
        first = read_page_token(request.page_token)
        player = await self.steps.signed_in(credentials)
        competition = self.steps.competition
        if competition.boards is None:
            raise errors.competition_unavailable()
        response = self._head(board)
        if board.kind == DAILY:
            seed = await competition.daily_seed(board, draw=False)
            if seed is not None:
                response.commitment = hashlib.sha256(seed).digest()
            if response.frozen and seed is not None:
                response.seed = seed
        try:
            page = await competition.boards.page(board.name, first, size, player.id if player is not None else "")
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        sealed = board.kind == DAILY and not response.frozen  # certificates hold the seed
        response.total = page.total
        for i, entry in enumerate(page.entries):
            self._entry(response.entries.add(), first + i + 1, entry, sealed)
        if first + len(page.entries) < page.total:
            response.next_page_token = str(first + len(page.entries))
        if page.own is not None:
            self._entry(response.own, page.own[0] + 1, page.own[1], sealed)
        return response

    def _head(self, board: Board) -> pb.GetLeaderboardResponse:
        """What a board says of its deal before its entries."""
        game = board.game()
        response = pb.GetLeaderboardResponse(
            board=board.name,
            kind=board.kind,
            variant=game.id,
            options=convert.options_map(game),
            date=board.date,
            deal_number=board.number,
        )
        if board.kind == DAILY:
            closes = day_bounds_ms(board.date)[1]
            response.closes_at.CopyFrom(messages.ts(closes))
            response.frozen = self.steps.competition.day_over(board.date)
        else:
            seed = public_deal_seed(board.number)
            response.seed, response.commitment = seed, hashlib.sha256(seed).digest()
        return response

    def _entry(self, out: pb.LeaderboardEntry, rank: int, entry: BoardEntry, sealed: bool) -> None:
        out.rank = rank
        out.player.CopyFrom(pb.Player(id=entry.player_id, display_name=entry.player_name, kind=entry.player_kind))
        out.move_count, out.undo_count, out.hint_count = entry.move_count, entry.undo_count, entry.hint_count
        out.play_time.FromMilliseconds(max(0, entry.finished_at - entry.started_at))
        messages.set_ms(out.finished_at, entry.finished_at)
        out.game_id, out.played = entry.game_id, entry.played
        if not sealed and entry.certificate:
            self._certificate(out.certificate, entry.game_id, entry.certificate)

    def _certificate(self, out: pb.Certificate, game_id: str, encoded: bytes) -> None:
        """The certificate as a message, its fields read from the signed bytes (checked once per replica: the
        Certificates cache); just its bytes when no key here can read it."""
        known = self.steps.certificates.get(game_id, encoded)
        if known is None and self.steps.key_ring is not None:
            checked = self.steps.key_ring.verify(encoded)
            if checked.contents is not None:
                known = messages.certificate_message(encoded, checked.contents, checked).SerializeToString()
                self.steps.certificates.put(game_id, encoded, known)
        if known is not None:
            out.MergeFromString(known)
            out.ClearField("moves")  # they are in ``encoded``: a page of long wins stays within a message's size
        else:
            out.encoded = encoded
