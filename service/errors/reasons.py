"""The service's error values: the status codes, the registry of every reason (:data:`REASONS`),
:class:`ServiceError`, an engine error as a service error, and the two builders the refusal modules share
(``invalid``, ``precondition``). How they travel: the package's docstring (``service.errors``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum

import grpc

from engine.errors import MoveError, PatienceError, Reason

__all__ = [
    "DOMAIN",
    "REASONS",
    "SERVICE_REASONS",
    "Code",
    "ServiceError",
    "from_engine",
    "invalid",
    "precondition",
    "reason_code",
]


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
        # daily deals and leaderboards (docs/competition.md)
        "BAD_DATE", "DAILY_NOT_YET", "DAILY_DEAL_NOT_FOUND", "BAD_BOARD", "COMPETITION_UNAVAILABLE",
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


def invalid(reason: str, message: str, metadata: Mapping[str, object] | None = None) -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, reason, message, metadata or {})


def precondition(reason: str, message: str, metadata: Mapping[str, object] | None = None) -> ServiceError:
    return ServiceError(Code.FAILED_PRECONDITION, reason, message, metadata or {})
