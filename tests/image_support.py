"""The service image for tests: built by deploy/build-image.sh, run with buildah.

CI has no Docker engine, so buildah builds the image and ``buildah run --isolation chroot`` runs it: the
container's process runs chrooted into the image's root filesystem, as the image's user, with the image's
environment, and in the host's network namespace. Two containers therefore listen on ports of their own (the
``PATIENCE_*_LISTEN`` variables are the one thing a test changes, as a port mapping would); Redis on loopback is
reachable from inside. ``buildah run`` does not pass SIGTERM on gracefully, so a test signals the container's
main process itself, as ``docker stop`` does.

The deployments' environments (compose's, with compose's ``${VAR:-default}`` resolved as ``docker compose``
resolves it from the shell; the Kubernetes ConfigMap's) are read here, and :func:`in_test` changes only
:data:`TEST_OVERRIDES` of them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis_support
import yaml

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "deploy" / "build-image.sh"
LISTEN_VARS = ("PATIENCE_LISTEN", "PATIENCE_HTTP_LISTEN", "PATIENCE_METRICS_LISTEN")
BUILD_TIMEOUT = 1800  # a first build makes the Debian base too (mmdebstrap): a minute or two on a good network
COMPOSE = ROOT / "deploy" / "compose.yaml"
COMPOSE_TLS = ROOT / "deploy" / "compose.tls.yaml"
K8S_BASE = ROOT / "deploy" / "k8s" / "base"
KEYS_IN_IMAGE = "/etc/patience/keys"
APP_UID = 10001
#: What a test changes of a deployment's environment: the Redis (the test's own, on loopback), the listen
#: ports (containers share the host's network here, as a port mapping would separate them) and the operator
#: key that compose reads from the operator's shell.
TEST_OVERRIDES = {"PATIENCE_REDIS_URL", "PATIENCE_OPERATOR_KEY", "PATIENCE_OPERATOR_LISTEN", *LISTEN_VARS}
OPERATOR_KEY = "image-test-operator-key-0123456789"
#: The capabilities ``buildah run`` gives a container's root by default.
BUILDAH_CAPS = (
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_NET_BIND_SERVICE",
    "CAP_SETFCAP",
    "CAP_SETGID",
    "CAP_SETPCAP",
    "CAP_SETUID",
    "CAP_SYS_CHROOT",
)
_COMPOSE_VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def compose_service(name: str = "patience", path: Path = COMPOSE) -> dict[str, Any]:
    service = load_yaml(path)["services"][name]
    assert isinstance(service, dict)
    return service


def interpolated(value: str, shell: Mapping[str, str]) -> str:
    """A compose value as ``docker compose`` passes it on: ``${NAME:-default}`` and ``${NAME}`` from the shell's
    variables (an unset or empty one gives the default)."""
    out = _COMPOSE_VARIABLE.sub(lambda m: shell.get(m[1]) or (m[2] or ""), value)
    assert "$" not in out, f"a compose value this helper cannot resolve: {value}"
    return out


def compose_env(shell: Mapping[str, str] | None = None, overlays: tuple[Path, ...] = ()) -> dict[str, str]:
    """The service's environment in compose.yaml (then each overlay's, merged on top, as ``docker compose -f
    compose.yaml -f OVERLAY`` merges it), resolved with ``shell`` as the operator's shell variables (none)."""
    env: dict[str, Any] = dict(compose_service()["environment"])
    for overlay in overlays:
        env.update(compose_service(path=overlay).get("environment", {}))
    return {key: interpolated(str(value), shell or {}) for key, value in env.items()}


def k8s_env() -> dict[str, str]:
    """The ConfigMap's settings; the container's own `env` entries are optional Secrets, absent here."""
    return {k: str(v) for k, v in load_yaml(K8S_BASE / "configmap.yaml")["data"].items()}


def in_test(env: dict[str, str], redis_url: str) -> dict[str, str]:
    """A deployment's environment with only TEST_OVERRIDES changed."""
    out = dict(env)
    out["PATIENCE_REDIS_URL"] = redis_url
    for var in LISTEN_VARS:
        out[var] = f"127.0.0.1:{redis_support.free_port()}"
    if "PATIENCE_OPERATOR_LISTEN" in out:
        out["PATIENCE_OPERATOR_LISTEN"] = f"127.0.0.1:{redis_support.free_port()}"
    if "PATIENCE_OPERATOR_KEY" in out:
        out["PATIENCE_OPERATOR_KEY"] = OPERATOR_KEY
    return out


def buildah() -> str:
    path = shutil.which("buildah")
    if path is None:
        pytest.fail("buildah is not installed: deploy/setup.sh installs it (the image must build in CI)", pytrace=False)
    return path


@dataclass(frozen=True)
class Image:
    """A built image: its tags, the build script's figures and the image's own configuration."""

    tags: list[str]
    report: dict[str, Any]
    config: dict[str, Any]
    build_output: str

    @property
    def ref(self) -> str:
        return str(self.report["id"])

    @property
    def entry_command(self) -> list[str]:
        return [*(self.config.get("Entrypoint") or []), *(self.config.get("Cmd") or [])]

    @property
    def healthcheck(self) -> list[str]:
        test = (self.config.get("Healthcheck") or {}).get("Test") or []
        assert test[:1] == ["CMD"], f"the HEALTHCHECK is in the exec form: {test}"
        return [str(t) for t in test[1:]]

    @property
    def env(self) -> dict[str, str]:
        return dict(item.split("=", 1) for item in self.config.get("Env") or [])


def build(shared_tmp: Path) -> Image:
    """Run deploy/build-image.sh once for every pytest worker (a file lock; buildah's layer cache makes a
    rebuild of unchanged content quick) and read what it built."""
    tool = buildah()
    shared_tmp.mkdir(parents=True, exist_ok=True)
    report = shared_tmp / f"image-report-{os.getpid()}.json"
    env = {**os.environ, "PATIENCE_IMAGE_ENGINE": "buildah", "PATIENCE_IMAGE_REPORT": str(report)}
    with (shared_tmp / "image-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            result = subprocess.run(
                ["bash", str(BUILD_SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT
            )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if result.returncode != 0:
        pytest.fail(f"deploy/build-image.sh failed:\n{result.stdout}\n{result.stderr[-6000:]}", pytrace=False)
    figures = json.loads(report.read_text())
    inspected = subprocess.run(
        [tool, "inspect", "--type", "image", figures["id"]], capture_output=True, text=True, timeout=60, check=True
    )
    config = json.loads(inspected.stdout)["Docker"]["config"]
    return Image(figures["tags"], figures, config, result.stdout)


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, read from /proc (each process's parent is in its stat line)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _cmdline(pid: int) -> list[str]:
    with contextlib.suppress(OSError):
        return [p.decode() for p in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if p]
    return []


class Container:
    """A working container of the image (``buildah from``), removed on :meth:`remove`."""

    def __init__(self, image: Image) -> None:
        self.image = image
        self.name = f"patience-test-{uuid.uuid4().hex[:12]}"
        subprocess.run(
            [buildah(), "from", "--pull=never", "--name", self.name, image.ref],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )

    def _run_args(
        self, command: list[str], env: dict[str, str], volumes: list[str], user: str = "", caps: tuple[str, ...] = ()
    ) -> list[str]:
        # No capabilities, as compose (cap_drop: ALL) and the Kubernetes manifests run it; a one-shot job of
        # compose's may keep some and run as another user (compose.tls.yaml's, as root with CHOWN). buildah's
        # `--cap-drop all` wins over any `--cap-add`: the others are dropped one by one then.
        args = [buildah(), "run", "--isolation", "chroot"]
        if caps:
            assert set(caps) <= set(BUILDAH_CAPS), caps
            args += [arg for cap in BUILDAH_CAPS if cap not in caps for arg in ("--cap-drop", cap)]
        else:
            args += ["--cap-drop", "all"]
        if user:
            args += ["--user", user]
        for volume in volumes:
            args += ["--volume", volume]
        for key, value in env.items():
            args += ["--env", f"{key}={value}"]
        return [*args, self.name, "--", *command]

    def start(self, command: list[str], env: dict[str, str], volumes: list[str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("wb") as sink:
            return subprocess.Popen(self._run_args(command, env, volumes), stdout=sink, stderr=subprocess.STDOUT)

    def exec(
        self,
        command: list[str],
        env: dict[str, str],
        volumes: tuple[str, ...] | list[str] = (),
        timeout: float = 60,
        user: str = "",
        caps: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` in the container (a second process beside a running one, as HEALTHCHECK does), as the
        image's user unless ``user`` says otherwise, with no capabilities but ``caps``."""
        args = self._run_args(command, env, list(volumes), user, caps)
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout)

    @contextlib.contextmanager
    def mounted(self) -> Iterator[Path]:
        """The container's root filesystem, mounted on the host for reading."""
        path = subprocess.run(
            [buildah(), "mount", self.name], capture_output=True, text=True, timeout=60, check=True
        ).stdout.strip()
        try:
            yield Path(path)
        finally:
            subprocess.run([buildah(), "umount", self.name], capture_output=True, timeout=60)

    def remove(self) -> None:
        subprocess.run([buildah(), "rm", self.name], capture_output=True, timeout=120)


@dataclass
class Service:
    """The image's entry command running in a container: the ``buildah run`` process and the server in it."""

    container: Container
    env: dict[str, str]
    volumes: list[str]
    log: Path
    process: subprocess.Popen[bytes]
    pid: int = 0
    ports: dict[str, int] = field(default_factory=dict)

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.ports['PATIENCE_LISTEN']}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['PATIENCE_HTTP_LISTEN']}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['PATIENCE_METRICS_LISTEN']}/metrics"

    def find_main_process(self, timeout: float = 30) -> int:
        """The server's pid: the descendant of ``buildah run`` that runs the entry command in the image's root."""
        deadline = time.monotonic() + timeout
        command = self.container.image.entry_command
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the container exited with {self.process.returncode}:\n{self.output()}"
            for pid in _descendants(self.process.pid):
                with contextlib.suppress(OSError):
                    line = _cmdline(pid)  # buildah resolves the program on the image's PATH
                    runs = line[1:] == command[1:] and Path(line[0]).name == Path(command[0]).name
                    if runs and os.readlink(f"/proc/{pid}/root") != "/":
                        self.pid = pid
                        return pid
            time.sleep(0.1)
        raise AssertionError(f"no process runs {command} in the container:\n{self.output()}")

    def healthcheck(self) -> subprocess.CompletedProcess[str]:
        """The image's own HEALTHCHECK command, run in the container with the container's environment."""
        return self.container.exec(self.container.image.healthcheck, self.env, self.volumes, timeout=30)

    def wait_healthy(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the container exited with {self.process.returncode}:\n{self.output()}"
            probe = self.healthcheck()
            if probe.returncode == 0:
                return
            last = probe.stdout + probe.stderr
            time.sleep(0.5)
        raise AssertionError(f"the HEALTHCHECK never passed: {last}\n{self.output()}")

    def send_sigterm(self) -> None:
        """SIGTERM to the server, as a container runtime stops a container (``buildah run`` then exits with the
        server's status)."""
        os.kill(self.pid, signal.SIGTERM)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def records(self) -> list[dict[str, Any]]:
        """The JSON log lines the server wrote."""
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.startswith("{")]

    def stop(self) -> None:
        if self.process.poll() is None:
            if self.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
            self.process.kill()
            self.process.wait(30)


def start_service(container: Container, env: dict[str, str], volumes: list[str], log: Path) -> Service:
    """Run the image's entry command with ``env`` on top of the image's; ports come from the listen variables."""
    ports = {var: int(env[var].rsplit(":", 1)[1]) for var in LISTEN_VARS if var in env}
    process = container.start(container.image.entry_command, env, volumes, log)
    service = Service(container, env, volumes, log, process, ports=ports)
    try:
        service.find_main_process()
        service.wait_healthy()
    except BaseException:
        service.stop()
        raise
    return service
