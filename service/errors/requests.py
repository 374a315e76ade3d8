"""Refusals of the request itself: missing or malformed fields, what REST could not transcode, what the
HTTP layer refuses before any RPC is called."""

from __future__ import annotations

from service.errors.reasons import Code, ServiceError, invalid, precondition

__all__ = [
    "bad_board",
    "bad_client_seed",
    "bad_date",
    "bad_deal_number",
    "bad_label",
    "bad_prepared_id",
    "bad_replay_seed",
    "bad_request",
    "bad_ticket",
    "bad_validity",
    "competition_unavailable",
    "daily_deal_not_found",
    "daily_not_yet",
    "deal_fields_conflict",
    "game_too_long",
    "json_too_deep",
    "method_not_allowed",
    "missing_deal",
    "missing_expected_version",
    "missing_game_id",
    "missing_move",
    "no_such_route",
    "not_with_ticket",
    "prepared_needs_client_seed",
    "request_too_large",
    "ticket_fixes_deal",
    "too_many_moves",
    "undecodable_request",
    "unsupported_media_type",
    "winnable_not_combinable",
    "winnable_pool_empty",
    "winnable_share_used",
]


# -- the request itself


def missing_game_id() -> ServiceError:
    return invalid("MISSING_GAME_ID", "which game?", {"field": "game_id"})


def missing_expected_version() -> ServiceError:
    return invalid(
        "MISSING_EXPECTED_VERSION", "expected_version is the version you last saw (1 or more)",
        {"field": "expected_version"},
    )  # fmt: skip


def missing_move() -> ServiceError:
    return invalid("MISSING_MOVE", "give the move as text or structured")


def missing_deal() -> ServiceError:
    return invalid("MISSING_DEAL", "name the deal: a game id or a deal ticket", {"field": "deal"})


def not_with_ticket(field: str) -> ServiceError:
    """A NewGame field that a deal ticket excludes (its seed is the ticket's)."""
    reason = {"client_seed": "CLIENT_SEED_WITH_TICKET", "prepared_id": "PREPARED_WITH_TICKET"}[field]
    return invalid(reason, f"a ticket's deal is the same for every player: no {field} with a deal ticket",
                    {"field": field})  # fmt: skip


def ticket_fixes_deal(field: str, ticket_variant: str) -> ServiceError:
    return invalid(
        "TICKET_FIXES_DEAL", "the ticket names the variant and options: leave them out",
        {"field": field, "ticket_variant": ticket_variant},
    )  # fmt: skip


def deal_fields_conflict(field: str, other: str) -> ServiceError:
    """Two NewGame fields that each choose the deal (a replay seed or a deal number, and anything else that does)."""
    return invalid(
        "DEAL_FIELDS_CONFLICT",
        f"{field} chooses the deal by itself: send it without {other}",
        {"field": field, "conflicts_with": other},
    )


def bad_replay_seed(length: int) -> ServiceError:
    return invalid(
        "BAD_REPLAY_SEED",
        f"a replay seed is a deal's 32-byte seed, not {length} bytes",
        {"field": "replay_seed", "length": length},
    )


def bad_deal_number(maximum: int) -> ServiceError:
    return invalid(
        "BAD_DEAL_NUMBER", f"a public deal's number is 1 to {maximum}", {"field": "deal_number", "limit": maximum}
    )


def winnable_not_combinable(field: str) -> ServiceError:
    """A NewGame field that a winnable deal excludes: its seed comes from the server's pool, and nothing a client
    chooses may pick or change it."""
    return invalid(
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


def bad_date(field: str) -> ServiceError:
    return invalid("BAD_DATE", f"{field} is a UTC day written YYYY-MM-DD", {"field": field})


def daily_not_yet(date: str, latest: str) -> ServiceError:
    """A daily deal more than a day ahead: its seed is drawn the day before it starts, not earlier (docs/competition.md:
    nobody may ask for a deal weeks ahead)."""
    return precondition(
        "DAILY_NOT_YET", f"the daily deal of {date} is not drawn yet: the latest is {latest} (tomorrow's)",
        {"field": "date", "latest": latest},
    )  # fmt: skip


def daily_deal_not_found(board: str) -> ServiceError:
    return ServiceError(
        Code.NOT_FOUND, "DAILY_DEAL_NOT_FOUND",
        "no daily deal was drawn for that day (nobody asked for it in time), or it is no longer kept", {"board": board},
    )  # fmt: skip


def bad_board(why: str) -> ServiceError:
    return invalid("BAD_BOARD", f"not a leaderboard: {why}"[:300], {"field": "board"})


def competition_unavailable() -> ServiceError:
    return precondition("COMPETITION_UNAVAILABLE", "this server keeps no daily deals or leaderboards (no Redis store)")


def prepared_needs_client_seed() -> ServiceError:
    return invalid(
        "PREPARED_NEEDS_CLIENT_SEED",
        "a prepared game mixes the prepared server seed with a client seed: send client_seed too",
        {"field": "client_seed"},
    )


def bad_client_seed(limit: int) -> ServiceError:
    return invalid("BAD_CLIENT_SEED", f"a client seed is 1 to {limit} bytes", {"field": "client_seed", "limit": limit})


def bad_prepared_id() -> ServiceError:
    return invalid("BAD_PREPARED_ID", "a prepared id is what PrepareGame returned", {"field": "prepared_id"})


def bad_validity(limit: int) -> ServiceError:
    return invalid(
        "BAD_VALIDITY", f"a ticket is valid for 1 to {limit} seconds", {"field": "valid_seconds", "limit": limit}
    )


def bad_label() -> ServiceError:
    return invalid("BAD_LABEL", "a label is at most 200 characters", {"field": "label"})


def bad_ticket(why: str) -> ServiceError:
    return invalid("BAD_TICKET", f"not a valid deal ticket ({why})", {"field": "deal_ticket", "why": why})


def json_too_deep(depth: int) -> ServiceError:
    return invalid(
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
    return invalid("UNDECODABLE_REQUEST", f"the request is not a valid {method} request message", {"method": method})


def bad_request(reason: str, message: str, field: str = "") -> ServiceError:
    """A REST request that does not transcode into its RPC's message (service.rest.transcode's reasons)."""
    return invalid(reason, message, {"field": field} if field else {})


# -- the HTTP layer's own (no RPC was called)


def no_such_route(path: str) -> ServiceError:
    return ServiceError(Code.NOT_FOUND, "NO_SUCH_ROUTE", f"no route {path[:100]!r}")


def method_not_allowed(method: str, allow: str) -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, "METHOD_NOT_ALLOWED", f"{method} is not allowed here; use {allow}")


def request_too_large(limit: int) -> ServiceError:
    return ServiceError(Code.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", f"the body is larger than {limit} bytes")


def unsupported_media_type() -> ServiceError:
    return ServiceError(Code.INVALID_ARGUMENT, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json")
