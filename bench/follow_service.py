"""The hint follower through the service: a player who presses AutoPlay, asks for a Hint and plays it, again and
again, on two replicas of ``python -m service`` sharing one private ``redis-server``.

Each game is dealt from the solvability table's seeds (``sha256("solvability-<i>")``, as ``replay_seed``), so
that the deals are the table's and the offline follower of ``bench/solvability.py`` (``--only follow``) played
the same ones. Even deals go over gRPC, odd ones over REST; every hint is asked of one replica and its move
played on the other, so the line a hint came from is continued from the store (docs/solver.md, "Hints never
lead back"). Every Hint call is timed as the client waits for it, and the CPU the replicas' hint processes spent on
it is read from /proc: the hint's latency and cost over whole games, not only at the deal (bench/hint_bench.py).
The follower stops as the table's does: the game won, no move hinted (``NO_MOVE``), --stall moves
with no card home, none dealt and no redeal, or --max-moves moves. Every position is replayed here with the
engine from the seed, and a position met twice is counted (it never should be).

With every card face up the service's hints are a function of the position alone, so the game should end as the
offline follower's did, deal for deal; with hidden cards the service seeds its guesses with its own hint key, so
only the rates compare. --compare FILE... reads the offline follower's progress files and says so per game.

Usage: python bench/follow_service.py [--deals 20] [--variants cats-tail,tribunal] [--compare run.jsonl ...]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import grpc
import httpx
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from processes import cpu_seconds, free_port, machine, solver_pids, start_redis, start_service, stop
from solvability import deal_seed, progress_of

from engine import get_game
from engine.catalogue import variants
from engine.encoding import encode_state
from engine.game import Game
from engine.moves import Move


@dataclass
class Turn:
    """What the player learns from one call: the moves it made (auto-play's or the one played), the game's
    version after it, the hint's move text (empty: none) and its reason code."""

    moves: list[str] = field(default_factory=list)
    version: int = 0
    text: str = ""
    code: str = ""


class Player(Protocol):
    def new_game(self, variant: str, seed: bytes) -> tuple[str, str, int]: ...
    def autoplay(self, n: int, game_id: str, token: str, version: int) -> Turn: ...
    def hint(self, n: int, game_id: str, token: str) -> Turn: ...
    def move(self, n: int, game_id: str, token: str, text: str, version: int) -> Turn: ...
    def close(self) -> None: ...


class Grpc:
    """The player over gRPC: replica ``n % 2`` hints, the other plays."""

    def __init__(self, addresses: list[str]) -> None:
        self.channels = [grpc.insecure_channel(a) for a in addresses]
        self.stubs = [pb_grpc.PatienceServiceStub(c) for c in self.channels]

    def new_game(self, variant: str, seed: bytes) -> tuple[str, str, int]:
        reply = self.stubs[0].NewGame(pb.NewGameRequest(variant=variant, replay_seed=seed), timeout=30)
        return reply.game.game_id, reply.game_token, reply.game.version

    def autoplay(self, n: int, game_id: str, token: str, version: int) -> Turn:
        request = pb.AutoPlayRequest(game_id=game_id, expected_version=version)
        reply = self.stubs[(n + 1) % 2].AutoPlay(request, metadata=_bearer(token), timeout=60)
        return Turn([m.text for m in reply.applied], reply.game.version)

    def hint(self, n: int, game_id: str, token: str) -> Turn:
        reply = self.stubs[n % 2].Hint(pb.HintRequest(game_id=game_id), metadata=_bearer(token), timeout=120)
        return Turn([], reply.version, reply.move.text if reply.HasField("move") else "", reply.reason_code)

    def move(self, n: int, game_id: str, token: str, text: str, version: int) -> Turn:
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
        reply = self.stubs[(n + 1) % 2].ApplyMove(request, metadata=_bearer(token), timeout=60)
        return Turn([text], reply.game.version)

    def close(self) -> None:
        for c in self.channels:
            c.close()


class Rest:
    """The player over REST (JSON), the same calls as ``Grpc``."""

    def __init__(self, addresses: list[str]) -> None:
        self.http = [httpx.Client(base_url=f"http://{a}", timeout=120) for a in addresses]

    def new_game(self, variant: str, seed: bytes) -> tuple[str, str, int]:
        body = _ok(self.http[0].post("/v1/games", json={"variant": variant, "replaySeed": _b64(seed)}))
        return body["game"]["gameId"], body["gameToken"], int(body["game"]["version"])

    def autoplay(self, n: int, game_id: str, token: str, version: int) -> Turn:
        url = f"/v1/games/{game_id}/autoplay"
        body = _ok(self.http[(n + 1) % 2].post(url, headers=_auth(token), json={"expectedVersion": version}))
        return Turn([m["text"] for m in body.get("applied", [])], int(body["game"]["version"]))

    def hint(self, n: int, game_id: str, token: str) -> Turn:
        body = _ok(self.http[n % 2].get(f"/v1/games/{game_id}/hint", headers=_auth(token)))
        return Turn([], int(body["version"]), body.get("move", {}).get("text", ""), body["reasonCode"])

    def move(self, n: int, game_id: str, token: str, text: str, version: int) -> Turn:
        url = f"/v1/games/{game_id}/moves"
        reply = self.http[(n + 1) % 2].post(url, headers=_auth(token), json={"expectedVersion": version, "text": text})
        return Turn([text], int(_ok(reply)["game"]["version"]))

    def close(self) -> None:
        for c in self.http:
            c.close()


def _ok(reply: httpx.Response) -> Any:
    if reply.status_code != 200:
        raise RuntimeError(f"{reply.status_code}: {reply.text}")
    return reply.json()


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class HintMeter:
    """The wall time a client waits for a hint and the CPU the replicas' hint processes spend on it. The pools
    are started (one hint on each replica) before anything is measured, so no hint pays a process's start."""

    def __init__(self, pools: list[int]) -> None:
        self.pools = pools
        self.walls: list[float] = []
        self.cpus: list[float] = []

    def hint(self, player: Player, n: int, game_id: str, token: str) -> Turn:
        before = sum(cpu_seconds(p) for p in self.pools)
        start = time.perf_counter()
        turn = player.hint(n, game_id, token)
        self.walls.append(time.perf_counter() - start)
        self.cpus.append(sum(cpu_seconds(p) for p in self.pools) - before)
        return turn

    def take(self) -> dict[str, list[float]]:
        """The hints measured since the last take, in milliseconds."""
        taken = {
            "hint_ms": [round(w * 1000, 2) for w in self.walls],
            "hint_cpu_ms": [round(c * 1000, 2) for c in self.cpus],
        }
        self.walls, self.cpus = [], []
        return taken


def warm_pools(addresses: list[str], services: list[int]) -> list[int]:
    """One hint asked of each replica (a sultan-36 deal), so that its pool of hint processes runs: their pids."""
    for address in addresses:
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            dealt = stub.NewGame(pb.NewGameRequest(variant="sultan-36"), timeout=30)
            stub.Hint(pb.HintRequest(game_id=dealt.game.game_id), metadata=_bearer(dealt.game_token), timeout=120)
    return [pid for service in services for pid in solver_pids(service)]


def follow(player: Player, game: Game, i: int, max_moves: int, stall: int, meter: HintMeter) -> dict[str, Any]:
    """One deal followed through the service, replayed here with the engine: how it ended and how long."""
    seed = deal_seed(i)
    game_id, token, version = player.new_game(game.id, seed)
    state = game.deal(seed)
    met = {encode_state(game, state)}
    moves, calls, repeats = 0, 0, 0
    progress, since = progress_of(state), 0
    end = "moves"
    while moves < max_moves:
        done = player.autoplay(moves, game_id, token, version)
        calls += 1
        version = done.version
        for text in done.moves:
            state = game.play(state, Move.parse(text))[0]
            moves += 1
            repeats += _meet(met, encode_state(game, state))
        if game.is_won(state):
            end = "won"
            break
        if progress_of(state) != progress:
            progress, since = progress_of(state), moves
        elif moves - since >= stall:
            end = "stalled"
            break
        hinted = meter.hint(player, moves, game_id, token)
        calls += 1
        if not hinted.text:
            end = "stuck"
            break
        version = player.move(moves, game_id, token, hinted.text, version).version
        calls += 1
        state = game.play(state, Move.parse(hinted.text))[0]
        moves += 1
        repeats += _meet(met, encode_state(game, state))
        if game.is_won(state):
            end = "won"  # the service refuses every call that changes a won game, auto-play too
            break
    return {"variant": game.id, "deal": i, "won": end == "won", "end": end, "moves": moves, "calls": calls,
            "repeats": repeats, **meter.take()}  # fmt: skip


def _meet(met: set[bytes], key: bytes) -> int:
    if key in met:
        return 1
    met.add(key)
    return 0


def offline(files: list[Path]) -> dict[tuple[str, int], dict[str, Any]]:
    """The offline follower's records (defaults only) by game and deal."""
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for f in files:
        for line in f.read_text().splitlines():
            r = json.loads(line)
            if r.get("kind") == "follow" and r["options"] == "":
                found[(r["variant"], r["deal"])] = r
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=20, help="deals per game (the table's first ones)")
    parser.add_argument("--variants", default="", help="comma-separated ids (default: all nine, defaults only)")
    parser.add_argument("--max-moves", type=int, default=1500)
    parser.add_argument("--stall", type=int, default=150)
    parser.add_argument("--compare", type=Path, nargs="*", default=[], help="the offline follower's progress files")
    parser.add_argument("--json", type=Path, help="also write every deal's record here")
    args = parser.parse_args()
    chosen = [v for v in args.variants.split(",") if v] or [v.id for v in variants()]
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="follow-service-") as folder:
        tmp = Path(folder)
        redis, url = start_redis()
        replicas = []
        try:
            for _ in range(2):  # one keys folder: the same deal-ticket key, so the same hint key on both
                http = free_port()
                proc, address = start_service(url, tmp, "WARNING", args=("--http-listen", f"127.0.0.1:{http}"))
                replicas.append((proc, address, f"127.0.0.1:{http}"))
            time.sleep(0.5)
            meter = HintMeter(warm_pools([r[1] for r in replicas], [r[0].pid for r in replicas]))
            players: list[Player] = [Grpc([r[1] for r in replicas]), Rest([r[2] for r in replicas])]
            for variant in chosen:
                game = get_game(variant)
                for i in range(args.deals):
                    records.append(follow(players[i % 2], game, i, args.max_moves, args.stall, meter))
                    print(json.dumps(records[-1]), flush=True)
            for p in players:
                p.close()
        finally:
            for proc, _, _ in replicas:
                stop(proc)
            stop(redis)
    report(records, offline(args.compare))
    latency(records)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "records": records}, indent=2) + "\n")


def report(records: list[dict[str, Any]], before: dict[tuple[str, int], dict[str, Any]]) -> None:
    print("| game | deals | won through the service | median moves | positions met twice | offline follower won "
          "(same deals) | same end and moves |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for variant in dict.fromkeys(r["variant"] for r in records):
        rows = [r for r in records if r["variant"] == variant]
        won = sum(r["won"] for r in rows)
        seen = [before[(variant, r["deal"])] for r in rows if (variant, r["deal"]) in before]
        same = sum(
            1
            for r in rows
            if (b := before.get((variant, r["deal"]))) and (b["end"], b["moves"]) == (r["end"], r["moves"])
        )
        old = f"{sum(b['won'] for b in seen)} of {len(seen)}" if seen else "-"
        agree = f"{same} of {len(seen)}" if seen else "-"
        print(f"| `{variant}` | {len(rows)} | {won} | {statistics.median(r['moves'] for r in rows):g} "
              f"| {sum(r['repeats'] for r in rows)} | {old} | {agree} |")  # fmt: skip


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``q`` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def latency(records: list[dict[str, Any]]) -> None:
    """Per game, every Hint call of the followed games: the wall time the client waited and the solver's CPU."""
    print("| game | hints | wall p50 | wall p99 | wall max | solver CPU p50 | solver CPU p99 | solver CPU mean |")
    print("|---|---|---|---|---|---|---|---|")
    for variant in dict.fromkeys(r["variant"] for r in records):
        walls = [w for r in records if r["variant"] == variant for w in r["hint_ms"]]
        cpus = [c for r in records if r["variant"] == variant for c in r["hint_cpu_ms"]]
        if not walls:
            continue
        print(f"| `{variant}` | {len(walls)} | {percentile(walls, 0.5):.1f} ms | {percentile(walls, 0.99):.1f} ms "
              f"| {max(walls):.1f} ms | {percentile(cpus, 0.5):.1f} ms | {percentile(cpus, 0.99):.1f} ms "
              f"| {statistics.fmean(cpus):.1f} ms |")  # fmt: skip


if __name__ == "__main__":
    main()
