"""What CI can check of the deployment without a Docker engine or a cluster.

- hadolint on deploy/Dockerfile, yamllint on compose and every manifest;
- the Kubernetes manifests, each file and each kustomization as rendered, against the API schemas
  (kubernetes-validate, strict: unknown fields are errors);
- the wiring that no linter sees: every PATIENCE_* variable the Dockerfile, compose and the ConfigMap set is a
  real setting; selectors match pod labels; probes use gRPC health; keys are mounted read-only;
- the image's build stage, emulated outside a container: its ARG/ENV/WORKDIR/COPY/RUN instructions run in a
  temporary root (the image's /opt/venv mapped into it), so the proto is compiled and the project installed
  exactly as `docker build` would (only the base image and the root-only user creation are not reproduced);
- a smoke test that runs the image's exact ENTRYPOINT + CMD with the image's ENV and that built virtualenv,
  against a real Redis, and probes it with the image's exact HEALTHCHECK command until it answers SERVING.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
K8S = DEPLOY / "k8s"
BIN = Path(sys.executable).parent
KUBERNETES_VERSION = "1.30.0"  # the oldest release we claim (native gRPC probes are GA since 1.27)


def tool(name: str) -> str:
    """A linter installed with the `test` extra, next to this interpreter; a missing one is a failure."""
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: `pip install -e '.[test]'` (deploy/setup.sh does it)", pytrace=False)
    return found


def run(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120, **kwargs)


# --------------------------------------------------------------------------------------------- Dockerfile


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile_instructions()
    last_from = max(i for i, (word, _) in enumerate(instructions) if word == "FROM")
    return instructions[last_from:]


def image_env() -> dict[str, str]:
    """The runtime stage's ENV, in the `ENV K=V K2=V2` form this Dockerfile uses."""
    env: dict[str, str] = {}
    for word, rest in final_stage():
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def exec_form(word: str) -> list[str]:
    for w, rest in reversed(final_stage()):
        if w == word:
            value = json.loads(rest)
            assert isinstance(value, list), f"{word} must use the exec (JSON) form, so SIGTERM reaches the server"
            return [str(v) for v in value]
    return []


def entry_command() -> list[str]:
    return exec_form("ENTRYPOINT") + exec_form("CMD")


def healthcheck_command() -> list[str]:
    for word, rest in reversed(final_stage()):
        if word == "HEALTHCHECK":
            cmd = rest[rest.index("CMD ") + 4 :].strip()
            return [str(v) for v in json.loads(cmd)]
    pytest.fail("the runtime stage has no HEALTHCHECK")


#: Reaches outside the repository that no script, test or doc may make (spelled in pieces so this file passes).
OUTSIDE = ("/" + "work/", "../" + "shared", "PATIENCE_" + "SHARED_DIR", "/" + "root/")
_SKIP_DIRS = {".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache", ".hypothesis", "__pycache__"}


def test_the_repository_reaches_nothing_outside_itself() -> None:
    """The set-up, the tests and the docs work from a fresh clone alone: no machine path, no sibling folder."""
    found = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if not path.is_file() or _SKIP_DIRS & set(rel.parts) or rel.parts[0].endswith(".egg-info"):
            continue
        if path.suffix in {".jpg", ".png", ".svg"} or rel.parts[:3] == ("tests", "data", "fcs"):
            continue
        text = path.read_text(errors="replace")
        found += [f"{rel}: {needle}" for needle in OUTSIDE if needle in text]
    assert found == []
    assert (ROOT / "tools" / "build-fc-solve.sh").is_file()
    assert "tools/build-fc-solve.sh" in (DEPLOY / "setup.sh").read_text()


def test_hadolint_passes() -> None:
    result = run(tool("hadolint"), "--config", str(ROOT / ".hadolint.yaml"), str(DOCKERFILE))
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_is_multistage_nonroot_with_grpc_healthcheck() -> None:
    instructions = dockerfile_instructions()
    assert sum(word == "FROM" for word, _ in instructions) >= 2, "build and runtime stages"
    runtime = final_stage()
    users = [rest for word, rest in runtime if word == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}, "the runtime stage runs as a non-root user"
    build_runs = " ".join(rest for word, rest in instructions[: len(instructions) - len(runtime)] if word == "RUN")
    assert "proto/generate.py" in build_runs, "the build stage compiles the proto"
    assert healthcheck_command()[:3] == ["python", "-m", "service.healthcheck"]
    assert entry_command()[:3] == ["python", "-m", "service"]
    assert not any(word == "RUN" and "pip install" in rest for word, rest in runtime), "no build tools at run time"


def test_dockerfile_copies_only_what_exists_and_dockerignore_lets_it_through() -> None:
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text()
    allowed = {line[1:].rstrip("/") for line in ignore.splitlines() if line.startswith("!")}
    for word, rest in dockerfile_instructions():
        if word == "COPY" and "--from=" not in rest:
            *sources, _dest = rest.split()
            for source in sources:
                name = source.rstrip("/")
                assert (ROOT / name).exists(), f"COPY {source}: no such file in the repository"
                assert name in allowed, f"COPY {source}: excluded by deploy/Dockerfile.dockerignore"


# ------------------------------------------------------------------------------------------------- YAML


def yaml_files() -> list[Path]:
    return sorted([COMPOSE, *K8S.rglob("*.yaml")])


def test_yamllint_passes() -> None:
    result = run(tool("yamllint"), "--strict", "-c", str(ROOT / ".yamllint"), *map(str, yaml_files()))
    assert result.returncode == 0, result.stdout + result.stderr


def known_settings() -> set[str]:
    from service import config

    return {spec.env for spec in config.specs()}


def assert_known(names: set[str], where: str) -> None:
    unknown = {n for n in names if n.startswith("PATIENCE_")} - known_settings()
    assert not unknown, f"{where} sets variables that service/config.py does not read: {sorted(unknown)}"


def test_image_env_names_real_settings() -> None:
    assert_known(set(image_env()), "deploy/Dockerfile")


def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def test_compose_two_replicas_over_persistent_redis() -> None:
    services = compose()["services"]
    server, redis, keys = services["patience"], services["redis"], services["keys"]
    assert server["deploy"]["replicas"] == 2
    assert server["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    assert server["depends_on"]["keys"]["condition"] == "service_completed_successfully"
    assert "keys:/etc/patience/keys:ro" in server["volumes"], "replicas mount the keys read-only"
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command, "Redis keeps an append-only file"
    assert "redis-data:/data" in redis["volumes"]
    assert "python -m service.keys generate --out /etc/patience/keys" in " ".join(keys["entrypoint"])
    assert_known(set(server["environment"]), "deploy/compose.yaml")
    assert server["environment"]["PATIENCE_REDIS_URL"].startswith("redis://redis:")


# ------------------------------------------------------------------------------------------- Kubernetes


def kustomization_dirs() -> list[Path]:
    return sorted(p.parent for p in K8S.rglob("kustomization.yaml"))


def kustomization(directory: Path) -> dict[str, Any]:
    data = yaml.safe_load((directory / "kustomization.yaml").read_text())
    assert isinstance(data, dict)
    return data


def patch_files() -> set[Path]:
    return {(d / p["path"]).resolve() for d in kustomization_dirs() for p in kustomization(d).get("patches", [])}


def resource_files() -> list[Path]:
    """Every manifest that is a whole object (not a kustomization, not a patch)."""
    patches = patch_files()
    return [p for p in sorted(K8S.rglob("*.yaml")) if p.name != "kustomization.yaml" and p.resolve() not in patches]


def test_every_manifest_is_listed_and_every_listed_file_exists() -> None:
    listed: set[Path] = set()
    for directory in kustomization_dirs():
        for entry in kustomization(directory).get("resources", []):
            target = (directory / entry).resolve()
            assert target.exists(), f"{directory}/kustomization.yaml lists {entry}, which does not exist"
            if target.is_file():
                listed.add(target)
    orphans = [p for p in resource_files() if p.resolve() not in listed]
    assert not orphans, f"manifests no kustomization uses: {orphans}"


def validate(*paths: Path) -> None:
    result = run(tool("kubernetes-validate"), "--strict", "--quiet", "-k", KUBERNETES_VERSION, *map(str, paths))
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_manifest_validates_against_the_kubernetes_schemas() -> None:
    validate(*resource_files())


def render(directory: Path) -> list[dict[str, Any]]:
    """kustomize's output, by kubectl's built-in kustomize (kubectl ships in the CI image)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with built-in kustomize) is not installed: the rendered overlays are not checked")
    result = run(kubectl, "kustomize", str(directory))
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


@pytest.mark.parametrize("directory", kustomization_dirs(), ids=lambda d: str(d.relative_to(ROOT)))
def test_rendered_kustomization_validates(directory: Path, tmp_path: Path) -> None:
    documents = render(directory)
    out = tmp_path / "rendered.yaml"
    out.write_text(yaml.safe_dump_all(documents))
    validate(out)


def by_kind(documents: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in documents}


def test_default_deployment_is_wired() -> None:
    objects = by_kind(render(K8S))
    deployment = objects[("Deployment", "patience")]
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    for kind, name in [("Service", "patience"), ("Service", "patience-headless")]:
        assert objects[(kind, name)]["spec"]["selector"].items() <= labels.items(), f"{name} selects the pods"
    assert objects[("PodDisruptionBudget", "patience")]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert objects[("HorizontalPodAutoscaler", "patience")]["spec"]["scaleTargetRef"]["name"] == "patience"

    container = pod["spec"]["containers"][0]
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["grpc"]["port"] == 50051, f"{probe} uses gRPC health checking"
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    keys = next(v for v in pod["spec"]["volumes"] if v["name"] == "keys")
    assert keys["secret"]["secretName"] == "patience-keys"
    assert next(m for m in container["volumeMounts"] if m["name"] == "keys")["readOnly"] is True

    config = objects[("ConfigMap", "patience")]["data"]
    assert_known(set(config), "deploy/k8s/base/configmap.yaml")
    assert config["PATIENCE_KEYS_DIR"] == "/etc/patience/keys"
    grace = float(config["PATIENCE_GRACE"])
    assert grace + 5 < pod["spec"]["terminationGracePeriodSeconds"], "the grace period ends before SIGKILL"

    redis = objects[("StatefulSet", "patience-redis")]
    assert "appendonly yes" in objects[("ConfigMap", "patience-redis")]["data"]["redis.conf"]
    assert redis["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "data"
    host = config["PATIENCE_REDIS_URL"].split("//")[1].split(":")[0]
    assert ("Service", host) in objects, "PATIENCE_REDIS_URL names the Redis Service"


def test_external_redis_overlay_takes_the_url_from_a_secret_and_drops_the_statefulset() -> None:
    objects = by_kind(render(K8S / "overlays" / "external-redis"))
    assert not any(kind == "StatefulSet" for kind, _ in objects)
    env = objects[("Deployment", "patience")]["spec"]["template"]["spec"]["containers"][0]["env"]
    url = next(e for e in env if e["name"] == "PATIENCE_REDIS_URL")
    assert url["valueFrom"]["secretKeyRef"] == {"name": "patience-redis", "key": "url"}


# ---------------------------------------------------------------------------------------------- smoke test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The image's own absolute paths that the emulated build maps under its temporary root.
IMAGE_PATHS = ("/opt/venv",)


class EmulatedImage:
    """What the build stage produced, under ``root``: the image's /opt/venv is ``root/opt/venv``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def rewrite(self, text: str) -> str:
        for path in IMAGE_PATHS:
            text = text.replace(path, f"{self.root}{path}")
        return text


def _expand(value: str, env: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m[1], ""), value)


def _copy_context(source: Path, target: Path) -> None:
    """COPY from the build context, leaving out what Dockerfile.dockerignore drops by name (``**/NAME``)."""
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    names = [line[3:] for line in ignore if line.startswith("**/")]

    def dropped(_dir: str, entries: list[str]) -> set[str]:
        return {e for e in entries if any(fnmatch.fnmatch(e, pattern) for pattern in names)}

    if source.is_dir():
        shutil.copytree(source, target, ignore=dropped, dirs_exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def build_stage() -> list[tuple[str, str]]:
    instructions = dockerfile_instructions()
    starts = [i for i, (word, _) in enumerate(instructions) if word == "FROM"]
    return instructions[starts[0] + 1 : starts[1]]


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> EmulatedImage:
    """Run the Dockerfile's build stage outside a container (needs the package index, as `docker build` does)."""
    built = EmulatedImage(tmp_path_factory.mktemp("image-root"))
    shim = built.root / "shim"  # the base image's `python`, before the virtualenv exists
    shim.mkdir()
    (shim / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PIP_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{shim}:{os.environ.get('PATH', '')}"
    workdir = built.root
    for word, rest in build_stage():
        if word == "ARG":
            name, _, default = rest.partition("=")
            env.setdefault(name, default)
        elif word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = built.rewrite(_expand(value, env))
        elif word == "WORKDIR":
            workdir = built.root / rest.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif word == "COPY":
            *sources, dest = rest.split()
            for source in sources:
                _copy_context(ROOT / source.rstrip("/"), workdir / dest.rstrip("/"))
        elif word == "RUN":
            result = subprocess.run(
                ["sh", "-c", built.rewrite(rest)], cwd=workdir, env=env, capture_output=True, text=True, timeout=900
            )
            assert result.returncode == 0, f"RUN {rest}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        else:
            pytest.fail(f"the build-stage emulation does not know {word}; teach it or keep the Dockerfile simple")
    return built


def test_build_stage_compiles_the_proto_and_installs_the_project(image: EmulatedImage) -> None:
    python = image.root / "opt" / "venv" / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import patience.v1.patience_pb2 as m, service; print(m.__file__, service.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=image.root,
    ).stdout.split()
    assert all(str(image.root / "opt" / "venv") in path for path in site), "installed, not read from the checkout"
    tools = subprocess.run([str(python), "-m", "pip", "show", "grpcio-tools"], capture_output=True, timeout=60)
    assert tools.returncode != 0, "grpcio-tools is gone from the runtime virtualenv"


def container_like_env(image: EmulatedImage, overrides: dict[str, str]) -> dict[str, str]:
    """This machine's environment without PATIENCE_* settings, plus the image's ENV, plus ``overrides``.

    The image's PATH puts its virtualenv first: here the emulated build's, so the commands run unchanged and
    their ``python`` is the image's.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PATIENCE_", "PROMETHEUS_", "VIRTUAL_ENV"))}
    for key, value in image_env().items():
        env[key] = image.rewrite(_expand(value, {"PATH": os.environ.get("PATH", "")}))
    env.update(overrides)
    return env


@pytest.fixture
def keys_dir(image: EmulatedImage, tmp_path: Path) -> Path:
    """Keys made by compose's `keys` job (its exact command, the path moved); run twice, as on every `up`."""
    directory = tmp_path / "keys"
    command = compose()["services"]["keys"]["entrypoint"]
    command = [str(c).replace("/etc/patience/keys", str(directory)) for c in command]
    for _ in range(2):
        result = subprocess.run(command, env=container_like_env(image, {}), capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (directory / "signing-key.pem").is_file()
    return directory


def wait_healthy(env: dict[str, str], process: subprocess.Popen[str], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        probe = subprocess.run(healthcheck_command(), env=env, capture_output=True, text=True, timeout=15)
        if probe.returncode == 0:
            return
        last = probe.stderr
        time.sleep(0.3)
    pytest.fail(f"the HEALTHCHECK never passed: {last}")


def test_image_entry_command_serves_and_passes_its_healthcheck(
    image: EmulatedImage, redis_db: str, keys_dir: Path, tmp_path: Path
) -> None:
    grpc_port, http_port, metrics_port = free_port(), free_port(), free_port()
    env = container_like_env(
        image,
        {
            "PATIENCE_LISTEN": f"127.0.0.1:{grpc_port}",
            "PATIENCE_HTTP_LISTEN": f"127.0.0.1:{http_port}",
            "PATIENCE_METRICS_LISTEN": f"127.0.0.1:{metrics_port}",
            "PATIENCE_REDIS_URL": redis_db,
            "PATIENCE_KEYS_DIR": str(keys_dir),
            "PATIENCE_GRACE": "5",
        },
    )
    workdir = tmp_path / "app"  # like the image's empty WORKDIR: the package must come from the install
    workdir.mkdir()
    log = tmp_path / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            entry_command(), env=env, cwd=workdir, stdout=sink, stderr=subprocess.STDOUT, text=True
        )
        try:
            wait_healthy(env, process)
            with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as reply:
                scraped = reply.read().decode()
            assert 'grpc_server_handled_total{grpc_code="OK",grpc_method="Check"' in scraped
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v1/variants", timeout=5) as reply:
                assert len(json.loads(reply.read())["variants"]) == 9, "REST answers on the image's HTTP port"
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v1/signing-keys", timeout=5) as reply:
                keys = json.loads(reply.read())["keys"]
            shown = subprocess.run(
                ["python", "-m", "service.keys", "show", "--dir", str(keys_dir), "--json"],
                env=env,
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            )
            assert [k["keyId"] for k in keys] == [json.loads(shown.stdout)["signing_keys"][0]["key_id"]], (
                "the server signs with the mounted key"
            )
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/", timeout=5) as reply:
                assert b"<html" in reply.read().lower(), "the web client is served"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0, "SIGTERM ends the server cleanly"
            probe = subprocess.run(healthcheck_command(), env=env, capture_output=True, text=True, timeout=15)
            assert probe.returncode == 1 and "UNAVAILABLE" in probe.stderr, "the HEALTHCHECK fails once it is gone"
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    records = [json.loads(line) for line in lines]
    assert any(r.get("msg") == "serving" for r in records), log.read_text()
    assert any(r.get("msg") == "stopped" for r in records), log.read_text()


@pytest.mark.parametrize(
    ("listen", "probed"),
    [
        ("0.0.0.0:50051", "127.0.0.1:50051"),
        ("[::]:7000", "127.0.0.1:7000"),
        (":7001", "127.0.0.1:7001"),
        ("10.1.2.3:7002", "10.1.2.3:7002"),
        ("localhost:7003", "localhost:7003"),
    ],
)
def test_healthcheck_probes_loopback_for_a_wildcard_listen_address(listen: str, probed: str) -> None:
    from service.healthcheck import probe_address

    assert probe_address(listen) == probed


def test_healthcheck_fails_without_a_port() -> None:
    from service.healthcheck import probe_address

    with pytest.raises(ValueError, match="no port"):
        probe_address("0.0.0.0")
