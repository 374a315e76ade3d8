"""service.observe.calls: one wrapper for both transports -- the same request id, access line, metrics and error
answer whether a call comes over gRPC or REST -- and its mapping of errors to statuses."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from http_support import live_server
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from prometheus_client import REGISTRY

from service import errors
from service.errors import Code, ServiceError
from service.observe.calls import failure, http_answer


class Lines(logging.Handler):
    """The access lines written while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def access_lines() -> Iterator[Lines]:
    logger = logging.getLogger("service.access")
    handler, level = Lines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_both_transports_answer_log_and_count_a_call_the_same_way(redis_db: str, access_lines: Lines) -> None:
    game_id = "0" * 24
    with live_server(redis_db, None) as live:
        handled = REGISTRY.get_sample_value
        grpc_before = handled(
            "grpc_server_handled_total",
            {"grpc_service": "patience.v1.PatienceService", "grpc_method": "GetGame", "grpc_code": "NOT_FOUND"},
        )
        rest_before = handled("patience_http_requests_total", {"rpc": "GetGame", "code": "NOT_FOUND"})
        with grpc.insecure_channel(f"127.0.0.1:{live.grpc_port}") as channel:
            stub = pb_grpc.PatienceServiceStub(channel)
            md = (("authorization", "Bearer pgt_nobody"), ("x-request-id", "over-grpc"))
            with pytest.raises(grpc.RpcError) as over_grpc:
                stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=md)
        headers = {"authorization": "Bearer pgt_nobody", "x-request-id": "over-rest"}
        over_rest = httpx.get(f"{live.base_url}/v1/games/{game_id}", headers=headers, timeout=10)
        grpc_after = handled(
            "grpc_server_handled_total",
            {"grpc_service": "patience.v1.PatienceService", "grpc_method": "GetGame", "grpc_code": "NOT_FOUND"},
        )
        rest_after = handled("patience_http_requests_total", {"rpc": "GetGame", "code": "NOT_FOUND"})

    # The same refusal, each in its transport's shape.
    status = rpc_status.from_call(over_grpc.value)  # type: ignore[arg-type]
    assert status is not None
    info = errors.error_info(status)
    assert info is not None and info.reason == "GAME_NOT_FOUND"
    assert over_rest.status_code == 404 and over_rest.headers["x-request-id"] == "over-rest"
    body = over_rest.json()
    assert body["code"] == status.code and body["message"] == status.message
    assert body["details"][0]["reason"] == info.reason and body["details"][0]["metadata"] == dict(info.metadata)
    assert dict(over_grpc.value.trailing_metadata())["x-request-id"] == "over-grpc"  # type: ignore[attr-defined]

    # One access line each, with the same fields (REST adds the HTTP request line).
    lines = {
        r.request_id: r for r in access_lines.records if getattr(r, "request_id", "") in ("over-grpc", "over-rest")
    }  # type: ignore[attr-defined]
    rpc, http = lines["over-grpc"], lines["over-rest"]
    assert (rpc.getMessage(), http.getMessage()) == ("rpc", "http")
    for line in (rpc, http):
        assert line.code == "NOT_FOUND" and line.duration_ms >= 0 and line.peer.count(":") >= 1  # type: ignore[attr-defined]
    assert rpc.method == "/patience.v1.PatienceService/GetGame" and http.method == "GetGame"  # type: ignore[attr-defined]
    assert http.http == f"GET /v1/games/{game_id}"  # type: ignore[attr-defined]

    # Each counted once, under its transport's metric.
    assert (grpc_after or 0) - (grpc_before or 0) == 1
    assert (rest_after or 0) - (rest_before or 0) == 1


def test_a_refusal_is_answered_as_it_is_and_a_bug_as_internal_with_its_traceback_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refusal = errors.game_not_found("g1")
    assert failure(refusal, "GetGame") is refusal
    assert not caplog.records
    with caplog.at_level(logging.ERROR, logger="service.observe.calls"):
        try:
            raise RuntimeError("a bug")
        except RuntimeError as exc:
            bug = failure(exc, "ApplyMove")
    assert (bug.code, bug.reason, bug.message) == (Code.INTERNAL, "INTERNAL", "internal error")
    logged = [r for r in caplog.records if r.name == "service.observe.calls"]
    assert len(logged) == 1 and logged[0].exc_info is not None and "ApplyMove" in logged[0].getMessage()
    assert "a bug" not in bug.message, "a bug's details stay in the log"


def test_http_statuses_of_errors() -> None:
    status, http, headers = http_answer(errors.internal())
    assert (status.code, status.message, list(status.details), http, headers) == (13, "internal error", [], 500, {})
    assert http_answer(errors.too_many_moves(10))[1:] == (413, {})  # RESOURCE_EXHAUSTED, but retrying cannot help
    assert http_answer(errors.store_unavailable(RuntimeError("full"), full=True))[1] == 503
    assert http_answer(errors.method_not_allowed("PUT", "GET"))[1] == 405
    assert http_answer(errors.unsupported_media_type())[1] == 415
    limited = http_answer(errors.rate_limited("NewGame", "10 per 1 minute", 7))
    assert limited[1:] == (429, {"retry-after": "7"})
    retry = [d for d in limited[0].details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    assert len(retry) == 1
    # Everything else: the HTTP status of its code, and the ErrorInfo detail as over gRPC.
    for code in Code:
        error = ServiceError(code, "BAD_LABEL", "text", {"k": "v"})  # any listed reason (errors.REASONS)
        status, http, _ = http_answer(error)
        assert http == code.http_status and errors.error_info(status) is not None


def test_a_service_error_takes_only_a_listed_reason_code() -> None:
    """service.errors.REASONS is the whole list (docs/api.md, the web client's messages): another reason, or one
    spelt another way, is a bug caught where the error is made."""
    assert ServiceError(Code.NOT_FOUND, "GAME_NOT_FOUND", "x").reason == "GAME_NOT_FOUND"
    assert ServiceError(Code.FAILED_PRECONDITION, "DOES_NOT_FIT", "x").reason == "DOES_NOT_FIT"  # the engine's
    for reason in ("SOME_REASON", "game-not-found", "does-not-fit", "Game_Not_Found", ""):
        with pytest.raises(ValueError, match="reason codes"):
            ServiceError(Code.NOT_FOUND, reason, "x")
