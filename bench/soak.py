"""Fault soak: players over gRPC and REST while Redis and the service fail, then a count of what was lost.

One run, bounded in time, on loopback:

- a Redis with the append-only file on (``--appendfsync always``, the default, or ``everysec``), or with
  ``--cluster`` a Redis Cluster of three masters with a replica each (``cluster-node-timeout`` 2 s);
- two replicas of ``python -m service`` on that Redis, each serving gRPC and REST;
- ``--players`` players, half over gRPC and half over REST, spread over both replicas, each dealing
  ``sultan-52`` games and playing them (``s`` while the stock has cards, ``rd`` when it is empty, a new game when
  no turn is left), every move guarded by the version the player last saw;
- faults at fixed points of the run. Single Redis: Redis killed with SIGKILL and restarted (twice), one service
  replica killed with SIGKILL and restarted, Redis paused with SIGSTOP for ``--pause`` seconds. Cluster: one
  master killed with SIGKILL (its replica takes over), restarted later as a replica.

Afterwards every game a player touched is read from the store and checked:

- **acknowledged moves lost**: a move the service acknowledged (an OK answer with version v) whose game is later
  found at a version below v, by the player or in the final check (goal 0);
- **games that do not replay**: the stored move log, replayed by the engine from the stored seed, must give the
  stored position byte for byte (goal 0);
- answers by transport and status code, p50 / p99 latency of moves outside the faults, and for each fault the
  time from its start until moves flow at half the pre-fault rate again.

``--durability replica`` starts the service with ``--durability replica`` (a move is acknowledged only once a
replica has it); the figure to compare is acknowledged moves lost on ``--cluster``.

    python bench/soak.py --seconds 60 --players 24 [--cluster] [--json FILE]

The players are bench/soak_players.py's, the processes (Redis, the cluster, the replicas) bench/soak_processes.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from soak_players import GrpcPlayer, RestPlayer, Tally, play
from soak_processes import RedisNode, Replica, free_port, start_cluster

# --------------------------------------------------------------------------- the run


@dataclass
class Fault:
    name: str
    start: float
    end: float = 0.0


def schedule(seconds: float, cluster: bool, pause: float) -> list[tuple[float, str]]:
    if cluster:
        return [(0.3 * seconds, "kill-master"), (0.7 * seconds, "restart-old-master")]
    return [
        (0.15 * seconds, "kill-redis"),
        (0.35 * seconds, "kill-replica"),
        (0.55 * seconds, "pause-redis"),
        (0.55 * seconds + pause + 0.1 * seconds, "kill-redis"),
    ]


async def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from patience.v1 import patience_pb2  # noqa: F401  (imported once before the players start)

    nodes: list[RedisNode]
    if args.cluster:
        nodes = start_cluster(work / "redis")
        url = f"redis+cluster://127.0.0.1:{nodes[0].port}"
    else:
        nodes = [RedisNode(free_port(), work / "redis", appendfsync=args.appendfsync)]
        nodes[0].start()
        url = f"redis://127.0.0.1:{nodes[0].port}/0"
    # every player comes from 127.0.0.1: the per-address rate limits would refuse most games (they are measured
    # apart, in tests/service/test_ratelimit.py)
    extra = ("--durability", args.durability, "--rate-limits", "false")
    replicas = [Replica(url, work / "keys", work / f"service-{i}.log", extra) for i in range(2)]
    replicas[0].start()  # the first generates the keys the second reads
    replicas[1].start()
    tally = Tally()
    games: dict[str, float] = {}  # game id -> when its creation was acknowledged (s into the run)
    stop = asyncio.Event()
    players: list[GrpcPlayer | RestPlayer] = []
    for i in range(args.players):
        replica = replicas[i % 2]
        if (i // 2) % 2 == 0:
            players.append(GrpcPlayer(f"127.0.0.1:{replica.port}"))
        else:
            players.append(RestPlayer(f"http://127.0.0.1:{replica.http_port}"))
    began = time.monotonic()
    tasks = [asyncio.create_task(play(p, tally, games, stop, began)) for p in players]
    faults: list[Fault] = []
    loop = asyncio.get_running_loop()
    killed_master: RedisNode | None = None
    for at, what in schedule(args.seconds, args.cluster, args.pause):
        await asyncio.sleep(max(0.0, began + at - time.monotonic()))
        fault = Fault(what, time.monotonic() - began)
        if what == "kill-redis":
            nodes[0].kill()
            await asyncio.sleep(1.0)
            await loop.run_in_executor(None, nodes[0].start)
        elif what == "kill-replica":
            replicas[0].kill()
            await asyncio.sleep(1.0)
            await loop.run_in_executor(None, replicas[0].start)
        elif what == "pause-redis":
            nodes[0].signal(signal.SIGSTOP)
            await asyncio.sleep(args.pause)
            nodes[0].signal(signal.SIGCONT)
        elif what == "kill-master":
            killed_master = next(n for n in nodes if n.role() == "master")
            killed_master.kill()
        elif what == "restart-old-master" and killed_master is not None:
            await loop.run_in_executor(None, killed_master.start)
        fault.end = time.monotonic() - began
        faults.append(fault)
    await asyncio.sleep(max(0.0, began + args.seconds - time.monotonic()))
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    for p in players:
        await p.close()
    checked = await check_store(url, games, tally)
    for r in replicas:
        r.stop()
    for n in nodes:
        n.kill()
    return report(args, tally, faults, began, checked)


async def check_store(url: str, games: dict[str, float], tally: Tally) -> dict[str, int]:
    """Every game read from the store: its version against what was acknowledged, its log replayed."""
    from engine import get_game
    from engine.encoding import encode_state
    from service.settings.config import Settings
    from service.store import NotFound, StoreError, open_store

    store = open_store(url, idle_seconds=3600, key_prefix=Settings().store_prefix)  # the service's default
    lost = not_replayed = missing = 0
    try:
        for game_id in games:
            record = None
            for _ in range(50):
                try:
                    record = await store.fetch(game_id, moves=True)
                    break
                except NotFound:
                    break
                except StoreError:  # the cluster may still be settling after the last fault
                    await asyncio.sleep(0.2)
            if record is None:
                missing += 1  # a game whose creation was acknowledged and that the store no longer has
                print(f"missing game {game_id}, created at {games[game_id]:.2f} s", file=sys.stderr)
                continue
            acked = tally.acked.get(game_id, 0)
            if record.version < acked:
                lost += acked - record.version
            options = dict(kv.split("=", 1) for kv in record.options.split(",") if kv)
            game = get_game(record.variant, options)
            state = game.deal(record.seed)
            for move in record.moves or ():
                state = game.play(state, move)[0]
            if encode_state(game, state) != record.state:
                not_replayed += 1
    finally:
        await store.close()
    return {"games": len(games), "lost_in_store": lost, "not_replayed": not_replayed, "missing": missing}


def report(
    args: argparse.Namespace, tally: Tally, faults: list[Fault], began: float, checked: dict[str, int]
) -> dict[str, Any]:
    moves = sorted((s - began, d) for s, d in tally.moves)
    bins: Counter[int] = Counter(int(s * 10) for s, _ in moves)  # acknowledged moves per 100 ms
    recovery: list[dict[str, Any]] = []
    quiet: list[float] = []
    windows: list[tuple[float, float]] = []
    for fault in faults:
        before = [bins.get(b, 0) for b in range(max(0, int(fault.start * 10) - 30), int(fault.start * 10))]
        normal = statistics.median(before) if before else 0
        back = next(
            (b / 10 for b in range(int(fault.end * 10), int(args.seconds * 10) + 1) if bins.get(b, 0) >= normal / 2),
            None,
        )
        recovered = None if back is None else round(back - fault.start, 2)
        stalls = []  # per player: from its last acknowledged move before the fault to its first one after
        for times in tally.acks.values():
            last = max((t - began for t in times if t - began <= fault.start), default=None)
            first = min((t - began for t in times if t - began > fault.start), default=None)
            if last is not None and first is not None:
                stalls.append(first - last)
        recovery.append(
            {
                "fault": fault.name,
                "at_s": round(fault.start, 1),
                "lasted_s": round(fault.end - fault.start, 2),
                "rate_back_after_s": recovered,
                "longest_player_stall_s": round(max(stalls), 2) if stalls else None,
            }
        )
        windows.append((fault.start - 0.1, (back if back is not None else args.seconds) + 0.1))
    for start, seconds in moves:
        if not any(a <= start <= b for a, b in windows):
            quiet.append(seconds * 1000)
    quiet.sort()

    def pct(p: float) -> float | None:
        return round(quiet[min(len(quiet) - 1, int(p * len(quiet)))], 2) if quiet else None

    answers: dict[str, dict[str, int]] = {}
    for (transport, code), n in sorted(tally.answers.items()):
        answers.setdefault(transport, {})[code] = n
    return {
        "setup": {
            "redis": "cluster (3 masters, 3 replicas)" if args.cluster else f"single, appendfsync {args.appendfsync}",
            "durability": args.durability,
            "players": args.players,
            "seconds": args.seconds,
        },
        "acknowledged_moves": len(tally.moves),
        "acknowledged_moves_lost": tally.lost_seen + checked["lost_in_store"],
        "lost_seen_by_players": tally.lost_seen,
        "lost_found_in_store": checked["lost_in_store"],
        "games": checked["games"],
        "games_not_replaying": checked["not_replayed"],
        "acknowledged_games_missing": checked["missing"],
        "answers": answers,
        "move_latency_ms_outside_faults": {"p50": pct(0.5), "p99": pct(0.99), "moves": len(quiet)},
        "recovery": recovery,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the run (default 60)")
    parser.add_argument("--players", type=int, default=24, help="concurrent players (default 24)")
    parser.add_argument("--pause", type=float, default=10.0, help="seconds Redis stays paused (default 10)")
    parser.add_argument("--cluster", action="store_true", help="Redis Cluster, 3 masters with a replica each")
    parser.add_argument(
        "--appendfsync",
        default="always",
        choices=("always", "everysec"),
        help="the single Redis's AOF policy (default always: every write on disk before it is answered)",
    )
    parser.add_argument(
        "--durability", default="primary", choices=("primary", "replica"), help="the service's --durability setting"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", type=Path, help="keep the Redis data and the service logs in this new directory")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True)
        result = asyncio.run(run(args, args.keep.resolve()))
    else:
        with tempfile.TemporaryDirectory(prefix="patience-soak-") as tmp:
            result = asyncio.run(run(args, Path(tmp)))
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
