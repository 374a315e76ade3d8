"""patience-client is its own distribution: it imports the core (engine, API, certificates), never the service."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import patience_client

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"

BLOCK_SERVICE = """
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "service" or name.startswith("service.") or name == "redis" or name.startswith("redis."):
            raise ImportError(f"patience_client imported {name}")
        return None
sys.meta_path.insert(0, Block())
import patience_client
for mod in pkgutil.walk_packages(patience_client.__path__, "patience_client."):
    importlib.import_module(mod.name)
from patience_client import cli
try:
    cli.main(["--help"])
except SystemExit as exc:
    assert exc.code == 0
print("ok", sorted(m for m in sys.modules if m.split(".")[0] in ("service", "redis")))
"""


def test_the_client_never_imports_the_service_or_redis() -> None:
    run = subprocess.run([sys.executable, "-c", BLOCK_SERVICE], capture_output=True, text=True, cwd=CLIENT, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().endswith("ok []")


def test_its_distribution_names_the_command_and_no_service_dependency() -> None:
    meta = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]
    assert meta["name"] == "patience-client"
    assert meta["scripts"] == {"patience-cli": "patience_client.cli:main"}
    deps = [d.split(">")[0].split("=")[0].split("<")[0].strip() for d in meta["dependencies"]]
    assert "redis" not in deps and "patience-service" not in deps
    assert "patience-core[grpc]" in deps  # the root distribution: engine, patience.v1, patience.certificates
    assert "cryptography" in deps and "grpcio-status" in deps
    assert (CLIENT / "patience_client" / "py.typed").exists()
    assert Path(patience_client.__file__).resolve().is_relative_to(CLIENT)


def test_the_installed_command_runs() -> None:
    program = Path(sys.executable).parent / "patience-cli"
    args = [str(program)] if program.exists() else [sys.executable, "-m", "patience_client.cli"]
    run = subprocess.run([*args, "--help"], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "verify-cert" in run.stdout and "PATIENCE_TARGET" in run.stdout
