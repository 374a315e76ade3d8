"""The server around the API: health, reflection, settings, their documentation, and the generated code."""

from __future__ import annotations

import filecmp
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import ROOT, refusal, running, settings_for

from service.settings.config import Settings, load, specs

SERVICE = "patience.v1.PatienceService"


def test_health_is_serving_and_reflection_lists_the_api(redis_url: str) -> None:
    with running(settings_for(redis_url)) as server, grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE):
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as exc:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
        assert exc.value.code() == grpc.StatusCode.NOT_FOUND  # type: ignore[attr-defined]
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {SERVICE, "grpc.health.v1.Health"} <= names
        replies = list(
            stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)]))
        )
        assert replies[0].file_descriptor_response.file_descriptor_proto


#: grpc.reflection.v1's wire format as grpc publishes it (src/proto/grpc/reflection/v1/reflection.proto): the
#: field numbers of its request and response, which the server's v1 must keep.
V1_REQUEST_FIELDS = {"host": 1, "file_by_filename": 3, "file_containing_symbol": 4, "file_containing_extension": 5,
                     "all_extension_numbers_of_type": 6, "list_services": 7}  # fmt: skip
V1_RESPONSE_FIELDS = {"valid_host": 1, "original_request": 2, "file_descriptor_response": 4,
                      "all_extension_numbers_response": 5, "list_services_response": 6,
                      "error_response": 7}  # fmt: skip
V1_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


def ask_reflection(channel: grpc.Channel, **request: str) -> Any:
    """What a tool such as grpcurl does: ask v1 first, v1alpha only when the server has no v1. The v1 stub is
    built on the v1 messages (service.grpc.reflection_v1); returns (the version that answered, the answer)."""
    from service.grpc import reflection_v1

    v1 = channel.stream_stream(
        V1_METHOD,
        request_serializer=reflection_v1.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_v1.ServerReflectionResponse.FromString,
    )
    try:
        (answer,) = v1(iter([reflection_v1.ServerReflectionRequest(**request)]), timeout=10)
        return "v1", answer
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
            raise
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    (answer,) = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(**request)]), timeout=10)
    return "v1alpha", answer


def test_reflection_v1_answers_a_client_that_asks_v1_first(redis_url: str) -> None:
    with running(settings_for(redis_url)) as server, grpc.insecure_channel(server.address) as channel:
        version, answer = ask_reflection(channel, list_services="")
        assert version == "v1"
        names = {s.name for s in answer.list_services_response.service}
        assert {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} <= names
        assert "grpc.reflection.v1alpha.ServerReflection" in names  # older tools still find theirs

        # The files a client needs to call the API: the one holding the service and every file it imports.
        version, answer = ask_reflection(channel, file_containing_symbol=SERVICE)
        assert version == "v1" and answer.original_request.file_containing_symbol == SERVICE
        pool = descriptor_pool.DescriptorPool()
        files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
                 for raw in answer.file_descriptor_response.file_descriptor_proto]  # fmt: skip
        added: set[str] = set()
        while len(added) < len(files):  # dependencies first, as a client's pool needs them
            for f in files:
                if f.name not in added and set(f.dependency) <= added:
                    pool.Add(f)
                    added.add(f.name)
        method = pool.FindServiceByName(SERVICE).methods_by_name["ApplyMove"]
        assert method.input_type.full_name == "patience.v1.ApplyMoveRequest"

        # v1 itself, as served: grpc's package and field numbers.
        version, answer = ask_reflection(channel, file_containing_symbol="grpc.reflection.v1.ServerReflection")
        (raw,) = answer.file_descriptor_response.file_descriptor_proto
        v1 = descriptor_pb2.FileDescriptorProto.FromString(raw)
        assert (v1.name, v1.package) == ("grpc/reflection/v1/reflection.proto", "grpc.reflection.v1")
        assert not v1.options.deprecated
        messages = {m.name: {f.name: f.number for f in m.field} for m in v1.message_type}
        assert messages["ServerReflectionRequest"] == V1_REQUEST_FIELDS
        assert messages["ServerReflectionResponse"] == V1_RESPONSE_FIELDS
        (rpc,) = v1.service[0].method
        assert (rpc.input_type, rpc.client_streaming, rpc.server_streaming) == (
            ".grpc.reflection.v1.ServerReflectionRequest",
            True,
            True,
        )

        version, answer = ask_reflection(channel, file_containing_symbol="no.such.Symbol")
        assert version == "v1" and answer.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_api_health_follows_redis_while_the_process_stays_live() -> None:
    import redis_support

    port = redis_support.free_port()
    url = f"redis://127.0.0.1:{port}/0"
    with running(settings_for(url), health_interval=0.2) as server, grpc.insecure_channel(server.address) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        api = health_pb2.HealthCheckRequest(service=SERVICE)
        assert health.Check(api, timeout=5).status == health_pb2.HealthCheckResponse.NOT_SERVING
        # The process itself serves (liveness), only the API waits for Redis (readiness).
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == health_pb2.HealthCheckResponse.SERVING
        stub = pb_grpc.PatienceServiceStub(ch)
        r = refusal(lambda: stub.NewGame(pb.NewGameRequest(variant="sultan-36")))
        assert (r.code, r.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
        # Redis comes up on that port: health follows without a restart, and games can be dealt.
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while health.Check(api, timeout=5).status != health_pb2.HealthCheckResponse.SERVING:
                assert time.monotonic() < deadline, "health did not turn SERVING"
                time.sleep(0.1)
            assert stub.NewGame(pb.NewGameRequest(variant="sultan-36")).game.version == 1
        finally:
            redis.terminate()
            redis.wait(10)


def test_reflection_can_be_switched_off(redis_url: str) -> None:
    with running(settings_for(redis_url, reflection=False)) as server, grpc.insecure_channel(server.address) as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        with pytest.raises(grpc.RpcError) as exc:
            list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]
        with pytest.raises(grpc.RpcError) as exc:
            ask_reflection(ch, list_services="")  # neither version
        assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]


# -- settings ----------------------------------------------------------------------------------


def test_flags_win_over_environment_and_environment_over_defaults() -> None:
    env = {"PATIENCE_LISTEN": "10.0.0.1:1", "PATIENCE_MAX_MOVES": "7", "PATIENCE_REFLECTION": "off"}
    s = load(["--listen", "127.0.0.1:9", "--redis-url", "redis://r:6379/0"], env)
    assert (s.listen, s.max_moves, s.reflection, s.redis_url) == ("127.0.0.1:9", 7, False, "redis://r:6379/0")
    assert load([], {}) == Settings()
    assert load(["--idle-timeout", "60", "--keys-dir", "/k"], {}).keys_dir == Path("/k")
    hints = load(["--hint-queue", "0", "--hint-states", "900"], {"PATIENCE_HINT_PROCESSES": "3"})
    assert (hints.hint_queue, hints.hint_states, hints.hint_processes) == (0, 900, 3)


@pytest.mark.parametrize(
    ("argv", "env", "names"),
    [
        (["--max-moves", "0"], {}, "--max-moves"),
        (["--max-moves", "many"], {}, "--max-moves"),
        ([], {"PATIENCE_IDLE_TIMEOUT": "-5"}, "PATIENCE_IDLE_TIMEOUT"),
        ([], {"PATIENCE_REFLECTION": "perhaps"}, "PATIENCE_REFLECTION"),
        ([], {"PATIENCE_LOG_FORMAT": "xml"}, "PATIENCE_LOG_FORMAT"),
        (["--hint-processes", "0"], {}, "--hint-processes"),
        (["--hint-queue", "-1"], {}, "--hint-queue"),
        ([], {"PATIENCE_HINT_CPU_SECONDS": "0"}, "PATIENCE_HINT_CPU_SECONDS"),
        (["--limit-hint", "often"], {}, "--limit-hint"),
    ],
)
def test_bad_settings_stop_with_the_source_named(
    argv: list[str], env: dict[str, str], names: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        load(argv, env)
    assert exc.value.code == 2
    assert names in capsys.readouterr().err


def test_operator_key_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "operator"
    path.write_text("s3cret\n")
    assert load(["--operator-key-file", str(path)], {}).resolved_operator_key() == "s3cret"
    assert load([], {"PATIENCE_OPERATOR_KEY": "k"}).resolved_operator_key() == "k"
    assert load([], {}).resolved_operator_key() is None


def test_configuration_doc_names_every_setting() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text()
    for spec in specs():
        assert f"`{spec.flag}" in doc, spec.flag
        assert f"`{spec.env}`" in doc, spec.env
    from service.security import identity_keys, keys

    read_by_keys = {
        value for module in (keys, identity_keys) for name, value in vars(module).items() if name.startswith("ENV_")
    }
    for env in read_by_keys:
        assert f"`{env}`" in doc, env
    documented = set(re.findall(r"`(PATIENCE_[A-Z_]+)`", doc))
    assert documented == {s.env for s in specs()} | read_by_keys, "the doc names a variable nobody reads"


# -- generated code ----------------------------------------------------------------------------


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    """The committed patience_pb2*.py equal what proto/generate.py makes from patience.proto now."""
    spec = importlib.util.spec_from_file_location("proto_generate", ROOT / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path)
    fresh = tmp_path / "patience" / "v1"
    committed = ROOT / "proto" / "patience" / "v1"
    names = sorted(p.name for p in fresh.iterdir())
    assert names == ["patience_pb2.py", "patience_pb2.pyi", "patience_pb2_grpc.py"]
    for name in names:
        assert filecmp.cmp(fresh / name, committed / name, shallow=False), (
            f"proto/patience/v1/{name} is stale: run `python proto/generate.py` and commit the result"
        )


def test_every_rpc_has_an_http_route() -> None:
    from google.api import annotations_pb2
    from patience.v1 import patience_pb2

    service = patience_pb2.DESCRIPTOR.services_by_name["PatienceService"]
    routes = {}
    for method in service.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        assert verb is not None, f"{method.name} has no google.api.http rule"
        routes[method.name] = (verb, getattr(rule, verb))
        assert getattr(rule, verb).startswith("/v1/")
    assert routes["ApplyMove"] == ("post", "/v1/games/{game_id}/moves")
    assert routes["GetGame"] == ("get", "/v1/games/{game_id}")
    assert routes["WatchGame"] == ("get", "/v1/games/{game_id}:watch")
    assert len(routes) == 20
    assert routes["Hint"] == ("get", "/v1/games/{game_id}/hint")
    assert routes["AutoPlay"] == ("post", "/v1/games/{game_id}/autoplay")
    assert routes["PrepareGame"] == ("post", "/v1/games:prepare")


@pytest.mark.slow
def test_without_a_redis_url_python_m_service_runs_its_own_redis(tmp_path: Path) -> None:
    """`python -m service` with no Redis URL starts a local redis-server on a Unix socket, keeps games across a
    restart (append-only file), and stops it on SIGTERM."""
    import os
    import signal

    import redis_support
    from grpc_health.v1 import health_pb2 as hpb

    env = {k: v for k, v in os.environ.items() if k != "PATIENCE_REDIS_URL"}
    env.update(PATIENCE_KEYS_DIR=str(tmp_path / "keys"), PATIENCE_GENERATE_KEYS="true", PATIENCE_LOG_FORMAT="text")
    redis_dir = tmp_path / "redis"

    def start() -> tuple[subprocess.Popen[bytes], str]:
        port = redis_support.free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "service", "--listen", f"127.0.0.1:{port}", "--local-redis-dir", str(redis_dir)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, "python -m service exited"
            assert time.monotonic() < deadline, "python -m service did not serve"
            with grpc.insecure_channel(address) as ch:
                try:
                    check = hpb.HealthCheckRequest(service=SERVICE)
                    if health_pb2_grpc.HealthStub(ch).Check(check, timeout=1).status == hpb.HealthCheckResponse.SERVING:
                        return proc, address
                except grpc.RpcError:
                    pass
            time.sleep(0.1)

    # Winnable deals work out of the box too: the service starts one filler beside itself (here for one pool).
    env.update(PATIENCE_WINNABLE_POOLS="sultan-36", PATIENCE_WINNABLE_POOL_TARGET="2", PATIENCE_WINNABLE_WAIT="60")
    proc, address = start()
    try:
        with grpc.insecure_channel(address) as ch:
            stub = pb_grpc.PatienceServiceStub(ch)
            new = stub.NewGame(pb.NewGameRequest(variant="sultan-36"))
            assert stub.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True)).game.game_id
        assert (redis_dir / "redis.sock").exists()
        children = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        commands = [Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0") for p in children]
        assert sum(1 for c in commands if b"service.solving.filler" in c) == 1, commands
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert not (redis_dir / "redis.sock").exists(), "the local redis-server was left running"
    for child in children:  # the filler and the redis-server stopped with the service
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
    env.update(PATIENCE_WINNABLE_FILLER="off")
    proc, address = start()
    try:
        with grpc.insecure_channel(address) as ch:
            game = pb_grpc.PatienceServiceStub(ch).GetGame(
                pb.GetGameRequest(game_id=new.game.game_id), metadata=(("authorization", f"Bearer {new.game_token}"),)
            )
        assert game.game.version == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_a_serving_process_freezes_its_startup_objects_out_of_the_collectors_reach() -> None:
    import gc
    import weakref

    from service.server import GC_YOUNG_THRESHOLD, settle_garbage_collector

    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    try:
        settle_garbage_collector()
        assert gc.get_freeze_count() > frozen
        assert gc.get_threshold()[0] == GC_YOUNG_THRESHOLD > threshold[0]
        assert gc.get_threshold()[1:] == threshold[1:]
        # Objects made afterwards are collected as before: a cycle still goes.
        ref = weakref.ref(_Cyclic())
        gc.collect()
        assert ref() is None
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


class _Cyclic:
    def __init__(self) -> None:
        self.me = self


def test_a_relative_local_redis_dir_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--local-redis-dir var/r`` names a folder under the working directory, as an absolute one would."""
    import redis

    from service.__main__ import local_redis

    monkeypatch.chdir(tmp_path)
    with local_redis(Path("var") / "r") as url:
        assert url == f"unix://{tmp_path / 'var' / 'r' / 'redis.sock'}"
        client = redis.Redis(unix_socket_path=url.removeprefix("unix://"))
        try:
            assert client.ping() is True
        finally:
            client.close()
    assert (tmp_path / "var" / "r" / "redis.log").exists()
