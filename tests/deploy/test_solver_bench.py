"""The solver's benchmark scripts still run end to end (tiny runs: their figures are checked for shape, not
speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_solvability_script_writes_a_row_per_configuration(tmp_path: Path) -> None:
    out = tmp_path / "solvability.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "solvability.py"), "--seeds", "2", "--max-states", "400",
         "--hint-seeds", "1", "--hint-samples", "2", "--hint-states", "50", "--variants", "sultan-36",
         "tribunal", "--json", str(out)],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    rows = json.loads(out.read_text())["rows"]
    assert [r["variant"] for r in rows] == ["tribunal", "sultan-36"]
    for r in rows:
        assert r["won"] + r["no_win"] + r["unknown"] == r["seeds"] == 2
        assert r["hint_seeds"] == 1 and 0 <= r["hint_wins"] <= 1
    assert "| `sultan-36` | defaults |" in done.stdout


def test_solvability_variants_name_one_option_set_with_its_options(tmp_path: Path) -> None:
    """``--variants id:options`` runs that option set alone (a long escalation of one row, not its twin)."""
    out = tmp_path / "solvability.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "solvability.py"), "--only", "solve", "--seeds", "1",
         "--max-states", "300", "--variants", "cats-tail:sequence_moves=false", "--json", str(out)],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    rows = json.loads(out.read_text())["rows"]
    assert [(r["variant"], r["options"]) for r in rows] == [("cats-tail", "sequence_moves=false")]


def test_solver_bench_runs_both_solvers_on_the_same_deal(tmp_path: Path) -> None:
    exe = os.environ.get("FC_SOLVE") or os.path.expanduser("~/.cache/fc-solve/bin/fc-solve")
    if not os.access(exe, os.X_OK):
        if os.environ.get("PATIENCE_SKIP_FCS") == "1":
            pytest.skip("fc-solve is missing and PATIENCE_SKIP_FCS=1")
        pytest.fail("fc-solve not found (env FC_SOLVE, ~/.cache/fc-solve/bin/fc-solve): deploy/setup.sh builds it")
    out = tmp_path / "bench.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "solver_bench.py"), "--deals", "1", "--seconds", "1",
         "--variants", "cats-tail", "--json", str(out)],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=600, env={**os.environ, "FC_SOLVE": exe},
    )  # fmt: skip
    (h,) = json.loads(out.read_text())["head_to_head"]
    assert h["variant"] == "cats-tail"
    assert h["fc_solve"]["deals"] == h["ours"]["deals"] == 1
    assert h["rows"][0]["fcs_cpu"] > 0 and h["rows"][0]["ours_cpu"] > 0


def test_solvability_render_merges_runs_of_different_games_in_catalogue_order(tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "bench" / "solvability.py")]
    tiny = ["--seeds", "2", "--max-states", "300", "--hint-seeds", "1", "--hint-samples", "2", "--hint-states", "30"]
    for variant in ("sultan-36", "tribunal"):  # the later game of the catalogue first
        subprocess.run(
            [*script, *tiny, "--variants", variant, "--progress", str(tmp_path / f"{variant}.jsonl")],
            cwd=ROOT, check=True, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    doc = tmp_path / "solvability.md"
    subprocess.run(
        [*script, "--render", str(tmp_path / "sultan-36.jsonl"), str(tmp_path / "tribunal.jsonl"), "--out", str(doc)],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    text = doc.read_text()
    assert text.index("| `tribunal` |") < text.index("| `sultan-36` |")
    lines = (tmp_path / "tribunal.jsonl").read_text().splitlines()
    assert [json.loads(x)["kind"] for x in lines] == ["settings", "solve", "follow", "solve"]
    assert "Not measured in this run" in text and "`captives`" in text.split("Not measured in this run")[1]


def test_solvability_resume_goes_on_where_a_run_stopped(tmp_path: Path) -> None:
    """--resume skips the deals the progress file holds: a run cut short and resumed has each deal once."""
    progress = tmp_path / "run.jsonl"
    script = [sys.executable, str(ROOT / "bench" / "solvability.py"), "--max-states", "300", "--hint-samples", "2",
              "--hint-states", "30", "--variants", "sultan-36", "--progress", str(progress)]  # fmt: skip
    subprocess.run(
        [*script, "--seeds", "1", "--hint-seeds", "1"], cwd=ROOT, check=True, capture_output=True, timeout=600
    )
    first = [json.loads(line) for line in progress.read_text().splitlines()]
    subprocess.run(
        [*script, "--seeds", "2", "--hint-seeds", "2", "--resume"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    records = [json.loads(line) for line in progress.read_text().splitlines()]
    assert records[: len(first)] == first
    deals = sorted((r["kind"], r["deal"]) for r in records if r["kind"] != "settings")
    assert deals == [("follow", 0), ("follow", 1), ("solve", 0), ("solve", 1)]


def test_solvability_escalate_gives_the_unknown_deals_the_larger_budget_and_counts_them_at_it(tmp_path: Path) -> None:
    """--resume --escalate runs again only the deals left unknown at a smaller budget; the table counts each deal
    at its largest budget, the CPU of both runs, and says how the unknown share fell."""
    progress, doc = tmp_path / "run.jsonl", tmp_path / "solvability.md"
    script = [sys.executable, str(ROOT / "bench" / "solvability.py"), "--only", "solve", "--seeds", "4",
              "--variants", "sultan-36", "--progress", str(progress)]  # fmt: skip
    for extra in (["--max-states", "20"], ["--max-states", "20000", "--resume", "--escalate"]):
        subprocess.run([*script, *extra], cwd=ROOT, check=True, capture_output=True, timeout=600)
    records = [json.loads(line) for line in progress.read_text().splitlines()]
    small = [r for r in records if r["kind"] == "solve" and r["max_states"] == 20]
    large = [r for r in records if r["kind"] == "solve" and r["max_states"] == 20000]
    assert len(small) == 4 and all(r["cpu"] >= 0 and r["states"] <= 20 for r in small)
    unknown = sorted(r["deal"] for r in small if r["outcome"] == "unknown")
    assert unknown, "a budget of 20 positions leaves some sultan-36 deal unknown"
    assert sorted(r["deal"] for r in large) == unknown
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "solvability.py"), "--render", str(progress), "--out", str(doc)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    row = next(line for line in doc.read_text().splitlines() if line.startswith("| `sultan-36`"))
    won = sum(r["outcome"] == "won" for r in small if r["deal"] not in unknown) + sum(
        r["outcome"] == "won" for r in large
    )
    assert f"({won}/4)" in row and "| 20,000 |" in row
    assert f"- `sultan-36` defaults: 20: {round(100 * len(unknown) / 4)}% -> 20,000:" in doc.read_text()


def test_a_budget_given_to_some_of_the_unknown_deals_is_told_as_partial() -> None:
    """A step of the unknown share counts only when every deal left unknown below it was given it: a run stopped
    early is said to be partial (the table once showed such a budget as if every deal had had it)."""
    from bench.solvability_doc import budgets, table, unknown_by_budget

    def record(deal: int, budget: int, outcome: str) -> dict[str, object]:
        return {"deal": deal, "max_states": budget, "outcome": outcome}

    first = [record(0, 10, "won"), record(1, 10, "unknown"), record(2, 10, "unknown"), record(3, 10, "unknown")]
    complete = [*first, record(1, 100, "won"), record(2, 100, "unknown"), record(3, 100, "no-win")]
    assert unknown_by_budget(complete) == [(10, 3, 4, 4), (100, 1, 3, 3)]
    partial = [*complete, record(2, 1000, "won")]
    assert unknown_by_budget(partial)[-1] == (1000, 0, 1, 1)  # the one deal open below was given it: complete
    stopped = [*first, record(1, 100, "won")]
    assert unknown_by_budget(stopped) == [(10, 3, 4, 4), (100, 2, 1, 3)]
    row = {"variant": "tribunal", "options": "", "seeds": 4, "unknown_by_budget": unknown_by_budget(stopped)}
    assert budgets([row]) == "- `tribunal` defaults: 10: 75% -> 100 on 1 of 3 so far: 50%"
    counts = {"won": 2, "no_win": 0, "unknown": 2, "median_length": 5, "hint_seeds": 0, "hint_wins": 0}
    shown = table([{**row, **counts, "median_hint_ms": None, "max_states": 100}], Namespace(max_states=10))
    assert "| `tribunal` | defaults | 10 (100 on 1 of 3) | 50% (2/4) |" in shown
    assert unknown_by_budget([*first[1:], record(0, 100, "won")]) == [(100, 3, 1, 4)]  # 10 not given to deal 0


def test_unseen_bench_resumes_runs_one_side_and_renders_the_table(tmp_path: Path) -> None:
    """bench/unseen_bench.py: a row per deal and side in the progress file, --side ours adds our fields to the
    deals fc-solve's side has played, --resume adds only what is missing, --render makes the table of
    docs/solver.md from the merged rows."""
    exe = os.environ.get("FC_SOLVE") or os.path.expanduser("~/.cache/fc-solve/bin/fc-solve")
    if not os.access(exe, os.X_OK):
        if os.environ.get("PATIENCE_SKIP_FCS") == "1":
            pytest.skip("fc-solve is missing and PATIENCE_SKIP_FCS=1")
        pytest.fail("fc-solve not found (env FC_SOLVE, ~/.cache/fc-solve/bin/fc-solve): deploy/setup.sh builds it")
    progress = tmp_path / "run.jsonl"
    script = [sys.executable, str(ROOT / "bench" / "unseen_bench.py")]

    def bench(*args: str) -> str:
        return subprocess.run(
            [*script, *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=600,
            env={**os.environ, "FC_SOLVE": exe},
        ).stdout  # fmt: skip

    deals = ["--seed-label", "bench-test", "--seconds", "1", "--variants", "cats-tail", "--progress", str(progress)]
    bench(*deals, "--deals", "2", "--side", "fcs")
    bench(*deals, "--deals", "2", "--side", "ours", "--resume")
    bench(*deals, "--deals", "3", "--resume")
    rows = [json.loads(line) for line in progress.read_text().splitlines()]
    sides = [(r["deal"], "fcs_won" in r, "ours_won" in r) for r in rows]
    assert sides == [(0, True, False), (1, True, False), (0, False, True), (1, False, True), (2, True, True)]
    out = tmp_path / "figures.json"
    table = bench("--render", str(progress), "--json", str(out))
    (figures,) = json.loads(out.read_text())
    assert figures["variant"] == "cats-tail" and figures["label"] == "bench-test" and figures["deals"] == 3
    merged: dict[int, dict[str, object]] = {}
    for r in rows:  # a later row's fields join (or replace) the earlier ones of its deal
        merged[r["deal"]] = {**merged.get(r["deal"], {}), **r}
    assert figures["fcs_won"] == sum(r["fcs_won"] for r in merged.values())
    assert figures["ours_won"] == sum(r["ours_won"] for r in merged.values())
    assert len(figures["only_fcs"]) + len(figures["only_ours"]) == sum(
        r["fcs_won"] != r["ours_won"] for r in merged.values()
    )
    assert "| `cats-tail` | `bench-test-<i>` | 3 |" in table
