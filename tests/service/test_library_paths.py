"""Each fast path kept beside its library (docs/service-benchmark.md, "Libraries and the code that replaces them")
gives the library's answers: the store on its pipelined connection and on redis-py (``--redis-client``), and REST
answers written by the compiled JSON mapping and by protobuf's json_format (``--json-mapping``)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
import redis
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from proto_support import messages

from engine import get_game
from engine.encoding import encode_state
from service.rest.app import SERVICES, RestGateway
from service.rest.routes import routes_for_services
from service.rest.transcode import JSON_MAPPINGS, library_json, response_json
from service.settings.config import load as load_settings
from service.store import NewGameRecord, StoreError, open_store
from service.store.failures import unavailable

#: A record's fields that hold the Redis server's clock: they differ between two runs of the same calls.
CLOCK = ("created_at", "updated_at", "finished_at", "now")
SEED = bytes(range(32))


def new_game(game_id: str) -> NewGameRecord:
    game = get_game("royal-retinue")
    return NewGameRecord(
        game_id=game_id,
        token_hash=bytes(32),
        variant=game.id,
        options=game.options_text(),
        seed=SEED,
        state=encode_state(game, game.deal(SEED)),
    )


async def _calls(url: str, prefix: str, pipelined: bool, admin: redis.Redis) -> list[Any]:
    """One scripted life of two games through one client: every answer, or the refusal it met."""
    store = open_store(url, idle_seconds=600, key_prefix=prefix, pipelined=pipelined)
    assert (store.pipe is not None) is pipelined
    game = get_game("royal-retinue")
    state = game.deal(SEED)
    line = []
    for _ in range(3):
        state, explicit = game.play(state, next(iter(game.legal_moves(state))))
        line.append((explicit, encode_state(game, state)))
    answers: list[Any] = []

    async def call(coro: Any) -> None:
        try:
            answer = await coro
        except (StoreError, ValueError) as exc:
            answers.append((type(exc).__name__, str(exc)))
            return
        if dataclasses.is_dataclass(answer):
            answer = dataclasses.replace(answer, **dict.fromkeys(CLOCK, 0))  # type: ignore[type-var]
        answers.append(answer)

    try:
        await call(store.create(new_game("g1")))
        await call(store.create(new_game("g1")))  # taken
        await call(store.fetch("nobody"))
        record = await store.fetch("g1")
        await call(store.set_state("g1", record.version, line[0][1], line[0][0], previous=record))
        await call(store.set_state("g1", record.version, line[0][1], line[0][0]))  # stale
        await call(store.play_moves("g1", record.version + 1, line[2][1], [line[1][0], line[2][0]]))
        await call(store.count_hint("g1", record.version + 3))
        admin.script_flush()  # the scripts are gone from Redis: each client loads them again
        await call(store.undo("g1", record.version + 3, line[1][1]))
        await call(store.fetch("g1", moves=True))
        await call(store.finish("g1", None, "resigned"))
        await call(store.set_state("g1", record.version + 5, line[2][1], line[2][0]))  # closed
        await call(store.keep_certificate("g1", b"certificate"))
        await call(store.keep_certificate("g1", b"another"))  # the first one stays
        await call(store.create(dataclasses.replace(new_game("g2"), moves=(line[0][0],), state=line[0][1])))
        await call(store.replace("g2", 1, line[2][1], [m for m, _ in line], status="won", played="moves"))
        await call(store.fetch("g2", moves=True))
        admin.config_set("maxmemory", 1)
        try:
            await call(store.create(new_game("g3")))  # full
        finally:
            admin.config_set("maxmemory", 0)
    finally:
        await store.close()
    return answers


def test_the_store_answers_alike_through_the_pipe_and_through_redis_py(redis_db: str) -> None:
    admin = redis.Redis.from_url(redis_db)
    piped = asyncio.run(_calls(redis_db, "one", True, admin))
    library = asyncio.run(_calls(redis_db, "two", False, admin))
    assert piped == library
    refused = [a[0] for a in piped if isinstance(a, tuple)]
    assert refused == ["AlreadyExists", "NotFound", "VersionConflict", "GameClosed", "StoreFull"]


def test_an_error_reply_means_the_same_from_either_client() -> None:
    """What the store makes of the error replies that matter to it, as each client raises them."""
    from redis.exceptions import BusyLoadingError, OutOfMemoryError, ReadOnlyError, ResponseError

    for pipe_error, redis_py_error in (
        (ResponseError("OOM command not allowed"), OutOfMemoryError("command not allowed")),
        (ResponseError("LOADING Redis is loading"), BusyLoadingError("Redis is loading")),
        (ResponseError("READONLY You can't write"), ReadOnlyError("You can't write")),
    ):
        made = unavailable(pipe_error)
        assert made is not None and type(made) is type(unavailable(redis_py_error))
    assert unavailable(ResponseError("ERR wrong number of arguments")) is None


ROUTES = routes_for_services(SERVICES)


@pytest.mark.parametrize("route", ROUTES, ids=[f"{r.http_method} {r.template}" for r in ROUTES])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_every_answer_is_the_same_json_from_either_mapping(route: Any, data: st.DataObject) -> None:
    answer: Message = data.draw(messages(route.method.output_type))
    try:
        expected = response_json(route, answer, library_json)
    except (ValueError, json_format.Error):  # a value json_format refuses (a Timestamp out of range): refused by both
        with pytest.raises(ValueError):
            response_json(route, answer, JSON_MAPPINGS["compiled"])
        return
    assert response_json(route, answer, JSON_MAPPINGS["compiled"]) == expected


def test_the_setting_picks_the_mapping() -> None:
    assert load_settings([], {}).json_mapping == "compiled"
    assert load_settings(["--json-mapping", "json_format"], {}).json_mapping == "json_format"
    assert RestGateway(lambda *a: None, json_mapping="json_format").to_json is library_json  # type: ignore[arg-type,return-value]
    assert load_settings([], {}).redis_client == "pipelined"
    assert load_settings([], {"PATIENCE_REDIS_CLIENT": "redis-py"}).redis_client == "redis-py"
    with pytest.raises(SystemExit):
        load_settings(["--redis-client", "coredis"], {})


def test_a_plain_answer() -> None:
    answer = pb.ApplyMoveResponse(game=pb.Game(game_id="abc", version=7))
    route = next(r for r in ROUTES if r.rpc_name == "ApplyMove")
    assert response_json(route, answer) == response_json(route, answer, library_json)


# -- requests: read by json_format itself (its hand-written planner saved under 7 % of a REST move) ---------------


def test_a_request_is_read_by_protobufs_json_mapping() -> None:
    from service.rest.transcode import TranscodeError, _parse

    read = _parse(pb.ApplyMoveRequest, {"expectedVersion": "7", "text": "s", "game_id": "g"}, "body")
    assert read == pb.ApplyMoveRequest(expected_version=7, text="s", game_id="g")
    with pytest.raises(TranscodeError) as refused:
        _parse(pb.ApplyMoveRequest, {"expectedVersion": "seven"}, "body")
    assert refused.value.reason == "INVALID_JSON" and "expectedVersion" in refused.value.message


def test_a_refused_lone_surrogate_is_a_400_not_a_crash() -> None:
    """json_format quotes the refused value; a lone surrogate in it is written as an escape, so that the refusal
    can be encoded at all (else the answer itself raised UnicodeEncodeError: a 500)."""
    from service import errors
    from service.rest.gateway import service_error
    from service.rest.transcode import TranscodeError, _parse

    with pytest.raises(TranscodeError) as refused:
        _parse(pb.ApplyMoveRequest, {"expectedVersion": "\ud800 1", "text": "s"}, "body")
    assert refused.value.reason == "INVALID_JSON" and "\\ud800 1" in refused.value.message
    answer = service_error(errors.bad_request(refused.value.reason, refused.value.message, refused.value.field))
    assert answer.status_code == 400 and b"INVALID_JSON" in bytes(answer.body)
