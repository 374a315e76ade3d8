"""The replay verifier: a whole move list judged by the same reducer as play.

It names the first illegal move (0-based index, reason code, the move's text)
and never raises on bad moves, whatever the input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from .catalogue import get_game
from .encoding import state_hash
from .errors import MoveError, Reason
from .game import Game, Status
from .moves import Move
from .state import State


class Outcome(StrEnum):
    WON = "won"
    UNFINISHED = "unfinished"
    ILLEGAL = "illegal"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verifier's answer. ``move_count`` counts the moves applied (all legal)."""

    outcome: Outcome
    move_count: int
    final_hash: str
    status: Status
    error_index: int | None = None
    error_reason: Reason | None = None
    error_message: str = ""
    error_text: str = ""

    def describe(self) -> str:
        """One line for people."""
        if self.outcome is Outcome.ILLEGAL:
            return (
                f"illegal move {self.error_index} ({self.error_text!r}): "
                f"{self.error_reason.value if self.error_reason else '?'}: {self.error_message}"
            )
        return f"{self.outcome.value} after {self.move_count} moves ({self.status.value}), state {self.final_hash[:16]}"


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay's verdict with the final position (the service certifies from it)."""

    verdict: Verdict
    state: State
    moves: tuple[Move, ...]  # the applied moves in explicit form


def replay(game: Game, start: State, moves: Iterable[str | Move]) -> Replay:
    """Apply ``moves`` from ``start`` until the first illegal one."""
    state = start
    applied: list[Move] = []
    play = game.play
    parse = Move.parse
    error: MoveError | None = None
    given = ""
    for item in moves:
        try:
            move = item if isinstance(item, Move) else parse(item)
            state, explicit = play(state, move)
        except MoveError as exc:
            error = exc
            given = item.text() if isinstance(item, Move) else str(item)[:64]
            break
        applied.append(explicit)
    status = game.status(state)
    digest = state_hash(game, state)
    if error is not None:
        verdict = Verdict(
            Outcome.ILLEGAL, len(applied), digest, status, len(applied), error.reason, error.message, given
        )
    else:
        outcome = Outcome.WON if status is Status.WON else Outcome.UNFINISHED
        verdict = Verdict(outcome, len(applied), digest, status)
    return Replay(verdict, state, tuple(applied))


def verify(variant: str, options: Mapping[str, object] | None, seed: bytes, moves: Iterable[str | Move]) -> Verdict:
    """Deal ``variant`` from ``seed`` and replay ``moves``. VariantError / ValueError for a bad game or seed."""
    game = get_game(variant, options)
    return replay(game, game.deal(seed), moves).verdict
