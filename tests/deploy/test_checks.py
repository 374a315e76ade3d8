"""The checks CI runs before the tests: tools/check_proto.py (buf lint and buf breaking) passes today's API and
catches planted faults, and the pre-commit hooks run what deploy/test.sh runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROTO = "patience/v1/patience.proto"


def check(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "check_proto.py"), "--proto-root", str(tree)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def planted(tmp_path: Path, change: tuple[str, str]) -> Path:
    tree = tmp_path / "proto"
    (tree / "patience" / "v1").mkdir(parents=True)
    text = (ROOT / "proto" / PROTO).read_text()
    pattern, replacement = change
    changed, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
    assert count == 1, pattern
    (tree / PROTO).write_text(changed)
    return tree


def test_the_api_passes_lint_and_breaking() -> None:
    result = check(ROOT / "proto")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("change", "finding"),
    [
        # a new message whose name is not PascalCase: a style rule
        ((r"\Z", "\nmessage apply_move_note {}\n"), "buf lint"),
        # a released field renumbered: a breaking change
        ((r"int64 expected_version = 2;", "int64 expected_version = 9;"), "buf breaking"),
        # a released RPC removed: a breaking change
        ((r"^\s*rpc ListVariants\(", "  rpc ListVariantsRenamed("), "buf breaking"),
    ],
)
def test_planted_faults_are_caught(tmp_path: Path, change: tuple[str, str], finding: str) -> None:
    result = check(planted(tmp_path, change))
    assert result.returncode == 1, result.stdout + result.stderr
    assert finding in result.stderr


def test_buf_is_installed_by_the_set_up() -> None:
    assert shutil.which("buf", path=str(ROOT / "tools" / "node_modules" / ".bin")), "run deploy/setup.sh"


def test_the_pre_commit_hooks_run_every_check_of_the_test_command() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    entries = {hook["entry"] for repo in config["repos"] for hook in repo["hooks"]}
    script = (ROOT / "deploy" / "test.sh").read_text().splitlines()
    # "ruff check ." in the script is "ruff check <the changed files>" in a hook
    checks = [
        line.strip().removesuffix(" .") for line in script if line.startswith(".venv/bin/") and "pytest" not in line
    ]
    assert checks, "deploy/test.sh runs no check before the tests?"
    assert set(checks) <= entries, set(checks) - entries
