"""Fuzzing over gRPC, beside the schemathesis run over REST: no answer may be INTERNAL or UNKNOWN.

Two kinds of input go to every method the server registers (the API, health, reflection), against the real
process (``python -m service``) and a real Redis:

- random bytes as the request, which rarely decode: they must be INVALID_ARGUMENT with the reason
  UNDECODABLE_REQUEST, logged as one warning line without a traceback;
- messages hypothesis builds from each request's descriptor (every field, nested messages, maps, enum values
  out of range, long and odd strings), half of them naming a real game with its token, so that they reach the
  rules and not only the refusals at the door.

The figures (calls made, answers by status code) are printed; docs/security.md quotes them.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from proto_support import messages
from service_harness import OPERATOR_KEY, ServiceProcess, bearer, start_process

RANDOM_CALLS = 400  # random byte strings, spread over every method
EXAMPLES_PER_RPC = 60
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
SERVICE = pb.DESCRIPTOR.services_by_name["PatienceService"]
# Every unary-request method the process serves, with a harmless request deserializer-side name.
UNARY_METHODS = [f"/{SERVICE.full_name}/{m.name}" for m in SERVICE.methods] + [
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",  # server streaming: the first answer or the error
]
STREAMING_REQUEST_METHODS = [
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
]


@pytest.fixture(scope="module")
def service(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    # The fuzzer is one client calling as fast as it can: the abuse limits are off (start_process).
    # Hints with a small budget: the fuzzer reaches Hint's every refusal and answer, not the solver's depth.
    process = start_process(redis_url, tmp_path_factory.mktemp("fuzz"), "--hint-states", "200")
    yield process
    process.terminate()


@pytest.fixture(scope="module")
def figures() -> Any:
    counts: Counter[str] = Counter()
    yield counts
    print(f"\ngRPC fuzz: {sum(counts.values())} calls; answers by code: {dict(sorted(counts.items()))}")


@pytest.fixture(scope="module")
def game(service: ServiceProcess) -> tuple[str, str]:
    with grpc.insecure_channel(service.address) as channel:
        reply = pb_grpc.PatienceServiceStub(channel).NewGame(pb.NewGameRequest(variant="captives"), timeout=10)
        return reply.game.game_id, reply.game_token


def _call_raw(channel: grpc.Channel, method: str, payload: bytes) -> grpc.StatusCode:
    try:
        if method.endswith(("/Watch", "/WatchGame")):
            stream = channel.unary_stream(method)(payload, timeout=5)
            next(iter(stream))
            stream.cancel()  # type: ignore[attr-defined]
        elif method in STREAMING_REQUEST_METHODS:
            replies = channel.stream_stream(method)(iter([payload]), timeout=5)
            next(iter(replies))
        else:
            channel.unary_unary(method)(payload, timeout=10)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[attr-defined,no-any-return]
    return grpc.StatusCode.OK


def test_random_bytes_to_every_method(service: ServiceProcess, figures: Counter[str]) -> None:
    rng = random.Random(17)
    codes: Counter[grpc.StatusCode] = Counter()
    with grpc.insecure_channel(service.address) as channel:
        for i in range(RANDOM_CALLS):
            methods = UNARY_METHODS + STREAMING_REQUEST_METHODS
            method = methods[i % len(methods)]
            payload = rng.randbytes(rng.choice([1, 3, 8, 40, 300]))
            code = _call_raw(channel, method, payload)
            codes[code] += 1
            figures[code.name] += 1
            assert code not in FORBIDDEN, f"{method} answered {code.name} to {payload!r}"
    # Most random bytes do not decode; those that do are refused or answered by the use case.
    assert codes[grpc.StatusCode.INVALID_ARGUMENT] > RANDOM_CALLS // 4, codes
    log = service.log.read_text()
    assert "UNDECODABLE_REQUEST" not in log  # the reason goes to the client; the log line says it in words
    # One warning line a minute per method, not one per call.
    warned = [line for line in log.splitlines() if "undecodable request" in line]
    assert 1 <= len(warned) <= len(UNARY_METHODS) + len(STREAMING_REQUEST_METHODS), warned
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]


# ---------------------------------------------------------------------------------- messages by descriptor


@pytest.mark.parametrize("rpc", [m.name for m in SERVICE.methods])
def test_generated_messages_to_every_rpc(
    rpc: str, service: ServiceProcess, game: tuple[str, str], figures: Counter[str]
) -> None:
    method = SERVICE.methods_by_name[rpc]
    response_class: Any = type(pb.__dict__[method.output_type.name]())
    with grpc.insecure_channel(service.address) as channel:
        path = f"/{SERVICE.full_name}/{rpc}"
        serialize = {"request_serializer": lambda m: m.SerializeToString(), "response_deserializer": None}
        serialize["response_deserializer"] = response_class.FromString
        if method.server_streaming:  # WatchGame: its first message (or its refusal), then the stream is cancelled
            stream = channel.unary_stream(path, **serialize)

            def call(message: Message, **kwargs: Any) -> Any:
                replies = stream(message, **kwargs)
                try:
                    return next(iter(replies), None)
                finally:
                    replies.cancel()

        else:
            call = channel.unary_unary(path, **serialize)

        @settings(
            max_examples=EXAMPLES_PER_RPC,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        @given(message=messages(method.input_type), real=st.booleans(), operator=st.booleans())
        def fuzz(message: Message, real: bool, operator: bool) -> None:
            metadata: list[tuple[str, str]] = []
            if real:  # the real game and its token: past the door, into the rules
                names_game = "game_id" in method.input_type.fields_by_name
                if names_game and "deal" in method.input_type.oneofs_by_name:
                    names_game = message.WhichOneof("deal") != "deal_ticket"
                if names_game:
                    message.game_id = game[0]  # type: ignore[attr-defined]
                metadata.extend(bearer(game[1]))
            if operator:
                metadata.append(("x-operator-key", OPERATOR_KEY))
            try:
                call(message, metadata=metadata, timeout=30)
                code = grpc.StatusCode.OK
            except grpc.RpcError as exc:
                code = exc.code()  # type: ignore[attr-defined]
            figures[code.name] += 1
            assert code not in FORBIDDEN, f"{rpc} answered {code.name} to {message!r:.500}"

        fuzz()
    log = service.log.read_text()
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]


def test_the_process_survived(service: ServiceProcess) -> None:
    assert service.proc.poll() is None, Path(service.log).read_text()[-3000:]
