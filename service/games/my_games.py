"""A signed-in player's games (docs/players.md): listed when dealt, ListGames, and unlinked when they fall off the
player's list or the player is erased.

The list is a sorted set under the player's hash tag (service.store.players); the games sit in their own slots,
so a page reads each game on its own (the reads go out together). An entry whose game is gone from the store, or
no longer the player's, is dropped from the list as the page meets it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging

from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import convert, messages
from service.games.ports import Credentials
from service.games.steps import Steps, now_ms, unavailable
from service.store import GameRecord, NotFound, StoreUnavailable
from service.store.layout import GAME_ID_RE
from service.store.players import Cursor, PlayerRecords

log = logging.getLogger("service.games")

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


def page_token(cursor: Cursor) -> str:
    """The opaque token of a place in a player's list (base64url of ``<ms>.<game id>``)."""
    return base64.urlsafe_b64encode(f"{cursor[0]}.{cursor[1]}".encode()).decode().rstrip("=")


def read_page_token(token: str) -> Cursor:
    """The place a :func:`page_token` names; INVALID_ARGUMENT ``BAD_PAGE_TOKEN`` for anything else."""
    try:
        if len(token) > 128:
            raise ValueError("too long")
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("ascii")
        ms, _, game_id = text.partition(".")
        if not ms.isdigit() or not GAME_ID_RE.match(game_id):
            raise ValueError("not a place in a list")
        return int(ms), game_id
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise errors.bad_page_token() from exc


class MyGames:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    @property
    def records(self) -> PlayerRecords:
        if self.steps.players is None:
            raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "this server keeps no players")
        return self.steps.players

    async def listed(self, player_id: str, game_id: str) -> None:
        """NewGame's step for a signed-in player's game, before the game is written (a game never exists unlisted:
        an entry whose game was then not written is dropped when listed). A game that falls off the list for it is
        unlinked from the player."""
        try:
            fallen = await self.records.add_game(player_id, game_id, now_ms())
            await self.unlink(player_id, fallen)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc

    async def unlink(self, player_id: str, game_ids: list[str]) -> int:
        """Unlink the games from the player (their owner fields removed) and take them off the list: how many were
        still the player's."""
        if not game_ids:
            return 0
        done = await asyncio.gather(*(self.steps.store.unlink_owner(g, player_id) for g in game_ids))
        await self.records.drop_games(player_id, game_ids)
        return sum(done)

    async def list_games(self, request: pb.ListGamesRequest, credentials: Credentials) -> pb.ListGamesResponse:
        if not 0 <= request.page_size <= MAX_PAGE_SIZE:
            raise errors.bad_page_size(MAX_PAGE_SIZE)
        size = request.page_size or DEFAULT_PAGE_SIZE
        after = read_page_token(request.page_token) if request.page_token else None
        player = await self.steps.player(credentials)
        kept: list[tuple[Cursor, GameRecord]] = []
        try:
            while len(kept) <= size:  # one more than the page: whether a next page exists
                want = size + 1 - len(kept)
                entries = await self.records.games(player.id, after, want)
                found = await asyncio.gather(*(self._read(game_id) for _, game_id in entries))
                mine = [(e, r) for e, r in zip(entries, found, strict=True) if r is not None and r.owner == player.id]
                await self.records.drop_games(player.id, [e[1] for e, r in zip(entries, found, strict=True) if
                                                          r is None or r.owner != player.id])  # fmt: skip
                kept += mine
                if len(entries) < want:  # the end of the list
                    break
                after = entries[-1]
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        response = pb.ListGamesResponse(games=[self.summary(record) for _, record in kept[:size]])
        if len(kept) > size:
            response.next_page_token = page_token(kept[size - 1][0])
        return response

    async def _read(self, game_id: str) -> GameRecord | None:
        try:
            return await self.steps.store.fetch(game_id)
        except NotFound:
            return None

    def summary(self, record: GameRecord) -> pb.GameSummary:
        """The game in short; its status as GetGame shows it (a live game's from its position: stuck or not)."""
        game, state = self.steps.decode(record)
        live = record.open and not record.expired
        summary = pb.GameSummary(
            game_id=record.game_id,
            variant=game.id,
            options=convert.options_map(game),
            status=messages.shown_status(record, game.status(state) if live else None),
            move_count=record.move_count,
            board=record.board if record.owner else "",  # as Game.board (docs/competition.md)
        )
        messages.set_ms(summary.created_at, record.created_at)
        messages.set_ms(summary.updated_at, record.updated_at)
        if record.finished_at:
            messages.set_ms(summary.finished_at, record.finished_at)
        elif record.expired:
            messages.set_ms(summary.finished_at, record.expires_at)
        else:
            messages.set_ms(summary.expires_at, record.expires_at)
        return summary
