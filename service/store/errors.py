"""The store's errors: every refusal a store raises on purpose, one class each, so that the use cases map each to
its own stable reason (``service.games.steps.refusal``) whatever store raised it."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every error the store raises on purpose."""


class NotFound(StoreError):
    """No such game (never created, malformed id, or dropped after expiry)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id[:64]!r}")
        self.game_id = game_id


class AlreadyExists(StoreError):
    """``create`` with an id that is taken (ids are random, so this means a bug or a replay)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} exists already")
        self.game_id = game_id


class VersionConflict(StoreError):
    """The game is no longer at the expected version; ``current`` is the version it is at."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"the game is at version {current}, not {expected}")
        self.expected = expected
        self.current = current


class GameClosed(StoreError):
    """A write to a game that is over (won or resigned); ``status`` says how it ended."""

    def __init__(self, status: str, version: int) -> None:
        super().__init__(f"the game is over ({status})")
        self.status = status
        self.version = version


class GameExpired(StoreError):
    """A write to a game left untouched for longer than the idle time."""

    def __init__(self, version: int) -> None:
        super().__init__("the game expired")
        self.version = version


class NothingToUndo(StoreError):
    """``undo`` with an empty move log."""

    def __init__(self, version: int) -> None:
        super().__init__("no move to take back")
        self.version = version


class StoreUnavailable(StoreError):
    """Redis cannot be reached (connection refused, timeout, cluster down): retry later."""


class NotReplicated(StoreUnavailable):
    """The write reached the primary but not the replicas the durability setting asks for, in time: it may or may
    not survive a failover, so it is not acknowledged (the client reads the game back, as after any
    UNAVAILABLE)."""


class StoreFull(StoreUnavailable):
    """Redis is at its maxmemory and refused the write whole (nothing of it was written): retry later."""
