"""The steps the use cases share, each a call to one adapter: the store, the engine, the key ring, the ticket
minter, the rate limiter, or one of this replica's caches. :class:`Steps` holds the adapters; each use case
(``dealing``, ``playing``, ``solutions``, ``minting``, ``certifying`` ...) is an object given one ``Steps``."""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from patience.v1 import patience_pb2 as pb

from engine.catalogue import get_game
from engine.deal import SEED_BYTES
from engine.encoding import EncodingError, decode_state, encode_state
from engine.errors import Reason, VariantError
from engine.game import Game, Status
from engine.moves import Move, split_moves
from engine.state import State
from engine.verify import Replay, replay
from service import errors
from service.errors import ServiceError
from service.games import convert
from service.games.answers import Answers
from service.games.caches import Certificates, RecentGames, Templates
from service.games.competition import Competition
from service.games.ports import Credentials, KeyRing, Limiter, Tickets
from service.games.wins import THREAD_REPLAY, Wins, won_by_moves
from service.security.players import Identities, Identity, Player, clean_display_name, fallback_name, looks_like_jwt
from service.security.ratelimit import client_address
from service.security.tickets import Ticket, TicketError, TicketReason
from service.security.tokens import token_hash
from service.settings.config import Settings
from service.solving.hints import HintPool
from service.store import (
    GameClosed,
    GameExpired,
    GameRecord,
    GameStore,
    HintBase,
    NotFound,
    StoreError,
    StoreFull,
    StoreStatus,
    StoreUnavailable,
    UndoBase,
    VersionConflict,
)
from service.store.boards import Boards
from service.store.daily import DailyDeals
from service.store.players import PlayerRecords

log = logging.getLogger("service.games")

#: What a read of the store gives: a game's record, or the record with what one use case needs beside it.
_Read = TypeVar("_Read", GameRecord, UndoBase, HintBase)


def now_ms() -> int:
    return int(time.time() * 1000)


def parse_options(text: str) -> dict[str, str]:
    """A stored options text (``Game.options_text()``) as the options ``get_game`` takes."""
    return dict(kv.split("=", 1) for kv in text.split(",") if "=" in kv)


def refusal(exc: StoreError, game_id: str) -> ServiceError:
    """A store's refusal of a write as the caller's error."""
    if isinstance(exc, VersionConflict):
        return errors.stale_version(exc.expected, exc.current)
    if isinstance(exc, NotFound):
        return errors.game_not_found(game_id)
    if isinstance(exc, GameClosed):
        return errors.game_over(exc.status, exc.version)
    if isinstance(exc, GameExpired):
        return errors.game_over("expired", exc.version)
    if isinstance(exc, StoreUnavailable):
        return unavailable(exc)
    return errors.store_failed(exc)


def client_of(peer: str, address: str | None, key: str | None, settings: Settings) -> str:
    """Who calls, with no rate limiter: the address the limiter would count (the peer, or the end user a trusted
    front end names), so that the fair shares hold with rate limits off too. An address header without the
    front end's key is not refused here (it never was without limits): the call counts under its peer."""
    try:
        return client_address(peer, address, key, settings.front_end_key)
    except ServiceError:
        return client_address(peer, None, None, None)


def unavailable(exc: StoreUnavailable) -> ServiceError:
    return errors.store_unavailable(exc, full=isinstance(exc, StoreFull))


class Steps:
    """The adapters, and the steps over them that more than one use case takes: each use case (``dealing``,
    ``playing`` ...) is an object of its own that is given one ``Steps`` (composition, not a shared base)."""

    def __init__(
        self,
        settings: Settings,
        store: GameStore,
        key_ring: KeyRing | None = None,
        tickets: Tickets | None = None,
        *,
        seed_source: Callable[[], bytes] | None = None,
        dealer: Callable[[Game, bytes], State] | None = None,
        limiter: Limiter | None = None,
        hints: HintPool | None = None,
        identities: Identities | None = None,
        players: PlayerRecords | None = None,
        daily: DailyDeals | None = None,
        boards: Boards | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.store = store
        self.key_ring = key_ring
        self.tickets = tickets
        self.seed_source = seed_source or (lambda: secrets.token_bytes(SEED_BYTES))
        # The deal of a seed. Tests only pass another (two deals that differ in hidden cards alone, to check that
        # no answer tells them apart): it is a constructor argument, which no client can reach.
        self.deal: Callable[[Game, bytes], State] = dealer or (lambda game, seed: game.deal(seed))
        self.limiter = limiter  # None: no limits
        self.hints = hints  # None: Hint is refused (UNAVAILABLE)
        self.identities = identities  # None: players are off (no player-id key), every call is anonymous
        self.players = players
        self.recent = RecentGames()
        self.templates = Templates()
        self.certificates = Certificates()
        # Daily deals and leaderboards; ``clock`` (Unix seconds) says which day it is: a test moves it.
        self.competition = Competition(
            daily, boards, clock=clock, seed_source=self.seed_source, retention_days=settings.board_retention_days
        )
        self.wins = Wins(store, key_ring, self.certificates, self.competition)
        self.answers = Answers(self.templates, self.competition, self.wins, key_ring)

    # -- callers

    async def limit(self, rpc: str, credentials: Credentials) -> str:
        """Count the call against its client's rate limits (RESOURCE_EXHAUSTED ``RATE_LIMITED`` beyond them); the
        client address it counts under (what the fair shares of hints and winnable deals go by too)."""
        if self.limiter is None:
            return client_of(credentials.peer, credentials.client_address, credentials.front_end_key, self.settings)
        client = self.limiter.client(credentials.peer, credentials.client_address, credentials.front_end_key)
        await self.limiter.check(rpc, client)
        return client

    def check_operator(self, credentials: Credentials) -> None:
        expected = self.settings.resolved_operator_key()
        if expected is None:
            raise errors.minting_disabled()
        if not credentials.operator_key:
            raise errors.missing_operator_key()
        if not hmac.compare_digest(credentials.operator_key.encode(), expected.encode()):
            raise errors.wrong_operator_key()

    # -- players (docs/players.md)

    async def identify(self, credentials: Credentials) -> tuple[Identity, str] | None:
        """The verified identity of the caller's bearer JWT and its player id; None when the bearer is a game token
        or absent; UNAUTHENTICATED ``IDENTITY_*`` when it is a JWT that does not verify."""
        token = credentials.game_token
        if token is None or not looks_like_jwt(token):
            return None
        if self.identities is None:
            raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "this server accepts no identity tokens")
        identity = await self.identities.verify(token)
        return identity, self.identities.player_of(identity)

    async def player(self, credentials: Credentials) -> Player:
        """The signed-in caller as a player; UNAUTHENTICATED ``MISSING_IDENTITY`` without an identity token."""
        player = await self.signed_in(credentials)
        if player is None:
            raise errors.missing_identity()
        return player

    async def signed_in(self, credentials: Credentials) -> Player | None:
        """The caller as a player if they sent an identity token (recorded on first sight, with the name the
        identity claims if it is an acceptable one); None for a game token or no token."""
        found = await self.identify(credentials)
        if found is None:
            return None
        if self.players is None:
            raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "this server keeps no players")
        identity, pid = found
        try:
            claimed = clean_display_name(identity.name)
        except ServiceError:
            claimed = fallback_name(pid)
        try:
            record = await self.players.put(pid, claimed, identity.kind, keep_name=True)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return Player(pid, record.display_name, identity.kind)

    # -- the store

    async def owned(self, game_id: str, credentials: Credentials, read: Callable[[str], Awaitable[_Read]]) -> _Read:
        """What ``read(game_id)`` gives (a record, or a record with what a use case needs beside it: its ``record``),
        if the caller holds the game's token or is the player who owns it (an identity token: docs/players.md); the
        refusals of a missing id, token or game, or of the store. A game that is not the identity's is refused as
        a wrong token is (WRONG_TOKEN), so the answer tells nothing of whose it is."""
        if not game_id:
            raise errors.missing_game_id()
        token = credentials.game_token
        if not token:
            raise errors.missing_token()
        # An identity token is verified before the game is read (a bad one is refused whatever the game).
        found_player = await self.identify(credentials) if looks_like_jwt(token) else None
        try:
            found = await read(game_id)
        except NotFound as exc:
            raise errors.game_not_found(game_id) from exc
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        record = found if isinstance(found, GameRecord) else found.record
        if found_player is not None:
            # compare_digest on both sides always: the time taken does not depend on whether the game has an owner.
            if not hmac.compare_digest(record.owner.encode() or b"-", found_player[1].encode()):
                raise errors.wrong_token(game_id)
        elif not hmac.compare_digest(record.token_hash, token_hash(token)):
            raise errors.wrong_token(game_id)
        return found

    async def fetch(self, game_id: str, credentials: Credentials, *, moves: bool = False) -> GameRecord:
        """The game, if the caller holds its token."""
        return await self.owned(game_id, credentials, lambda gid: self.store.fetch(gid, moves=moves))

    @staticmethod
    def check_version_arg(version: int) -> None:
        if version < 1:
            raise errors.missing_expected_version()

    @staticmethod
    def check_open(record: GameRecord, expected_version: int | None) -> None:
        """Refuse writes to a stale version or a game that is over (the store checks both again, atomically)."""
        if expected_version is not None and record.version != expected_version:
            raise errors.stale_version(expected_version, record.version)
        if not record.open:
            raise errors.game_over(record.status, record.version)
        if record.expired:
            raise errors.game_over("expired", record.version)

    async def fetch_undo_base(self, game_id: str, credentials: Credentials) -> UndoBase:
        """What UndoMove needs of the game (``GameStore.fetch_undo_base``), if the caller holds its token."""
        return await self.owned(game_id, credentials, self.store.fetch_undo_base)

    async def check_room(self, record: GameRecord, moves: int, credentials: Credentials, *, cached: bool) -> None:
        """Refuse ``moves`` more when they would take the game's log past ``--max-moves`` (GAME_TOO_LONG): so no
        call on any game costs more than a game of that length costs. ``cached``: ``record`` is this replica's
        memory, so a stale version or a closed game is looked up and said first."""
        limit = self.settings.max_moves
        if record.move_count + moves <= limit:
            return
        if cached:
            self.check_open(await self.fetch(record.game_id, credentials), record.version)
        raise errors.game_too_long(limit, record.move_count)

    # -- the engine

    @staticmethod
    def game(variant: str, options: Mapping[str, str]) -> Game:
        try:
            return get_game(variant, convert.text_options(options) if options else None)
        except VariantError as exc:
            error = errors.from_engine(exc)
            error.metadata["field"] = "variant" if exc.reason is Reason.UNKNOWN_VARIANT else "options"
            raise error from exc

    @staticmethod
    def decode_checkpoint(encoded: bytes) -> State:
        """A checkpoint's position (the store keeps them as the engine's encoded states)."""
        try:
            return decode_state(encoded)[1]
        except EncodingError as exc:
            raise errors.corrupt_state() from exc

    def decode(self, record: GameRecord) -> tuple[Game, State]:
        """The game and position of a stored record (the one this replica wrote, when it is that one)."""
        known = self.recent.decoded(record)
        if known is not None:
            return known
        try:
            return decode_state(record.state)
        except EncodingError as exc:
            raise errors.corrupt_state() from exc

    @staticmethod
    async def replay(game: Game, start: State, moves: Sequence[str | Move]) -> Replay:
        if len(moves) > THREAD_REPLAY:
            return await asyncio.to_thread(replay, game, start, moves)
        return replay(game, start, moves)

    def solution_moves(self, entries: Sequence[str]) -> list[str]:
        limit = self.settings.max_moves
        moves: list[str] = []
        for entry in entries:
            moves.extend(split_moves(entry))
            if len(moves) > limit:
                raise errors.too_many_moves(limit)
        return moves

    # -- tickets

    def open_ticket(self, text: str) -> tuple[Tickets, Ticket]:
        """The ticket minter and the ticket ``text`` opens to."""
        if self.tickets is None:
            raise errors.tickets_unavailable()
        try:
            return self.tickets, self.tickets.open(text, now=now_ms() // 1000)
        except TicketError as exc:
            if exc.reason == TicketReason.EXPIRED:
                raise errors.ticket_expired() from exc
            raise errors.bad_ticket(exc.reason) from exc

    async def commit_moves(
        self,
        record: GameRecord,
        expected_version: int,
        game: Game,
        state: State,
        moves: Sequence[Move],
        credentials: Credentials,
        into: pb.Game,
    ) -> None:
        """Write ``moves`` (played from ``record`` to ``state``) in one compare-and-set on the version and answer
        the game in ``into``, with its certificate when they won it: what ApplyMove and AutoPlay do after the
        engine has played. A win is signed before its write, from the log read just before it, and kept by that
        write (``Wins``): the write's compare-and-set proves the log it was signed from is the game's."""
        status = game.status(state)
        won = status is Status.WON
        signed = None
        if won and self.key_ring is not None:
            record = await self.fetch(record.game_id, credentials, moves=True)
            try:
                self.check_open(record, expected_version)
            except ServiceError:  # this replica's memory of the game was stale: nothing is signed
                self.recent.forget(record.game_id)
                raise
            signed = await self.wins.before_write(won_by_moves(record, moves), game, state)
        encoded, written = encode_state(game, state), StoreStatus.WON if won else None
        win = None if signed is None else signed[1]
        try:
            if len(moves) == 1:  # ApplyMove's path: the store reuses what it knows of ``record``
                updated = await self.store.set_state(
                    record.game_id, expected_version, encoded, moves[0], status=written, previous=record, win=win
                )
            else:
                updated = await self.store.play_moves(
                    record.game_id, expected_version, encoded, moves, status=written, win=win
                )
        except StoreError as exc:
            self.recent.forget(record.game_id)
            raise refusal(exc, record.game_id) from exc
        certificate = None
        if signed is not None:
            updated = replace(updated, moves=(*(record.moves or ()), *moves))
            certificate = await self.wins.after_write(updated, game, state, signed[0])
        elif not won:
            self.recent.remember(updated, game, state, credentials.game_token)
        self.answers.game(updated, game, state, into=into, status=status, certificate=certificate)
