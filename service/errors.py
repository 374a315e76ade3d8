"""Domain errors of the service, every one built here, and their one mapping to gRPC statuses.

The use cases (``service.games``) raise :class:`ServiceError` values that know
nothing of any transport, each made by a named constructor of this module
(``game_not_found(game_id)``), so that a reason and its text live in one place:
a status ``Code`` (named as gRPC names them, the REST layer maps them to HTTP),
a stable ``reason`` and string ``metadata`` (``move_index``, ``move_text``,
``current_version`` ...). gRPC clients get a ``google.rpc.Status`` with one
``google.rpc.ErrorInfo`` detail (domain ``patience.v1``) through
``abort_with_status``; read it back with ``grpc_status.rpc_status.from_call``.

Reasons are UPPER_SNAKE_CASE (Google AIP-193), one spelling on every path: for a
refused move the reason is the engine's own code (``DOES_NOT_FIT``, also in
``metadata["rule"]`` and in a verdict's ``error_reason``). :data:`REASONS` lists
every reason the service sends; a ServiceError with any other is a bug.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from engine.errors import MoveError, PatienceError, Reason

DOMAIN = "patience.v1"

log = logging.getLogger(__name__)


class Code(Enum):
    """The status codes the service uses: (gRPC code, HTTP status for the REST layer)."""

    INVALID_ARGUMENT = (grpc.StatusCode.INVALID_ARGUMENT, 400)
    FAILED_PRECONDITION = (grpc.StatusCode.FAILED_PRECONDITION, 400)
    ABORTED = (grpc.StatusCode.ABORTED, 409)
    NOT_FOUND = (grpc.StatusCode.NOT_FOUND, 404)
    UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, 401)
    PERMISSION_DENIED = (grpc.StatusCode.PERMISSION_DENIED, 403)
    RESOURCE_EXHAUSTED = (grpc.StatusCode.RESOURCE_EXHAUSTED, 429)
    UNAVAILABLE = (grpc.StatusCode.UNAVAILABLE, 503)
    UNIMPLEMENTED = (grpc.StatusCode.UNIMPLEMENTED, 501)
    INTERNAL = (grpc.StatusCode.INTERNAL, 500)

    @property
    def grpc_code(self) -> grpc.StatusCode:
        return self.value[0]

    @property
    def http_status(self) -> int:
        return self.value[1]


#: Every reason the service sends in an ErrorInfo besides the engine's own (:class:`engine.errors.Reason`, whose
#: values are reasons too): one UPPER_SNAKE_CASE spelling each (docs/api.md, "Errors"), grouped as there.
SERVICE_REASONS = frozenset(
    {
        # the request
        "MISSING_GAME_ID", "MISSING_EXPECTED_VERSION", "MISSING_MOVE", "MISSING_DEAL", "UNDECODABLE_REQUEST",
        # dealing
        "CLIENT_SEED_WITH_TICKET", "PREPARED_WITH_TICKET", "TICKET_FIXES_DEAL", "PREPARED_NEEDS_CLIENT_SEED",
        "BAD_CLIENT_SEED", "BAD_PREPARED_ID", "DEAL_FIELDS_CONFLICT", "BAD_REPLAY_SEED", "BAD_DEAL_NUMBER",
        "PREPARED_NOT_FOUND", "WINNABLE_NOT_COMBINABLE", "WINNABLE_POOL_EMPTY", "WINNABLE_SHARE_USED",
        # tickets
        "BAD_VALIDITY", "BAD_LABEL", "BAD_TICKET", "TICKET_EXPIRED", "TICKET_DEAL_SECRET", "TICKETS_UNAVAILABLE",
        # REST
        "INVALID_JSON", "JSON_TOO_DEEP", "BAD_QUERY_PARAMETER", "UNKNOWN_PARAMETER", "UNEXPECTED_BODY",
        "NO_SUCH_ROUTE", "METHOD_NOT_ALLOWED", "REQUEST_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE",
        # credentials and callers
        "MISSING_TOKEN", "WRONG_TOKEN", "MISSING_OPERATOR_KEY", "WRONG_OPERATOR_KEY", "MINTING_DISABLED",
        "BAD_CLIENT_ADDRESS", "UNTRUSTED_CLIENT_ADDRESS", "CLIENT_CERTIFICATE_REQUIRED", "RATE_LIMITED",
        # players (docs/players.md)
        "MISSING_IDENTITY", "IDENTITY_MALFORMED", "IDENTITY_ALGORITHM", "IDENTITY_BAD_SIGNATURE", "IDENTITY_EXPIRED",
        "IDENTITY_NOT_YET_VALID", "IDENTITY_WRONG_AUDIENCE", "IDENTITY_UNKNOWN_ISSUER", "IDENTITY_UNKNOWN_KEY",
        "BAD_DISPLAY_NAME", "GUESTS_UNAVAILABLE", "IDENTITY_PROVIDER_UNAVAILABLE", "BAD_PAGE_SIZE", "BAD_PAGE_TOKEN",
        # games
        "GAME_NOT_FOUND", "STALE_VERSION", "GAME_OVER", "GAME_EXPIRED", "UNDO_FORBIDDEN", "NOTHING_TO_UNDO",
        "TOO_MANY_MOVES",
        "GAME_TOO_LONG",
        # the service itself
        "SIGNING_UNAVAILABLE", "STORE_UNAVAILABLE", "STORE_FULL", "STORE_ERROR", "ID_COLLISION", "CORRUPT_STATE",
        "CORRUPT_LOG", "INTERNAL", "UNIMPLEMENTED",
        # hints
        "HINTS_BUSY", "HINTS_IN_PROGRESS", "HINTS_UNAVAILABLE",
        # watching
        "BAD_AFTER_VERSION", "BAD_LAST_EVENT_ID", "WATCH_STREAMS_FULL", "WATCH_STREAMS_PER_CLIENT", "WATCH_UNAVAILABLE",
    }
)  # fmt: skip
#: Every ErrorInfo reason: the service's and the engine's.
REASONS = SERVICE_REASONS | frozenset(r.value for r in Reason)


class ServiceError(Exception):
    """A refusal with a stable reason (one of :data:`REASONS`); ``metadata`` values are strings (ErrorInfo's
    type)."""

    def __init__(self, code: Code, reason: str, message: str, metadata: Mapping[str, object] | None = None) -> None:
        if reason not in REASONS:  # a new reason is added to REASONS, docs/api.md and the web client's messages
            raise ValueError(f"{reason!r} is not one of the service's reason codes")
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = {k: str(v) for k, v in (metadata or {}).items()}
        self.retry_after: int | None = None  # seconds: a RetryInfo detail (gRPC), Retry-After (REST)

    def __repr__(self) -> str:
        return f"ServiceError({self.code.name}, {self.reason!r}, {self.message!r}, {self.metadata!r})"


def reason_code(reason: Reason | str) -> str:
    """The API's spelling of an engine reason: its value (``Reason.DOES_NOT_FIT`` -> ``DOES_NOT_FIT``)."""
    return str(reason)


def from_engine(exc: PatienceError, *, move_index: int | None = None, move_text: str | None = None) -> ServiceError:
    """An engine error as a service error: bad input is INVALID_ARGUMENT, a refused move FAILED_PRECONDITION."""
    metadata: dict[str, object] = {"rule": exc.reason.value}
    if move_index is not None:
        metadata["move_index"] = move_index
    text = move_text if move_text is not None else getattr(exc, "text", None)
    if isinstance(exc, MoveError) or move_text is not None:
        metadata["move_text"] = (text or "")[:64]
    invalid = exc.reason in (Reason.BAD_NOTATION, Reason.UNKNOWN_VARIANT, Reason.BAD_OPTION)
    code = Code.INVALID_ARGUMENT if invalid else Code.FAILED_PRECONDITION
    return ServiceError(code, reason_code(exc.reason), exc.message, metadata)


# --------------------------------------------------------------------------- the refusals, one constructor each
# Grouped by what they guard. Reasons and texts are part of the API (docs/api.md, "Errors"): change neither.


def _invalid(reason: str, message: str, metadata: Mapping[str, object] | None = None) -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, reason, message, metadata or {})


def _precondition(reason: str, message: str, metadata: Mapping[str, object] | None = None) -> ServiceError:
    return ServiceError(Code.FAILED_PRECONDITION, reason, message, metadata or {})


# -- the request itself


def missing_game_id() -> ServiceError:
    return _invalid("MISSING_GAME_ID", "which game?", {"field": "game_id"})


def missing_expected_version() -> ServiceError:
    return _invalid(
        "MISSING_EXPECTED_VERSION", "expected_version is the version you last saw (1 or more)",
        {"field": "expected_version"},
    )  # fmt: skip


def missing_move() -> ServiceError:
    return _invalid("MISSING_MOVE", "give the move as text or structured")


def missing_deal() -> ServiceError:
    return _invalid("MISSING_DEAL", "name the deal: a game id or a deal ticket", {"field": "deal"})


def not_with_ticket(field: str) -> ServiceError:
    """A NewGame field that a deal ticket excludes (its seed is the ticket's)."""
    reason = {"client_seed": "CLIENT_SEED_WITH_TICKET", "prepared_id": "PREPARED_WITH_TICKET"}[field]
    return _invalid(reason, f"a ticket's deal is the same for every player: no {field} with a deal ticket",
                    {"field": field})  # fmt: skip


def ticket_fixes_deal(field: str, ticket_variant: str) -> ServiceError:
    return _invalid(
        "TICKET_FIXES_DEAL", "the ticket names the variant and options: leave them out",
        {"field": field, "ticket_variant": ticket_variant},
    )  # fmt: skip


def deal_fields_conflict(field: str, other: str) -> ServiceError:
    """Two NewGame fields that each choose the deal (a replay seed or a deal number, and anything else that does)."""
    return _invalid(
        "DEAL_FIELDS_CONFLICT",
        f"{field} chooses the deal by itself: send it without {other}",
        {"field": field, "conflicts_with": other},
    )


def bad_replay_seed(length: int) -> ServiceError:
    return _invalid(
        "BAD_REPLAY_SEED",
        f"a replay seed is a deal's 32-byte seed, not {length} bytes",
        {"field": "replay_seed", "length": length},
    )


def bad_deal_number(maximum: int) -> ServiceError:
    return _invalid(
        "BAD_DEAL_NUMBER", f"a public deal's number is 1 to {maximum}", {"field": "deal_number", "limit": maximum}
    )


def winnable_not_combinable(field: str) -> ServiceError:
    """A NewGame field that a winnable deal excludes: its seed comes from the server's pool, and nothing a client
    chooses may pick or change it."""
    return _invalid(
        "WINNABLE_NOT_COMBINABLE", f"a winnable deal is a seed from the server's pool: no {field} with winnable",
        {"field": field},
    )  # fmt: skip


def winnable_pool_empty(pool: str, waited: float) -> ServiceError:
    """No proven deal of this configuration within the wait: never a deal that is not proven instead."""
    error = ServiceError(
        Code.UNAVAILABLE,
        "WINNABLE_POOL_EMPTY",
        "no winnable deal of this game is ready; the server is proving more, try again shortly",
        {"pool": pool, "waited_seconds": f"{waited:g}"},
    )
    error.retry_after = 5
    return error


def winnable_share_used(pool: str, limit: str, retry: int) -> ServiceError:
    """This address took its share of the pool's proven deals (``--limit-winnable``): the pool is shared by every
    player, and one address must not empty it for the others. An ordinary deal (``winnable`` false) is not
    limited by it."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "WINNABLE_SHARE_USED",
        f"this address took its share of winnable deals of this game (at most {limit}); try again in {retry} s, "
        "or deal without winnable",
        {"pool": pool, "limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def prepared_needs_client_seed() -> ServiceError:
    return _invalid(
        "PREPARED_NEEDS_CLIENT_SEED",
        "a prepared game mixes the prepared server seed with a client seed: send client_seed too",
        {"field": "client_seed"},
    )


def bad_client_seed(limit: int) -> ServiceError:
    return _invalid("BAD_CLIENT_SEED", f"a client seed is 1 to {limit} bytes", {"field": "client_seed", "limit": limit})


def bad_prepared_id() -> ServiceError:
    return _invalid("BAD_PREPARED_ID", "a prepared id is what PrepareGame returned", {"field": "prepared_id"})


def bad_validity(limit: int) -> ServiceError:
    return _invalid(
        "BAD_VALIDITY", f"a ticket is valid for 1 to {limit} seconds", {"field": "valid_seconds", "limit": limit}
    )


def bad_label() -> ServiceError:
    return _invalid("BAD_LABEL", "a label is at most 200 characters", {"field": "label"})


def bad_ticket(why: str) -> ServiceError:
    return _invalid("BAD_TICKET", f"not a valid deal ticket ({why})", {"field": "deal_ticket", "why": why})


def json_too_deep(depth: int) -> ServiceError:
    return _invalid(
        "JSON_TOO_DEEP", f"a certificate is one flat JSON object, not {depth}+ nested arrays or objects",
        {"field": "certificate"},
    )  # fmt: skip


def game_too_long(limit: int, move_count: int) -> ServiceError:
    """A move (ApplyMove, AutoPlay) that would take the game's log past ``--max-moves``: the player takes moves
    back or starts again; asking again cannot help."""
    return ServiceError(
        Code.RESOURCE_EXHAUSTED, "GAME_TOO_LONG",
        f"a game holds at most {limit} moves and this one has {move_count}: take moves back or start a new game",
        {"limit": limit, "move_count": move_count},
    )  # fmt: skip


def too_many_moves(limit: int) -> ServiceError:
    return ServiceError(
        Code.RESOURCE_EXHAUSTED, "TOO_MANY_MOVES", f"a solution has at most {limit} moves",
        {"limit": limit, "field": "moves"},
    )  # fmt: skip


def undecodable_request(method: str) -> ServiceError:
    return _invalid("UNDECODABLE_REQUEST", f"the request is not a valid {method} request message", {"method": method})


def bad_request(reason: str, message: str, field: str = "") -> ServiceError:
    """A REST request that does not transcode into its RPC's message (service.rest.transcode's reasons)."""
    return _invalid(reason, message, {"field": field} if field else {})


# -- who calls


def missing_token() -> ServiceError:
    return ServiceError(
        Code.UNAUTHENTICATED, "MISSING_TOKEN", "send the game token as `authorization: Bearer <token>`",
        {"header": "authorization"},
    )  # fmt: skip


def wrong_token(game_id: str) -> ServiceError:
    return ServiceError(
        Code.PERMISSION_DENIED, "WRONG_TOKEN", "this token is not the game's token", {"game_id": game_id}
    )


#: The refusals of an identity token (service.security.players), all UNAUTHENTICATED.
IDENTITY_REASONS = frozenset(
    {
        "IDENTITY_MALFORMED", "IDENTITY_ALGORITHM", "IDENTITY_BAD_SIGNATURE", "IDENTITY_EXPIRED",
        "IDENTITY_NOT_YET_VALID", "IDENTITY_WRONG_AUDIENCE", "IDENTITY_UNKNOWN_ISSUER", "IDENTITY_UNKNOWN_KEY",
    }
)  # fmt: skip


def identity_refused(reason: str, message: str) -> ServiceError:
    """An identity token that does not verify: which check failed is the reason (never the token itself)."""
    if reason not in IDENTITY_REASONS:
        raise ValueError(f"{reason!r} is not an identity refusal")
    return ServiceError(Code.UNAUTHENTICATED, reason, message, {"header": "authorization"})


def missing_identity() -> ServiceError:
    return ServiceError(
        Code.UNAUTHENTICATED, "MISSING_IDENTITY",
        "sign in: send an identity token (OpenID Connect or CreateGuest) as `authorization: Bearer <token>`",
        {"header": "authorization"},
    )  # fmt: skip


def bad_display_name(why: str) -> ServiceError:
    return _invalid("BAD_DISPLAY_NAME", f"display name: {why}", {"field": "display_name"})


def guests_unavailable() -> ServiceError:
    return ServiceError(
        Code.FAILED_PRECONDITION, "GUESTS_UNAVAILABLE", "this server has no guest key: it issues no guest identities",
        {},
    )  # fmt: skip


def identity_provider_unavailable(retry: int) -> ServiceError:
    """The identity token's provider never answered for its keys: the token can be neither accepted nor refused
    (the keys are asked for again after ``retry`` seconds)."""
    error = ServiceError(
        Code.UNAVAILABLE, "IDENTITY_PROVIDER_UNAVAILABLE",
        "the identity provider's keys could not be fetched; try again later",
        {"header": "authorization", "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def bad_page_size(maximum: int) -> ServiceError:
    return _invalid("BAD_PAGE_SIZE", f"page_size is 0 (the default) to {maximum}", {"field": "page_size"})


def bad_page_token() -> ServiceError:
    return _invalid(
        "BAD_PAGE_TOKEN", "page_token is not one this call gave: start again without it", {"field": "page_token"}
    )


def minting_disabled() -> ServiceError:
    return ServiceError(
        Code.PERMISSION_DENIED, "MINTING_DISABLED", "this server has no operator key: it mints no deals", {}
    )


def missing_operator_key() -> ServiceError:
    return ServiceError(
        Code.UNAUTHENTICATED, "MISSING_OPERATOR_KEY", "send the operator key as `x-operator-key`",
        {"header": "x-operator-key"},
    )  # fmt: skip


def wrong_operator_key() -> ServiceError:
    return ServiceError(Code.PERMISSION_DENIED, "WRONG_OPERATOR_KEY", "wrong operator key", {})


def untrusted_client_address(header: str, key_header: str) -> ServiceError:
    return ServiceError(
        Code.PERMISSION_DENIED, "UNTRUSTED_CLIENT_ADDRESS",
        f"{header} is for a front end that sends the configured {key_header}", {"header": header},
    )  # fmt: skip


def bad_client_address(header: str) -> ServiceError:
    return _invalid("BAD_CLIENT_ADDRESS", f"{header} is an IPv4 or IPv6 address", {"header": header})


def rate_limited(rpc: str, limit: str, retry: int) -> ServiceError:
    """RESOURCE_EXHAUSTED with when to try again (a RetryInfo detail, a Retry-After header)."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "RATE_LIMITED",
        f"too many {rpc} calls from this address (at most {limit}); try again in {retry} s",
        {"method": rpc, "limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


# -- the game


def game_not_found(game_id: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, "GAME_NOT_FOUND", f"no game {game_id[:64]!r}", {"game_id": game_id[:64]})


def prepared_not_found(prepared_id: str) -> ServiceError:
    return ServiceError(
        Code.NOT_FOUND, "PREPARED_NOT_FOUND",
        "no such prepared game: unknown, already used, or expired (call PrepareGame again)",
        {"prepared_id": prepared_id},
    )  # fmt: skip


def stale_version(expected: int, current: int) -> ServiceError:
    return ServiceError(
        Code.ABORTED, "STALE_VERSION", f"the game is at version {current}, not {expected}: fetch it and try again",
        {"expected_version": expected, "current_version": current},
    )  # fmt: skip


def game_over(status: str, version: int) -> ServiceError:
    """GAME_OVER, or GAME_EXPIRED for a game left idle too long."""
    reason = "GAME_EXPIRED" if status == "expired" else "GAME_OVER"
    return _precondition(reason, f"the game is over ({status})", {"status": status, "current_version": version})


def undo_forbidden(game_id: str) -> ServiceError:
    return _precondition("UNDO_FORBIDDEN", "this game was started without undo", {"game_id": game_id})


def solution_takes_back(game_id: str, taken_back: int, move_index: int) -> ServiceError:
    """UNDO_FORBIDDEN for a solution that drops moves of a game played without undo."""
    return _precondition(
        "UNDO_FORBIDDEN",
        "this game was started without undo: a solution starts with the moves played so far, as GetGame lists them",
        {"game_id": game_id, "taken_back": taken_back, "move_index": move_index},
    )


def nothing_to_undo(version: int) -> ServiceError:
    return _precondition("NOTHING_TO_UNDO", "no move to take back", {"current_version": version})


def ticket_expired() -> ServiceError:
    return _precondition("TICKET_EXPIRED", "the deal ticket has expired", {"field": "deal_ticket"})


def ticket_deal_secret(variant: str) -> ServiceError:
    return _precondition(
        "TICKET_DEAL_SECRET",
        f"{variant} hides cards, and this ticket's deal stays secret while the ticket is valid: play it "
        "with NewGame(deal_ticket) and submit the solution for that game",
        {"field": "deal_ticket", "variant": variant},
    )


# -- this server


def tickets_unavailable() -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, "TICKETS_UNAVAILABLE", "this server has no ticket key", {})


def signing_unavailable() -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, "SIGNING_UNAVAILABLE", "this server has no signing keys", {})


def hints_busy(limit: int, retry: int) -> ServiceError:
    """The hint pool holds as many hints as it admits (running and waiting): try again shortly."""
    error = ServiceError(
        Code.UNAVAILABLE, "HINTS_BUSY", f"the hint solver is busy ({limit} hints running or waiting); try again soon",
        {"limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def hints_in_progress(limit: int, retry: int) -> ServiceError:
    """This address has as many hints being computed (or waiting) as one address may (``--hint-per-client``):
    the solver processes are shared, and one address must not hold them all. Ask again once one is answered."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "HINTS_IN_PROGRESS",
        f"this address has {limit} hint{'s' if limit > 1 else ''} being computed already (at most {limit} at once); "
        "ask again once answered",
        {"limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def hints_unavailable() -> ServiceError:
    """No hint pool, or one of its processes died (service.solving.hints logs it and starts a new pool for the next
    hint)."""
    return ServiceError(Code.UNAVAILABLE, "HINTS_UNAVAILABLE", "the hint solver is unavailable; try again", {})


# -- watching


def bad_after_version(value: int) -> ServiceError:
    return _invalid(
        "BAD_AFTER_VERSION", f"after_version is a version seen (>= 0; 0: the current game first), not {value}",
        {"field": "after_version"},
    )  # fmt: skip


def bad_last_event_id(value: str) -> ServiceError:
    return _invalid(
        "BAD_LAST_EVENT_ID", f"Last-Event-ID is the version of the last event seen (digits), not {value[:32]!r}",
        {"header": "last-event-id"},
    )  # fmt: skip


def watch_streams_full(limit: int, retry: int) -> ServiceError:
    """This replica holds as many watch streams as it serves (``--watch-streams``): try again, perhaps elsewhere."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "WATCH_STREAMS_FULL",
        f"this server holds {limit} watch streams already; try again soon",
        {"limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def watch_streams_per_client(limit: int, retry: int) -> ServiceError:
    """This address holds as many watch streams as one address may (``--watch-per-client``)."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "WATCH_STREAMS_PER_CLIENT",
        f"this address holds {limit} watch stream{'s' if limit > 1 else ''} already (at most {limit} at once); "
        "close one first",
        {"limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error


def watch_unavailable() -> ServiceError:
    """The server has no change notifications (its store cannot publish them)."""
    return ServiceError(Code.UNAVAILABLE, "WATCH_UNAVAILABLE", "this server cannot stream games; poll GetGame", {})


def store_unavailable(exc: Exception, *, full: bool = False) -> ServiceError:
    """The store did not answer (UNAVAILABLE), or is at its maxmemory (RESOURCE_EXHAUSTED ``STORE_FULL``:
    nothing was written, the store refuses writes whole); logged, since an operator must hear of it."""
    if full:
        log.warning("store full: %s", exc)
        return ServiceError(Code.RESOURCE_EXHAUSTED, "STORE_FULL", "the game store is full; try again later", {})
    log.warning("store unavailable: %s", exc)
    return ServiceError(Code.UNAVAILABLE, "STORE_UNAVAILABLE", "the game store is unavailable; try again", {})


def store_failed(exc: Exception) -> ServiceError:
    return ServiceError(Code.INTERNAL, "STORE_ERROR", str(exc)[:200], {})


def id_collision(what: str) -> ServiceError:
    """96 random bits taken already: a bug, not bad luck."""
    return ServiceError(Code.INTERNAL, "ID_COLLISION", f"could not allocate a {what}")


def corrupt_state() -> ServiceError:
    return ServiceError(Code.INTERNAL, "CORRUPT_STATE", "the stored position does not decode", {})


def corrupt_log() -> ServiceError:
    return ServiceError(Code.INTERNAL, "CORRUPT_LOG", "the stored move log does not replay", {})


def internal() -> ServiceError:
    """What a caller learns of an unexpected exception (logged with its traceback where it is caught)."""
    return ServiceError(Code.INTERNAL, "INTERNAL", "internal error", {})


def not_implemented(rpc: str) -> ServiceError:
    return ServiceError(Code.INTERNAL, "UNIMPLEMENTED", f"{rpc} is not implemented", {})


# -- the HTTP layer's own (no RPC was called)


def no_such_route(path: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, "NO_SUCH_ROUTE", f"no route {path[:100]!r}")


def method_not_allowed(method: str, allow: str) -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, "METHOD_NOT_ALLOWED", f"{method} is not allowed here; use {allow}")


def request_too_large(limit: int) -> ServiceError:
    return ServiceError(Code.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", f"the body is larger than {limit} bytes")


def unsupported_media_type() -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json")


# --------------------------------------------------------------------------- as gRPC statuses


def to_status(error: ServiceError) -> status_pb2.Status:
    """The ``google.rpc.Status`` for ``error``, with its ErrorInfo detail."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if error.retry_after is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=error.retry_after)))
        details.append(retry)
    return status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message[:1000], details=details)


def error_info(status: status_pb2.Status | None) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a status read with ``rpc_status.from_call`` (clients and tests)."""
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
