"""The hint pool's fair queue (service.solving.hint_queue) on its own, on a real event loop: who is admitted, who goes
next, and that a caller who stops waiting gives its place back."""

from __future__ import annotations

import asyncio

import pytest

from service.errors import ServiceError
from service.solving.hint_queue import FairQueue, Ticket


def test_admission_refuses_a_full_pool_and_an_address_over_its_share() -> None:
    queue = FairQueue(slots=1, queue=2, per_client=1)
    queue.admit("a")
    with pytest.raises(ServiceError) as caught:
        queue.admit("a")
    assert (caught.value.code.name, caught.value.reason) == ("RESOURCE_EXHAUSTED", "HINTS_IN_PROGRESS")
    assert caught.value.retry_after == 1
    queue.admit("b")
    queue.admit("c")
    with pytest.raises(ServiceError) as caught:
        queue.admit("d")  # the pool is full: refused whoever asks, as before
    assert (caught.value.code.name, caught.value.reason) == ("UNAVAILABLE", "HINTS_BUSY")


def test_the_next_slot_goes_to_the_address_that_used_least_and_a_cancelled_wait_gives_its_place_back() -> None:
    async def main() -> list[str]:
        queue = FairQueue(slots=1, queue=4, per_client=2)
        served: list[str] = []
        # "heavy" has used the solver (a hint that ran for a while); "light" never has.
        used = queue.admit("heavy")
        await queue.wait(used)
        await asyncio.sleep(0.05)
        queue.release(used)
        running = queue.admit("other")
        await queue.wait(running)  # runs: the one slot is taken

        async def ask(client: str) -> Ticket:
            ticket = queue.admit(client)
            await queue.wait(ticket)
            served.append(client)
            return ticket

        heavy = asyncio.create_task(ask("heavy"))  # asks first
        gone = asyncio.create_task(ask("light"))
        await asyncio.sleep(0)
        gone.cancel()  # the caller stops waiting: its place is given back
        await asyncio.gather(gone, return_exceptions=True)
        assert (queue.held, queue.waiting) == (2, 1)
        light = asyncio.create_task(ask("light"))  # asks last
        await asyncio.sleep(0)
        queue.release(running)
        queue.release(await light)  # light goes first: it used nothing
        queue.release(await heavy)
        assert (queue.held, queue.running) == (0, 0)
        return served

    assert asyncio.run(main()) == ["light", "heavy"]
