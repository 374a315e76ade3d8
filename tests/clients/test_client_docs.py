"""The client docs stay true: the API reference is fresh, the quick start names real commands."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from patience_client import cli

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "clients" / "python" / "tools" / "api_reference.py"


def test_the_api_reference_is_fresh() -> None:
    run = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr + "\nregenerate: .venv/bin/python clients/python/tools/api_reference.py"


def test_the_api_reference_covers_every_public_method() -> None:
    text = (ROOT / "docs" / "client-api.md").read_text()
    from patience_client import AsyncPatienceClient, PatienceClient

    for cls in (PatienceClient, AsyncPatienceClient):
        for name in vars(cls):
            if not name.startswith("_"):
                assert f"`{name}(" in text, name


def test_every_command_in_the_quick_start_exists() -> None:
    text = (ROOT / "docs" / "client-quickstart.md").read_text()
    parser = cli.build_parser()
    used = set(re.findall(r"patience-cli (?:--?\S+ )*([a-z][a-z-]+)", text))
    assert used, "the quick start uses no command"
    for command in used:  # argparse keeps its subcommands to itself: a command exists if it shows its help
        with (
            pytest.raises(SystemExit) as exit,
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            parser.parse_args([command, "--help"])
        assert exit.value.code == 0, f"no command {command!r}"
    assert {"new", "play", "solve", "submit", "verify-cert"} <= used
