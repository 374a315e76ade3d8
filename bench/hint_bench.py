"""Hints through the service: latency and CPU per hint, per game.

Starts a private ``redis-server`` and ``python -m service`` (one hint process, the default budget unless
``--hint-states``), deals ``--deals`` games of each variant, and asks one hint of each at the deal: the first
hint of a game at a version runs the solver. For every hint it records the wall time the client waited and the
CPU time the solver process spent (read from /proc before and after: the pool's process is the service's only
child besides multiprocessing's resource tracker), and the CPU time of the service process itself (the event
loop's share: fetch, count, answer). A second ask at the same version is measured too: it is answered from the
replica's memory without the solver.

Usage: ``python bench/hint_bench.py [--deals 5] [--variants cats-tail,captives] [--hint-states N] [--json F]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from processes import ROOT, cpu_seconds, free_port, machine, solver_pids, start_redis, stop, wait_port

from engine.catalogue import variants


def start_service(redis_url: str, tmp: Path, states: int | None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--redis-url", redis_url]
    command += ["--rate-limits", "false", "--keys-dir", str(tmp / "keys"), "--generate-keys", "true"]
    command += ["--log-level", "WARNING", "--hint-processes", "1"]
    if states is not None:
        command += ["--hint-states", str(states)]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    time.sleep(0.5)
    return proc, f"127.0.0.1:{port}"


def bench_variant(
    stub: pb_grpc.PatienceServiceStub, service: int, variant: str, deals: int, pool: list[int]
) -> dict[str, Any]:
    walls: list[float] = []
    solver_cpu: list[float] = []
    service_cpu = 0.0
    again: list[float] = []
    codes: dict[str, int] = {}
    for _ in range(deals):
        dealt = stub.NewGame(pb.NewGameRequest(variant=variant), timeout=30)
        metadata = (("authorization", f"Bearer {dealt.game_token}"),)
        request = pb.HintRequest(game_id=dealt.game.game_id)
        before_solver, before_service = sum(cpu_seconds(p) for p in pool), cpu_seconds(service)
        start = time.perf_counter()
        reply = stub.Hint(request, metadata=metadata, timeout=120)
        walls.append(time.perf_counter() - start)
        solver_cpu.append(sum(cpu_seconds(p) for p in pool) - before_solver)
        service_cpu += cpu_seconds(service) - before_service
        codes[reply.reason_code] = codes.get(reply.reason_code, 0) + 1
        start = time.perf_counter()
        stub.Hint(request, metadata=metadata, timeout=120)  # the same version: from the replica's memory
        again.append(time.perf_counter() - start)
    ms = 1000.0
    return {
        "variant": variant,
        "hints": deals,
        "wall_ms_median": round(statistics.median(walls) * ms),
        "wall_ms_max": round(max(walls) * ms),
        "solver_cpu_ms_median": round(statistics.median(solver_cpu) * ms),
        "solver_cpu_ms_max": round(max(solver_cpu) * ms),
        "service_cpu_ms_mean": round(service_cpu / deals * ms, 1),  # /proc counts 10 ms ticks: a mean, not a median
        "again_wall_ms_median": round(statistics.median(again) * ms, 1),
        "reason_codes": codes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=5, help="games (one hint each) per variant")
    parser.add_argument("--variants", default="", help="comma-separated ids (default: all nine)")
    parser.add_argument("--hint-states", type=int, default=None, help="the service's --hint-states (its default)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    chosen = [v for v in args.variants.split(",") if v] or [v.id for v in variants()]
    with tempfile.TemporaryDirectory(prefix="hint-bench-") as folder:
        tmp = Path(folder)
        redis, url = start_redis()
        proc, address = start_service(url, tmp, args.hint_states)
        rows: list[dict[str, Any]] = []
        try:
            with grpc.insecure_channel(address) as channel:
                stub = pb_grpc.PatienceServiceStub(channel)
                # The first hint starts the pool (a process spawned, the engine imported): not a hint's cost.
                warm = stub.NewGame(pb.NewGameRequest(variant="sultan-36"), timeout=30)
                stub.Hint(
                    pb.HintRequest(game_id=warm.game.game_id),
                    metadata=(("authorization", f"Bearer {warm.game_token}"),),
                    timeout=120,
                )
                pool = solver_pids(proc.pid)
                for variant in chosen:
                    rows.append(bench_variant(stub, proc.pid, variant, args.deals, pool))
                    print(json.dumps(rows[-1]), flush=True)
        finally:
            stop(proc)
            stop(redis)
    report = {"machine": machine(), "hint_states": args.hint_states, "rows": rows}
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:12]
    print(f"# {len(rows)} variants, {args.deals} hints each; figures {digest}")
    print("| game | median wall | max wall | median solver CPU | max solver CPU | mean service CPU | again |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| `{r['variant']}` | {r['wall_ms_median']} ms | {r['wall_ms_max']} ms | {r['solver_cpu_ms_median']} ms "
            f"| {r['solver_cpu_ms_max']} ms | {r['service_cpu_ms_mean']} ms | {r['again_wall_ms_median']} ms |"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
