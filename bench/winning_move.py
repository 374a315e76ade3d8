"""What the ApplyMove that wins a game costs: the service's CPU, Redis's CPU and the commands the service sends
Redis for it (each script one), for an anonymous game and for a guest's game of a public deal (whose win also
enters the deal's leaderboard), with ``--baseline REV`` beside the service as it was at a git revision, in one run.

What runs: a private ``redis-server``; ``python -m service`` from this checkout and, with ``--baseline``, one from
the ``service`` package of REV (``git archive``; the engine and the generated API of this checkout). Each sample
plays a game to one move before its win (a Royal Retinue deal the solver wins, led by ``--length`` moves that take
each other back), then times the winning move alone: CPU from ``/proc`` before and after it (one call at a time,
nothing else running in the service); the commands, in a sample of their own, from Redis's ``MONITOR``. The
services take their samples in turn, so that both meet the same moments of a shared host. Medians; figures in
docs/service-benchmark.md ("The winning move").

    python bench/winning_move.py --baseline e8606d6 --samples 30
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc
from processes import ROOT, cpu_seconds, free_port, machine, start_service, stop, wait_port

from engine.catalogue import get_game
from engine.deal import public_deal_seed
from engine.solver.search import solve

VARIANT = "royal-retinue"
SEED = (1).to_bytes(32, "big")
CYCLE = ("3-7/1", "7-3/1")  # at this deal's start each move takes the other back
DEAL_NUMBER = 1  # the public deal a guest plays (its own line: no padding)
SCRIPTS = ("EVALSHA", "EVALSHA_RO", "EVAL")


def winning_line(seed: bytes) -> list[str]:
    game = get_game(VARIANT)
    found = solve(game, game.deal(seed), max_states=200_000)
    if not found.moves:
        raise SystemExit("the benchmark's deal was not won by the solver")
    return [m.text() for m in found.moves]


def baseline_root(revision: str, tmp: Path) -> Path:
    """A folder holding the ``service`` package as it was at ``revision``."""
    folder = tmp / "baseline"
    folder.mkdir()
    archive = subprocess.run(["git", "archive", revision, "service"], cwd=ROOT, check=True, capture_output=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


class Service:
    """One service process and a channel to it."""

    def __init__(self, proc: subprocess.Popen[bytes], address: str, redis_pid: int, redis_url: str) -> None:
        self.proc, self.redis_pid, self.redis_url = proc, redis_pid, redis_url
        self.channel = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)])
        self.stub = patience_pb2_grpc.PatienceServiceStub(self.channel)
        self.commands: list[str] = []

    def measure(self, call: Callable[[], pb.ApplyMoveResponse]) -> dict[str, float]:
        """The call's service and Redis CPU (µs)."""
        service, store = cpu_seconds(self.proc.pid), cpu_seconds(self.redis_pid)
        won(call())
        return {
            "service_cpu_us": (cpu_seconds(self.proc.pid) - service) * 1e6,
            "redis_cpu_us": (cpu_seconds(self.redis_pid) - store) * 1e6,
        }

    def commands_sent(self, call: Callable[[], pb.ApplyMoveResponse]) -> dict[str, float]:
        """The commands the service sends Redis for the call (a script counts one, not the commands inside it; a
        pipeline each of its commands), seen by MONITOR between two markers; a separate sample, as MONITOR costs
        Redis time."""
        watcher, marker = redis.Redis.from_url(self.redis_url), redis.Redis.from_url(self.redis_url)
        commands: list[str] = []
        with watcher.monitor() as monitor:
            marker.echo("bench-start")
            won(call())
            marker.echo("bench-end")
            while not (command := monitor.next_command())["command"].upper().startswith("ECHO BENCH-END"):
                if command["client_type"] != "lua" and not command["command"].upper().startswith("PING"):
                    commands.append(command["command"].split(" ", 1)[0].upper())
        self.commands = commands[commands.index("ECHO") + 1 :]  # the last sample's, for --json
        return {"commands": float(len(self.commands)), "scripts": float(sum(n in SCRIPTS for n in self.commands))}

    def play(self, game_id: str, auth: Any, version: int, moves: list[str]) -> int:
        for text in moves:
            request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
            version = self.stub.ApplyMove(request, metadata=auth).game.version
        return version

    def anonymous_win(self, line: list[str], length: int) -> Callable[[], pb.ApplyMoveResponse]:
        """An anonymous game of ``length`` moves played to one move before its win: that move, to call."""
        dealt = self.stub.NewGame(pb.NewGameRequest(variant=VARIANT, replay_seed=SEED))
        game_id, auth = dealt.game.game_id, (("authorization", f"Bearer {dealt.game_token}"),)
        padding = [CYCLE[i % 2] for i in range(max(0, length - len(line)) // 2 * 2)]
        version = self.play(game_id, auth, dealt.game.version, padding + line[:-1])
        last = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=line[-1])
        return lambda: self.stub.ApplyMove(last, metadata=auth)

    def board_win(self, line: list[str]) -> Callable[[], pb.ApplyMoveResponse]:
        """A new guest's game of the public deal, played to one move before its win: that move, to call."""
        guest = self.stub.CreateGuest(pb.CreateGuestRequest(display_name="Bench"))
        auth = (("authorization", f"Bearer {guest.token}"),)
        dealt = self.stub.NewGame(pb.NewGameRequest(variant=VARIANT, deal_number=DEAL_NUMBER), metadata=auth)
        if not dealt.game.board:
            raise SystemExit("a guest's public deal has no board")
        version = self.play(dealt.game.game_id, auth, dealt.game.version, line[:-1])
        last = pb.ApplyMoveRequest(game_id=dealt.game.game_id, expected_version=version, text=line[-1])
        return lambda: self.stub.ApplyMove(last, metadata=auth)


def won(reply: pb.ApplyMoveResponse) -> None:
    if reply.game.status != pb.GAME_STATUS_WON or not reply.game.certificate.encoded:
        raise SystemExit("the last move did not win with a certificate")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20, help="winning moves of each kind per service")
    parser.add_argument("--length", type=int, default=1000, help="log length of the anonymous games")
    parser.add_argument("--baseline", help="a git revision whose service package is measured too")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is needed")
    line, board_line = winning_line(SEED), winning_line(public_deal_seed(DEAL_NUMBER))
    tmp = Path(tempfile.mkdtemp(prefix="patience-winning-"))
    redis_port = free_port()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    store = subprocess.Popen(
        [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    procs: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {"machine": machine(), "args": vars(args) | {"json": None}, "line": len(line)}
    try:
        wait_port(redis_port, store)
        services: dict[str, Service] = {}
        proc, address = start_service(redis_url, tmp, "WARNING", stderr=sys.stderr)
        procs.append(proc)
        services["now"] = Service(proc, address, store.pid, redis_url)
        if args.baseline:
            path = os.pathsep.join([str(ROOT), str(ROOT / "proto"), str(ROOT / "clients" / "python")])
            root = baseline_root(args.baseline, tmp)
            proc, address = start_service(redis_url, tmp, "WARNING", stderr=sys.stderr, cwd=root, pythonpath=path)
            procs.append(proc)
            services["baseline"] = Service(proc, address, store.pid, redis_url)
        kinds: dict[str, Callable[[Service], Callable[[], pb.ApplyMoveResponse]]] = {
            "anonymous": lambda s: s.anonymous_win(line, args.length),
            "board": lambda s: s.board_win(board_line),
        }
        for _ in range(2):  # warm up: imports, caches, every script loaded
            for service in services.values():
                for prepare in kinds.values():
                    won(prepare(service)())
        trips: dict[str, dict[str, dict[str, float]]] = {n: {} for n in services}
        for name, service in services.items():
            for kind, prepare in kinds.items():
                trips[name][kind] = service.commands_sent(prepare(service))
                results.setdefault("commands", {}).setdefault(name, {})[kind] = service.commands
        samples: dict[str, dict[str, list[dict[str, float]]]] = {n: {k: [] for k in kinds} for n in services}
        for _ in range(args.samples):
            for name, service in services.items():
                for kind, prepare in kinds.items():
                    samples[name][kind].append(service.measure(prepare(service)))
    finally:
        for proc in procs:
            stop(proc)
        stop(store)
        shutil.rmtree(tmp, ignore_errors=True)
    results["medians"] = {
        name: {
            kind: {key: statistics.median(s[key] for s in taken) for key in taken[0]} | trips[name][kind]
            for kind, taken in by.items()
        }
        for name, by in samples.items()
    }
    print(f"{results['machine']}; winning ApplyMove, medians of {args.samples}; anonymous games of {args.length}")
    print(f"moves, a guest's public deal {DEAL_NUMBER} of {len(board_line)} moves (its win enters the board)")
    print(f"{'service':>9} {'game':>10} {'service CPU µs':>15} {'Redis CPU µs':>13} {'commands':>9} {'scripts':>8}")
    for name, by in results["medians"].items():
        for kind, m in by.items():
            print(f"{name:>9} {kind:>10} {m['service_cpu_us']:>15.0f} {m['redis_cpu_us']:>13.0f}"
                  f" {m['commands']:>9.0f} {m['scripts']:>8.0f}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
