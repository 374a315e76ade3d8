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

import contextlib
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
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
STREAMING_REQUEST_METHODS = ["/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"]


@pytest.fixture(scope="module")
def service(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    # The fuzzer is one client calling as fast as it can: the abuse limits are off (start_process).
    process = start_process(redis_url, tmp_path_factory.mktemp("fuzz"))
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
        if method.endswith("/Watch"):
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

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
# Move-like words among the random text: a fuzzer that only sends noise never passes the notation parser.
_WORDS = st.sampled_from(["s", "d", "w-k", "1-f", "s-k", "w-1", "rd", "1-2/3", "k-1", "c1-f", "9-f1", "f-1", "🂡"])


def _scalar(f: FieldDescriptor) -> st.SearchStrategy[Any]:
    if f.type == FieldDescriptor.TYPE_STRING:
        return st.one_of(st.text(max_size=80), _WORDS, st.lists(_WORDS, max_size=12).map(" ".join))
    if f.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=120)
    if f.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if f.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return st.floats(allow_nan=True, width=32)
    if f.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-3, 12)  # defined values and undefined ones (open enums keep them)
    low, high = _INT_RANGES[f.type]
    return st.one_of(st.integers(-3, 40), st.integers(low, high))


def messages(desc: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Any message of type ``desc``: each field left out or set, recursively (three levels at most)."""
    from google.protobuf import message_factory

    cls = message_factory.GetMessageClass(desc)
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for f in desc.fields:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
            if value.message_type is None:
                parts[f.name] = st.dictionaries(_scalar(key), _scalar(value), max_size=4)
            continue
        if f.message_type is not None:
            if depth >= 2:
                continue
            inner = messages(f.message_type, depth + 1)
            parts[f.name] = st.lists(inner, max_size=3) if f.is_repeated else inner
        else:
            parts[f.name] = st.lists(_scalar(f), max_size=6) if f.is_repeated else _scalar(f)

    @st.composite
    def build(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Message:
        message = cls()
        for name, strategy in parts.items():
            if not draw(st.booleans()):
                continue
            value = draw(strategy)
            target = getattr(message, name)
            if isinstance(value, Message):
                target.CopyFrom(value)
            elif isinstance(value, dict):
                target.update(value)
            elif isinstance(value, list):
                if value and isinstance(value[0], Message):
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    target.extend(value)
            else:
                with contextlib.suppress(ValueError, TypeError):  # e.g. a closed enum: the message stays valid
                    setattr(message, name, value)
        return message

    return build()


@pytest.mark.parametrize("rpc", [m.name for m in SERVICE.methods])
def test_generated_messages_to_every_rpc(
    rpc: str, service: ServiceProcess, game: tuple[str, str], figures: Counter[str]
) -> None:
    method = SERVICE.methods_by_name[rpc]
    response_class: Any = type(pb.__dict__[method.output_type.name]())
    with grpc.insecure_channel(service.address) as channel:
        call = channel.unary_unary(
            f"/{SERVICE.full_name}/{rpc}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString,
        )

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
