"""What a hint process runs: the engine's hint on an encoded position (``service.solving.hints`` sends the work here).

Kept apart from the service so that a pool process imports the engine and nothing else (no gRPC, no Redis; the
OpenTelemetry SDK only when traces are on): a process of the pool is started with ``spawn``, since forking a
process that runs gRPC is not safe.
"""

from __future__ import annotations

import os
import threading
import time
from typing import NamedTuple

from engine import movelog
from engine.encoding import decode_state
from engine.solver.follow import hint_on_path, position_key, split_keys, walk
from engine.solver.hint import SAMPLES


class HintAnswer(NamedTuple):
    """The engine's :class:`~engine.solver.Hint` in plain values (what crosses the process boundary)."""

    move: str  # explicit text, "" when no move is left
    reason: str
    code: str
    wins: int
    tried: int
    moves_to_end: int
    variant: str = ""  # the game's id, and the CPU seconds the hint took in its process: for the metrics
    cpu_seconds: float = 0.0
    # For the game's trail (service.games.hinting): the line to keep (packed, starting with ``move``), the keys
    # of the positions after each of its moves, its moves to the end, and the keys the path gains.
    line: bytes = b""
    keys: bytes = b""
    to_end: int = 0
    walked: bytes = b""


class HintWork(NamedTuple):
    """What a hint needs of its game: the arguments of :func:`compute` after the budgets."""

    state: bytes
    seed: bytes
    path: bytes = b""
    start: bytes = b""
    since: bytes = b""


def compute(
    state: bytes,
    seed: bytes,
    states: int,
    cpu_seconds: float,
    path: bytes = b"",
    start: bytes = b"",
    since: bytes = b"",
    trace_context: dict[str, str] | None = None,
) -> HintAnswer:
    """The hint for the encoded position ``state``: ``states`` positions in all (one search when every card is
    face up; else ``SAMPLES`` guesses of the hidden cards, ``states // SAMPLES`` each), ``cpu_seconds`` of CPU at
    most. Only the player's view is read in a game with hidden cards (engine.solver.hint).

    Never a move back onto the game's path (engine.solver.follow): ``path`` holds the keys of the positions met
    up to the encoded position ``start``, and ``since`` (packed) the moves made from there; with no ``path``,
    ``start`` is the deal and the path is walked whole (``walked`` has every key then, else the new ones). With a
    ``trace_context`` (W3C headers from the server process), in a span of that trace."""
    if trace_context is None:
        return _compute(state, seed, states, cpu_seconds, path, start, since)
    from service.observe import tracing

    with tracing.continued("hint_worker.compute", trace_context, **{"hint.states": states}) as span:
        answer = _compute(state, seed, states, cpu_seconds, path, start, since)
        if span is not None:
            span.set_attributes(
                {"hint.code": answer.code, "hint.tried": answer.tried, "patience.variant": answer.variant}
            )
        return answer


def _compute(
    state: bytes, seed: bytes, states: int, cpu_seconds: float, path: bytes, start: bytes, since: bytes
) -> HintAnswer:
    started = time.thread_time()
    game, position = decode_state(state)
    walked: list[bytes] = []
    if start:
        first = decode_state(start)[1]
        walked = [] if path else [position_key(game, first)]
        walked += walk(game, first, movelog.unpack(since))[1]
    followed = hint_on_path(
        game,
        position,
        {*split_keys(path), *walked},
        seed=seed,
        samples=SAMPLES,
        sample_states=max(1, states // SAMPLES),
        full_states=states,
        max_seconds=cpu_seconds,
    )
    found = followed.hint
    cpu = time.thread_time() - started
    return HintAnswer(
        found.text(),
        found.reason,
        found.code.value,
        found.wins,
        found.tried,
        found.moves_to_end,
        game.id,
        cpu,
        movelog.pack_all(followed.line),
        b"".join(followed.keys),
        followed.to_end,
        b"".join(walked),
    )


def start(parent: int, traced: bool = False) -> None:
    """The pool's initializer: watch the server process; set up traces when the server has them on (the same
    OTEL_* variables: a spawned process inherits the environment)."""
    watch_parent(parent)
    if traced:
        from service.observe import tracing

        tracing.configure()


def watch_parent(parent: int, interval: float = 1.0) -> None:
    """The pool's initializer: end this process once its server process is gone (killed, or stopped before the
    pool could be shut down), so that no solver outlives the server it served."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
