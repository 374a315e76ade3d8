"""The TLS deployment examples, wired as the docs say and run where they can be without a cluster or Docker:

- deploy/k8s/overlays/tls: the pods serve TLS from the Secret `patience-tls`, mounted read-only; the probes are
  the image's TLS-aware health check (run here against a real TLS server with the pod's own variables); the
  Ingresses terminate the public certificate for REST and gRPC and re-encrypt to the Service's ports (schema
  validation and the file listing are tests/deploy/test_deploy.py's, which covers every kustomization);
- deploy/compose.tls.yaml: its one-shot job's command makes usable files, and the variables it gives the
  replicas start a server that serves them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from http_support import live_server
from test_deploy import K8S, ROOT, assert_known, by_kind, render, run, tool

from service.settings.config import load

TLS_OVERLAY = K8S / "overlays" / "tls"
COMPOSE_TLS = ROOT / "deploy" / "compose.tls.yaml"


def container(objects: dict[tuple[str, str], dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    pod = objects[("Deployment", "patience")]["spec"]["template"]["spec"]
    return pod, pod["containers"][0]


def test_the_tls_overlay_mounts_the_secret_read_only_and_names_real_settings() -> None:
    objects = by_kind(render(TLS_OVERLAY))
    pod, main = container(objects)
    env = {e["name"]: e.get("value") for e in main["env"]}
    assert_known({n for n in env if n.startswith("PATIENCE_TLS")}, "deploy/k8s/overlays/tls")  # keys.py reads the rest
    volume = next(v for v in pod["volumes"] if v["name"] == "tls")
    assert volume["secret"]["secretName"] == "patience-tls"
    mount = next(m for m in main["volumeMounts"] if m["name"] == "tls")
    assert mount["readOnly"] is True
    for name in ("PATIENCE_TLS_CERT_FILE", "PATIENCE_TLS_KEY_FILE"):
        assert env[name].startswith(mount["mountPath"] + "/"), name
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert "grpc" not in main[probe], f"{probe}: the kubelet's gRPC probe cannot speak TLS"
        assert main[probe]["exec"]["command"][:3] == ["python", "-m", "service.grpc.healthcheck"]
    assert any(p["name"] == "metrics" for p in main["ports"]), "/metrics stays, plain, on its own port"


def test_the_tls_overlay_ingresses_reencrypt_to_the_service_ports() -> None:
    objects = by_kind(render(TLS_OVERLAY))
    service_ports = {p["name"]: p for p in objects[("Service", "patience")]["spec"]["ports"]}
    expected = {"patience-web": ("HTTPS", "http"), "patience-grpc": ("GRPCS", "grpc")}
    for name, (protocol, port) in expected.items():
        ingress = objects[("Ingress", name)]
        notes = ingress["metadata"]["annotations"]
        assert notes["nginx.ingress.kubernetes.io/backend-protocol"] == protocol
        assert notes["nginx.ingress.kubernetes.io/proxy-ssl-verify"] == "on"
        assert notes["nginx.ingress.kubernetes.io/proxy-ssl-secret"].endswith("/patience-tls")
        tls = ingress["spec"]["tls"][0]
        rule = ingress["spec"]["rules"][0]
        assert rule["host"] in tls["hosts"] and tls["secretName"]
        backend = rule["http"]["paths"][0]["backend"]["service"]
        assert backend["name"] == "patience" and backend["port"]["name"] == port
        assert service_ports[port]["appProtocol"] == "https"


def run_probe(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    args = [sys.executable, *command[1:]] if command[0] == "python" else command
    return subprocess.run(args, env={**clean, **env}, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_the_overlay_probes_pass_against_a_tls_server(redis_db: str, tmp_path: Path) -> None:
    from service.security import dev_certificates

    objects = by_kind(render(TLS_OVERLAY))
    _, main = container(objects)
    mount = next(m for m in main["volumeMounts"] if m["name"] == "tls")["mountPath"]
    assert dev_certificates.main(["--out", str(tmp_path / "tls"), "--name", "patience"]) == 0
    # the pod's variables, with the Secret's mount path mapped to where this test wrote the files
    env = {e["name"]: e["value"].replace(mount, str(tmp_path / "tls")) for e in main["env"] if "value" in e}
    cert, key = Path(env["PATIENCE_TLS_CERT_FILE"]), Path(env["PATIENCE_TLS_KEY_FILE"])
    with live_server(redis_db, tmp_path / "keys", tls_cert_file=cert, tls_key_file=key) as server:
        probe_env = {**env, "PATIENCE_LISTEN": f"0.0.0.0:{server.grpc_port}"}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            result = run_probe(main[probe]["exec"]["command"], probe_env)
            assert result.returncode == 0, (probe, result.stderr)


# ---------------------------------------------------------------------------------------------------- compose


def compose_tls() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE_TLS.read_text())
    assert isinstance(data, dict)
    return data


def test_compose_tls_mounts_the_files_read_only_for_the_replicas() -> None:
    services = compose_tls()["services"]
    server, job = services["patience"], services["tls"]
    assert_known(set(server["environment"]), "deploy/compose.tls.yaml")
    assert "tls:/etc/patience/tls:ro" in server["volumes"]
    assert "tls:/etc/patience/tls" in job["volumes"] and job["restart"] == "no"
    assert server["depends_on"]["tls"]["condition"] == "service_completed_successfully"
    for value in server["environment"].values():
        assert not str(value).startswith("/") or str(value).startswith("/etc/patience/tls/")


def test_compose_tls_job_makes_files_the_replicas_serve(redis_db: str, tmp_path: Path) -> None:
    services = compose_tls()["services"]
    job, server_env = services["tls"], services["patience"]["environment"]
    place = tmp_path / "tls"
    script = job["entrypoint"][-1].replace("/etc/patience/tls", str(place))
    if os.geteuid() != 0:  # the job runs as root to hand the files over; elsewhere only that step is left out
        script = script.replace("&& chown -R 10001:10001 " + str(place), "")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    for _ in range(2):  # the second start leaves the files alone
        made = subprocess.run(
            ["sh", "-c", script], capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": path}
        )
        assert made.returncode == 0, made.stderr
    environ = {k: str(v).replace("/etc/patience/tls", str(place)) for k, v in server_env.items()}
    environ["PATIENCE_OPERATOR_LISTEN"] = "127.0.0.1:0"
    settings = load([], environ={**environ, "PATIENCE_REDIS_URL": redis_db})
    assert settings.tls_problem() is None
    with live_server(
        redis_db,
        tmp_path / "keys",
        tls_cert_file=settings.tls_cert_file,
        tls_key_file=settings.tls_key_file,
        tls_client_ca_file=settings.tls_client_ca_file,
        operator_listen=settings.operator_listen,
    ) as server:
        probe = run_probe(
            ["python", "-m", "service.grpc.healthcheck"],
            {"PATIENCE_LISTEN": f"0.0.0.0:{server.grpc_port}", "PATIENCE_TLS_CERT_FILE": str(settings.tls_cert_file)},
        )
        assert probe.returncode == 0, probe.stderr
        assert server.server.operator_port


def test_compose_tls_passes_yamllint() -> None:
    result = run(tool("yamllint"), "--strict", "-c", str(ROOT / ".yamllint"), str(COMPOSE_TLS))
    assert result.returncode == 0, result.stdout + result.stderr
