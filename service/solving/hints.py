"""The hint pool: the solver runs in a few processes of its own, never on the event loop.

A hint is CPU-bound (a few hundred milliseconds: docs/solver.md); run on the event loop it would stall every
other call of the process for that long. Each server process (each ``--workers`` worker) keeps one small
``ProcessPoolExecutor`` (``--hint-processes``, started with ``spawn`` on the first hint) and admits at most
``--hint-queue`` hints beyond those running: past that a hint is refused at once (UNAVAILABLE ``HINTS_BUSY``,
with a RetryInfo / Retry-After), never queued without bound. A hint's work is bounded twice: a budget in
positions (``--hint-states``: the same answer on every run) and a cap in CPU seconds (``--hint-cpu-seconds``:
a guard, should a machine be far slower than usual).

The processes are shared fairly between client addresses (``service.solving.hint_queue``): one address holds at most
``--hint-per-client`` hints in the pool (RESOURCE_EXHAUSTED ``HINTS_IN_PROGRESS`` beyond), and a free process
goes to the waiting address that used the solver least of late. Hints asked at once for the same game at the
same version are computed once (single flight): the later callers wait for the first one's answer, at no cost
to their address's share.

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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from opentelemetry import trace

from service import errors
from service.observe import metrics, tracing
from service.solving import hint_worker
from service.solving.hint_queue import FairQueue, Ticket
from service.solving.hint_worker import HintAnswer, HintWork

log = logging.getLogger(__name__)

#: The label of the hint key's derivation (HMAC of the deal-ticket key) and of each seed.
KEY_LABEL = b"patience-hint-key-v1"
SEED_LABEL = b"patience-hint-v1|"
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
    """A bounded pool of solver processes shared fairly by address, and the key that seeds their hints."""

    def __init__(
        self,
        key: bytes,
        *,
        processes: int = 1,
        queue: int = 4,
        per_client: int = 1,
        states: int = 4800,
        cpu_seconds: float = 4.0,
    ) -> None:
        if processes < 1 or queue < 0 or per_client < 1 or states < 1 or cpu_seconds <= 0:
            raise ValueError("processes >= 1, queue >= 0, per_client >= 1, states >= 1, cpu_seconds > 0")
        self.key = key
        self.processes = processes
        self.queue = FairQueue(processes, queue, per_client)
        self.states = states
        self.cpu_seconds = cpu_seconds
        self._executor: ProcessPoolExecutor | None = None
        self._recent: OrderedDict[tuple[str, int], HintAnswer] = OrderedDict()  # (game id, version) -> its hint
        self._flights: dict[tuple[str, int], asyncio.Future[HintAnswer]] = {}  # hints being computed, by the same

    @property
    def limit(self) -> int:
        """Hints running or waiting, at most."""
        return self.queue.limit

    @property
    def in_flight(self) -> int:
        """Hints running or waiting now."""
        return self.queue.held

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

    async def answer(self, game_id: str, version: int, client: str, work: Callable[[], HintWork]) -> HintAnswer:
        """The hint for the game at ``version``: remembered, or being computed for another caller (shared), or
        computed now for ``client`` from ``work()`` (the encoded position, the seed and the game's path, asked
        only then). The
        computation belongs to no caller: one that stops waiting leaves it to the others (and to memory)."""
        key = (game_id, version)
        found = self._recent.get(key)
        if found is not None:
            return found
        flight = self._flights.get(key)
        if flight is None:
            needs = work()
            ticket = self._admit(client)
            flight = asyncio.ensure_future(self._fly(key, ticket, needs))
            flight.add_done_callback(_retrieved)  # every caller may have stopped waiting: no "never retrieved"
            self._flights[key] = flight
        else:
            metrics.hint_shared()
        return await asyncio.shield(flight)

    async def _fly(self, key: tuple[str, int], ticket: Ticket, work: HintWork) -> HintAnswer:
        try:
            # The pool's span: the wait for a process, then the work in it (a child span there).
            if tracing.on and tracing.recording():
                answer: HintAnswer = await tracing.in_span("HintPool.hint", self._traced_run(ticket, work))
            else:
                args = (work.state, work.seed, self.states, self.cpu_seconds, work.path, work.start, work.since)
                answer = await self._run(ticket, hint_worker.compute, *args)
        finally:
            del self._flights[key]
        metrics.observe_hint(answer.variant, answer.code, answer.cpu_seconds)
        self.remember(*key, answer)
        return answer

    async def _traced_run(self, ticket: Ticket, work: HintWork) -> HintAnswer:
        """The hint with its trace context sent along, so that its process's span joins the call's trace."""
        args = (work.state, work.seed, self.states, self.cpu_seconds, work.path, work.start, work.since)
        answer: HintAnswer = await self._run(ticket, hint_worker.compute, *args, tracing.carrier())
        trace.get_current_span().set_attributes(
            {"hint.code": answer.code, "hint.cpu_seconds": answer.cpu_seconds, "patience.variant": answer.variant}
        )
        return answer

    async def run(self, fn: Any, *args: Any, client: str = "") -> Any:
        """Run ``fn(*args)`` in a pool process when the fair queue gives ``client`` its turn, if the pool admits one
        more (the hint, or a test's own work)."""
        return await self._run(self._admit(client), fn, *args)

    def _admit(self, client: str) -> Ticket:
        try:
            ticket = self.queue.admit(client)
        except errors.ServiceError as exc:
            metrics.hint_refused(exc.reason)
            raise
        self._observe()
        return ticket

    async def _run(self, ticket: Ticket, fn: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            await self.queue.wait(ticket)
            if tracing.on:  # a no-op on a span that does not record
                trace.get_current_span().add_event("process given")
            future = self._pool().submit(fn, *args)
        except BrokenProcessPool as exc:  # a process died (killed, out of memory): a new pool for the next hint
            self._done(ticket)
            self._reset(exc)
            raise errors.hints_unavailable() from exc
        except BaseException:
            self._done(ticket)
            raise
        self._observe()
        # The slot is free once the process is done, not when the caller stops waiting (a cancelled call's hint
        # still occupies its process until it ends): what the pool admits is what it runs. The callback runs in
        # the executor's thread; the queue is the event loop's.
        future.add_done_callback(lambda _: self._release_from(loop, ticket))
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool as exc:
            self._reset(exc)
            raise errors.hints_unavailable() from exc

    def _release_from(self, loop: asyncio.AbstractEventLoop, ticket: Ticket) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped, nothing is counted
            loop.call_soon_threadsafe(self._done, ticket)

    def _done(self, ticket: Ticket) -> None:
        self.queue.release(ticket)
        self._observe()

    def _observe(self) -> None:
        """The gauges: the pool runs as many hints as it has processes, the rest wait."""
        metrics.observe_hint_pool(self.queue.running, self.queue.waiting)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=hint_worker.start,
                initargs=(os.getpid(), tracing.on),
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


def _retrieved(flight: asyncio.Future[HintAnswer]) -> None:
    if not flight.cancelled():
        flight.exception()
