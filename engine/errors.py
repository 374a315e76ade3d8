"""Typed errors with stable reason codes.

Callers branch on ``error.reason`` (a :class:`Reason`, whose value is the
stable UPPER_SNAKE_CASE code the API publishes, spelt the same on every path:
a refused move's ErrorInfo, a verdict, the CLI), never on the message text. The
message is for people and names the cards involved.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a move, a variant or an option was refused. Values are API-stable."""

    BAD_NOTATION = "BAD_NOTATION"
    UNKNOWN_VARIANT = "UNKNOWN_VARIANT"
    BAD_OPTION = "BAD_OPTION"
    NOT_IN_THIS_GAME = "NOT_IN_THIS_GAME"
    NO_SUCH_PILE = "NO_SUCH_PILE"
    SAME_PILE = "SAME_PILE"
    EMPTY_PILE = "EMPTY_PILE"
    NOT_FREE_CARD = "NOT_FREE_CARD"
    DOES_NOT_FIT = "DOES_NOT_FIT"
    WRONG_COLOUR = "WRONG_COLOUR"
    WRONG_SUIT = "WRONG_SUIT"
    RESERVE_FULL = "RESERVE_FULL"
    CELL_OCCUPIED = "CELL_OCCUPIED"
    DEAD_COLUMN = "DEAD_COLUMN"
    KING_CANNOT_MOVE = "KING_CANNOT_MOVE"
    NOT_A_KING = "NOT_A_KING"
    KING_ROW_FULL = "KING_ROW_FULL"
    SEQUENCE_MOVES_OFF = "SEQUENCE_MOVES_OFF"
    STOCK_EMPTY = "STOCK_EMPTY"
    STOCK_NOT_EMPTY = "STOCK_NOT_EMPTY"
    NO_REDEALS_LEFT = "NO_REDEALS_LEFT"
    HIDDEN_CARD = "HIDDEN_CARD"
    GAME_OVER = "GAME_OVER"


class PatienceError(ValueError):
    """Base of every error the engine raises on purpose: a bad value given to the engine (text, option, move),
    hence a ValueError too, for callers that catch that (python-chess's errors do the same)."""

    reason: Reason

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason.value!r}, {self.message!r})"


class VariantError(PatienceError):
    """An unknown variant id or a bad option value."""


class MoveError(PatienceError):
    """A move that cannot be played; ``text`` is the move as given."""

    def __init__(self, reason: Reason, message: str, text: str = "") -> None:
        super().__init__(reason, message)
        self.text = text


class NotationError(MoveError):
    """Text that is not a move (or card) in docs/rules.md notation at all."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(Reason.BAD_NOTATION, message, text)


class IllegalMoveError(MoveError):
    """A well-formed move that the rules refuse in this position."""
