"""The hint pool: the solver runs in a few processes of its own, never on the event loop.

A hint is CPU-bound (a few hundred milliseconds: docs/solver.md); run on the event loop it would stall every
other call of the process for that long. Each server process (each ``--workers`` worker) keeps one small
``ProcessPoolExecutor`` (``--hint-processes``, started with ``spawn`` on the first hint) and admits at most
``--hint-queue`` hints beyond those running: past that a hint is refused at once (UNAVAILABLE ``HINTS_BUSY``,
with a RetryInfo / Retry-After), never queued without bound. A hint's work is bounded twice: a budget in
positions (``--hint-states``: the same answer on every run) and a cap in CPU seconds (``--hint-cpu-seconds``:
a guard, should a machine be far slower than usual).

The seed of a hint's guesses of the hidden cards is HMAC-SHA256 under a key of the server (derived from the
deal-ticket key, so every replica derives the same) of the version and the player's view: the player cannot
choose it, the same view at the same version always gets the same hint, and two games whose views are equal
get the same hint whatever their hidden cards (the non-interference test asks for exactly that).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import multiprocessing
import os
import secrets
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from service import errors, hint_worker, metrics
from service.hint_worker import HintAnswer

log = logging.getLogger(__name__)

#: The label of the hint key's derivation (HMAC of the deal-ticket key) and of each seed.
KEY_LABEL = b"patience-hint-key-v1"
SEED_LABEL = b"patience-hint-v1|"
#: Seconds a refused hint is told to wait before it asks again.
RETRY_SECONDS = 1
#: Hints remembered per server process, by game and version (the last asked first kept).
RECENT_HINTS = 2048


def derive_key(secret: bytes | None) -> bytes:
    """The hint key: HMAC-SHA256(secret, label) of a secret every replica shares (the deal-ticket key); without
    one, a random key of this process (hints then stay the same per version within the process only)."""
    if not secret:
        log.info("no deal-ticket key: hint seeds use a key of this process only")
        return secrets.token_bytes(32)
    return hmac.new(secret, KEY_LABEL, hashlib.sha256).digest()


class HintPool:
    """A bounded pool of solver processes, and the key that seeds their hints."""

    def __init__(
        self,
        key: bytes,
        *,
        processes: int = 1,
        queue: int = 4,
        states: int = 4800,
        cpu_seconds: float = 4.0,
    ) -> None:
        if processes < 1 or queue < 0 or states < 1 or cpu_seconds <= 0:
            raise ValueError("processes >= 1, queue >= 0, states >= 1, cpu_seconds > 0")
        self.key = key
        self.processes = processes
        self.limit = processes + queue  # hints running or waiting, at most
        self.states = states
        self.cpu_seconds = cpu_seconds
        self.in_flight = 0
        self._executor: ProcessPoolExecutor | None = None
        self._recent: OrderedDict[tuple[str, int], HintAnswer] = OrderedDict()  # (game id, version) -> its hint

    def recent(self, game_id: str, version: int) -> HintAnswer | None:
        """The hint this pool gave for the game at ``version``, if it still remembers it (asking again costs no
        CPU: the position at a version never changes, nor does its seed)."""
        return self._recent.get((game_id, version))

    def remember(self, game_id: str, version: int, answer: HintAnswer) -> None:
        self._recent[(game_id, version)] = answer
        self._recent.move_to_end((game_id, version))
        while len(self._recent) > RECENT_HINTS:
            self._recent.popitem(last=False)

    def seed(self, version: int, view: bytes) -> bytes:
        """The seed of a hint at ``version`` for the player's view (its serialized View message)."""
        return hmac.new(self.key, SEED_LABEL + str(version).encode() + b"|" + view, hashlib.sha256).digest()

    async def hint(self, state: bytes, seed: bytes) -> HintAnswer:
        """The engine's hint for the encoded position ``state``, computed in the pool; UNAVAILABLE ``HINTS_BUSY``
        when the pool holds as many hints as it admits."""
        answer: HintAnswer = await self.run(hint_worker.compute, state, seed, self.states, self.cpu_seconds)
        metrics.observe_hint(answer.variant, answer.code, answer.cpu_seconds)
        return answer

    async def run(self, fn: Any, *args: Any) -> Any:
        """Run ``fn(*args)`` in a pool process, if the pool admits one more (the hint, or a test's own work)."""
        if self.in_flight >= self.limit:
            metrics.hint_refused_busy()
            raise errors.hints_busy(self.limit, RETRY_SECONDS)
        executor = self._pool()
        try:
            future = executor.submit(fn, *args)
        except BrokenProcessPool as exc:  # a process died (killed, out of memory): a new pool for the next hint
            self._reset(exc)
            raise errors.hints_unavailable() from exc
        self.in_flight += 1
        self._observe()
        # The slot is free once the process is done, not when the caller stops waiting (a cancelled call's hint
        # still occupies its process until it ends): what the pool admits is what it runs. The callback runs in
        # the executor's thread; the count is the event loop's.
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda _: self._release_from(loop))
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool as exc:
            self._reset(exc)
            raise errors.hints_unavailable() from exc

    def _release_from(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped, nothing is counted
            loop.call_soon_threadsafe(self._release)

    def _release(self) -> None:
        self.in_flight -= 1
        self._observe()

    def _observe(self) -> None:
        """The gauges: the pool runs as many hints as it has processes, the rest wait."""
        metrics.observe_hint_pool(min(self.in_flight, self.processes), max(self.in_flight - self.processes, 0))

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=hint_worker.watch_parent,
                initargs=(os.getpid(),),
            )
        return self._executor

    def _reset(self, exc: BaseException) -> None:
        log.warning("the hint pool broke (%s); a new one starts with the next hint", exc)
        broken, self._executor = self._executor, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Stop the processes: the hints waiting are dropped, those running end first (each within its CPU cap).
        Waited for in a thread, so that the loop serves the calls still in flight meanwhile; a process that is
        killed instead of stopped leaves no solver behind either (``hint_worker.watch_parent``)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
