"""The filler's loop: read the pools' sizes, pick the emptiest one below its target, draw a seed, prove it
(service.solving.winnable.prove), push it; sleep a moment while every pool is full.

The solver runs in this process's main thread, blocking the event loop while it works: the loop has nothing
else to serve, and the solver's budget in seconds is the CPU time of its own thread. A stop request (SIGTERM)
is seen between two seeds, so stopping takes at most one seed's budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from opentelemetry.trace import SpanKind

from engine.game import Game
from engine.solver import Finding
from service.observe import tracing
from service.solving.filler import metrics
from service.solving.winnable import Attempt, Budget, choose_pool, new_seed, pool_name, prove
from service.store import GameStore, StoreUnavailable

log = logging.getLogger("service.solving.filler")

#: Seconds between two looks at the pools while all are full, and the longest wait after Redis failed.
IDLE_POLL = 1.0
MAX_BACKOFF = 10.0


@dataclass
class Filler:
    """Keeps ``games``' pools at ``target`` in ``store``."""

    store: GameStore
    games: Sequence[Game]
    target: int
    budget: Budget
    seed_source: Callable[[], bytes] = new_seed
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    parent_pid: int | None = None  # an embedded filler stops when the service that started it is gone
    tries: Counter[str] = field(default_factory=Counter)  # attempts per pool since its size last changed
    proven: int = 0
    attempts: int = 0

    def __post_init__(self) -> None:
        self.by_pool = {pool_name(game): game for game in self.games}
        metrics.POOL_TARGET.set(self.target)

    async def run(self) -> None:
        """Fill until ``stop`` is set (or the parent is gone)."""
        backoff = IDLE_POLL
        log.info("filler started", extra={"pools": len(self.by_pool), "target": self.target})
        while not self._stopping():
            try:
                worked = await self.step()
                backoff = IDLE_POLL
            except StoreUnavailable as exc:
                log.warning("the store does not answer: %s", exc)
                worked = False
                backoff = min(backoff * 2, MAX_BACKOFF)
            if not worked:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), backoff)
        log.info("filler stopped", extra={"proven": self.proven, "attempts": self.attempts})

    async def step(self) -> bool:
        """One seed tried for the emptiest pool; False when every pool is at its target."""
        sizes = await self.store.pool_sizes(list(self.by_pool))
        for pool, size in sizes.items():
            metrics.POOL_SIZE.labels(pool).set(size)
        name = choose_pool(sizes, self.target, self.tries)
        if name is None:
            return False
        if tracing.on:  # one trace per seed tried: the proof, then the push of a proven one
            with tracing.span(
                "Filler.step", SpanKind.INTERNAL, **{"patience.pool": name, "patience.pool_size": sizes[name]}
            ):
                await self._try(name, sizes[name])
        else:
            await self._try(name, sizes[name])
        return True

    async def _try(self, name: str, size: int) -> None:
        """One seed proven (or not) for the pool ``name`` and recorded."""
        try:
            attempt = self._prove(name)
        except Exception:  # an engine bug on one deal must not stop the filling of every pool
            log.exception("proving a seed failed", extra={"pool": name})
            metrics.ATTEMPTS.labels(name, "error").inc()
            self.tries[name] += 1
            return
        await self.record(name, attempt, size)

    def _prove(self, name: str) -> Attempt:
        if not tracing.recording():
            return prove(self.by_pool[name], self.seed_source(), self.budget)
        with tracing.span("winnable.prove") as span:
            attempt = prove(self.by_pool[name], self.seed_source(), self.budget)
            span.set_attributes(
                {"patience.outcome": attempt.outcome.value, "patience.states": attempt.states,
                 "patience.proven": attempt.entry is not None, "patience.cpu_seconds": attempt.seconds}
            )  # fmt: skip
            return attempt

    async def record(self, pool: str, attempt: Attempt, size: int) -> None:
        """Count an attempt; push its entry if it was proven."""
        self.attempts += 1
        metrics.SOLVER_SECONDS.labels(pool).inc(attempt.seconds)
        if attempt.entry is None:
            outcome = "rejected" if attempt.outcome is Finding.WON else attempt.outcome.value
            metrics.ATTEMPTS.labels(pool, outcome).inc()
            self.tries[pool] += 1
            log.debug("seed dropped", extra={"pool": pool, "outcome": outcome, "states": attempt.states})
            if attempt.outcome is Finding.WON:  # the verifier refused the solver's line: a bug to hear of
                log.error("the verifier refused a line the solver called won", extra={"pool": pool})
            return
        metrics.ATTEMPTS.labels(pool, "won").inc()
        now = await self.store.push_winnable(pool, attempt.entry.pack())
        self.proven += 1
        self.tries[pool] = 0
        metrics.PROVEN.labels(pool).inc()
        metrics.POOL_SIZE.labels(pool).set(now)
        log.info(
            "seed proven",
            extra={"pool": pool, "size": now, "moves": len(attempt.entry.line), "states": attempt.states,
                   "cpu_seconds": round(attempt.seconds, 3), "was": size},
        )  # fmt: skip

    def _stopping(self) -> bool:
        if self.stop.is_set():
            return True
        if self.parent_pid is not None and os.getppid() != self.parent_pid:
            log.warning("the service that started this filler is gone: stopping")
            self.stop.set()
            return True
        return False
