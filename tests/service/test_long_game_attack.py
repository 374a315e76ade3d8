"""The attack of issue 23 on long games: one client builds the longest won game the service accepts (NewGame and
one SubmitSolution: a pair of moves that undo each other, then a winning line) and hammers GetGame on it from 8
threads; another client's GetGame must stay within 5 times its idle p99 plus 50 ms, measured in the same run.

Before the cap and the kept certificate read once, a won game of 20,000 moves cost about 125 ms of CPU per
GetGame and the other client's p99 went from 13 ms to 2,284 ms. The service is a real process, the hammer
another one (its threads would otherwise share the test's interpreter with the client it slows).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import grpc
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import bearer, start_process

from engine.catalogue import get_game
from engine.solver.search import solve
from service.settings.config import Settings

VARIANT = "royal-retinue"
SEED = (1).to_bytes(32, "big")
CYCLE = ("3-7/1", "7-3/1")  # at this deal's start each takes the other back

HAMMER = textwrap.dedent(
    """
    import sys, threading, time
    import grpc
    from patience.v1 import patience_pb2 as pb, patience_pb2_grpc as pb_grpc
    address, game_id, token, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    stop = time.monotonic() + seconds
    calls = [0] * 8

    def hammer(i):
        with grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)]) as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            while time.monotonic() < stop:
                stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=(("authorization", "Bearer " + token),))
                calls[i] += 1

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(8)]
    print("ready", flush=True)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(sum(calls), flush=True)
    """
)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def victim_latencies(stub: pb_grpc.PatienceServiceStub, game_id: str, token: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token), timeout=60)
        out.append(time.perf_counter() - started)
        time.sleep(0.01)
    return out


def test_another_clients_get_game_holds_while_the_longest_won_game_is_hammered(redis_db: str, tmp_path: Path) -> None:
    cap = Settings().max_moves  # the service runs with its default
    game = get_game(VARIANT)
    line = [m.text() for m in solve(game, game.deal(SEED), max_states=200_000).moves]
    assert line, "the test's deal is won by the solver"
    cycles = [CYCLE[i % 2] for i in range((cap - len(line)) // 2 * 2)]
    service = start_process(redis_db, tmp_path)
    try:
        options = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]
        with grpc.insecure_channel(service.address, options=options) as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            long = stub.NewGame(pb.NewGameRequest(variant=VARIANT, replay_seed=SEED))
            won = stub.SubmitSolution(
                pb.SubmitSolutionRequest(game_id=long.game.game_id, moves=cycles + line),
                metadata=bearer(long.game_token),
                timeout=120,
            )
            assert won.game.status == pb.GAME_STATUS_WON and won.game.move_count == len(cycles) + len(line)
            assert won.game.move_count > cap - 2
            mine = stub.NewGame(pb.NewGameRequest(variant="cats-tail"))
            victim = mine.game.game_id, mine.game_token
            # Up to three rounds, idle then attacked: a loaded machine can stall the test's own client once
            # (p99 of 100 calls is their second slowest), while the attack it guards against fails every round.
            rounds = []
            for _ in range(3):
                idle = victim_latencies(stub, *victim, 100)
                hammer = subprocess.Popen(
                    [sys.executable, "-c", HAMMER, service.address, long.game.game_id, long.game_token, "60"],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                try:
                    assert hammer.stdout is not None and hammer.stdout.readline().strip() == "ready"
                    time.sleep(1.0)  # the 8 threads connected and calling
                    attacked = victim_latencies(stub, *victim, 100)
                finally:
                    hammer.kill()
                    hammer.wait(30)
                rounds.append((p99(idle), p99(attacked), sorted(attacked)[50]))
                if p99(attacked) <= 5 * p99(idle) + 0.050:
                    break
        figures = "; ".join(f"idle p99 {i * 1e3:.1f} ms, attacked p99 {a * 1e3:.1f} ms (median {m * 1e3:.1f})"
                            for i, a, m in rounds)  # fmt: skip
        print(f"\n[long game attack] {won.game.move_count} moves: {figures}")
        assert any(a <= 5 * i + 0.050 for i, a, _ in rounds), figures
    finally:
        service.kill()
