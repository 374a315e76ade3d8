"""Refusals about games and the server itself: the game's state, the store, signing, hints, daily deals
and boards, and watching a game."""

from __future__ import annotations

import logging

from service.errors.reasons import Code, ServiceError, invalid, precondition

__all__ = [
    "bad_after_version",
    "bad_last_event_id",
    "corrupt_log",
    "corrupt_state",
    "game_not_found",
    "game_over",
    "hints_busy",
    "hints_in_progress",
    "hints_unavailable",
    "id_collision",
    "internal",
    "not_implemented",
    "nothing_to_undo",
    "prepared_not_found",
    "signing_unavailable",
    "solution_takes_back",
    "stale_version",
    "store_failed",
    "store_unavailable",
    "ticket_deal_secret",
    "ticket_expired",
    "tickets_unavailable",
    "undo_forbidden",
    "watch_streams_full",
    "watch_streams_per_client",
    "watch_unavailable",
]


log = logging.getLogger("service.errors")

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
    return precondition(reason, f"the game is over ({status})", {"status": status, "current_version": version})


def undo_forbidden(game_id: str) -> ServiceError:
    return precondition("UNDO_FORBIDDEN", "this game was started without undo", {"game_id": game_id})


def solution_takes_back(game_id: str, taken_back: int, move_index: int) -> ServiceError:
    """UNDO_FORBIDDEN for a solution that drops moves of a game played without undo."""
    return precondition(
        "UNDO_FORBIDDEN",
        "this game was started without undo: a solution starts with the moves played so far, as GetGame lists them",
        {"game_id": game_id, "taken_back": taken_back, "move_index": move_index},
    )


def nothing_to_undo(version: int) -> ServiceError:
    return precondition("NOTHING_TO_UNDO", "no move to take back", {"current_version": version})


def ticket_expired() -> ServiceError:
    return precondition("TICKET_EXPIRED", "the deal ticket has expired", {"field": "deal_ticket"})


def ticket_deal_secret(variant: str) -> ServiceError:
    return precondition(
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
    return invalid(
        "BAD_AFTER_VERSION", f"after_version is a version seen (>= 0; 0: the current game first), not {value}",
        {"field": "after_version"},
    )  # fmt: skip


def bad_last_event_id(value: str) -> ServiceError:
    return invalid(
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
