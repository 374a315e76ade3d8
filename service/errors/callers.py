"""Refusals of who calls: credentials (game tokens, identities, the operator key), client addresses, rate
limits and shares."""

from __future__ import annotations

from service.errors.reasons import Code, ServiceError, invalid

__all__ = [
    "IDENTITY_REASONS",
    "bad_client_address",
    "bad_display_name",
    "bad_page_size",
    "bad_page_token",
    "guests_unavailable",
    "identity_provider_unavailable",
    "identity_refused",
    "minting_disabled",
    "missing_identity",
    "missing_operator_key",
    "missing_token",
    "rate_limited",
    "untrusted_client_address",
    "wrong_operator_key",
    "wrong_token",
]


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
    return invalid("BAD_DISPLAY_NAME", f"display name: {why}", {"field": "display_name"})


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
    return invalid("BAD_PAGE_SIZE", f"page_size is 0 (the default) to {maximum}", {"field": "page_size"})


def bad_page_token() -> ServiceError:
    return invalid(
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
    return invalid("BAD_CLIENT_ADDRESS", f"{header} is an IPv4 or IPv6 address", {"header": header})


def rate_limited(rpc: str, limit: str, retry: int) -> ServiceError:
    """RESOURCE_EXHAUSTED with when to try again (a RetryInfo detail, a Retry-After header)."""
    error = ServiceError(
        Code.RESOURCE_EXHAUSTED, "RATE_LIMITED",
        f"too many {rpc} calls from this address (at most {limit}); try again in {retry} s",
        {"method": rpc, "limit": limit, "retry_after_seconds": retry},
    )  # fmt: skip
    error.retry_after = retry
    return error
