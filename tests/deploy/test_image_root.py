"""The image's slim root filesystem (deploy/runtime-root.sh): what it drops is gone, and what the service loads
at run time still works in it.

The base's installers (apt, dpkg's helpers, perl, the user tools, Python's ensurepip, venv wheels, tests and
pydoc topics) are gone, and dpkg's record of what is installed stays true (``dpkg --audit`` in the image).
compose.tls.yaml's one-shot job, its exact command, makes the certificates in a container of the image (as
root with CHOWN only, as compose runs it); a container with compose's and compose.tls.yaml's environment
serves gRPC and REST over TLS (gRPC's own TLS, Python's ssl for REST) and its HEALTHCHECK probes over TLS.
A container with traces asked as docs/operations.md asks (``OTEL_EXPORTER_OTLP_ENDPOINT`` in the shell that
runs compose) sends an ApplyMove's spans and a Hint's, from the hint's solver process, to a real OTLP receiver
with their parent links.
"""

from __future__ import annotations

import secrets
import ssl
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
from image_support import (
    APP_UID,
    COMPOSE_TLS,
    KEYS_IN_IMAGE,
    Container,
    Image,
    compose_env,
    compose_service,
    in_test,
    start_service,
)
from otlp_support import ReceivedSpan, receiving
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import bearer

TLS_IN_IMAGE = "/etc/patience/tls"
SERVICE = "patience.v1.PatienceService"

#: Gone from the image: (path under the root, what it was). Python's paths are the Debian base's.
DROPPED = (
    ("usr/bin/apt-get", "apt"),
    ("usr/bin/perl", "perl"),
    ("usr/sbin/useradd", "the user tools"),
    ("usr/lib/x86_64-linux-gnu/gconv", "glibc's iconv modules"),
    ("usr/share/python-wheels", "ensurepip's wheels"),
    ("usr/lib/python3.11/ensurepip", "ensurepip"),
    ("usr/lib/python3.11/test", "Python's tests"),
    ("usr/lib/python3.11/lib2to3", "lib2to3"),
    ("usr/lib/python3.11/pydoc_data", "pydoc's topics"),
    ("var/lib/apt", "apt's lists"),
    ("var/cache/debconf", "debconf's cache"),
)


def test_the_root_holds_no_installer_and_dpkg_knows_it(image: Image) -> None:
    container = Container(image)
    try:
        with container.mounted() as root:
            kept = [what for path, what in DROPPED if (root / path).exists() or (root / path).is_symlink()]
            assert not kept, f"still in the image: {kept}"
            site = next((root / "opt" / "venv" / "lib").glob("python3*/site-packages"))
            assert not list(site.rglob("*.pyi")) and not list(site.glob("*.dist-info/RECORD")), "no stubs, no RECORD"
            assert list(site.glob("*.dist-info/entry_points.txt")), "kept: OpenTelemetry finds its parts by them"
            keys = (root / KEYS_IN_IMAGE.lstrip("/")).stat()
            assert (keys.st_uid, keys.st_gid, keys.st_mode & 0o777) == (APP_UID, APP_UID, 0o700), (
                "a fresh volume takes the keys directory's owner from the image"
            )
            assert (root / "tmp").stat().st_mode & 0o7777 == 0o1777
            status = (root / "var" / "lib" / "dpkg" / "status").read_text()
        packages = {line.split(": ", 1)[1] for line in status.splitlines() if line.startswith("Package: ")}
        assert {"libc6", "libssl3", "ca-certificates", "coreutils", "dash"} <= packages
        assert not {"apt", "perl-base", "passwd", "debconf", "python3-pip-whl", "python3.11-venv"} & packages
        audit = container.exec(["dpkg", "--audit"], {}, timeout=60)
        assert audit.returncode == 0 and not audit.stdout.strip(), audit.stdout + audit.stderr
    finally:
        container.remove()


def test_the_tls_job_runs_in_the_image_and_its_files_are_served_over_tls(
    image: Image, keys_dir: Path, redis_url: str, tmp_path: Path
) -> None:
    job = compose_service("tls", COMPOSE_TLS)
    assert job["user"] == "0:0" and job["cap_add"] == ["CHOWN"] and f"tls:{TLS_IN_IMAGE}" in job["volumes"]
    tls = tmp_path / "tls"
    tls.mkdir()
    container = Container(image)
    try:
        for _ in range(2):  # the second start leaves the files alone
            made = container.exec(
                [str(c) for c in job["entrypoint"]],
                {},
                [f"{tls}:{TLS_IN_IMAGE}"],
                timeout=120,
                user="0:0",
                caps=("CAP_CHOWN",),
            )
            assert made.returncode == 0, made.stdout + made.stderr
        assert (tls / "tls.key").stat().st_uid == APP_UID, "handed to the service's user"

        env = in_test(compose_env(overlays=(COMPOSE_TLS,)), redis_url)
        volumes = [f"{keys_dir}:{KEYS_IN_IMAGE}:ro", f"{tls}:{TLS_IN_IMAGE}:ro"]
        service = start_service(container, env, volumes, tmp_path / "server.log")  # its HEALTHCHECK, over TLS
        try:
            ca = (tls / "ca.crt").read_bytes()
            with grpc.secure_channel(service.grpc_address, grpc.ssl_channel_credentials(ca)) as channel:
                dealt = pb_grpc.PatienceServiceStub(channel).NewGame(pb.NewGameRequest(variant="cats-tail"))
                assert dealt.game.version >= 0 and dealt.game_token
            trusted = ssl.create_default_context(cafile=str(tls / "ca.crt"))
            https = service.http_url.replace("http://", "https://")
            with urllib.request.urlopen(f"{https}/", timeout=30, context=trusted) as page:
                assert b"<html" in page.read().lower(), "the web client, over TLS"
        finally:
            service.stop()
    finally:
        container.remove()


def spans_named(spans: list[ReceivedSpan], name: str) -> ReceivedSpan:
    found = [span for span in spans if span.name == name]
    assert len(found) == 1, (name, spans)
    return found[0]


def test_the_image_traces_a_move_and_a_hint_into_its_solver_process(
    image: Image, keys_dir: Path, redis_url: str, tmp_path: Path
) -> None:
    container = Container(image)
    try:
        with receiving() as receiver:
            env = in_test(compose_env({"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}), redis_url)
            service = start_service(container, env, [f"{keys_dir}:{KEYS_IN_IMAGE}:ro"], tmp_path / "server.log")
            try:
                with grpc.insecure_channel(service.grpc_address) as channel:
                    stub = pb_grpc.PatienceServiceStub(channel)
                    dealt = stub.NewGame(pb.NewGameRequest(variant="sultan-52"))
                    auth = bearer(dealt.game_token)
                    game_id = dealt.game.game_id
                    move = stub.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=auth).moves[0].text
                    move_trace, hint_trace = secrets.token_hex(16), secrets.token_hex(16)
                    client_span = secrets.token_hex(8)
                    request = pb.ApplyMoveRequest(game_id=game_id, expected_version=dealt.game.version, text=move)
                    stub.ApplyMove(request, metadata=(*auth, ("traceparent", f"00-{move_trace}-{client_span}-01")))
                    hint_parent = ("traceparent", f"00-{hint_trace}-{client_span}-01")
                    stub.Hint(pb.HintRequest(game_id=game_id), metadata=(*auth, hint_parent), timeout=60)

                def complete(*prefixes: str) -> Callable[[list[ReceivedSpan]], bool]:
                    return lambda spans: all(any(s.name.startswith(p) for s in spans) for p in prefixes)

                moved = receiver.wait_for(complete(f"{SERVICE}/ApplyMove", "EVALSHA "), move_trace)
                hinted = receiver.wait_for(complete(f"{SERVICE}/Hint", "hint_worker.compute"), hint_trace)
                lines = [r for r in service.records() if r.get("msg") == "rpc" and r.get("trace_id") == move_trace]
            finally:
                service.stop()
    finally:
        container.remove()
    assert [line["method"] for line in lines] == [f"/{SERVICE}/ApplyMove"], "the trace id in the JSON access line"
    server = spans_named(moved, f"{SERVICE}/ApplyMove")
    case = spans_named(moved, "GameService.apply_move")
    scripts = [span for span in moved if span.name.startswith("EVALSHA ")]
    assert server.parent_id == client_span and case.parent_id == server.span_id
    assert scripts and all(script.parent_id == case.span_id for script in scripts), moved
    assert server.service == "patience", "the service name the service gives itself when compose sets none"
    pool = spans_named(hinted, "HintPool.hint")
    worker = spans_named(hinted, "hint_worker.compute")
    assert worker.parent_id == pool.span_id, "across the process boundary, in the image"
