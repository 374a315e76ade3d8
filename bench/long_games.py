"""What one call costs the service as a game grows: CPU of ApplyMove, UndoMove and GetGame (live and won, with and
without the move list) at several log lengths, in one run against one service process.

Every call is timed by the service's own CPU time (``/proc``, read before and after it: the client calls one at
a time and nothing else runs in the service), so a busy machine makes the figures noisier, not larger. Lengths
are log lengths: a live game is built by ApplyMove (a pair of moves that undo each other, then the other way),
a won game by NewGame and one SubmitSolution (that pair repeated, then a winning line). ``submit_won`` (NewGame
and SubmitSolution, the replay and the certificate) and ``winning_move`` (the ApplyMove that wins, signing the
certificate) are taken three times each. The figure to read is
the ratio of the longest game's median to the shortest's: docs/service-benchmark.md, "Long games".

    python bench/long_games.py                  # lengths 10, 1,000 and the service's --max-moves
    python bench/long_games.py --calls 100 --lengths 10 500 --json out.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc
from processes import cpu_seconds, machine, start_redis, start_service, stop

from engine.catalogue import get_game
from engine.solver.search import solve
from service.settings.config import Settings

VARIANT = "royal-retinue"
SEED = (1).to_bytes(32, "big")
CYCLE = ("3-7/1", "7-3/1")  # at this deal's start each move takes the other back


def winning_line() -> list[str]:
    game = get_game(VARIANT)
    found = solve(game, game.deal(SEED), max_states=200_000)
    if not found.moves:
        raise SystemExit("the benchmark's deal was not won by the solver")
    return [m.text() for m in found.moves]


class Calls:
    """One service, one channel; each call's service CPU in microseconds."""

    def __init__(self, address: str, pid: int, cap: int) -> None:
        self.cap = cap
        self.channel = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)])
        self.stub = patience_pb2_grpc.PatienceServiceStub(self.channel)
        self.pid = pid

    def cpu_us(self, call: Callable[[], Any]) -> tuple[float, Any]:
        before = cpu_seconds(self.pid)
        reply = call()
        return (cpu_seconds(self.pid) - before) * 1e6, reply

    def new_game(self) -> tuple[str, tuple[tuple[str, str]], int]:
        reply = self.stub.NewGame(pb.NewGameRequest(variant=VARIANT, replay_seed=SEED))
        return reply.game.game_id, (("authorization", f"Bearer {reply.game_token}"),), reply.game.version

    def live(self, length: int) -> tuple[str, tuple[tuple[str, str]], int]:
        game_id, auth, version = self.new_game()
        for i in range(length):
            request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=CYCLE[i % 2])
            version = self.stub.ApplyMove(request, metadata=auth).game.version
        return game_id, auth, version

    def won(self, length: int, line: list[str]) -> tuple[str, tuple[tuple[str, str]]]:
        game_id, auth, _ = self.new_game()
        cycles = [CYCLE[i % 2] for i in range(max(0, length - len(line)) // 2 * 2)]
        reply = self.stub.SubmitSolution(pb.SubmitSolutionRequest(game_id=game_id, moves=cycles + line), metadata=auth)
        if reply.game.status != pb.GAME_STATUS_WON:
            raise SystemExit("the submitted line did not win")
        return game_id, auth


def measure(calls: Calls, length: int, line: list[str], n: int) -> dict[str, float]:
    """Median service CPU (µs) of each call at a log of ``length`` moves."""
    out: dict[str, list[float]] = {"apply_move": [], "undo_move": [], "get_game": []}
    live = min(length, calls.cap - 1)  # a game at the cap takes no move: ApplyMove takes it there
    game_id, auth, version = calls.live(live)
    for _ in range(n):
        # ApplyMove from ``live`` moves, then UndoMove back to it: the log stays at its length.
        apply = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=CYCLE[live % 2])
        used, reply = calls.cpu_us(lambda r=apply: calls.stub.ApplyMove(r, metadata=auth))
        out["apply_move"].append(used)
        undo = pb.UndoMoveRequest(game_id=game_id, expected_version=reply.game.version)
        used, reply = calls.cpu_us(lambda r=undo: calls.stub.UndoMove(r, metadata=auth))
        out["undo_move"].append(used)
        version = reply.game.version
        get = pb.GetGameRequest(game_id=game_id)
        out["get_game"].append(calls.cpu_us(lambda r=get: calls.stub.GetGame(r, metadata=auth))[0])
    won_id, won_auth = calls.won(length, line)
    won: dict[str, list[float]] = {"get_won": [], "get_won_moves": [], "submit_won": [], "winning_move": []}
    for _ in range(3):  # the calls that end a game, a few times each (a game ends once)
        won["submit_won"].append(calls.cpu_us(lambda: calls.won(length, line))[0])
        game_id, auth, version = calls.live(max(0, length - len(line)) // 2 * 2)
        for text in line[:-1]:
            request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
            version = calls.stub.ApplyMove(request, metadata=auth).game.version
        last = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=line[-1])
        used, reply = calls.cpu_us(lambda r=last, a=auth: calls.stub.ApplyMove(r, metadata=a))
        if reply.game.status != pb.GAME_STATUS_WON:
            raise SystemExit("the winning line did not win move by move")
        won["winning_move"].append(used)
    for _ in range(n):
        for key, with_moves in (("get_won", False), ("get_won_moves", True)):
            request = pb.GetGameRequest(game_id=won_id, include_moves=with_moves)
            won[key].append(calls.cpu_us(lambda r=request: calls.stub.GetGame(r, metadata=won_auth))[0])
    return {key: statistics.median(values) for key, values in (out | won).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cap = Settings().max_moves
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 1000, cap])
    parser.add_argument("--calls", type=int, default=200, help="calls of each kind at each length")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    line = winning_line()
    if min(args.lengths) < 2 or max(args.lengths) > cap:
        raise SystemExit(f"lengths are 2 to --max-moves ({cap})")
    tmp = Path(tempfile.mkdtemp(prefix="patience-long-"))
    redis, redis_url = start_redis()
    results: dict[str, Any] = {"machine": machine(), "calls": args.calls, "max_moves": cap, "rows": {}}
    try:
        service, address = start_service(redis_url, tmp, "WARNING", stderr=sys.stderr)
        try:
            calls = Calls(address, service.pid, cap)
            calls.live(10)  # warm up: imports, caches, the first connection
            for length in args.lengths:
                # A won game needs the winning line at least; a shorter length measures the line alone.
                results["rows"][length] = measure(calls, length, line, args.calls)
        finally:
            stop(service)
    finally:
        stop(redis)
        shutil.rmtree(tmp, ignore_errors=True)
    rows = results["rows"]
    first = rows[min(rows)]
    print(f"{results['machine']}; median service CPU per call (µs), {args.calls} calls each; won games at least "
          f"{len(line)} moves (the winning line)")  # fmt: skip
    keys = ["apply_move", "undo_move", "get_game", "get_won", "get_won_moves", "submit_won", "winning_move"]
    print(f"{'log length':>10} " + " ".join(f"{k:>14}" for k in keys))
    for length, row in rows.items():
        print(f"{length:>10} " + " ".join(f"{row[k]:>9.0f} {row[k] / first[k]:>3.1f}x" for k in keys))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
