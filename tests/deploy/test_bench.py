"""The service benchmark still runs end to end (a short, tiny run: its figures are checked for shape, not speed).

Like the other Redis tests, a missing ``redis-server`` fails here rather than skipping (tests/redis_support.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_service_bench_runs_and_reports_every_load(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.6", "--slices", "2", "--concurrency", "2", "--runs", "1", "--workers", "1", "2"]
    args.append("--no-memory")
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service_bench.py"), *args, "--json", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    result = json.loads(out.read_text())
    (row,) = result["runs"][0]
    assert row["concurrency"] == 2
    for load in ("echo", "echo_raw", "apply_move", "new_game"):
        figures = row[load]
        assert figures["calls"] > 0 and figures["per_second"] > 0, load
        assert 0 < figures["p50_ms"] <= figures["p99_ms"], load
        assert figures["server_cpu_us_per_call"] > 0, load
    assert row["apply_move"]["redis_cpu_us_per_call"] > 0
    assert row["apply_move_of_echo"] == pytest.approx(row["apply_move"]["per_second"] / row["echo"]["per_second"])
    assert row["server_cpu_ratio"] > 0
    assert row["machine_cpu_ratio"] > 0
    (median,) = result["median"]
    assert median["apply_move_of_echo"] == pytest.approx(row["apply_move_of_echo"])
    workers = result["workers"]
    assert workers["1"]["gain"] == 1
    assert workers["1"]["per_second"] > 0 and workers["2"]["per_second"] > 0
    for w in ("1", "2"):  # echo with as many processes as the service has workers, in the same run
        assert workers[w]["echo_per_second"] > 0 and workers[w]["echo_server_cpu_us_per_call"] > 0
        (run,) = workers["runs"][w]
        echo, apply = run
        assert workers[w]["apply_move_of_echo"] == pytest.approx(apply["per_second"] / echo["per_second"])


def test_rest_bench_runs_and_reports_both_floors(tmp_path: Path) -> None:
    """REST ApplyMove against the bare app on h11 (the issue's floor) and on httptools (the service's HTTP), and
    gRPC beside it: every ratio present and each server's figures filled in."""
    out = tmp_path / "rest.json"
    args = ["--seconds", "0.6", "--slices", "1", "--concurrency", "2", "--grpc", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "rest_bench.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    result = json.loads(out.read_text())
    for name in ("service", "bare", "bare_httptools", "grpc", "echo"):
        assert result[name]["calls"] > 0 and result[name]["cpu_us_per_call"] > 0, name
    assert result["service"]["redis_cpu_us_per_call"] > 0
    for prefix in ("", "httptools_", "grpc_"):
        with_redis = result[prefix + "cpu_ratio_bare_over_service_and_redis"]
        assert 0 < with_redis <= result[prefix + "cpu_ratio_bare_over_service"], prefix


def test_library_bench_runs_and_reports_each_path_and_both_floors(tmp_path: Path) -> None:
    """Each kept replacement's library path beside the service, and the two floors: every figure filled in."""
    out = tmp_path / "library.json"
    args = ["--seconds", "0.6", "--slices", "1", "--concurrency", "2", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "library_bench.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = json.loads(out.read_text())
    loads = result["loads"]
    for name in ("grpc service", "grpc redis-py", "grpc echo", "rest service", "rest json_format", "rest bare h11"):
        assert loads[name]["calls_per_s"] > 0 and loads[name]["cpu_us_per_call"] > 0, name
    assert set(result["extra_over_service"]) == {"grpc redis-py", "rest json_format", "rest redis-py"}
    for floor in result["floors"].values():
        assert 0 < floor["service"] <= floor["service_and_redis"]


def test_redis_clients_bench_runs_and_reports_each_client(tmp_path: Path) -> None:
    """The service's pipelined connection and redis-py measured; the optional clients reported failed when they
    are not installed, and measured when they are."""
    out = tmp_path / "clients.json"
    args = ["--seconds", "0.3", "--slices", "1", "--concurrency", "2", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "redis_clients.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    clients = json.loads(out.read_text())["clients"]
    for name in ("redispipe", "redis-py"):
        assert clients[name]["calls_per_s"] > 0 and clients[name]["client_cpu_us_per_call"] > 0, name
    assert set(clients) == {"redispipe", "redis-py", "coredis", "valkey-glide"}


def test_long_games_bench_runs_and_reports_every_call_at_every_length(tmp_path: Path) -> None:
    out = tmp_path / "long.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "long_games.py"), "--calls", "2", "--lengths", "10", "300",
         "--json", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )  # fmt: skip
    rows = json.loads(out.read_text())["rows"]
    assert set(rows) == {"10", "300"}
    for row in rows.values():
        assert set(row) == {"apply_move", "undo_move", "get_game", "get_won", "get_won_moves", "submit_won",
                            "winning_move"}  # fmt: skip
        assert all(value > 0 for value in row.values()), row


def test_winnable_bench_runs_and_reports_every_pool_it_is_given(tmp_path: Path) -> None:
    out = tmp_path / "winnable.json"
    args = ["--seeds", "2", "--pools", "sultan-36,tribunal", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "winnable_bench.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    rows = json.loads(out.read_text())["rows"]
    assert [r["pool"] for r in rows] == ["sultan-36", "tribunal"]
    for row in rows:
        assert row["seeds"] == 2 == row["proven"] + row["no_win"] + row["unknown"]
        assert row["cpu_seconds"] > 0 and row["median_cpu_per_attempt"] > 0
        assert (row["proven_per_cpu_minute"] > 0) == (row["proven"] > 0)


def test_hint_bench_runs_and_reports_each_game(tmp_path: Path) -> None:
    out = tmp_path / "hints.json"
    args = ["--deals", "2", "--variants", "sultan-36,tribunal", "--hint-states", "120", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "hint_bench.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    result = json.loads(out.read_text())
    assert [r["variant"] for r in result["rows"]] == ["sultan-36", "tribunal"]
    for row in result["rows"]:
        assert row["hints"] == 2 and sum(row["reason_codes"].values()) == 2
        assert 0 < row["wall_ms_median"] <= row["wall_ms_max"]
        assert 0 <= row["solver_cpu_ms_median"] <= row["solver_cpu_ms_max"]


def test_the_follower_through_the_service_ends_each_deal_as_the_offline_follower(tmp_path: Path) -> None:
    """With every card face up a hint depends on the position alone: through two replicas and both transports the
    follower must play the very game bench/solvability.py's follower plays, and never meet a position twice."""
    offline, out = tmp_path / "offline.jsonl", tmp_path / "service.json"
    common = ["--variants", "cats-tail", "--max-moves", "80"]
    solvability = [str(ROOT / "bench" / "solvability.py"), "--only", "follow", "--hint-seeds", "2"]
    subprocess.run(
        [sys.executable, *solvability, *common, "--progress", str(offline)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "follow_service.py"), "--deals", "2", *common, "--json", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
    )
    before = {
        r["deal"]: (r["end"], r["moves"])
        for r in map(json.loads, offline.read_text().splitlines())
        if r.get("kind") == "follow" and r["options"] == ""
    }
    records = json.loads(out.read_text())["records"]
    assert [r["deal"] for r in records] == [0, 1]
    for r in records:
        assert r["repeats"] == 0 and r["moves"] > 0
        assert (r["end"], r["moves"]) == before[r["deal"]]
        # every Hint call timed, and the solver's CPU read beside it (none of it negative: the pools kept running)
        assert len(r["hint_ms"]) == len(r["hint_cpu_ms"]) > 0
        assert min(r["hint_ms"]) > 0 and min(r["hint_cpu_ms"]) >= 0
    assert "| `cats-tail` | " in run.stdout.split("wall p99")[1]  # the latency table, per game


def test_tracing_bench_runs_and_reports_every_configuration(tmp_path: Path) -> None:
    """Traces off, 1 %, 100 %, off again and a baseline revision (HEAD's package, in a folder of its own), each
    with its CPU per call; spans reached the sink."""
    out = tmp_path / "tracing.json"
    args = ["--seconds", "0.8", "--slices", "1", "--concurrency", "2", "--baseline", "HEAD", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "tracing_bench.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=240,
    )
    result = json.loads(out.read_text())
    assert set(result["services"]) == {"off", "1%", "100%", "off-again", "baseline"}
    for name, figures in result["services"].items():
        assert figures["calls"] > 0 and figures["server_cpu_us_per_call"] > 0, name
    assert result["services"]["off"]["extra_cpu_us_per_call_vs_off"] == 0
    assert result["sink_bytes"] > 0, "the 100 % service sent its spans"


def test_winning_move_bench_runs_and_reports_both_games_for_both_services(tmp_path: Path) -> None:
    """The winning move's CPU and the commands it sends, anonymous and on a board, for this checkout and a baseline
    revision (HEAD's package); each a win the service answered with a certificate."""
    out = tmp_path / "winning.json"
    args = ["--samples", "1", "--length", "240", "--baseline", "HEAD", "--json", str(out)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "winning_move.py"), *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = json.loads(out.read_text())
    assert set(result["medians"]) == {"now", "baseline"}
    for by in result["medians"].values():
        assert set(by) == {"anonymous", "board"}
        for figures in by.values():
            assert figures["service_cpu_us"] > 0 and figures["redis_cpu_us"] > 0
            assert figures["commands"] >= figures["scripts"] >= 2
    assert result["commands"]["now"]["anonymous"] == ["EVALSHA", "EVALSHA"]  # a read and the write that wins


def test_head_to_head_bench_plays_every_side_resumes_and_renders(tmp_path: Path) -> None:
    """Our solver and each simple player on the same deals, a JSON line per deal; a second run with --resume plays
    only the deals not there yet; --render prints the table; every win was replayed by the verifier."""
    progress, out = tmp_path / "progress.jsonl", tmp_path / "summary.json"
    base = [sys.executable, str(ROOT / "bench" / "head_to_head_bench.py"), "--games", "sultan-36"]
    base += ["--seed-label", "bench-test", "--seconds", "2", "--progress", str(progress)]
    subprocess.run([*base, "--deals", "2"], cwd=ROOT, check=True, capture_output=True, timeout=240)
    done = subprocess.run(
        [*base, "--deals", "3", "--resume", "--render", "--json", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
    )
    rows = [json.loads(line) for line in progress.read_text().splitlines()]
    assert [r["deal"] for r in rows] == [0, 1, 2]
    for row in rows:
        assert set(row["sides"]) == {"ours", "greedy-dfs", "playouts"}
        for side in row["sides"].values():
            assert side["cpu"] >= 0 and (side["moves"] > 0) == side["won"]
    summary = json.loads(out.read_text())["sultan-36 bench-test"]
    assert summary["deals"] == 3
    assert summary["sides"]["ours"]["won"] == sum(r["sides"]["ours"]["won"] for r in rows)
    assert "| `sultan-36` | bench-test | 3 |" in done.stdout


def test_head_to_head_bench_plays_the_sides_apart_and_merges_them(tmp_path: Path) -> None:
    """--sides plays the simple players first and ours later on the same deals: a deal's lines are merged, a side
    already there is not played again, and each side's figures in the table are over the deals it has played."""
    progress = tmp_path / "progress.jsonl"
    base = [sys.executable, str(ROOT / "bench" / "head_to_head_bench.py"), "--games", "sultan-36"]
    base += ["--seed-label", "bench-test", "--seconds", "2", "--progress", str(progress), "--resume", "--render"]
    players = subprocess.run(
        [*base, "--deals", "2", "--sides", "greedy-dfs", "playouts"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert "| `sultan-36` | bench-test | 2 | - | - |" in players.stdout  # ours has played none yet
    done = subprocess.run(
        [*base, "--deals", "3", "--sides", "ours", "greedy-dfs", "playouts"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=240,
    )
    lines = [json.loads(line) for line in progress.read_text().splitlines()]
    assert [(r["deal"], sorted(r["sides"])) for r in lines] == [
        (0, ["greedy-dfs", "playouts"]),
        (1, ["greedy-dfs", "playouts"]),
        (0, ["ours"]),
        (1, ["ours"]),
        (2, ["greedy-dfs", "ours", "playouts"]),
    ]
    assert "| `sultan-36` | bench-test | 3 |" in done.stdout


def test_head_to_head_bench_never_empties_a_progress_file(tmp_path: Path) -> None:
    """A run without --resume on a progress file that holds deals is refused (it held hours of CPU once, and a
    render asked with --deals emptied it); so is a run with no side to play. The file is as it was."""
    progress = tmp_path / "progress.jsonl"
    line = {"game": "sultan-36", "label": "bench-test", "deal": 0, "seconds": 2.0, "sides": {}}
    progress.write_text(json.dumps(line) + "\n")
    base = [sys.executable, str(ROOT / "bench" / "head_to_head_bench.py"), "--games", "sultan-36"]
    base += ["--seed-label", "bench-test", "--seconds", "2", "--progress", str(progress), "--deals", "1"]
    for extra in ([], ["--render"], ["--resume", "--sides"]):
        run = subprocess.run([*base, *extra], cwd=ROOT, capture_output=True, text=True, timeout=240)
        assert run.returncode == 2 and ("--resume" in run.stderr or "no side" in run.stderr), run.stderr
        assert progress.read_text() == json.dumps(line) + "\n"
