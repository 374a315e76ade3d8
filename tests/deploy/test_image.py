"""The container image, really built (deploy/build-image.sh) and run (buildah) against a real Redis.

Every run of the suite builds the image (buildah's layer cache keeps an unchanged build short) and fails if it
does not build or start. Two containers run the image's own entry command, one with compose's environment and
one with the Kubernetes ConfigMap's, on one Redis: a game dealt on one is played on the other and certified;
the image's own HEALTHCHECK command answers in each; SIGTERM with a move in flight lets the move finish. The
image's contents and size are checked, and compose and the Kubernetes manifests are checked to run exactly
the image, command, ports, probes and environment that ran here.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from image_support import (
    APP_UID,
    K8S_BASE,
    KEYS_IN_IMAGE,
    LISTEN_VARS,
    OPERATOR_KEY,
    TEST_OVERRIDES,
    Container,
    Image,
    Service,
    compose_env,
    compose_service,
    in_test,
    k8s_env,
    load_yaml,
    start_service,
)
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import bearer, operator, solve

from engine.catalogue import get_game
from service.security.keys import load_keys

#: Bytes, as the build script counts them (the layers' uncompressed sizes). Measured: 126 MB on the Debian base
#: that mmdebstrap makes (no registry serves the official slim base to CI: docs/deployment.md), the goal 150 MB:
#: a compiler, a pip cache, grpcio-tools or the base's apt and perl creeping back in would cross it.
SIZE_LIMIT = 150_000_000
SERVICE = "patience.v1.PatienceService"


def k8s_container() -> dict[str, Any]:
    deployment = load_yaml(K8S_BASE / "deployment.yaml")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert isinstance(container, dict)
    return container


@pytest.fixture(scope="module")
def pair(
    image: Image, keys_dir: Path, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Service, Service]]:
    """Two containers on one Redis: one with compose's environment, one with the Kubernetes ConfigMap's."""
    logs = tmp_path_factory.mktemp("image-logs")
    volumes = [f"{keys_dir}:{KEYS_IN_IMAGE}:ro"]
    started: list[Service] = []
    containers = [Container(image), Container(image)]
    try:
        for name, container, env in zip(("compose", "k8s"), containers, (compose_env(), k8s_env()), strict=True):
            started.append(start_service(container, in_test(env, redis_url), volumes, logs / f"{name}.log"))
        yield started[0], started[1]
    finally:
        for service in started:
            service.stop()
        for container in containers:
            container.remove()


def stub(address: str) -> tuple[grpc.Channel, pb_grpc.PatienceServiceStub]:
    channel = grpc.insecure_channel(address)
    return channel, pb_grpc.PatienceServiceStub(channel)


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return str(reply.read().decode())


# ------------------------------------------------------------------------------------------ the build


def test_build_prints_size_and_layers_and_stays_under_the_limit(image: Image) -> None:
    figures = image.report
    assert f"size: {figures['size_bytes']} bytes" in image.build_output
    assert f"layers: {figures['layers']}" in image.build_output
    assert figures["engine"] == "buildah"
    assert 0 < figures["size_bytes"] < SIZE_LIMIT, f"the image is {figures['size_bytes']} bytes"
    assert figures["layers"] >= 2, "the base and at least the virtualenv"
    assert {"patience-service:local", "patience-service:0.1.0"} <= set(image.tags)


def test_image_configuration_is_the_dockerfiles(image: Image) -> None:
    assert image.config["User"] == f"{APP_UID}:{APP_UID}"
    assert image.entry_command[:3] == ["python", "-m", "service"]
    assert image.healthcheck[:3] == ["python", "-m", "service.grpc.healthcheck"], "kept: the image is in Docker format"
    assert set(image.config["ExposedPorts"]) == {"50051/tcp", "8080/tcp", "9090/tcp"}
    assert image.config.get("StopSignal") == "SIGTERM"
    assert "PATIENCE_REDIS_URL" not in image.env, "the image never points at a Redis of its own"


def writable_by_the_app(root: Path) -> set[str]:
    """Paths in the image that uid/gid 10001 or anyone may write (device nodes aside)."""
    found = set()
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory) / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode) or stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
                continue
            mode = info.st_mode
            if (info.st_uid == APP_UID and mode & 0o200) or (info.st_gid == APP_UID and mode & 0o020) or mode & 0o002:
                found.add(str(path.relative_to(root)))
    return found


def test_image_holds_no_compiler_pip_cache_grpcio_tools_or_build_secret(image: Image) -> None:
    container = Container(image)
    try:
        with container.mounted() as root:
            site = next((root / "opt" / "venv" / "lib").glob("python3*/site-packages"))
            assert (site / "service").is_dir() and (site / "clients" / "web" / "index.html").is_file()
            assert not list(site.glob("grpc_tools*")) and not list(site.glob("grpcio_tools*"))
            assert not list(site.glob("pip")) and not list(site.glob("setuptools")), "no installer at run time"
            compilers = ["gcc", "cc", "c++", "g++", "clang", "x86_64-linux-gnu-gcc", "tcc"]
            bins = ("usr/bin", "usr/local/bin", "bin")
            found = [f"{d}/{c}" for d in bins for c in compilers if (root / d / c).exists()]
            assert not found, f"compilers in the image: {found}"
            caches = [p for p in (root / "root" / ".cache" / "pip", root / "tmp") if p.exists() and any(p.iterdir())]
            caches += list(root.glob("home/*/.cache/pip"))
            assert not caches, f"pip caches or leftovers: {caches}"
            assert not (root / "run" / "secrets").exists() or not any((root / "run" / "secrets").iterdir())
            assert writable_by_the_app(root) <= {"tmp", "var/tmp", "run/lock", KEYS_IN_IMAGE.lstrip("/")}, (
                "the image's user can write nowhere else: a read-only root filesystem changes nothing for it"
            )
            build_ca = Path(os.environ.get("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt"))
            image_ca = root / "etc" / "ssl" / "certs" / "ca-certificates.crt"
            if build_ca.is_file() and image_ca.is_file():
                assert image_ca.read_bytes() != build_ca.read_bytes(), "the build's CA bundle is not in the image"
    finally:
        container.remove()


#: Run in the image: the compiled king-chain search is loaded, and a solve of a cats-tail deal ran on it.
COMPILED_CHECK = """
from engine import get_game
from engine.solver import compiled, solve
game = get_game("cats-tail")
found = solve(game, game.deal(bytes(32)), max_states=50)
print(compiled.built(), found.core, found.states)
"""


def test_the_image_runs_the_compiled_solver(image: Image) -> None:
    container = Container(image)
    try:
        result = container.exec(["python", "-c", COMPILED_CHECK], {"PATIENCE_SOLVER": "c"}, timeout=120)
    finally:
        container.remove()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["True", "c", "50"]


# ----------------------------------------------------------------------------------------- running it


def test_containers_serve_as_the_non_root_user_and_pass_their_healthcheck(pair: tuple[Service, Service]) -> None:
    for service in pair:
        status = Path(f"/proc/{service.pid}/status").read_text()
        uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
        assert uids == [str(APP_UID)] * 4, f"the server runs as uid {uids}"
        assert os.readlink(f"/proc/{service.pid}/cwd").endswith("/app"), "in the image's WORKDIR"
        probe = service.healthcheck()
        assert probe.returncode == 0, probe.stdout + probe.stderr
        assert any(r.get("msg") == "serving" for r in service.records()), service.output()


def test_a_game_dealt_on_one_container_is_played_and_certified_on_the_other(
    pair: tuple[Service, Service], keys_dir: Path
) -> None:
    compose, k8s = pair
    ch_a, a = stub(compose.grpc_address)
    ch_b, b = stub(k8s.grpc_address)
    try:
        minted = a.MintDeal(pb.MintDealRequest(variant="sultan-36"), metadata=operator(OPERATOR_KEY))
        minter = load_keys(keys_dir, env={}).tickets
        assert minter is not None
        seed = minter.seed(minter.open(minted.deal_ticket, now=int(time.time())))
        engine_game = get_game("sultan-36")
        solution = solve(engine_game, engine_game.deal(seed))

        dealt = a.NewGame(pb.NewGameRequest(deal_ticket=minted.deal_ticket))
        game, token = dealt.game, dealt.game_token
        moved = b.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=solution[0]),
            metadata=bearer(token),
        )
        assert moved.game.version == game.version + 1
        seen = a.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token)).game
        assert seen.version == moved.game.version, "the other container sees the move: one Redis"

        won = a.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=solution), metadata=bearer(token))
        assert won.verdict.outcome == pb.OUTCOME_WON and won.certificate.encoded
        checked = b.VerifyCertificate(pb.VerifyCertificateRequest(certificate=won.certificate.encoded, replay=True))
        assert checked.valid, checked.reason
    finally:
        ch_a.close()
        ch_b.close()

    metrics = scrape(compose.metrics_url)
    assert f'grpc_server_handled_total{{grpc_code="OK",grpc_method="NewGame",grpc_service="{SERVICE}"}} 1.0' in metrics
    assert 'patience_certificates_issued_total{via="solution"} 1.0' in metrics
    assert f'grpc_server_handled_total{{grpc_code="OK",grpc_method="ApplyMove",grpc_service="{SERVICE}"}} 1.0' in (
        scrape(k8s.metrics_url)
    )
    variants = json.loads(scrape(f"{k8s.http_url}/v1/variants"))["variants"]
    assert len(variants) == 9, "REST answers on the image's HTTP port"
    assert b"<html" in scrape(f"{compose.http_url}/").encode().lower(), "the web client is served"


def test_sigterm_lets_the_move_in_flight_finish(image: Image, keys_dir: Path, redis_url: str, tmp_path: Path) -> None:
    container = Container(image)
    admin = redis.Redis.from_url(redis_url)
    try:
        # The move's write waits for Redis while the test runs the HEALTHCHECK (a process started in the container:
        # seconds on a loaded host), past the service's 5 s default reply timeout: STORE_UNAVAILABLE, not a drain.
        # A longer timeout in the URL keeps the wait on Redis, which is what this test is about.
        slow_redis = f"{redis_url}{'&' if '?' in redis_url else '?'}socket_timeout=60"
        service = start_service(
            container, in_test(compose_env(), slow_redis), [f"{keys_dir}:{KEYS_IN_IMAGE}:ro"], tmp_path / "server.log"
        )
        channel, client = stub(service.grpc_address)
        try:
            dealt = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
            game, token = dealt.game, dealt.game_token
            move = client.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=bearer(token)).moves[0]
            admin.execute_command("CLIENT", "PAUSE", "45000", "WRITE")  # the move's compare-and-set waits for this
            try:
                pending = client.ApplyMove.future(
                    pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=move.text),
                    metadata=bearer(token),
                )
                started = f'grpc_server_started_total{{grpc_method="ApplyMove",grpc_service="{SERVICE}"}} 1.0'
                deadline = time.monotonic() + 10
                while started not in scrape(service.metrics_url):
                    assert time.monotonic() < deadline, "the ApplyMove call never reached the server"
                    time.sleep(0.05)
                service.send_sigterm()
                draining = service.healthcheck()
                assert draining.returncode != 0, "the HEALTHCHECK fails from the moment SIGTERM arrives"
                time.sleep(1.0)  # past a short grace period: only the real one keeps the call alive
                assert not pending.done(), "the in-flight move was cut short"
            finally:
                admin.execute_command("CLIENT", "UNPAUSE")
            assert pending.result(timeout=20).game.version == game.version + 1, "the move is applied and answered"
            assert service.process.wait(40) == 0, "the server drained and exited 0"
        finally:
            channel.close()
            service.stop()
        probe = service.healthcheck()
        assert probe.returncode == 1 and "UNAVAILABLE" in probe.stderr, "the HEALTHCHECK fails once it is gone"
        messages = [r.get("msg") for r in service.records()]
        assert "serving" in messages and "stopped" in messages, service.output()
    finally:
        container.remove()


def test_keys_the_image_user_cannot_read_stop_it_with_a_message(
    image: Image, keys_dir: Path, redis_url: str, tmp_path: Path
) -> None:
    """The commonest mistake with a container: keys mounted for root. A clear message, exit status 2."""
    private = tmp_path / "root-only"
    shutil.copytree(keys_dir, private)
    for path in (private, *private.rglob("*")):
        os.chown(path, 0, 0)
    private.chmod(0o700)
    container = Container(image)
    try:
        log = tmp_path / "server.log"
        process = container.start(
            image.entry_command,
            in_test(compose_env(), redis_url),
            [f"{private}:{KEYS_IN_IMAGE}:ro"],
            log,
        )
        assert process.wait(60) != 0
        output = log.read_text()
        assert f"patience: cannot read {KEYS_IN_IMAGE}/signing-key.pem: Permission denied" in output, output
        assert f"uid {APP_UID}" in output and "Traceback" not in output, output
    finally:
        container.remove()


# ---------------------------------------------------------------------------- compose and Kubernetes


def port_of(listen: str) -> int:
    return int(listen.rsplit(":", 1)[1])


def test_compose_and_kubernetes_run_what_ci_ran(image: Image) -> None:
    """The same image, its own command and health check, its ports and settings: the containers above ran
    compose's and the ConfigMap's environments with only TEST_OVERRIDES changed."""
    service, container = compose_service(), k8s_container()
    images = load_yaml(K8S_BASE / "kustomization.yaml")["images"]
    tag = next(entry["newTag"] for entry in images if entry["name"] == container["image"])
    assert service["image"] in image.tags, "compose runs the image the build script tagged"
    assert f"{container['image']}:{tag}" in image.tags, "Kubernetes runs the image the build script tagged"

    assert not {"entrypoint", "command", "healthcheck", "user"} & set(service), "compose keeps the image's own"
    assert not {"command", "args"} & set(container), "Kubernetes keeps the image's entry command"

    exposed = {int(port.split("/")[0]) for port in image.config["ExposedPorts"]}
    assert {port["containerPort"] for port in container["ports"]} == exposed
    assert {int(str(mapping).rsplit(":", 1)[1]) for mapping in service["ports"]} == exposed
    assert {port_of(image.env[var]) for var in LISTEN_VARS} == exposed
    assert int(container["ports"][0]["containerPort"]) == port_of(image.env["PATIENCE_LISTEN"])

    grpc_port = port_of(image.env["PATIENCE_LISTEN"])
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == grpc_port, f"{probe} asks the port the HEALTHCHECK asks"
    assert "service" not in container["livenessProbe"]["grpc"], "liveness asks what the HEALTHCHECK asks: ''"
    assert container["readinessProbe"]["grpc"]["service"] == SERVICE
    pod = load_yaml(K8S_BASE / "deployment.yaml")["spec"]["template"]["spec"]
    assert f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}" == image.config["User"]

    for where, env in (("compose", compose_env()), ("the ConfigMap", k8s_env())):
        for key, value in env.items():
            if key in image.env and key not in TEST_OVERRIDES:
                assert value == image.env[key], f"{where} sets {key}={value}, the image {image.env[key]}"
        ran = in_test(env, "redis://127.0.0.1:6379/0")
        assert {k for k in ran if ran[k] != env.get(k)} <= TEST_OVERRIDES, "nothing else is changed"
        assert env.get("PATIENCE_KEYS_DIR", image.env["PATIENCE_KEYS_DIR"]) == KEYS_IN_IMAGE
    assert f"keys:{KEYS_IN_IMAGE}:ro" in service["volumes"]
    keys_mount = next(m for m in container["volumeMounts"] if m["name"] == "keys")
    assert keys_mount["mountPath"] == KEYS_IN_IMAGE and keys_mount["readOnly"] is True
    for listen in LISTEN_VARS:
        assert k8s_env()[listen] == image.env[listen], "the ConfigMap listens where the image does"
