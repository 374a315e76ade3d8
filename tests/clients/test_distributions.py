"""The three distributions build from a checkout and install into a fresh virtualenv, and the client brings
none of the service's dependencies with it.

The sources the three pyproject files need are copied out of the repository (so the builds leave nothing in
it) and built into wheels; a new virtualenv gets them one at a time in README.md's order (the core alone, the
client, then the service), each with its dependencies from the package index pip is configured with (pip's
cache makes later runs quick). deploy/setup.sh (editable) and deploy/Dockerfile (`pip install . ./service`)
build the same pyproject files in their own way.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from client_harness import seed_for, solution_for
from patience.certificates import CertificateContents, CertificateReason
from patience_client.certificates import keys_to_json

from engine.verify import verify
from service.security.signing import KeyRing

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: What the three pyproject files build from; nothing else of the repository goes into a distribution.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "engine", "proto", "service", "clients/python")
#: The service's own dependencies (service/pyproject.toml): none may come with the client.
SERVICE_ONLY = {
    "redis",
    "hiredis",
    "starlette",
    "uvicorn",
    "httptools",
    "limits",
    "prometheus-client",
    "opentelemetry-sdk",
    "opentelemetry-exporter-otlp-proto-http",
    "patience-service",
}
SEED = seed_for(7)


def run(*args: str | Path, cwd: Path | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, check=False, timeout=600)
    if ok:
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done


class Fresh:
    """A new virtualenv outside the repository, and a copy of the sources to install from."""

    def __init__(self, base: Path) -> None:
        self.src = base / "checkout"
        (self.src / "clients").mkdir(parents=True)
        for name in SOURCES:
            source, target = ROOT / name, self.src / name
            if source.is_dir():
                # *.so, *.o: the editable install's compiled search, which the wheel must build itself
                junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "node_modules", "*.so", "*.o")
                shutil.copytree(source, target, ignore=junk)
            else:
                shutil.copy2(source, target)
        self.wheels = base / "wheels"
        # The test tools' setuptools builds them (no build isolation: nothing to download for the build).
        pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
        run(*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", self.wheels, *self.projects(), cwd=base)
        self.venv = base / "venv"
        run(sys.executable, "-m", "venv", "--without-pip", self.venv)  # this pip installs into it (--python)
        self.bin = self.venv / "bin"
        self.pip_into = (*pip, "--python", self.bin / "python")
        self.core_only: set[str] = set()  # what was installed with the core alone
        self.core_check = ""

    def projects(self) -> list[Path]:
        return [self.src, self.src / "service", self.src / "clients" / "python"]

    def install(self, distribution: str) -> None:
        """One of the built wheels, with its dependencies (a patience-* one only from the wheels, by path)."""
        (wheel,) = self.wheels.glob(f"{distribution.replace('-', '_')}-*.whl")
        run(*self.pip_into, "install", "-q", wheel, cwd=self.venv)

    def installed(self) -> set[str]:
        listed = run(*self.pip_into, "list", "--format=json")
        return {entry["name"].lower().replace("_", "-") for entry in json.loads(listed.stdout)}

    def python(self, code: str) -> str:
        return run(self.bin / "python", "-c", code, cwd=self.venv).stdout


#: Checks the core's certificate reader in a virtualenv that has only the core: a certificate of nobody's key.
CORE_ONLY = """
import sys
from patience.certificates import verify_certificate
from patience.v1 import patience_pb2
import engine.verify
print(verify_certificate(b'{"key_id":"k","payload":"","signature":""}', {}).reason, "grpc" in sys.modules)
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fresh]:
    env = Fresh(tmp_path_factory.mktemp("distributions"))
    env.install("patience-core")  # README.md: the core first (or with the client, in one command)
    env.core_only, env.core_check = env.installed(), env.python(CORE_ONLY)
    env.install("patience-client")
    yield env


def test_the_core_alone_needs_no_grpc(fresh: Fresh) -> None:
    assert {"patience-core", "protobuf", "googleapis-common-protos", "cryptography"} <= fresh.core_only
    assert "grpcio" not in fresh.core_only and not fresh.core_only & SERVICE_ONLY
    assert fresh.core_check.split() == [CertificateReason.UNKNOWN_KEY, "False"]


def test_the_core_wheel_is_platform_specific_and_holds_the_compiled_search(fresh: Fresh) -> None:
    (wheel,) = fresh.wheels.glob("patience_core-*.whl")
    assert not wheel.name.endswith("-none-any.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("_kingchain_c", "_salic_c", "_captives_c"):
        assert [n for n in names if n.startswith(f"engine/solver/{module}") and n.endswith(".so")], (module, names)
    check = "from engine.solver import compiled; print(compiled.built(), compiled.__file__)"
    built, where = fresh.python(check).split()
    assert built == "True" and where.startswith(str(fresh.venv)), where
    for seam in ("compiled_salic", "compiled_captives"):
        assert fresh.python(f"from engine.solver import {seam}; print({seam}.built())").strip() == "True", seam


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real certificate of a won game and its keys file (and beside them one of a game short of its win)."""
    moves = tuple(solution_for("sultan-36", SEED))
    verdict = verify("sultan-36", {}, SEED, moves)
    contents = CertificateContents(
        game_id="g-fresh",
        variant="sultan-36",
        options={},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=moves,
        move_count=len(moves),
        undo_count=0,
        started_at=1_700_000_000_000,
        finished_at=1_700_000_090_000,
        final_state_hash=verdict.final_hash,
        played="moves",
    )
    ring = KeyRing.generate()
    base = tmp_path_factory.mktemp("certificate")
    cert, keys = base / "win.cert", base / "keys.json"
    cert.write_bytes(ring.sign(contents))
    keys.write_text(keys_to_json({kid: raw for kid, raw, _ in ring.public_keys()}))
    shorter = replace(contents, moves=moves[:-1], move_count=len(moves) - 1)  # signed, but no longer a win
    (base / "short.cert").write_bytes(ring.sign(shorter))
    return cert, keys


def test_the_client_installs_without_the_services_dependencies(fresh: Fresh) -> None:
    installed = fresh.installed()
    assert {"patience-core", "patience-client", "grpcio", "protobuf", "cryptography"} <= installed
    assert not installed & SERVICE_ONLY, sorted(installed & SERVICE_ONLY)


def test_the_installed_client_runs_and_imports_no_service(fresh: Fresh) -> None:
    helped = run(fresh.bin / "patience-cli", "--help", cwd=fresh.venv)
    assert "verify-cert" in helped.stdout
    assert "variants" in run(fresh.bin / "patience", "--help", cwd=fresh.venv).stdout  # the core's command
    loaded = fresh.python(
        "import importlib, pkgutil, sys, engine, patience, patience_client\n"
        "for pkg in (engine, patience, patience_client):\n"
        "    for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(mod.name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'service', 'redis', 'starlette', 'uvicorn'}))"
    )
    assert loaded.strip() == "[]"


def test_the_installed_client_verifies_a_certificate_offline(fresh: Fresh, signed: tuple[Path, Path]) -> None:
    cert, keys = signed
    checked = run(fresh.bin / "patience-cli", "verify-cert", cert, "--keys", keys, "--replay", cwd=fresh.venv)
    assert "certificate valid" in checked.stdout and "replayed with the engine: won" in checked.stdout
    refused = run(
        fresh.bin / "patience-cli", "verify-cert", cert.parent / "short.cert", "--keys", keys, "--replay", ok=False
    )
    assert refused.returncode == 1 and "NOT valid: NOT_WON" in refused.stdout
    forged = bytearray(cert.read_bytes())
    at = forged.index(b'"signature":"') + 14  # one base64 digit of the signature, changed for another digit (a
    forged[at] = ord("B") if forged[at] == ord("A") else ord("A")  # flipped bit could make it no digit at all)
    (cert.parent / "forged.cert").write_bytes(bytes(forged))
    refused = run(fresh.bin / "patience-cli", "verify-cert", cert.parent / "forged.cert", "--keys", keys, ok=False)
    assert refused.returncode == 1 and "NOT valid: BAD_SIGNATURE" in refused.stdout


def test_the_service_installs_after_them_with_every_module(fresh: Fresh) -> None:
    fresh.install("patience-service")  # README.md: `pip install . ./service`, the core being in already
    assert "patience-service" in fresh.installed()
    assert "--redis-url" in run(fresh.bin / "patience-filler", "--help", cwd=fresh.venv).stdout  # its command
    shipped = fresh.python(
        "import importlib.resources, service.server, service.rest.app\n"
        "root = importlib.resources.files('service')\n"
        "print('\\n'.join(sorted(str(p.relative_to(root)) for p in root.rglob('*.py'))))"
    )
    ours = sorted(str(p.relative_to(ROOT / "service")) for p in (ROOT / "service").rglob("*.py"))
    assert shipped.split() == [name for name in ours if not name.startswith("build/")]  # an in-tree build's copy
