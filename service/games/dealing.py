"""Dealing: ListVariants, PrepareGame and NewGame."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time

from patience.boards import Board, public_board
from patience.v1 import patience_pb2 as pb

from engine.catalogue import variants
from engine.deal import MAX_DEAL_NUMBER, SEED_BYTES, public_deal_seed
from engine.encoding import encode_state
from engine.game import Game
from service import errors
from service.games import convert, messages
from service.games.my_games import MyGames
from service.games.ports import Credentials
from service.games.steps import Steps, now_ms, refusal, unavailable
from service.observe import metrics
from service.security.players import Player
from service.security.tokens import mix_seed, new_game_id, new_token, token_hash
from service.solving.winnable import Entry, pool_name
from service.store import AlreadyExists, Dealt, GameRecord, NewGameRecord, NotFound, StoreError, StoreUnavailable

#: NewGame fields a winnable deal excludes (the seed is the pool's). Fields this version of the API lacks are
#: skipped, so a field added to the request is refused as soon as it is named here.
NOT_WITH_WINNABLE = ("deal_ticket", "client_seed", "prepared_id", "replay_seed", "deal_number", "daily")
#: NewGame fields a daily deal excludes: the day's seed is the same for everyone.
NOT_WITH_DAILY = ("deal_ticket", "client_seed", "prepared_id", "replay_seed", "deal_number")
#: How often NewGame looks at an empty pool again while it waits (seconds).
POOL_POLL = 0.1

log = logging.getLogger("service.games")


class Dealing:
    def __init__(self, steps: Steps, my_games: MyGames) -> None:
        self.steps = steps
        self.my_games = my_games

    async def list_variants(self, request: pb.ListVariantsRequest, credentials: Credentials) -> pb.ListVariantsResponse:
        return pb.ListVariantsResponse(variants=[convert.variant_message(v) for v in variants()])

    async def new_game(self, request: pb.NewGameRequest, credentials: Credentials) -> pb.NewGameResponse:
        client = await self.steps.limit("NewGame", credentials)
        # A signed-in player's game is theirs (docs/players.md); a bad identity is refused before any deal is taken.
        player = await self.steps.signed_in(credentials)
        dealt, number, ticket, server_seed, client_seed, solution = Dealt.RANDOM, 0, "", b"", b"", b""
        board: Board | None = None
        if request.winnable:
            game, seed, solution = await self._winnable_deal(request, client)
            dealt = Dealt.WINNABLE
        elif request.daily:
            game, seed, board = await self._daily_deal(request)
            dealt = Dealt.DAILY
        elif request.HasField("replay_seed") or request.HasField("deal_number"):
            game, seed, dealt, number = self._chosen_deal(request)
            if dealt == Dealt.PUBLIC and player is not None:  # a signed-in player's win ranks on the deal's board
                board = public_board(game, number)
        elif request.HasField("deal_ticket"):
            game, seed, server_seed, client_seed, ticket = self._ticket_deal(request)
            dealt = Dealt.TICKET
        else:
            game, seed, server_seed, client_seed = await self._own_deal(request)
        state = self.steps.deal(game, seed)
        token = new_token()
        record_in = NewGameRecord(
            game_id=new_game_id(),
            token_hash=token_hash(token),
            variant=game.id,
            options=game.options_text(),
            seed=seed,
            state=encode_state(game, state),
            allow_undo=request.allow_undo if request.HasField("allow_undo") else True,
            server_seed=server_seed,
            client_seed=client_seed,
            ticket_id=ticket,
            dealt=dealt,
            deal_number=number,
            solution=solution,
            owner=player.id if player is not None else "",
            owner_name=player.display_name if player is not None else "",
            owner_kind=player.kind if player is not None else "",
            board=board.name if board is not None else "",
            ranked=dealt == Dealt.DAILY and player is not None,
            watchable=request.watchable,  # default false: nobody watches a game unless its player says so
        )
        if player is not None:  # listed before it is written: a player's game is never missing from their list
            await self.my_games.listed(player.id, record_in.game_id)
        try:
            record = await self.steps.store.create(record_in)
        except AlreadyExists as exc:
            raise errors.id_collision("game id") from exc
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        if record.ranked and board is not None and player is not None:
            resumed = await self._ranked(board, player, record, token)
            if resumed is not None:
                return resumed
        self.steps.recent.remember(record, game, state, token)
        log.info("game dealt", extra={"game_id": record.game_id, "variant": game.id, "dealt": dealt})
        return pb.NewGameResponse(game=self.steps.answers.game(record, game, state), game_token=token)

    async def _daily_deal(self, request: pb.NewGameRequest) -> tuple[Game, bytes, Board]:
        """Today's daily deal of the variant and options: game, seed (the same for every player today) and board."""
        for other in NOT_WITH_DAILY:
            if request.HasField(other):
                raise errors.deal_fields_conflict("daily", other)
        game = self.steps.game(request.variant, request.options)
        board = self.steps.competition.todays_board(game)
        seed = await self.steps.competition.daily_seed(board, draw=True)
        assert seed is not None  # drawn
        return game, seed, board

    async def _ranked(self, board: Board, player: Player, record: GameRecord, token: str) -> pb.NewGameResponse | None:
        """Make ``record`` the player's one ranked game of the daily deal, or -- when they have one already -- drop it
        and answer with theirs, under a new token (the old one stops working: docs/competition.md). Games are created
        before they are claimed, so a claimed game the store no longer holds is gone for good (dropped unmoved, or
        erased), and the claim passes to this one. None: ``record`` is theirs."""
        competition, store = self.steps.competition, self.steps.store
        held = await competition.claim(board, player.id, record.game_id)
        for _ in range(3):
            if held == record.game_id:
                return None
            try:
                theirs = await store.rotate_token(held, token_hash(token))
            except NotFound:
                held = await competition.claim(board, player.id, record.game_id, stale=held)
                continue
            except StoreError as exc:
                await self._drop(record.game_id)
                raise refusal(exc, held) from exc
            if theirs.owner != player.id:  # never: a claim names the claimer's own game
                raise errors.corrupt_state()
            await self._drop(record.game_id)
            self.steps.recent.forget(held)
            game, state = self.steps.decode(theirs)
            log.info("daily game resumed", extra={"game_id": held, "board": board.name})
            return pb.NewGameResponse(game=self.steps.answers.game(theirs, game, state), game_token=token)
        await self._drop(record.game_id)
        raise errors.store_failed(RuntimeError("the ranked game's claim kept changing"))

    async def _drop(self, game_id: str) -> None:
        try:
            await self.steps.store.delete(game_id)
        except StoreError as exc:  # an unclaimed game nobody holds a token to: it expires unmoved
            log.warning("a game dealt in a race was not dropped: %s", exc, extra={"game_id": game_id})

    def _chosen_deal(self, request: pb.NewGameRequest) -> tuple[Game, bytes, Dealt, int]:
        """A deal the player names: a replay of a seed, or public deal #N. The seed is known to the player (or to
        anyone), so the deal makes no fairness claim and mixes nothing in: game, seed, how dealt, deal number."""
        field = "replay_seed" if request.HasField("replay_seed") else "deal_number"
        for other in ("deal_number", "deal_ticket", "client_seed", "prepared_id"):
            if other != field and request.HasField(other):
                raise errors.deal_fields_conflict(field, other)
        if field == "replay_seed":
            if len(request.replay_seed) != SEED_BYTES:
                raise errors.bad_replay_seed(len(request.replay_seed))
            return self.steps.game(request.variant, request.options), request.replay_seed, Dealt.REPLAY, 0
        if not 1 <= request.deal_number <= MAX_DEAL_NUMBER:
            raise errors.bad_deal_number(MAX_DEAL_NUMBER)
        game = self.steps.game(request.variant, request.options)
        return game, public_deal_seed(request.deal_number), Dealt.PUBLIC, request.deal_number

    async def _winnable_deal(self, request: pb.NewGameRequest, client: str) -> tuple[Game, bytes, bytes]:
        """A seed from the configuration's winnable pool and its winning line (packed): game, seed, line. The
        client's address takes one of its share of the pool first (``--limit-winnable``: RESOURCE_EXHAUSTED
        WINNABLE_SHARE_USED beyond it, so that no address empties a pool for the others). An empty pool is looked
        at again until ``--winnable-wait`` has passed, then UNAVAILABLE WINNABLE_POOL_EMPTY."""
        fields = request.DESCRIPTOR.fields_by_name
        for field in NOT_WITH_WINNABLE:
            if field in fields and request.HasField(field):
                raise errors.winnable_not_combinable(field)
        game = self.steps.game(request.variant, request.options)
        pool = pool_name(game)
        if self.steps.limiter is not None:
            over = await self.steps.limiter.take_share("Winnable", client, pool)
            if over is not None:
                metrics.WINNABLE_SHARE_USED.labels(pool).inc()
                raise errors.winnable_share_used(pool, *over)
        wait = self.steps.settings.winnable_wait
        deadline = time.monotonic() + wait
        while True:
            try:
                packed = await self.steps.store.pop_winnable(pool)
            except StoreUnavailable as exc:
                raise unavailable(exc) from exc
            if packed is not None:
                entry = self._pool_entry(pool, packed)
                if entry is not None:
                    return game, entry.seed, packed[len(entry.seed) :]
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.winnable_pool_empty(pool, wait)
            await asyncio.sleep(min(POOL_POLL, left))

    @staticmethod
    def _pool_entry(pool: str, packed: bytes) -> Entry | None:
        """An entry as the filler wrote it; a damaged one is logged and dropped (never dealt)."""
        try:
            entry = Entry.unpack(packed)
        except ValueError as exc:  # engine.movelog.CorruptLog is a ValueError
            log.error("a damaged winnable pool entry was dropped: %s", exc, extra={"pool": pool})
            return None
        return entry

    def _ticket_deal(self, request: pb.NewGameRequest) -> tuple[Game, bytes, bytes, bytes, str]:
        """A deal ticket's game and seed, and the ticket as the store keeps it."""
        for field in ("client_seed", "prepared_id"):
            if request.HasField(field):
                raise errors.not_with_ticket(field)
        tickets, ticket = self.steps.open_ticket(request.deal_ticket)
        if (request.variant and request.variant != ticket.variant) or request.options:
            raise errors.ticket_fixes_deal("variant" if request.variant else "options", ticket.variant)
        game = self.steps.game(ticket.variant, ticket.options)
        kept = messages.ticket_field(ticket.ticket_id, ticket.expires_at)
        return game, tickets.seed(ticket), b"", b"", kept

    async def _own_deal(self, request: pb.NewGameRequest) -> tuple[Game, bytes, bytes, bytes]:
        """The game and seed of a deal of the server's, perhaps mixed with a client seed (and a prepared
        server seed): game, seed, server seed, client seed."""
        prepared = request.prepared_id if request.HasField("prepared_id") else None
        if prepared is not None and not request.HasField("client_seed"):
            raise errors.prepared_needs_client_seed()
        game = self.steps.game(request.variant, request.options)
        seed = self.steps.seed_source() if prepared is None else b""  # a prepared game's seed is drawn already
        if not request.HasField("client_seed"):
            return game, seed, b"", b""
        client_seed = request.client_seed
        limit = self.steps.settings.max_client_seed_bytes
        if not 1 <= len(client_seed) <= limit:
            raise errors.bad_client_seed(limit)
        # Taken last, once nothing else can refuse the request: a typo must not use up the preparation.
        server_seed = seed if prepared is None else await self._take_prepared(prepared)
        return game, mix_seed(server_seed, client_seed), server_seed, client_seed

    async def prepare_game(self, request: pb.PrepareGameRequest, credentials: Credentials) -> pb.PrepareGameResponse:
        """Draw a server seed and publish only its hash, before the player picks a client seed: then not even
        the server chooses the deal (docs/fairness.md). The seed waits in the store, for one NewGame."""
        await self.steps.limit("PrepareGame", credentials)
        server_seed = self.steps.seed_source()
        prepared_id = new_game_id()
        validity = self.steps.settings.prepare_validity
        try:
            await self.steps.store.put_prepared(prepared_id, server_seed, validity)
        except AlreadyExists as exc:  # 96 random bits, as a game id
            raise errors.id_collision("prepared id") from exc
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return pb.PrepareGameResponse(
            prepared_id=prepared_id,
            server_seed_commitment=hashlib.sha256(server_seed).digest(),
            expires_at=messages.ts(now_ms() + validity * 1000),
        )

    async def _take_prepared(self, prepared_id: str) -> bytes:
        if not prepared_id or len(prepared_id) > 64:
            raise errors.bad_prepared_id()
        try:
            server_seed = await self.steps.store.take_prepared(prepared_id)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        if server_seed is None:
            raise errors.prepared_not_found(prepared_id)
        return server_seed
