"""What CI checks of the deployment files without building the image or a cluster.

- hadolint on deploy/Dockerfile, yamllint on compose and every manifest;
- the Kubernetes manifests, each file and each kustomization as rendered, against the API schemas
  (kubernetes-validate, strict: unknown fields are errors);
- the wiring that no linter sees: every PATIENCE_* variable the Dockerfile, compose and the ConfigMap set is a
  real setting; selectors match pod labels; probes use gRPC health; keys are mounted read-only;
- the health check's choice of address.

The image itself is built and run by tests/deploy/test_image.py.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
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
        pytest.fail(f"{name} is not installed: `pip install --group test` (deploy/setup.sh does it)", pytrace=False)
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
        if path.suffix in {".so", ".o"}:  # built in place (the compiled solver), never committed: they record
            continue  # the paths of the machine that built them
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
    assert healthcheck_command()[:3] == ["python", "-m", "service.grpc.healthcheck"]
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
                let_through = {str(parent) for parent in Path(name).parents} | {name}
                assert let_through & allowed, f"COPY {source}: excluded by deploy/Dockerfile.dockerignore"


# ------------------------------------------------------------------------------------------------- YAML


def yaml_files() -> list[Path]:
    return sorted([COMPOSE, *K8S.rglob("*.yaml")])


def test_yamllint_passes() -> None:
    result = run(tool("yamllint"), "--strict", "-c", str(ROOT / ".yamllint"), *map(str, yaml_files()))
    assert result.returncode == 0, result.stdout + result.stderr


def known_settings() -> set[str]:
    from service.settings import config

    return {spec.env for spec in config.specs()}


def assert_known(names: set[str], where: str) -> None:
    unknown = {n for n in names if n.startswith("PATIENCE_")} - known_settings()
    assert not unknown, f"{where} sets variables that service/settings/config.py does not read: {sorted(unknown)}"


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
    assert "python -m service.security.keys generate --out /etc/patience/keys" in " ".join(keys["entrypoint"])
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


def test_every_redis_has_a_maxmemory_and_never_evicts_a_game() -> None:
    """Past maxmemory Redis refuses writes whole and the service answers STORE_FULL
    (tests/service/test_store_limits.py);
    without one Redis grows until the machine or the container kills it."""
    command = yaml.safe_load(COMPOSE.read_text())["services"]["redis"]["command"]
    assert command[command.index("--maxmemory") + 1] == "256mb"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    conf = yaml.safe_load((DEPLOY / "k8s" / "redis" / "configmap.yaml").read_text())["data"]["redis.conf"]
    assert re.search(r"^maxmemory 768mb$", conf, re.M) and re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    run_local = (DEPLOY / "run-local.sh").read_text()
    assert "PATIENCE_LOCAL_REDIS_MAXMEMORY=${PATIENCE_LOCAL_REDIS_MAXMEMORY:-256mb}" in run_local
    main = (ROOT / "service" / "__main__.py").read_text()
    assert '"--maxmemory", maxmemory' in main and '"--maxmemory-policy", "noeviction"' in main


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


# ---------------------------------------------------------------------------------------------- health check


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
    from service.grpc.healthcheck import probe_address

    assert probe_address(listen) == probed


def test_healthcheck_fails_without_a_port() -> None:
    from service.grpc.healthcheck import probe_address

    with pytest.raises(ValueError, match="no port"):
        probe_address("0.0.0.0")


# ------------------------------------------------------------------------------------------- winnable fillers


def test_compose_runs_the_filler_apart_from_the_replicas() -> None:
    services = compose()["services"]
    server, filler = services["patience"], services["filler"]
    assert server["environment"]["PATIENCE_WINNABLE_FILLER"] == "off", "the replicas start no filler of their own"
    assert filler["entrypoint"] == ["python", "-m", "service.solving.filler"]
    assert filler["depends_on"]["redis"]["condition"] == "service_healthy"
    assert filler["healthcheck"] == {"disable": True}, "the image's gRPC health check does not fit a filler"
    assert_known(set(filler["environment"]), "deploy/compose.yaml (filler)")
    assert filler["environment"]["PATIENCE_REDIS_URL"] == server["environment"]["PATIENCE_REDIS_URL"]


def test_kubernetes_runs_the_filler_as_its_own_deployment() -> None:
    objects = by_kind(render(K8S))
    config = objects[("ConfigMap", "patience")]["data"]
    assert config["PATIENCE_WINNABLE_FILLER"] == "off", "production runs the fillers apart"
    filler = objects[("Deployment", "patience-filler")]
    pod = filler["spec"]["template"]
    assert filler["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    server_labels = objects[("Deployment", "patience")]["spec"]["template"]["metadata"]["labels"]
    assert not objects[("Service", "patience")]["spec"]["selector"].items() <= pod["metadata"]["labels"].items(), (
        "the service's Service must not send calls to the fillers"
    )
    assert server_labels["app.kubernetes.io/component"] == "server"
    [container] = pod["spec"]["containers"]
    assert container["command"] == ["python", "-m", "service.solving.filler"]
    assert container["envFrom"] == [{"configMapRef": {"name": "patience"}}]
    assert container["resources"]["requests"]["cpu"] == container["resources"]["limits"]["cpu"] == "1"
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


def test_external_redis_overlay_gives_the_filler_the_url_too() -> None:
    objects = by_kind(render(K8S / "overlays" / "external-redis"))
    env = objects[("Deployment", "patience-filler")]["spec"]["template"]["spec"]["containers"][0]["env"]
    url = next(e for e in env if e["name"] == "PATIENCE_REDIS_URL")
    assert url["valueFrom"]["secretKeyRef"] == {"name": "patience-redis", "key": "url"}


def test_compose_traces_are_off_unless_asked_and_jaeger_is_optional() -> None:
    """Traces follow OTEL_EXPORTER_OTLP_ENDPOINT from the shell (empty: off); Jaeger only with the profile."""
    services = compose()["services"]
    for name in ("patience", "filler"):
        assert services[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == "${OTEL_EXPORTER_OTLP_ENDPOINT:-}"
    assert services["jaeger"]["profiles"] == ["tracing"]
    assert "16686:16686" in services["jaeger"]["ports"]
    assert "OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318" in COMPOSE.read_text()  # the documented command


def test_kubernetes_tracing_overlay_points_the_service_at_its_jaeger() -> None:
    objects = by_kind(render(K8S / "overlays" / "tracing"))
    config = objects[("ConfigMap", "patience")]["data"]
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in by_kind(render(K8S))[("ConfigMap", "patience")]["data"]
    host, port = config["OTEL_EXPORTER_OTLP_ENDPOINT"].removeprefix("http://").split(":")
    service = objects[("Service", host)]
    assert {"name": "otlp-http", "port": int(port), "targetPort": "otlp-http"} in service["spec"]["ports"]
    pod = objects[("Deployment", host)]["spec"]["template"]
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert not objects[("Service", "patience")]["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert ("Deployment", "patience") in objects and ("StatefulSet", "patience-redis") in objects


def test_the_build_strips_compiled_modules_and_reports_what_takes_room() -> None:
    """Symbol tables are not needed to run (5.5 MB of the virtualenv); the build's summary names the largest
    layers and packages (deploy/image-report.sh, which runs on any built image)."""
    instructions = dockerfile_instructions()
    build = instructions[: len(instructions) - len(final_stage())]
    runs = [rest for word, rest in build if word == "RUN"]
    stripping = next(rest for rest in runs if "strip --strip-unneeded" in rest)
    assert stripping.index("strip --strip-unneeded") < stripping.index("import patience.v1"), "checked once stripped"
    assert 'bash "$ROOT/deploy/image-report.sh"' in (DEPLOY / "build-image.sh").read_text()
    assert run("bash", "-n", str(DEPLOY / "image-report.sh")).returncode == 0
