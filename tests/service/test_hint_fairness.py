"""One client address cannot slow anyone else's hints: attacks on a real server, its real pool of solver processes
and a real Redis.

The calls come from distinct addresses as a trusted front end names them (``x-client-address`` with
``x-front-end-key``: service.security.ratelimit). Three addresses hammer the pool while a victim asks now and then: the
victim is never refused and waits for one running hint at most; an address holds one hint in the pool at a time
(HINTS_IN_PROGRESS beyond); hints asked at once for one game at one version are computed once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from prometheus_client import REGISTRY
from service_harness import Client, ServerThread, bearer, refusal, settings_for

from service.errors import error_info

FRONT_END_KEY = "front-end-key-for-fairness-0123"
ATTACKERS = ("198.51.100.1", "198.51.100.2", "198.51.100.3")
VARIANT = "captives"  # hidden cards: six guesses a hint, the dearest hints of the catalogue (docs/solver.md)


def as_user(address: str, token: str | None = None) -> tuple[tuple[str, str], ...]:
    """The metadata of a call a trusted front end makes for the end user at ``address``."""
    named = (("x-client-address", address), ("x-front-end-key", FRONT_END_KEY))
    return (*named, *bearer(token)) if token else named


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def wait_for(path: str) -> bool:
    """Work for a pool process that lasts until ``path`` exists."""
    while not Path(path).exists():
        time.sleep(0.01)
    return True


def until(condition: Any, timeout: float = 60.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; whether it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.fixture
def server(redis_db: str) -> Iterator[ServerThread]:
    settings = settings_for(
        redis_db, store_prefix="fair", front_end_key=FRONT_END_KEY, hint_processes=1, hint_queue=4, hint_cpu_seconds=30
    )
    srv = ServerThread(settings).start()
    yield srv
    srv.stop()


def occupy(server: ServerThread, gate: Path, address: str) -> Future[Any]:
    """A job of ``address`` in the hint pool that lasts until ``gate`` exists (it runs in a pool process)."""
    job = server.server.games.hints.run(wait_for, str(gate), client=address)
    return asyncio.run_coroutine_threadsafe(job, server.loop)


def test_a_victim_waits_for_one_running_hint_not_for_every_hammering_address(
    server: ServerThread, tmp_path: Path
) -> None:
    """Three addresses that have used the solver hold the pool (one running, two waiting); a victim's hint, asked
    after theirs, is computed as soon as the running one ends, while the two that came first still wait."""
    client = Client(server.address)
    pool = server.server.games.hints
    gates = {address: tmp_path / f"gate-{address}" for address in ATTACKERS}
    jobs: list[Future[Any]] = []
    try:
        for address in ATTACKERS:  # each has used the solver a little (as a hammering address has, a lot)
            (tmp_path / f"used-{address}").touch()
            assert occupy(server, tmp_path / f"used-{address}", address).result(60) is True
        assert until(lambda: pool.in_flight == 0)
        jobs.extend(occupy(server, gates[address], address) for address in ATTACKERS)
        assert until(lambda: pool.in_flight == 3)
        # An address holds one hint in the pool at a time: its next is refused at once, with its own reason.
        dealt = client.NewGame(pb.NewGameRequest(variant=VARIANT), metadata=as_user(ATTACKERS[0]))
        r = refusal(
            lambda: client.Hint(
                pb.HintRequest(game_id=dealt.game.game_id),
                metadata=as_user(ATTACKERS[0], dealt.game_token),
                timeout=30,
            )
        )
        assert (r.code, r.reason, r.metadata["limit"]) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "HINTS_IN_PROGRESS", "1")
        # The victim asks after all three.
        victim = "203.0.113.9"
        game = client.NewGame(pb.NewGameRequest(variant=VARIANT), metadata=as_user(victim))
        asked = client.Hint.future(
            pb.HintRequest(game_id=game.game.game_id), metadata=as_user(victim, game.game_token), timeout=120
        )
        assert until(lambda: pool.in_flight == 4)
        gates[ATTACKERS[0]].touch()  # the running job ends: the victim's hint goes next, before the two waiting
        reply = asked.result(60)
        assert reply.version == 1 and reply.hint_count == 1 and reply.reason_code
        assert not jobs[1].done() and not jobs[2].done()  # the two that came first still wait (one runs now)
        assert until(lambda: pool.in_flight == 2)
    finally:
        for gate in gates.values():
            gate.touch()
        for job in jobs:
            with contextlib.suppress(Exception):
                job.result(60)  # done before the server stops
        client.close()


def test_concurrent_hints_at_one_version_are_computed_once(server: ServerThread, tmp_path: Path) -> None:
    """Six callers (from three addresses, two each) ask the same game's hint at once while the pool is busy: one
    computation, six equal answers, counted once on the game; the callers who share it use no share of their
    address."""
    client = Client(server.address)
    pool = server.server.games.hints
    gate = tmp_path / "open"
    before_runs = sample("patience_hint_solver_cpu_seconds_count", variant=VARIANT)
    before_shared = sample("patience_hints_shared_total")
    try:
        dealt = client.NewGame(pb.NewGameRequest(variant=VARIANT))
        busy = occupy(server, gate, "192.0.2.200")
        assert until(lambda: pool.in_flight == 1)
        calls = [
            client.Hint.future(
                pb.HintRequest(game_id=dealt.game.game_id), metadata=as_user(address, dealt.game_token), timeout=120
            )
            for address in ATTACKERS * 2
        ]
        shared = until(lambda: sample("patience_hints_shared_total") >= before_shared + 5, timeout=30)
        in_pool = pool.in_flight
        gate.touch()
        assert busy.result(60) is True
        replies = [call.result(120) for call in calls]
        assert shared and in_pool == 2, "the five later callers share the first one's computation"
        assert all(reply == replies[0] for reply in replies) and replies[0].hint_count == 1
        assert sample("patience_hint_solver_cpu_seconds_count", variant=VARIANT) == before_runs + 1  # one solver run
        # Asked again at the same version: the same move with no solver run either (from memory, or from the line
        # the first answer kept, whose reason then says so: the pool's seed decides whether a guess's line was kept).
        again = client.Hint(pb.HintRequest(game_id=dealt.game.game_id), metadata=bearer(dealt.game_token), timeout=60)
        assert (again.move, again.version, again.hint_count) == (replies[0].move, 1, 1)
        assert sample("patience_hint_solver_cpu_seconds_count", variant=VARIANT) == before_runs + 1
    finally:
        gate.touch()
        client.close()


class Hammer:
    """Threads that ask hints without pause for ``address`` (a new game, then its hint, again and again; after a
    refusal they ask again at once, a tenth of a second later), counting what they were answered."""

    def __init__(self, address: str, server: ServerThread, threads: int = 3) -> None:
        self.address = address
        self.client = Client(server.address)
        self.stop = threading.Event()
        self.outcomes: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(threads)]

    def start(self) -> Hammer:
        for thread in self.threads:
            thread.start()
        return self

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                dealt = self.client.NewGame(pb.NewGameRequest(variant=VARIANT), metadata=as_user(self.address))
                meta = as_user(self.address, dealt.game_token)
                self.client.Hint(pb.HintRequest(game_id=dealt.game.game_id), metadata=meta, timeout=120)
                outcome = "served"
            except grpc.RpcError as exc:
                info = error_info(rpc_status.from_call(exc))  # type: ignore[arg-type]
                outcome = info.reason if info is not None else str(exc.code())  # type: ignore[attr-defined]
                self.stop.wait(0.1)
            with self.lock:
                self.outcomes[outcome] += 1

    def end(self) -> Counter[str]:
        self.stop.set()
        for thread in self.threads:
            thread.join(150)
        self.client.close()
        return self.outcomes


#: The victim's slowest attacked hint, in its slowest idle hints (see the test).
BOUND = 2.5


def victim_hints(client: Client, address: str, seeds: list[bytes], pause: float) -> list[float]:
    """The victim's hints, one game per seed (the same deals, so the same work, whenever it is asked): the
    seconds each Hint took; a refusal fails the test."""
    seconds = []
    for seed in seeds:
        game = client.NewGame(pb.NewGameRequest(variant=VARIANT, replay_seed=seed), metadata=as_user(address))
        request = pb.HintRequest(game_id=game.game.game_id)
        started = time.perf_counter()
        try:
            client.Hint(request, metadata=as_user(address, game.game_token), timeout=120)
        except grpc.RpcError as exc:
            info = error_info(rpc_status.from_call(exc))  # type: ignore[arg-type]
            raise AssertionError(f"the victim's hint was refused: {info.reason if info else exc}") from exc
        seconds.append(time.perf_counter() - started)
        time.sleep(pause)
    return seconds


def test_a_victims_hints_under_three_hammering_addresses(server: ServerThread) -> None:
    """The finding of issue 23, replayed: three addresses hammer captives hints. A victim who asks now and then
    (a hint every second or so, as a person might) is never refused, and its slowest hint takes at most about
    twice its slowest on the idle server (2.5 times for a loaded machine; measured in the same run, on the same
    deals); the hammering addresses are served too, one hint at a time each, and their extra calls are refused
    HINTS_IN_PROGRESS."""
    client = Client(server.address)
    rounds: list[tuple[list[float], list[float]]] = []
    try:
        victim_hints(client, "203.0.113.1", [hashlib.sha256(b"victim-0").digest()], 0)  # the pool's process starts
        # Up to three rounds, idle then attacked, each on deals of its own: a loaded machine can stall the test's
        # own threads once (six hints each: the slowest is the p99), while the attack fails every round.
        for r in range(3):
            seeds = [hashlib.sha256(b"victim-%d-%d" % (r, i)).digest() for i in range(6)]
            idle = victim_hints(client, f"203.0.113.{10 + r}", seeds, 0.2)
            hammers = [Hammer(address, server).start() for address in ATTACKERS]
            time.sleep(3)  # the hammering addresses have used the solver for a while
            attacked = victim_hints(client, f"203.0.113.{20 + r}", seeds, 1.0)
            outcomes = [hammer.end() for hammer in hammers]
            rounds.append((idle, attacked))
            print(
                f"victim hint seconds: idle median {statistics.median(idle):.3f} p99 {max(idle):.3f}; attacked "
                f"median {statistics.median(attacked):.3f} p99 {max(attacked):.3f}; hammering: {outcomes}"
            )
            for counts in outcomes:
                assert counts["served"] >= 1, outcomes  # served too, only not all at once
                assert set(counts) <= {"served", "HINTS_IN_PROGRESS"}, outcomes
            assert sum(counts["HINTS_IN_PROGRESS"] for counts in outcomes) >= 1, outcomes
            # At most the running hint's rest, then its own: twice the idle time, and a margin for a loaded machine
            # (its hint process shares two cores with the hammering threads): 2.5 times. A queue without fair
            # shares puts the victim behind every hammering address's hint, four of them (--hint-queue), 4-5 times.
            if max(attacked) <= BOUND * max(idle) + 0.5:
                break
    finally:
        client.close()
    assert any(max(attacked) <= BOUND * max(idle) + 0.5 for idle, attacked in rounds), rounds
