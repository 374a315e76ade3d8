"""Who gets the next free hint process: a fair queue by client address.

First come, first served lets a few addresses that ask without pause hold every process and every place in the
queue, so a player who asks now and then waits behind all of them, or is refused. Here each address may hold at
most ``per_client`` hints in the pool (running or waiting), and a free process goes to the waiting address that
has used the solver least of late (its solver seconds, halved every ``HALF_LIFE`` seconds; then the one with fewer
hints running; then the hint that came first). A player who asks now and then has used far less than those who
ask without pause, so it waits for one running hint to end at most, however many addresses hammer: its hint
takes at most about twice as long as on an idle server.

Plain asyncio on the server's event loop: no lock, no thread. ``release`` is called from the event loop too (the
pool hands it over with ``call_soon_threadsafe``).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field

from service import errors

#: Seconds after which what an address used counts half: long enough that an address which asks without pause
#: stays behind the others for minutes, short enough that one which stops is soon even again.
HALF_LIFE = 60.0
#: Addresses remembered (what each used); past it, those holding nothing and having used least are forgotten.
REMEMBERED = 4096
#: Seconds a refused hint is told to wait before it asks again.
RETRY_SECONDS = 1


@dataclass(eq=False)
class Ticket:
    """One admitted hint: whose, in what order it came, when it started running (None while it waits)."""

    client: str
    order: int
    turn: asyncio.Future[None] | None = None
    started: float | None = None
    released: bool = field(default=False)


class FairQueue:
    """``slots`` hints run at once; ``queue`` more may wait; ``per_client`` of them at most per address."""

    def __init__(self, slots: int, queue: int, per_client: int) -> None:
        if slots < 1 or queue < 0 or per_client < 1:
            raise ValueError("slots >= 1, queue >= 0, per_client >= 1")
        self.slots = slots
        self.limit = slots + queue  # hints running or waiting, at most
        self.per_client = per_client
        self.running = 0
        self._held: Counter[str] = Counter()  # address -> its hints running or waiting
        self._running_by: Counter[str] = Counter()
        self._waiting: dict[str, deque[Ticket]] = {}
        self._used: dict[str, tuple[float, float]] = {}  # address -> (solver seconds, when last added to)
        self._orders = itertools.count()

    @property
    def held(self) -> int:
        """Hints running or waiting."""
        return sum(self._held.values())

    @property
    def waiting(self) -> int:
        return self.held - self.running

    def admit(self, client: str) -> Ticket:
        """A place for one more hint of ``client``: UNAVAILABLE ``HINTS_BUSY`` when the pool holds all it admits,
        RESOURCE_EXHAUSTED ``HINTS_IN_PROGRESS`` when this address holds its share already."""
        if self.held >= self.limit:
            raise errors.hints_busy(self.limit, RETRY_SECONDS)
        if self._held[client] >= self.per_client:
            raise errors.hints_in_progress(self.per_client, RETRY_SECONDS)
        self._held[client] += 1
        return Ticket(client, next(self._orders))

    async def wait(self, ticket: Ticket) -> None:
        """Until the ticket's hint may run (at once when a slot is free). Cancelled while it waits, the place is
        given up (``release`` is then not needed, and harmless)."""
        if self.running < self.slots:
            self._start(ticket)
            return
        ticket.turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(ticket.client, deque()).append(ticket)
        try:
            await ticket.turn
        except asyncio.CancelledError:
            self.release(ticket)
            raise

    def release(self, ticket: Ticket) -> None:
        """The ticket's hint is over (its process is done, or it never ran): its place goes to the next."""
        if ticket.released:
            return
        ticket.released = True
        client = ticket.client
        self._held[client] -= 1
        if self._held[client] <= 0:
            del self._held[client]
        if ticket.started is None:  # it never ran: out of the queue
            waiting = self._waiting.get(client)
            if waiting is not None and ticket in waiting:
                waiting.remove(ticket)
                if not waiting:
                    del self._waiting[client]
            return
        self.running -= 1
        self._running_by[client] -= 1
        if self._running_by[client] <= 0:
            del self._running_by[client]
        self._add_use(client, time.monotonic() - ticket.started)
        self._next()

    def used(self, client: str) -> float:
        """The solver seconds ``client`` used, each halved every ``HALF_LIFE`` seconds since."""
        value, when = self._used.get(client, (0.0, 0.0))
        return value * math.pow(0.5, (time.monotonic() - when) / HALF_LIFE) if value else 0.0

    def _start(self, ticket: Ticket) -> None:
        ticket.started = time.monotonic()
        self.running += 1
        self._running_by[ticket.client] += 1

    def _next(self) -> None:
        """Give the free slots to the waiting addresses that used least (then fewer running, then first come)."""
        while self.running < self.slots and self._waiting:
            client = min(
                self._waiting,
                key=lambda c: (self.used(c), self._running_by[c], self._waiting[c][0].order),
            )
            waiting = self._waiting[client]
            ticket = waiting.popleft()
            if not waiting:
                del self._waiting[client]
            assert ticket.turn is not None  # queued tickets always have one
            if ticket.turn.done():  # cancelled meanwhile: release() takes it out
                continue
            self._start(ticket)
            ticket.turn.set_result(None)

    def _add_use(self, client: str, seconds: float) -> None:
        self._used[client] = (self.used(client) + max(seconds, 0.0), time.monotonic())
        if len(self._used) > REMEMBERED:
            idle = sorted((c for c in self._used if c not in self._held), key=self.used)
            for forgotten in idle[: len(self._used) - REMEMBERED // 2]:
                del self._used[forgotten]
