"""What a hint process runs: the engine's hint on an encoded position (``service.hints`` sends the work here).

Kept apart from the service so that a pool process imports the engine and nothing else (no gRPC, no Redis): a
process of the pool is started with ``spawn``, since forking a process that runs gRPC is not safe.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.encoding import decode_state
from engine.solver import hint
from engine.solver.hint import SAMPLES


class HintAnswer(NamedTuple):
    """The engine's :class:`~engine.solver.Hint` in plain values (what crosses the process boundary)."""

    move: str  # explicit text, "" when no move is left
    reason: str
    code: str
    wins: int
    tried: int
    moves_to_end: int


def compute(state: bytes, seed: bytes, states: int, cpu_seconds: float) -> HintAnswer:
    """The hint for the encoded position ``state``: ``states`` positions in all (one search when every card is
    face up; else ``SAMPLES`` guesses of the hidden cards, ``states // SAMPLES`` each), ``cpu_seconds`` of CPU at
    most. Only the player's view is read in a game with hidden cards (engine.solver.hint)."""
    game, position = decode_state(state)
    found = hint(
        game,
        position,
        seed=seed,
        samples=SAMPLES,
        sample_states=max(1, states // SAMPLES),
        full_states=states,
        max_seconds=cpu_seconds,
    )
    return HintAnswer(found.text(), found.reason, found.code.value, found.wins, found.tried, found.moves_to_end)


def ready() -> bool:
    """A no-op: a process that answers it has imported the engine."""
    return True
