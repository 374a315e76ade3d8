"""The use cases: the one place of service logic, shared by the gRPC servicer and the REST layer.

:class:`GameService` has one async method per RPC, named as the RPC in
snake_case, taking the RPC's request message and the caller's
:class:`Credentials` and returning the response message; refusals are
:class:`~service.errors.ServiceError`. Transports only read credentials and
map errors (servicer.py: metadata and ``abort_with_status``; REST: headers and
HTTP statuses).

Every position goes through the engine's one reducer (``Game.play``), the same
one the replay verifier uses; responses carry the engine's player view only
(``engine.view.player_view``), and a game's seed only once the game is over.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from google.protobuf.timestamp_pb2 import Timestamp
from patience.moves import move_from_message
from patience.v1 import patience_pb2 as pb

from engine.catalogue import get_game, variants
from engine.deal import ALGORITHM, SEED_BYTES
from engine.encoding import EncodingError, decode_state, encode_state, state_hash
from engine.errors import PatienceError, VariantError
from engine.game import Game, Status
from engine.moves import Move, split_moves
from engine.state import State
from engine.verify import Outcome, replay
from engine.view import hidden_cards, player_view
from service import convert
from service.config import Settings
from service.errors import Code, ServiceError, from_engine
from service.jsonlimits import MAX_JSON_DEPTH, too_deep
from service.store import (
    AlreadyExists,
    GameClosed,
    GameExpired,
    GameRecord,
    GameStore,
    NewGameRecord,
    NotFound,
    NothingToUndo,
    Played,
    StoreFull,
    StoreStatus,
    StoreUnavailable,
    VersionConflict,
)

log = logging.getLogger(__name__)

#: The client-seed mixing scheme (docs/fairness.md): seed = HMAC-SHA256(server_seed, MIX_LABEL + client_seed).
MIX_LABEL = b"patience-mix-v1|"
#: The statuses of a game that is over (its seed may be revealed).
_OVER = frozenset({pb.GAME_STATUS_WON, pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_EXPIRED, pb.GAME_STATUS_FORFEITED})
#: Replays longer than this run in a worker thread so that the event loop keeps serving other calls.
_THREAD_REPLAY = 2000


#: What NewGame refuses next to a deal ticket (its seed is the ticket's), with the reason for each.
_NOT_WITH_TICKET = (("client_seed", "CLIENT_SEED_WITH_TICKET"), ("prepared_id", "PREPARED_WITH_TICKET"))


def new_game_id() -> str:
    """24 hex digits (96 random bits): safe in URLs, Redis keys and on a command line (never starts with '-')."""
    return secrets.token_hex(12)


def new_token() -> str:
    """A game's bearer token: a recognisable prefix (secret scanners, logs) and 256 random bits."""
    return "pgt_" + secrets.token_urlsafe(32)


class Credentials(NamedTuple):
    """What the caller presented: ``authorization: Bearer <token>`` and ``x-operator-key``, and who calls: the
    peer, or the end user a front end names (service.ratelimit). A named tuple: built on every call, and five
    times cheaper than a frozen dataclass."""

    game_token: str | None = None
    operator_key: str | None = None
    peer: str = ""  # gRPC's peer string ("ipv4:1.2.3.4:5"); read only for the rate-limited calls
    client_address: str | None = None  # x-client-address
    front_end_key: str | None = None  # x-front-end-key


class KeyRing(Protocol):
    """Certificate signing (service.certificates)."""

    def sign(self, contents: Any) -> bytes: ...
    def verify(self, encoded: bytes, *, replay: bool = False) -> Any: ...
    def public_keys(self) -> list[tuple[str, bytes, bool]]: ...


def mix_seed(server_seed: bytes, client_seed: bytes) -> bytes:
    """The deal seed from the server's 32 random bytes and the player's client seed."""
    return hmac.new(server_seed, MIX_LABEL + client_seed, hashlib.sha256).digest()


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _ts(ms: int) -> Timestamp:
    ts = Timestamp()
    ts.FromMilliseconds(ms)
    return ts


_MAX_TS_MS = 253_402_300_800_000  # 10000-01-01: Timestamp's upper bound


def _set_ms(ts: Timestamp, ms: int) -> None:
    """``ts.FromMilliseconds(ms)`` without its Python-level checks for the times a store hands out."""
    if 0 <= ms < _MAX_TS_MS:
        ts.seconds = ms // 1000
        ts.nanos = (ms % 1000) * 1_000_000
    else:
        ts.FromMilliseconds(ms)


def _not_found(game_id: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, "GAME_NOT_FOUND", f"no game {game_id[:64]!r}", {"game_id": game_id[:64]})


def _stale(expected: int, current: int) -> ServiceError:
    return ServiceError(
        Code.ABORTED,
        "STALE_VERSION",
        f"the game is at version {current}, not {expected}: fetch it and try again",
        {"expected_version": expected, "current_version": current},
    )


def _game_over(status: str, version: int) -> ServiceError:
    reason = "GAME_EXPIRED" if status == "expired" else "GAME_OVER"
    return ServiceError(
        Code.FAILED_PRECONDITION, reason, f"the game is over ({status})", {"status": status, "current_version": version}
    )


def _unavailable(exc: Exception) -> ServiceError:
    if isinstance(exc, StoreFull):  # nothing was written: the store refuses writes whole at its maxmemory
        log.warning("store full: %s", exc)
        return ServiceError(Code.RESOURCE_EXHAUSTED, "STORE_FULL", "the game store is full; try again later", {})
    log.warning("store unavailable: %s", exc)
    return ServiceError(Code.UNAVAILABLE, "STORE_UNAVAILABLE", "the game store is unavailable; try again", {})


class GameService:
    """The use cases over a store, a certificate key ring and a ticket minter."""

    def __init__(
        self,
        settings: Settings,
        store: GameStore,
        key_ring: KeyRing | None = None,
        tickets: Any | None = None,
        *,
        seed_source: Callable[[], bytes] | None = None,
        dealer: Callable[[Game, bytes], State] | None = None,
        limiter: Any | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.key_ring = key_ring
        self.tickets = tickets
        self._seed_source = seed_source or (lambda: secrets.token_bytes(SEED_BYTES))
        # The deal of a seed. Tests only pass another (two deals that differ in hidden cards alone, to check that
        # no answer tells them apart): it is a constructor argument, which no client can reach.
        self._deal: Callable[[Game, bytes], State] = dealer or (lambda game, seed: game.deal(seed))
        self.limiter = limiter  # service.ratelimit.RateLimiter, or None: no limits
        self._recent: OrderedDict[str, tuple[GameRecord, Game, State, str | None]] = OrderedDict()
        self._templates: dict[str, tuple[tuple[Any, ...], pb.Game]] = {}

    # ------------------------------------------------------------------ catalogue

    async def list_variants(self, request: pb.ListVariantsRequest, credentials: Credentials) -> pb.ListVariantsResponse:
        return pb.ListVariantsResponse(variants=[convert.variant_message(v) for v in variants()])

    # ------------------------------------------------------------------ games

    async def _limit(self, rpc: str, credentials: Credentials) -> None:
        """Count the call against its client's rate limits (RESOURCE_EXHAUSTED ``RATE_LIMITED`` beyond them)."""
        if self.limiter is not None:
            client = self.limiter.client(credentials.peer, credentials.client_address, credentials.front_end_key)
            await self.limiter.check(rpc, client)

    async def new_game(self, request: pb.NewGameRequest, credentials: Credentials) -> pb.NewGameResponse:
        await self._limit("NewGame", credentials)
        ticket_id = ""
        server_seed = b""
        client_seed = b""
        if request.HasField("deal_ticket"):
            for field, reason in _NOT_WITH_TICKET:
                if request.HasField(field):
                    raise ServiceError(
                        Code.INVALID_ARGUMENT,
                        reason,
                        f"a ticket's deal is the same for every player: no {field} with a deal ticket",
                        {"field": field},
                    )
            ticket = self._open_ticket(request.deal_ticket)
            if (request.variant and request.variant != ticket.variant) or request.options:
                raise ServiceError(
                    Code.INVALID_ARGUMENT,
                    "TICKET_FIXES_DEAL",
                    "the ticket names the variant and options: leave them out",
                    {"field": "variant" if request.variant else "options", "ticket_variant": ticket.variant},
                )
            game = self._game(ticket.variant, ticket.options)
            seed = self.tickets.seed(ticket)  # type: ignore[union-attr]
            ticket_id = self._ticket_field(ticket)
        else:
            prepared = request.prepared_id if request.HasField("prepared_id") else None
            if prepared is not None and not request.HasField("client_seed"):
                raise ServiceError(
                    Code.INVALID_ARGUMENT,
                    "PREPARED_NEEDS_CLIENT_SEED",
                    "a prepared game mixes the prepared server seed with a client seed: send client_seed too",
                    {"field": "client_seed"},
                )
            game = self._game(request.variant, request.options)
            seed = self._seed_source() if prepared is None else b""  # a prepared game's seed is drawn already
            if request.HasField("client_seed"):
                client_seed = request.client_seed
                if not 1 <= len(client_seed) <= self.settings.max_client_seed_bytes:
                    raise ServiceError(
                        Code.INVALID_ARGUMENT,
                        "BAD_CLIENT_SEED",
                        f"a client seed is 1 to {self.settings.max_client_seed_bytes} bytes",
                        {"field": "client_seed", "limit": self.settings.max_client_seed_bytes},
                    )
                # Taken last, once nothing else can refuse the request: a typo must not use up the preparation.
                server_seed = seed if prepared is None else await self._take_prepared(prepared)
                seed = mix_seed(server_seed, client_seed)
        try:
            state = self._deal(game, seed)
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
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
            ticket_id=ticket_id,
        )
        try:
            record = await self.store.create(record_in)
        except AlreadyExists as exc:  # 96 random bits: a collision is a bug, not bad luck
            raise ServiceError(Code.INTERNAL, "ID_COLLISION", "could not allocate a game id") from exc
        except StoreUnavailable as exc:
            raise _unavailable(exc) from exc
        self._remember(record, game, state, token)
        log.info("game dealt", extra={"game_id": record.game_id, "variant": game.id})
        return pb.NewGameResponse(game=self._game_message(record, game, state), game_token=token)

    async def prepare_game(self, request: pb.PrepareGameRequest, credentials: Credentials) -> pb.PrepareGameResponse:
        """Draw a server seed and publish only its hash, before the player picks a client seed: then not even
        the server chooses the deal (docs/fairness.md). The seed waits in the store, for one NewGame."""
        await self._limit("PrepareGame", credentials)
        server_seed = self._seed_source()
        prepared_id = new_game_id()
        validity = self.settings.prepare_validity
        try:
            await self.store.put_prepared(prepared_id, server_seed, validity)
        except AlreadyExists as exc:  # 96 random bits, as a game id
            raise ServiceError(Code.INTERNAL, "ID_COLLISION", "could not allocate a prepared id") from exc
        except StoreUnavailable as exc:
            raise _unavailable(exc) from exc
        return pb.PrepareGameResponse(
            prepared_id=prepared_id,
            server_seed_commitment=hashlib.sha256(server_seed).digest(),
            expires_at=_ts(_now_ms() + validity * 1000),
        )

    async def _take_prepared(self, prepared_id: str) -> bytes:
        if not prepared_id or len(prepared_id) > 64:
            raise ServiceError(
                Code.INVALID_ARGUMENT, "BAD_PREPARED_ID", "a prepared id is what PrepareGame returned",
                {"field": "prepared_id"},
            )  # fmt: skip
        try:
            server_seed = await self.store.take_prepared(prepared_id)
        except StoreUnavailable as exc:
            raise _unavailable(exc) from exc
        if server_seed is None:
            raise ServiceError(
                Code.NOT_FOUND,
                "PREPARED_NOT_FOUND",
                "no such prepared game: unknown, already used, or expired (call PrepareGame again)",
                {"prepared_id": prepared_id},
            )
        return server_seed

    async def get_game(self, request: pb.GetGameRequest, credentials: Credentials) -> pb.GetGameResponse:
        record = await self._fetch(request.game_id, credentials, moves=request.include_moves)
        if record.status == StoreStatus.WON and record.moves is None and self.key_ring is not None:
            record = await self._fetch(request.game_id, credentials, moves=True)  # the certificate needs the log
            game, state = self._decode(record)
            return pb.GetGameResponse(game=self._game_message(record, game, state, with_moves=False))
        game, state = self._decode(record)
        return pb.GetGameResponse(game=self._game_message(record, game, state, with_moves=request.include_moves))

    async def apply_move(self, request: pb.ApplyMoveRequest, credentials: Credentials) -> pb.ApplyMoveResponse:
        self._check_version_arg(request.expected_version)
        which = request.WhichOneof("move")
        if which is None:
            raise ServiceError(Code.INVALID_ARGUMENT, "MISSING_MOVE", "give the move as text or structured", {})
        cached = self._recent_game(request.game_id, request.expected_version, credentials)
        if cached is None:
            record = await self._fetch(request.game_id, credentials)
            self._check_open(record, request.expected_version)
            game, state = self._decode(record)
        else:
            record, game, state = cached
        given = request.text if which == "text" else convert.move_text_of(request.structured)
        try:
            move = Move.parse(request.text) if which == "text" else move_from_message(request.structured)
            new_state, explicit = game.play(state, move)
        except PatienceError as exc:
            if cached is not None:  # a stale version or a closed game says so before the refusal does
                self._check_open(await self._fetch(request.game_id, credentials), request.expected_version)
            raise from_engine(exc, move_index=record.move_count, move_text=given) from exc
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
        try:
            status = game.status(new_state)
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
        won = status is Status.WON
        moves: tuple[str, ...] | None = None
        if won:  # the certificate needs the whole log; the CAS below proves it is the log we read
            moves = (await self._fetch(request.game_id, credentials, moves=True)).moves
        try:
            updated = await self.store.set_state(
                record.game_id,
                request.expected_version,
                encode_state(game, new_state),
                explicit.text(),
                status=StoreStatus.WON if won else None,
                previous=record,
            )
        except StoreError_ as exc:
            self._recent.pop(request.game_id, None)
            raise self._store_error(exc, request.game_id, request.expected_version) from exc
        if moves is not None:
            updated = _with_moves(updated, (*moves, explicit.text()))
        else:
            self._remember(updated, game, new_state, credentials.game_token)
        response = pb.ApplyMoveResponse()
        self._game_message(updated, game, new_state, into=response.game, status=status)
        response.applied.MergeFromString(convert.notated_bytes(explicit))
        return response

    # A replica remembers the last position it wrote for a game, so that the next ApplyMove on it costs one
    # Redis call (the compare-and-set) instead of two. The store stays the authority: the CAS refuses a write
    # to any version but the one remembered, so a game moved on by another replica is ABORTED as before.
    _RECENT_GAMES = 4096

    # With the position goes the token that was last checked against the game's token hash: the next call with
    # the same token is checked by comparing the two (in constant time), without hashing it again.
    def _remember(self, record: GameRecord, game: Game, state: State, token: str | None = None) -> None:
        self._recent[record.game_id] = (record, game, state, token)
        self._recent.move_to_end(record.game_id)
        while len(self._recent) > self._RECENT_GAMES:
            self._recent.popitem(last=False)

    def _recent_game(
        self, game_id: str, expected_version: int, credentials: Credentials
    ) -> tuple[GameRecord, Game, State] | None:
        entry = self._recent.get(game_id)
        if entry is None or entry[0].version != expected_version or not entry[0].open:
            return None
        record, game, state, checked = entry
        given = credentials.game_token
        if not given:
            return None
        if checked is not None and given.isascii() and hmac.compare_digest(given, checked):
            return record, game, state
        if not hmac.compare_digest(record.token_hash, token_hash(given)):
            return None  # the full path gives the precise refusal
        return record, game, state

    async def undo_move(self, request: pb.UndoMoveRequest, credentials: Credentials) -> pb.UndoMoveResponse:
        self._check_version_arg(request.expected_version)
        record = await self._fetch(request.game_id, credentials, moves=True)
        self._check_open(record, request.expected_version)
        if not record.allow_undo:
            raise ServiceError(
                Code.FAILED_PRECONDITION,
                "UNDO_FORBIDDEN",
                "this game was started without undo",
                {"game_id": record.game_id},
            )
        log_moves = record.moves or ()
        if not log_moves:
            raise ServiceError(
                Code.FAILED_PRECONDITION, "NOTHING_TO_UNDO", "no move to take back", {"current_version": record.version}
            )
        game = self._game(record.variant, _parse_options(record.options))
        result = await self._replay(game, self._deal(game, record.seed), log_moves[:-1])
        if result.verdict.outcome is Outcome.ILLEGAL:  # the log only holds moves the engine applied
            raise ServiceError(Code.INTERNAL, "CORRUPT_LOG", "the stored move log does not replay", {})
        undone = Move.parse(log_moves[-1])
        try:
            updated = await self.store.undo(record.game_id, request.expected_version, encode_state(game, result.state))
        except NothingToUndo as exc:
            raise ServiceError(
                Code.FAILED_PRECONDITION, "NOTHING_TO_UNDO", "no move to take back", {"current_version": exc.version}
            ) from exc
        except StoreError_ as exc:
            raise self._store_error(exc, request.game_id, request.expected_version) from exc
        self._remember(updated, game, result.state, credentials.game_token)
        return pb.UndoMoveResponse(game=self._game_message(updated, game, result.state), undone=convert.notated(undone))

    async def legal_moves(self, request: pb.LegalMovesRequest, credentials: Credentials) -> pb.LegalMovesResponse:
        record = await self._fetch(request.game_id, credentials)
        response = pb.LegalMovesResponse(version=record.version)
        if self._status(record, None) in _OVER:
            return response
        game, state = self._decode(record)
        try:
            response.MergeFromString(convert.notated_list_bytes(1, game.legal_moves(state)))  # moves = 1
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
        return response

    async def resign(self, request: pb.ResignRequest, credentials: Credentials) -> pb.ResignResponse:
        if request.expected_version < 0:
            self._check_version_arg(request.expected_version)
        record = await self._fetch(request.game_id, credentials)
        self._check_open(record, request.expected_version or None)
        try:
            updated = await self.store.finish(record.game_id, request.expected_version or None, StoreStatus.RESIGNED)
        except StoreError_ as exc:
            raise self._store_error(exc, request.game_id, request.expected_version) from exc
        game, state = self._decode(updated)
        log.info("game resigned", extra={"game_id": record.game_id})
        return pb.ResignResponse(game=self._game_message(updated, game, state))

    # ------------------------------------------------------------------ solutions

    async def submit_solution(
        self, request: pb.SubmitSolutionRequest, credentials: Credentials
    ) -> pb.SubmitSolutionResponse:
        await self._limit("SubmitSolution", credentials)
        moves = self._solution_moves(request.moves)
        which = request.WhichOneof("deal")
        if which is None:
            raise ServiceError(
                Code.INVALID_ARGUMENT, "MISSING_DEAL", "name the deal: a game id or a deal ticket", {"field": "deal"}
            )
        if which == "deal_ticket":
            return await self._submit_for_ticket(request.deal_ticket, moves)
        return await self._submit_for_game(request.game_id, credentials, moves)

    async def _submit_for_game(
        self, game_id: str, credentials: Credentials, moves: list[str]
    ) -> pb.SubmitSolutionResponse:
        """Final, whatever the verdict: a win ends the game won (a certificate), anything else ends it forfeited.
        A verdict on a game that stayed open would answer questions about its hidden cards (issue 17: looping
        `s s s w-k` over the stock named every card of it) and let the player go on playing with them known."""
        record = await self._fetch(game_id, credentials, moves=True)
        self._check_open(record, None)
        played = record.moves or ()
        if not record.allow_undo and tuple(moves[: len(played)]) != played:
            # Decided on what the player sees (the moves played, as GetGame lists them), before any replay.
            kept = next((i for i, (a, b) in enumerate(zip(played, moves, strict=False)) if a != b), len(moves))
            raise ServiceError(
                Code.FAILED_PRECONDITION,
                "UNDO_FORBIDDEN",
                "this game was started without undo: a solution starts with the moves played so far, as GetGame "
                "lists them",
                {"game_id": record.game_id, "taken_back": len(played) - kept, "move_index": kept},
            )
        game = self._game(record.variant, _parse_options(record.options))
        result = await self._replay(game, self._deal(game, record.seed), moves)
        response = pb.SubmitSolutionResponse(game_id=record.game_id)
        if result.verdict.outcome is not Outcome.WON:
            try:
                updated = await self.store.finish(record.game_id, record.version, StoreStatus.FORFEITED)
            except StoreError_ as exc:
                raise self._store_error(exc, game_id, record.version) from exc
            self._recent.pop(record.game_id, None)
            now_game, now_state = self._decode(updated)
            self._game_message(updated, now_game, now_state, into=response.game)
            if response.game.seed:
                response.verdict.CopyFrom(_verdict(game, result))
            else:  # a live ticket's deal stays secret: how the moves failed would tell its hidden cards
                response.verdict.CopyFrom(pb.Verdict(outcome=pb.OUTCOME_NOT_WON, final_status=pb.GAME_STATUS_FORFEITED))
            log.info("game forfeited", extra={"game_id": record.game_id})
            return response
        response.verdict.CopyFrom(_verdict(game, result))
        # Moves the game had played that the solution does not keep count as taken back.
        explicit = tuple(m.text() for m in result.moves)
        kept = 0
        while kept < min(len(played), len(explicit)) and played[kept] == explicit[kept]:
            kept += 1
        try:
            updated = await self.store.replace(
                record.game_id,
                record.version,
                encode_state(game, result.state),
                explicit,
                status=StoreStatus.WON,
                undos=len(played) - kept,
                played=Played.SUBMITTED,
            )
        except StoreError_ as exc:
            raise self._store_error(exc, game_id, record.version) from exc
        self._recent.pop(record.game_id, None)
        self._game_message(updated, game, result.state, into=response.game)
        response.certificate.CopyFrom(response.game.certificate)
        return response

    async def _submit_for_ticket(self, text: str, moves: list[str]) -> pb.SubmitSolutionResponse:
        ticket = self._open_ticket(text)
        game = self._game(ticket.variant, ticket.options)
        seed = self.tickets.seed(ticket)  # type: ignore[union-attr]
        try:
            start = self._deal(game, seed)
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
        if hidden_cards(game, start):
            # A verdict would score moves against cards nobody may see while the ticket is valid, and the same
            # question could be asked again and again (no game to end): play the ticket through NewGame.
            raise ServiceError(
                Code.FAILED_PRECONDITION,
                "TICKET_DEAL_SECRET",
                f"{game.id} hides cards, and this ticket's deal stays secret while the ticket is valid: play it "
                "with NewGame(deal_ticket) and submit the solution for that game",
                {"field": "deal_ticket", "variant": game.id},
            )
        result = await self._replay(game, start, moves)
        game_id = new_game_id()
        response = pb.SubmitSolutionResponse(verdict=_verdict(game, result), game_id=game_id)
        if result.verdict.outcome is Outcome.WON:  # kept whole, for the record; nobody holds a token to it
            whole = NewGameRecord(
                game_id=game_id,
                token_hash=token_hash(new_token()),
                variant=game.id,
                options=game.options_text(),
                seed=seed,
                state=encode_state(game, result.state),
                ticket_id=self._ticket_field(ticket),
                moves=tuple(m.text() for m in result.moves),
                status=StoreStatus.WON,
                played=Played.SUBMITTED,
            )
            try:
                record = await self.store.create(whole)
            except StoreError_ as exc:
                raise self._store_error(exc, game_id, 1) from exc
            response.certificate.CopyFrom(self._certificate(record, game, result.state))
        return response

    # ------------------------------------------------------------------ tickets and certificates

    async def mint_deal(self, request: pb.MintDealRequest, credentials: Credentials) -> pb.MintDealResponse:
        self._check_operator(credentials)
        if self.tickets is None:
            raise ServiceError(Code.UNAVAILABLE, "TICKETS_UNAVAILABLE", "this server has no ticket key", {})
        game = self._game(request.variant, request.options)
        validity = request.valid_seconds or self.settings.ticket_validity
        if not 0 < validity <= self.settings.max_ticket_validity:
            raise ServiceError(
                Code.INVALID_ARGUMENT,
                "BAD_VALIDITY",
                f"a ticket is valid for 1 to {self.settings.max_ticket_validity} seconds",
                {"field": "valid_seconds", "limit": self.settings.max_ticket_validity},
            )
        if len(request.label) > 200:
            raise ServiceError(
                Code.INVALID_ARGUMENT, "BAD_LABEL", "a label is at most 200 characters", {"field": "label"}
            )
        expires = _now_ms() // 1000 + validity
        text, ticket = self.tickets.mint(game.id, convert.options_map(game), expires_at=expires, label=request.label)
        seed = self.tickets.seed(ticket)
        return pb.MintDealResponse(
            deal_ticket=text,
            ticket_id=ticket.ticket_id,
            variant=game.id,
            options=convert.options_map(game),
            commitment=hashlib.sha256(seed).digest(),
            expires_at=_ts(expires * 1000),
        )

    async def verify_certificate(
        self, request: pb.VerifyCertificateRequest, credentials: Credentials
    ) -> pb.VerifyCertificateResponse:
        await self._limit("VerifyCertificate", credentials)
        if self.key_ring is None:
            raise ServiceError(Code.UNAVAILABLE, "SIGNING_UNAVAILABLE", "this server has no signing keys", {})
        if too_deep(request.certificate):
            raise ServiceError(
                Code.INVALID_ARGUMENT,
                "JSON_TOO_DEEP",
                f"a certificate is one flat JSON object, not {MAX_JSON_DEPTH}+ nested arrays or objects",
                {"field": "certificate"},
            )
        if request.replay:  # a long replay must not stall the event loop
            checked = await asyncio.to_thread(self.key_ring.verify, request.certificate, replay=True)
        else:
            checked = self.key_ring.verify(request.certificate)
        response = pb.VerifyCertificateResponse(valid=checked.valid, reason=checked.reason, message=checked.message)
        if checked.contents is not None:
            response.certificate.CopyFrom(_certificate_message(request.certificate, checked.contents, checked))
        return response

    async def get_signing_keys(
        self, request: pb.GetSigningKeysRequest, credentials: Credentials
    ) -> pb.GetSigningKeysResponse:
        if self.key_ring is None:
            return pb.GetSigningKeysResponse()
        return pb.GetSigningKeysResponse(
            keys=[
                pb.SigningKey(key_id=key_id, algorithm="Ed25519", public_key=public, active=active)
                for key_id, public, active in self.key_ring.public_keys()
            ]
        )

    # ------------------------------------------------------------------ helpers

    def _game(self, variant: str, options: Mapping[str, object]) -> Game:
        try:
            return get_game(variant, convert.text_options(options) if options else None)  # type: ignore[arg-type]
        except VariantError as exc:
            error = from_engine(exc)
            error.metadata["field"] = "variant" if exc.reason.value == "unknown-variant" else "options"
            raise error from exc

    def _decode(self, record: GameRecord) -> tuple[Game, State]:
        """The game and position of a stored record. When the stored bytes are the very bytes this replica last
        wrote for the game, the position it wrote is that decoding already (GetGame, LegalMoves skip it)."""
        entry = self._recent.get(record.game_id)
        if entry is not None and entry[0].state == record.state:
            return entry[1], entry[2]
        try:
            return decode_state(record.state)
        except EncodingError as exc:
            raise ServiceError(Code.INTERNAL, "CORRUPT_STATE", "the stored position does not decode", {}) from exc

    async def _fetch(self, game_id: str, credentials: Credentials, *, moves: bool = False) -> GameRecord:
        """The game, if the caller holds its token."""
        if not game_id:
            raise ServiceError(Code.INVALID_ARGUMENT, "MISSING_GAME_ID", "which game?", {"field": "game_id"})
        if not credentials.game_token:
            raise ServiceError(
                Code.UNAUTHENTICATED,
                "MISSING_TOKEN",
                "send the game token as `authorization: Bearer <token>`",
                {"header": "authorization"},
            )
        try:
            record = await self.store.fetch(game_id, moves=moves)
        except NotFound as exc:
            raise _not_found(game_id) from exc
        except StoreUnavailable as exc:
            raise _unavailable(exc) from exc
        if not hmac.compare_digest(record.token_hash, token_hash(credentials.game_token)):
            raise ServiceError(
                Code.PERMISSION_DENIED, "WRONG_TOKEN", "this token is not the game's token", {"game_id": game_id}
            )
        return record

    @staticmethod
    def _check_version_arg(version: int) -> None:
        if version < 1:
            raise ServiceError(
                Code.INVALID_ARGUMENT,
                "MISSING_EXPECTED_VERSION",
                "expected_version is the version you last saw (1 or more)",
                {"field": "expected_version"},
            )

    def _check_open(self, record: GameRecord, expected_version: int | None) -> None:
        """Refuse writes to a stale version or a game that is over (the store checks both again, atomically)."""
        if expected_version is not None and record.version != expected_version:
            raise _stale(expected_version, record.version)
        if not record.open:
            raise _game_over(record.status, record.version)
        if record.expired:
            raise _game_over("expired", record.version)

    def _store_error(self, exc: Exception, game_id: str, expected: int) -> ServiceError:
        if isinstance(exc, VersionConflict):
            return _stale(exc.expected, exc.current)
        if isinstance(exc, NotFound):
            return _not_found(game_id)
        if isinstance(exc, GameClosed):
            return _game_over(exc.status, exc.version)
        if isinstance(exc, GameExpired):
            return _game_over("expired", exc.version)
        if isinstance(exc, StoreUnavailable):
            return _unavailable(exc)
        return ServiceError(Code.INTERNAL, "STORE_ERROR", str(exc)[:200], {})

    def _status(self, record: GameRecord, view_status: Status | None) -> pb.GameStatus:
        if record.status == StoreStatus.WON:
            return pb.GAME_STATUS_WON
        if record.status == StoreStatus.RESIGNED:
            return pb.GAME_STATUS_RESIGNED
        if record.status == StoreStatus.FORFEITED:
            return pb.GAME_STATUS_FORFEITED
        if not record.open:
            return pb.GAME_STATUS_RESIGNED
        if record.expired:
            return pb.GAME_STATUS_EXPIRED
        return convert.status_message(view_status) if view_status is not None else pb.GAME_STATUS_IN_PROGRESS

    def _seed_revealed(self, record: GameRecord, status: pb.GameStatus) -> bool:
        """Over, and -- for a ticket's deal -- the ticket expired (docs/fairness.md: a resignation must not
        hand the ticket's deal to the players still playing it)."""
        if status not in _OVER:
            return False
        if record.ticket_id:
            return _ticket_expires_ms(record.ticket_id) <= record.now
        return True

    def _game_message(
        self,
        record: GameRecord,
        game: Game,
        state: State,
        *,
        with_moves: bool = False,
        into: pb.Game | None = None,
        status: Status | None = None,
    ) -> pb.Game:
        """The Game message (into ``into`` when given: a response's own field, which saves a copy; ``status`` when
        the caller has ``game.status(state)`` already)."""
        try:
            view = player_view(game, state, status)
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc
        shown = self._status(record, view.status)
        msg = pb.Game() if into is None else into
        msg.MergeFrom(self._game_template(record, game))
        msg.version = record.version
        msg.status = shown
        msg.view.MergeFromString(convert.view_bytes(view))
        msg.move_count = record.move_count
        msg.undo_count = record.undo_count
        _set_ms(msg.updated_at, record.updated_at)
        if self._seed_revealed(record, shown):
            msg.seed = record.seed
            msg.server_seed = record.server_seed
        if record.finished_at:
            _set_ms(msg.finished_at, record.finished_at)
        elif record.expired:
            _set_ms(msg.finished_at, record.expires_at)
        else:
            _set_ms(msg.expires_at, record.expires_at)
        if with_moves and record.moves is not None:
            msg.moves.extend(record.moves)
        if shown == pb.GAME_STATUS_WON and self.key_ring is not None:
            full = record if record.moves is not None else None
            if full is not None:
                msg.certificate.CopyFrom(self._certificate(full, game, state))
        return msg

    # What a game's messages share from deal to end (ids, options, commitment, creation time) is built once per
    # game and merged into each response.
    _TEMPLATES = 4096

    def _game_template(self, record: GameRecord, game: Game) -> pb.Game:
        key = (
            record.game_id,
            game,
            record.allow_undo,
            record.seed,
            record.client_seed,
            record.server_seed,
            record.ticket_id,
            record.created_at,
        )
        entry = self._templates.get(record.game_id)
        if entry is not None and entry[0] == key:
            return entry[1]
        template = pb.Game(
            game_id=record.game_id,
            variant=game.id,
            options=convert.options_map(game),
            allow_undo=record.allow_undo,
            deal_algorithm=ALGORITHM,
            commitment=record.commitment,
            client_seed=record.client_seed,
            ticket_id=_ticket_id(record.ticket_id),
            created_at=_ts(record.created_at),
            server_seed_commitment=hashlib.sha256(record.server_seed).digest() if record.server_seed else b"",
        )
        self._templates[record.game_id] = (key, template)
        while len(self._templates) > self._TEMPLATES:
            del self._templates[next(iter(self._templates))]  # the oldest entry: dicts keep insertion order
        return template

    def _certificate(self, record: GameRecord, game: Game, final: State) -> pb.Certificate:
        """Sign the won game (Ed25519 signatures are deterministic: the same game signs to the same bytes)."""
        if self.key_ring is None:
            raise ServiceError(Code.UNAVAILABLE, "SIGNING_UNAVAILABLE", "this server has no signing keys", {})
        from service.certificates import CertificateContents

        contents = CertificateContents(
            game_id=record.game_id,
            variant=game.id,
            options=convert.options_map(game),
            seed=record.seed,
            commitment=record.commitment,
            moves=tuple(record.moves or ()),
            move_count=record.move_count,
            undo_count=record.undo_count,
            started_at=record.created_at,
            finished_at=record.finished_at,
            ticket_id=_ticket_id(record.ticket_id),
            final_state_hash=state_hash(game, final),
            played=record.played,
        )
        encoded = self.key_ring.sign(contents)
        checked = self.key_ring.verify(encoded)
        return _certificate_message(encoded, contents, checked)

    async def _replay(self, game: Game, start: State, moves: Sequence[str | Move]) -> Any:
        if len(moves) > _THREAD_REPLAY:
            return await asyncio.to_thread(replay, game, start, moves)
        try:
            return replay(game, start, moves)
        except NotImplementedError as exc:
            raise _unimplemented(game.id) from exc

    def _solution_moves(self, entries: Sequence[str]) -> list[str]:
        limit = self.settings.max_moves
        moves: list[str] = []
        for entry in entries:
            moves.extend(split_moves(entry))
            if len(moves) > limit:
                raise ServiceError(
                    Code.RESOURCE_EXHAUSTED,
                    "TOO_MANY_MOVES",
                    f"a solution has at most {limit} moves",
                    {"limit": limit, "field": "moves"},
                )
        return moves

    def _check_operator(self, credentials: Credentials) -> None:
        expected = self.settings.resolved_operator_key()
        if expected is None:
            raise ServiceError(
                Code.PERMISSION_DENIED, "MINTING_DISABLED", "this server has no operator key: it mints no deals", {}
            )
        if not credentials.operator_key:
            raise ServiceError(
                Code.UNAUTHENTICATED,
                "MISSING_OPERATOR_KEY",
                "send the operator key as `x-operator-key`",
                {"header": "x-operator-key"},
            )
        if not hmac.compare_digest(credentials.operator_key.encode(), expected.encode()):
            raise ServiceError(Code.PERMISSION_DENIED, "WRONG_OPERATOR_KEY", "wrong operator key", {})

    def _open_ticket(self, text: str) -> Any:
        if self.tickets is None:
            raise ServiceError(Code.UNAVAILABLE, "TICKETS_UNAVAILABLE", "this server has no ticket key", {})
        from service.tickets import TicketError

        try:
            return self.tickets.open(text, now=_now_ms() // 1000)
        except TicketError as exc:
            if exc.reason == "expired":
                raise ServiceError(
                    Code.FAILED_PRECONDITION, "TICKET_EXPIRED", "the deal ticket has expired", {"field": "deal_ticket"}
                ) from exc
            raise ServiceError(
                Code.INVALID_ARGUMENT,
                "BAD_TICKET",
                f"not a valid deal ticket ({exc.reason})",
                {"field": "deal_ticket", "why": exc.reason},
            ) from exc

    @staticmethod
    def _ticket_field(ticket: Any) -> str:
        """What the store keeps of a ticket: its id and its expiry (``id@unix_seconds``)."""
        return f"{ticket.ticket_id}@{int(ticket.expires_at)}"


# The store's error base, under a name that does not shadow ours.
from service.store import StoreError as StoreError_  # noqa: E402


def _verdict(game: Game, result: Any) -> pb.Verdict:
    """The verdict message; the final state's hash only when that position hides no card -- a hash of a
    position with hidden cards lets a player test guesses of them offline (two cards left in the stock: two
    guesses)."""
    message = convert.verdict_message(result.verdict)
    if hidden_cards(game, result.state):
        message.final_state_hash = ""
    return message


def _ticket_id(field: str) -> str:
    return field.rpartition("@")[0] if "@" in field else field


def _ticket_expires_ms(field: str) -> int:
    _, _, expires = field.rpartition("@")
    return int(expires) * 1000 if expires.isdigit() else 0


def _parse_options(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split(",") if "=" in kv)


def _with_moves(record: GameRecord, moves: tuple[str, ...]) -> GameRecord:
    from dataclasses import replace

    return replace(record, moves=moves)


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


def _unimplemented(variant: str) -> ServiceError:
    return ServiceError(
        Code.UNIMPLEMENTED, "VARIANT_UNAVAILABLE", f"{variant} is not playable on this server yet", {"variant": variant}
    )


def _certificate_message(encoded: bytes, contents: Any, checked: Any) -> pb.Certificate:
    return pb.Certificate(
        encoded=encoded,
        key_id=getattr(checked, "key_id", ""),
        signature=getattr(checked, "signature", b""),
        game_id=contents.game_id,
        variant=contents.variant,
        options=dict(contents.options),
        seed=contents.seed,
        commitment=contents.commitment,
        moves=list(contents.moves),
        move_count=contents.move_count,
        undo_count=contents.undo_count,
        started_at=_ts(contents.started_at),
        finished_at=_ts(contents.finished_at),
        ticket_id=contents.ticket_id,
        final_state_hash=contents.final_state_hash,
        played=contents.played,
    )
