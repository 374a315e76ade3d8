"""schemathesis against the served /openapi.json: no 5xx and no response that breaks the document.

Cases are generated from the document itself (the proto's routes and JSON schemas), valid and invalid
alike, and sent to a live server (gRPC + REST, real Redis). Half of the cases that name a game get a real
game id and its token, so generated bodies reach the rules and not only the 401/404 paths; half of the
operator-key calls get the real key. Bounded: a fixed number of examples per operation, no shrinking.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from http_support import OPERATOR_KEY, LiveServer, live_server
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

EXAMPLES_PER_OPERATION = 40
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def api_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Hints with a small budget: the run reaches Hint's every refusal and answer, not the solver's depth.
    # WatchGame's streams end after a second: schemathesis reads each event stream to its end.
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), hint_states=200, watch_max_seconds=1.0) as live:
        yield live


@pytest.fixture(scope="module")
def api_schema(api_server: LiveServer) -> Any:
    return schemathesis.openapi.from_url(f"{api_server.base_url}/openapi.json")


@pytest.fixture(scope="module")
def real_games(api_server: LiveServer) -> Iterator[Iterator[tuple[str, str]]]:
    """A fresh real game (id, token) on demand, rotating through the families."""
    variants = itertools.cycle(["cats-tail", "tribunal", "captives", "sultan-36", "picture-gallery"])
    with httpx.Client(base_url=api_server.base_url, timeout=30) as client:

        def games() -> Iterator[tuple[str, str]]:
            for variant in variants:
                body = client.post("/v1/games", json={"variant": variant}).raise_for_status().json()
                yield body["game"]["gameId"], body["gameToken"]

        yield games()


def _operations() -> list[tuple[str, GenerationMode]]:
    """(operation id, mode) from the document the transcoder serves, so a new RPC is tested without editing this.

    Negative cases only for operations that take input (there is nothing to break in a bare GET).
    """
    from service.rest.app import RestGateway, openapi_for

    async def unused(*_: Any) -> Any:
        raise AssertionError

    doc = openapi_for(RestGateway(unused))
    out = []
    for item in doc["paths"].values():
        for op in item.values():
            out.append((op["operationId"], GenerationMode.POSITIVE))
            if op.get("parameters") or op.get("requestBody"):
                out.append((op["operationId"], GenerationMode.NEGATIVE))
    return out


@pytest.mark.parametrize(("operation_id", "mode"), _operations(), ids=lambda v: getattr(v, "value", v))
def test_api_conforms_to_its_openapi_document(
    operation_id: str,
    mode: GenerationMode,
    api_schema: Any,
    api_server: LiveServer,
    real_games: Iterator[tuple[str, str]],
) -> None:
    (operation,) = [
        op
        for op in (r.ok() for r in api_schema.get_all_operations())
        if op.definition.raw["operationId"] == operation_id
    ]
    turn = itertools.count()

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def check(case: schemathesis.Case) -> None:
        headers: dict[str, str] = {}
        real = next(turn) % 2 == 0
        if real and case.path_parameters and "game_id" in case.path_parameters:
            game_id, token = next(real_games)
            case.path_parameters["game_id"] = game_id
            headers["Authorization"] = f"Bearer {token}"
        if real and case.operation.path == "/v1/deals":
            headers["x-operator-key"] = OPERATOR_KEY
        response = case.call(base_url=api_server.base_url, headers=headers, timeout=30)
        case.validate_response(response, checks=CHECKS, headers=headers)

    check()
