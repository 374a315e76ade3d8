"""bench/salic_scans_bench.py and bench/captives_late_bench.py: each runs both cores of every late scan, stops if they
disagree, and writes a row a scan with both CPU figures (a small run: the figures themselves are docs/solver.md's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.solver import compiled_captives, compiled_salic, search

ROOT = Path(__file__).resolve().parents[2]


def run(script: str, out: Path, *args: str) -> None:
    command = [sys.executable, str(ROOT / "bench" / script), "--deals", "2", "--rounds", "2", *args, "--json", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(not compiled_salic.built(), reason="the compiled salic-law scans are not built")
def test_the_salic_bench_gives_a_row_per_late_scan(tmp_path: Path) -> None:
    out = tmp_path / "salic.json"
    run("salic_scans_bench.py", out, "--states", "300")
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == len(search.LATE_BY_KIND)
    assert all(r["positions"] > 0 and r["python_us"] > 0 and r["c_us"] > 0 for r in rows)


@pytest.mark.skipif(not compiled_captives.built(), reason="the compiled captives scans are not built")
def test_the_captives_bench_gives_a_row_per_late_scan(tmp_path: Path) -> None:
    out = tmp_path / "captives.json"
    run("captives_late_bench.py", out, "--states", "200")
    rows = json.loads(out.read_text())
    assert len(rows) == len(search.LATE_CAPTIVES)
    assert all(r["positions"] > 0 and r["python_us"] > 0 and r["c_us"] > 0 for r in rows)
