"""Typed errors with stable reason codes.

Callers branch on ``error.reason`` (a :class:`Reason`, whose value is the
stable kebab-case code the API publishes), never on the message text. The
message is for people and names the cards involved.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a move, a variant or an option was refused. Values are API-stable."""

    BAD_NOTATION = "bad-notation"
    UNKNOWN_VARIANT = "unknown-variant"
    BAD_OPTION = "bad-option"
    NOT_IN_THIS_GAME = "not-in-this-game"
    NO_SUCH_PILE = "no-such-pile"
    SAME_PILE = "same-pile"
    EMPTY_PILE = "empty-pile"
    NOT_FREE_CARD = "not-free-card"
    DOES_NOT_FIT = "does-not-fit"
    WRONG_COLOUR = "wrong-colour"
    WRONG_SUIT = "wrong-suit"
    RESERVE_FULL = "reserve-full"
    CELL_OCCUPIED = "cell-occupied"
    DEAD_COLUMN = "dead-column"
    KING_CANNOT_MOVE = "king-cannot-move"
    NOT_A_KING = "not-a-king"
    KING_ROW_FULL = "king-row-full"
    SEQUENCE_MOVES_OFF = "sequence-moves-off"
    STOCK_EMPTY = "stock-empty"
    STOCK_NOT_EMPTY = "stock-not-empty"
    NO_REDEALS_LEFT = "no-redeals-left"
    HIDDEN_CARD = "hidden-card"
    GAME_OVER = "game-over"


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
    """Text that is not a move (or card) in RULES.md notation at all."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(Reason.BAD_NOTATION, message, text)


class IllegalMoveError(MoveError):
    """A well-formed move that the rules refuse in this position."""
