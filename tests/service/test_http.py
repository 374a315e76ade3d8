"""The REST/JSON layer: every route and every error, against a real server (gRPC + REST in one loop, real Redis).

The first part checks the route table and the transcoder on descriptors alone (including a synthetic proto
with the http.proto features this API does not use yet); the rest drives a live server over HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from http_support import OPERATOR_KEY, LiveServer, cards_in, fcs_fixtures, live_server
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.deal import canonical_deck
from engine.moves import Move
from engine.view import hidden_cards
from service.games import MIX_LABEL
from service.rest.app import SERVICES, openapi_for, rpc_attribute
from service.rest.routes import RouteError, Router, compile_template, routes_for_services
from service.rest.transcode import HTTP_STATUS, TranscodeError, build_request

SEED = bytes(range(32))

# ---------------------------------------------------------------------------------------------------------
# Routes and transcoding on the descriptors alone


def test_every_rpc_has_its_annotated_routes() -> None:
    routes = routes_for_services(SERVICES)
    service = pb.DESCRIPTOR.services_by_name["PatienceService"]
    assert {r.rpc_name for r in routes} == {m.name for m in service.methods}
    table = {(r.http_method, r.template): r.operation_id for r in routes}
    assert table == {
        ("GET", "/v1/variants"): "ListVariants",
        ("POST", "/v1/games:prepare"): "PrepareGame",
        ("POST", "/v1/games"): "NewGame",
        ("GET", "/v1/games/{game_id}"): "GetGame",
        ("POST", "/v1/games/{game_id}/moves"): "ApplyMove",
        ("POST", "/v1/games/{game_id}/undo"): "UndoMove",
        ("GET", "/v1/games/{game_id}/legal-moves"): "LegalMoves",
        ("GET", "/v1/games/{game_id}/hint"): "Hint",
        ("POST", "/v1/games/{game_id}/autoplay"): "AutoPlay",
        ("POST", "/v1/games/{game_id}/resign"): "Resign",
        ("POST", "/v1/solutions"): "SubmitSolution",
        ("POST", "/v1/games/{game_id}/solution"): "SubmitSolution_1",
        ("POST", "/v1/deals"): "MintDeal",
        ("POST", "/v1/certificates/verify"): "VerifyCertificate",
        ("GET", "/v1/signing-keys"): "GetSigningKeys",
        ("POST", "/v1/players:guest"): "CreateGuest",
        ("GET", "/v1/players/me"): "GetPlayer",
        ("PATCH", "/v1/players/me"): "UpdatePlayer",
        ("DELETE", "/v1/players/me"): "ErasePlayer",
        ("GET", "/v1/players/me/games"): "ListGames",
        ("GET", "/v1/games/{game_id}:watch"): "WatchGame",
        ("GET", "/v1/daily/{variant}"): "GetDailyDeal",
        ("GET", "/v1/leaderboards/{board}"): "GetLeaderboard",
    }
    # A verb is matched before the bare template (as Envoy does): "abc:watch" is no game id of GetGame's.
    router = Router(routes)
    watch, get = router.match("GET", "/v1/games/abc:watch"), router.match("GET", "/v1/games/abc")
    assert not isinstance(watch, list) and not isinstance(get, list)
    assert (watch.route.rpc_name, watch.path_params) == ("WatchGame", {"game_id": "abc"})
    assert (get.route.rpc_name, get.path_params) == ("GetGame", {"game_id": "abc"})
    # Each RPC maps to the GameService method the gRPC servicer calls.
    assert {rpc_attribute(m) for m in service.methods} >= {"apply_move", "get_signing_keys", "legal_moves", "auto_play"}


def test_router_matches_decodes_and_tells_404_from_405() -> None:
    router = Router(routes_for_services(SERVICES))
    found = router.match("POST", "/v1/games/a%2Fb%20c/moves")
    assert not isinstance(found, list)
    assert found.route.rpc_name == "ApplyMove" and found.path_params == {"game_id": "a/b c"}
    assert router.match("DELETE", "/v1/games/x") == ["GET"]
    assert router.match("GET", "/v1/games/x/y/z") == []
    assert router.match("GET", "/v1/games/") == []  # a variable is never empty


def _synthetic_service() -> Any:
    """A proto with nested path fields, patterns, a verb, a body field and response_body."""
    fdp = descriptor_pb2.FileDescriptorProto(name="rest_test/shelf.proto", package="resttest", syntax="proto3")
    fdp.dependency.append("google/api/annotations.proto")
    book = fdp.message_type.add(name="Book")
    book.field.add(name="name", number=1, type=9, label=1)
    book.field.add(name="pages", number=2, type=5, label=1)
    book.field.add(name="tags", number=3, type=9, label=3)
    req = fdp.message_type.add(name="UpdateRequest")
    req.field.add(name="book", number=1, type=11, type_name=".resttest.Book", label=1)
    req.field.add(name="shelf", number=2, type=9, label=1)
    req.field.add(name="force", number=3, type=8, label=1)
    req.field.add(name="ids", number=4, type=3, label=3)
    svc = fdp.service.add(name="Shelves")
    rules = {
        "Update": http_pb2.HttpRule(patch="/v1/{book.name=shelves/*/books/*}", body="book"),
        "Publish": http_pb2.HttpRule(post="/v1/{shelf=shelves/**}:publish", body="*"),
        "Get": http_pb2.HttpRule(get="/v1/shelves/{shelf}/book", response_body="book"),
    }
    for name, rule in rules.items():
        method = svc.method.add(name=name, input_type=".resttest.UpdateRequest", output_type=".resttest.UpdateRequest")
        method.options.Extensions[annotations_pb2.http].CopyFrom(rule)
    pool = descriptor_pool.Default()
    try:
        return pool.FindServiceByName("resttest.Shelves")
    except KeyError:
        pool.AddSerializedFile(fdp.SerializeToString())
        return pool.FindServiceByName("resttest.Shelves")


def test_templates_with_patterns_nested_fields_verbs_and_body_fields() -> None:
    service = _synthetic_service()
    router = Router(routes_for_services([service]))
    found = router.match("PATCH", "/v1/shelves/s1/books/b%2F2")
    assert not isinstance(found, list)
    req = build_request(found.route, found.path_params, [("shelf", "x"), ("ids", "1"), ("ids", "2")], b'{"pages": 7}')
    assert req.book.name == "shelves/s1/books/b/2" and req.book.pages == 7
    assert req.shelf == "x" and list(req.ids) == [1, 2]
    # "**" spans segments; the verb is matched literally.
    found = router.match("POST", "/v1/shelves/a/b/c:publish")
    assert not isinstance(found, list) and found.path_params == {"shelf": "shelves/a/b/c"}
    assert router.match("POST", "/v1/shelves/a:unpublish") == []
    # The path wins over the body; a body "*" route takes no query.
    req = build_request(found.route, found.path_params, [], b'{"shelf": "other", "force": true}')
    assert req.shelf == "shelves/a/b/c" and req.force
    with pytest.raises(TranscodeError, match="body"):
        build_request(found.route, found.path_params, [("force", "true")], b"")
    found = router.match("GET", "/v1/shelves/s9/book")
    assert not isinstance(found, list)
    req = build_request(found.route, found.path_params, [("force", "1"), ("book.pages", "3")], b"")
    assert req.force and req.book.pages == 3
    cls = message_factory.GetMessageClass(service.methods_by_name["Get"].output_type)
    from service.rest.transcode import response_json

    assert response_json(found.route, cls(book={"name": "b", "pages": 2})) == {"name": "b", "pages": 2, "tags": []}


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ("v1/games", "starts with"),
        ("/v1/{nope}", "no field"),
        ("/v1/{ids}", "repeated"),
        ("/v1/{book}", "message"),
        ("/v1/{shelf}/{shelf}", "twice"),
        ("/v1/{shelf", "unbalanced"),
        ("/v1//x", "empty segment"),
        ("/v1/a%b", "bad segment"),
    ],
)
def test_bad_templates_are_refused(template: str, error: str) -> None:
    request = _synthetic_service().methods_by_name["Update"].input_type
    with pytest.raises(RouteError, match=error):
        compile_template(template, request)


@pytest.mark.parametrize(
    ("query", "body", "reason"),
    [
        ([("nope", "1")], b"", "UNKNOWN_PARAMETER"),
        ([("includeMoves", "maybe")], b"", "BAD_QUERY_PARAMETER"),
        ([("includeMoves", "true"), ("includeMoves", "false")], b"", "BAD_QUERY_PARAMETER"),
        ([("game_id", "other")], b"", "UNKNOWN_PARAMETER"),  # bound by the path
        ([], b'{"a": 1}', "UNEXPECTED_BODY"),
    ],
)
def test_query_and_body_errors(query: list[tuple[str, str]], body: bytes, reason: str) -> None:
    router = Router(routes_for_services(SERVICES))
    found = router.match("GET", "/v1/games/g1")
    assert not isinstance(found, list)
    with pytest.raises(TranscodeError) as info:
        build_request(found.route, found.path_params, query, body)
    assert info.value.reason == reason


def test_both_json_and_proto_field_names_are_accepted() -> None:
    router = Router(routes_for_services(SERVICES))
    found = router.match("GET", "/v1/games/g1")
    assert not isinstance(found, list)
    for name in ("includeMoves", "include_moves"):
        assert build_request(found.route, found.path_params, [(name, "true")], b"").include_moves
    found = router.match("POST", "/v1/games/g1/moves")
    assert not isinstance(found, list)
    for body in (b'{"expected_version": "3", "text": "d"}', b'{"expectedVersion": 3, "text": "d"}'):
        req = build_request(found.route, found.path_params, [], body)
        assert (req.game_id, req.expected_version, req.text) == ("g1", 3, "d")


def test_http_status_follows_googles_mapping() -> None:
    from google.rpc import code_pb2

    expected = {"INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400, "UNAUTHENTICATED": 401}
    expected |= {"PERMISSION_DENIED": 403, "NOT_FOUND": 404, "ABORTED": 409, "ALREADY_EXISTS": 409}
    expected |= {"RESOURCE_EXHAUSTED": 429, "CANCELLED": 499, "UNIMPLEMENTED": 501, "UNAVAILABLE": 503}
    expected |= {"DEADLINE_EXCEEDED": 504, "INTERNAL": 500}
    for name, status in expected.items():
        assert HTTP_STATUS[getattr(code_pb2, name)] == status
    from service.errors import Code

    for code in Code:  # the service's own table agrees
        assert HTTP_STATUS[getattr(code_pb2, code.name)] == code.http_status, code


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def test_openapi_document_is_generated_from_the_proto() -> None:
    from service.rest.app import RestGateway

    async def never(*_: Any) -> Any:
        raise AssertionError

    doc = openapi_for(RestGateway(never))
    assert doc["openapi"].startswith("3.1")
    ops = {op["operationId"]: (path, verb) for path, item in doc["paths"].items() for verb, op in item.items()}
    assert ops["ApplyMove"] == ("/v1/games/{game_id}/moves", "post")
    assert ops["SubmitSolution_1"] == ("/v1/games/{game_id}/solution", "post")
    assert len(ops) == 23
    assert ops["Hint"] == ("/v1/games/{game_id}/hint", "get")
    assert ops["AutoPlay"] == ("/v1/games/{game_id}/autoplay", "post")
    assert ops["PrepareGame"] == ("/v1/games:prepare", "post")
    for ref in set(_refs(doc)):
        assert ref.removeprefix("#/components/schemas/") in doc["components"]["schemas"], ref
    schemas = doc["components"]["schemas"]
    # Descriptions come from the .proto's comments; names and types from protobuf's JSON mapping.
    assert "stock" in schemas["View"]["properties"]["stockCount"]["description"]
    assert schemas["Game"]["properties"]["version"]["format"] == "int64"
    assert schemas["Game"]["properties"]["commitment"]["contentEncoding"] == "base64"
    assert schemas["GameStatus"]["enum"][0] == "GAME_STATUS_UNSPECIFIED"
    assert schemas["Game"]["properties"]["createdAt"] == {"type": "string", "format": "date-time"}
    assert "Deal a new game" in doc["paths"]["/v1/games"]["post"]["description"]
    apply = doc["paths"]["/v1/games/{game_id}/moves"]["post"]
    assert "gameId" not in apply["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert apply["security"] == [{"gameToken": []}]
    assert doc["paths"]["/v1/deals"]["post"]["security"] == [{"operatorKey": []}]
    assert doc["paths"]["/v1/variants"]["get"]["security"] == [{}]
    get_game = doc["paths"]["/v1/games/{game_id}"]["get"]
    assert [p["name"] for p in get_game["parameters"]] == ["game_id", "includeMoves"]


# ---------------------------------------------------------------------------------------------------------
# A live server


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys")) as live:
        yield live


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        yield c


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def error(response: httpx.Response, status: int, reason: str) -> dict[str, str]:
    """Check the google.rpc.Status JSON body; return the ErrorInfo metadata."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["code"], int) and body["code"] != 0 and body["message"]
    (info,) = [d for d in body["details"] if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"]
    assert info["domain"] == "patience.v1"
    assert info["reason"] == reason, body
    return dict(info.get("metadata", {}))


def new_game(client: httpx.Client, server: LiveServer, variant: str, seed: bytes | None = None, **body: Any) -> Any:
    if seed is not None:
        server.seeds.push(seed)
    response = client.post("/v1/games", json={"variant": variant, **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_list_variants(client: httpx.Client) -> None:
    response = client.get("/v1/variants")
    assert response.status_code == 200
    variants = response.json()["variants"]
    assert [v["id"] for v in variants][:4] == [
        "royal-retinue",
        "royal-retinue-aces",
        "royal-retinue-kings-last",
        "cats-tail",
    ]
    assert len(variants) == 9
    cats = next(v for v in variants if v["id"] == "cats-tail")
    assert cats["deckSize"] == 104 and cats["options"][0]["name"] == "sequence_moves"
    assert response.headers["cache-control"] == "no-store" and response.headers["x-request-id"]


def test_new_game_and_get_game(client: httpx.Client, server: LiveServer) -> None:
    data = new_game(client, server, "cats-tail", SEED)
    game, token = data["game"], data["gameToken"]
    assert game["version"] == "1" and game["status"] == "GAME_STATUS_IN_PROGRESS" and game["dealAlgorithm"] == "deal-v2"
    assert base64.b64decode(game["commitment"]) == hashlib.sha256(SEED).digest()
    assert game["seed"] == ""  # not before the game is over
    expected = get_game("cats-tail").deal(SEED)
    assert [c["cards"] for c in game["view"]["columns"]] == [[TEXT[c] for c in col] for col in expected.columns]
    got = client.get(f"/v1/games/{game['gameId']}", headers=bearer(token))
    assert got.status_code == 200 and got.json()["game"]["view"] == game["view"]
    got = client.get(f"/v1/games/{game['gameId']}", params={"includeMoves": "true"}, headers=bearer(token))
    assert got.json()["game"]["moves"] == []


def test_new_game_errors(client: httpx.Client) -> None:
    error(client.post("/v1/games", json={"variant": "klondike"}), 400, "UNKNOWN_VARIANT")
    meta = error(
        client.post("/v1/games", json={"variant": "cats-tail", "options": {"sequence_moves": "maybe"}}),
        400,
        "BAD_OPTION",
    )
    assert meta["field"] == "options"
    error(
        client.post("/v1/games", json={"variant": "cats-tail", "clientSeed": base64.b64encode(b"x" * 65).decode()}),
        400,
        "BAD_CLIENT_SEED",
    )
    error(
        client.post("/v1/games", content=b"{not json", headers={"content-type": "application/json"}),
        400,
        "INVALID_JSON",
    )
    error(client.post("/v1/games", content=b"[1]", headers={"content-type": "application/json"}), 400, "INVALID_JSON")
    error(client.post("/v1/games", json={"variant": "cats-tail", "colour": "red"}), 400, "INVALID_JSON")
    error(client.post("/v1/games", json={"variant": 7}), 400, "INVALID_JSON")
    error(client.post("/v1/games", json={"allowUndo": "perhaps"}), 400, "INVALID_JSON")
    # json_format quotes a refused value: a lone surrogate in it must not turn the 400 into a 500
    lone = b'{"variant": "captives", "dealNumber": "\\ud800 1"}'
    error(client.post("/v1/games", content=lone, headers={"content-type": "application/json"}), 400, "INVALID_JSON")
    error(
        client.post("/v1/games", content=b"variant=cats-tail", headers={"content-type": "text/plain"}),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    error(client.post("/v1/games", params={"variant": "cats-tail"}), 400, "UNKNOWN_PARAMETER")
    big = json.dumps({"variant": "cats-tail", "options": {"x": "y" * (2 << 20)}}).encode()
    error(client.post("/v1/games", content=big, headers={"content-type": "application/json"}), 413, "REQUEST_TOO_LARGE")


def test_a_prepared_game_over_rest(client: httpx.Client, server: LiveServer) -> None:
    server_seed = bytes.fromhex("cd" * 32)
    server.seeds.push(server_seed)
    prepared = client.post("/v1/games:prepare", json={})
    assert prepared.status_code == 200, prepared.text
    body = prepared.json()
    assert base64.b64decode(body["serverSeedCommitment"]) == hashlib.sha256(server_seed).digest()
    assert body["preparedId"] and body["expiresAt"].endswith("Z")
    seed = base64.b64encode(b"mine").decode()
    data = new_game(client, server, "tribunal", clientSeed=seed, preparedId=body["preparedId"])
    game = data["game"]
    mixed = hmac.new(server_seed, MIX_LABEL + b"mine", hashlib.sha256).digest()
    assert base64.b64decode(game["commitment"]) == hashlib.sha256(mixed).digest()
    assert game["serverSeedCommitment"] == body["serverSeedCommitment"] and game["serverSeed"] == ""
    again = client.post("/v1/games", json={"variant": "tribunal", "clientSeed": seed, "preparedId": body["preparedId"]})
    assert error(again, 404, "PREPARED_NOT_FOUND")["prepared_id"] == body["preparedId"]
    error(client.post("/v1/games", json={"variant": "tribunal", "preparedId": "x"}), 400, "PREPARED_NEEDS_CLIENT_SEED")


def test_a_replay_and_a_public_deal_over_rest(client: httpx.Client, server: LiveServer) -> None:
    seed = hashlib.sha256(b"replay over rest").digest()
    first = new_game(client, server, "captives", seed)
    over = client.post(f"/v1/games/{first['game']['gameId']}/resign", headers=bearer(first["gameToken"]), json={})
    assert base64.b64decode(over.json()["game"]["seed"]) == seed
    again = new_game(client, server, "captives", replaySeed=over.json()["game"]["seed"])["game"]
    assert (again["dealt"], again["commitment"], again["view"]) == ("replay", first["game"]["commitment"],
                                                                   first["game"]["view"])  # fmt: skip
    assert again["dealNumber"] == 0
    public = new_game(client, server, "captives", dealNumber=4294967295)["game"]
    assert (public["dealt"], public["dealNumber"]) == ("public", 4294967295)
    assert (
        base64.b64decode(public["commitment"])
        == hashlib.sha256(hashlib.sha256(b"patience-public-deal|4294967295").digest()).digest()
    )
    assert new_game(client, server, "captives", deal_number=3)["game"]["dealNumber"] == 3  # proto names too
    meta = error(client.post("/v1/games", json={"variant": "captives", "replaySeed": "AAAA"}), 400, "BAD_REPLAY_SEED")
    assert (meta["field"], meta["length"]) == ("replay_seed", "3")
    error(client.post("/v1/games", json={"variant": "captives", "dealNumber": 0}), 400, "BAD_DEAL_NUMBER")
    meta = error(
        client.post("/v1/games", json={"variant": "captives", "dealNumber": 5, "clientSeed": "AAAA"}),
        400,
        "DEAL_FIELDS_CONFLICT",
    )
    assert (meta["field"], meta["conflicts_with"]) == ("deal_number", "client_seed")
    error(client.post("/v1/games", json={"variant": "captives", "dealNumber": 4294967296}), 400, "INVALID_JSON")
    error(client.post("/v1/games", json={"variant": "captives", "dealNumber": -1}), 400, "INVALID_JSON")


def test_credentials_mirror_grpc_metadata(client: httpx.Client, server: LiveServer) -> None:
    data = new_game(client, server, "tribunal")
    gid, token = data["game"]["gameId"], data["gameToken"]
    error(client.get(f"/v1/games/{gid}"), 401, "MISSING_TOKEN")
    error(client.get(f"/v1/games/{gid}", headers={"Authorization": f"Basic {token}"}), 401, "MISSING_TOKEN")
    error(client.get(f"/v1/games/{gid}", headers=bearer("not-the-token")), 403, "WRONG_TOKEN")
    error(client.get("/v1/games/no-such-game", headers=bearer(token)), 404, "GAME_NOT_FOUND")
    for path in (f"/v1/games/{gid}/legal-moves", f"/v1/games/{gid}"):
        error(client.get(path, headers=bearer("x")), 403, "WRONG_TOKEN")
    for path, extra in (("moves", {"text": "d"}), ("undo", {}), ("resign", {})):
        error(client.post(f"/v1/games/{gid}/{path}", json={"expectedVersion": 1, **extra}), 401, "MISSING_TOKEN")
    error(client.post(f"/v1/games/{gid}/solution", json={"moves": []}), 401, "MISSING_TOKEN")
    # gRPC sees the very same game with the same token as metadata: one process, one store, one code path.
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        reply = stub.GetGame(pb.GetGameRequest(game_id=gid), metadata=[("authorization", f"Bearer {token}")])
    assert reply.game.version == 1 and reply.game.variant == "tribunal"


def test_apply_move_legal_refused_and_stale(client: httpx.Client, server: LiveServer) -> None:
    data = new_game(client, server, "cats-tail", SEED)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    legal = client.get(f"/v1/games/{gid}/legal-moves", headers=h).json()
    assert legal["version"] == "1" and legal["moves"]
    first = legal["moves"][0]
    assert first["move"]["kind"] == "MOVE_KIND_TRANSFER"
    # The structured form works as well as the text.
    ok = client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": "1", "structured": first["move"]})
    assert ok.status_code == 200, ok.text
    assert ok.json()["applied"]["text"] == first["text"] and ok.json()["game"]["version"] == "2"
    assert ok.json()["game"]["moveCount"] == 1
    meta = error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 2, "text": "1-1"}), 400, "SAME_PILE"
    )
    assert meta["rule"] == "SAME_PILE" and meta["move_text"] == "1-1" and meta["move_index"] == "1"
    error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 2, "text": "x-y"}),
        400,
        "BAD_NOTATION",
    )
    error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 2, "text": "3-r", "structured": {}}),
        400,
        "INVALID_JSON",
    )
    error(client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 2}), 400, "MISSING_MOVE")
    error(client.post(f"/v1/games/{gid}/moves", headers=h, json={"text": "1-r"}), 400, "MISSING_EXPECTED_VERSION")
    meta = error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 1, "text": "1-r"}),
        409,
        "STALE_VERSION",
    )
    assert meta["current_version"] == "2"
    error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": "two", "text": "1-r"}),
        400,
        "INVALID_JSON",
    )


def test_a_refused_move_names_the_rule(client: httpx.Client, server: LiveServer) -> None:
    data = new_game(client, server, "cats-tail", SEED)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    game = get_game("cats-tail")
    state = game.deal(SEED)
    legal = {m.text() for m in game.legal_moves(state)}
    # Find a column-to-column move the rules refuse for colour or rank, and check the reason the engine gives.
    for a in range(1, 10):
        for b in range(1, 10):
            text = f"{a}-{b}/1"
            if a == b or text in legal or not state.columns[a - 1] or not state.columns[b - 1]:
                continue
            try:
                game.play(state, Move.parse(text))
            except Exception as exc:  # the engine's own reason is the oracle
                reason = str(getattr(exc, "reason", ""))
                response = client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 1, "text": text})
                meta = error(response, 400, reason)
                assert meta["move_index"] == "0"
                return
    pytest.fail("no refused move found")


def test_undo(client: httpx.Client, server: LiveServer) -> None:
    data = new_game(client, server, "cats-tail", SEED)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    error(client.post(f"/v1/games/{gid}/undo", headers=h, json={"expectedVersion": 1}), 400, "NOTHING_TO_UNDO")
    move = client.get(f"/v1/games/{gid}/legal-moves", headers=h).json()["moves"][0]["text"]
    client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 1, "text": move}).raise_for_status()
    error(client.post(f"/v1/games/{gid}/undo", headers=h, json={"expectedVersion": 1}), 409, "STALE_VERSION")
    undone = client.post(f"/v1/games/{gid}/undo", headers=h, json={"expectedVersion": 2})
    assert undone.status_code == 200
    assert undone.json()["undone"]["text"] == move and undone.json()["game"]["undoCount"] == 1
    assert undone.json()["game"]["version"] == "3" and undone.json()["game"]["moveCount"] == 0
    # A game dealt without undo refuses it.
    data = new_game(client, server, "cats-tail", allowUndo=False)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    move = client.get(f"/v1/games/{gid}/legal-moves", headers=h).json()["moves"][0]["text"]
    client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": 1, "text": move}).raise_for_status()
    response = client.post(f"/v1/games/{gid}/undo", headers=h, json={"expectedVersion": 2})
    assert response.status_code == 400 and response.json()["details"][0]["reason"] in (
        "UNDO_FORBIDDEN",
        "UNDO_DISABLED",
    )


def test_resign_reveals_the_seed_and_ends_the_game(client: httpx.Client, server: LiveServer) -> None:
    seed = hashlib.sha256(b"resign").digest()
    data = new_game(client, server, "captives", seed)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    error(client.post(f"/v1/games/{gid}/resign", headers=h, json={"expectedVersion": 5}), 409, "STALE_VERSION")
    over = client.post(f"/v1/games/{gid}/resign", headers=h, json={})
    assert over.status_code == 200
    game = over.json()["game"]
    assert game["status"] == "GAME_STATUS_RESIGNED" and base64.b64decode(game["seed"]) == seed
    error(
        client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": game["version"], "text": "s"}),
        400,
        "GAME_OVER",
    )
    error(client.post(f"/v1/games/{gid}/resign", headers=h, json={}), 400, "GAME_OVER")


def test_no_hidden_card_before_the_game_ends(client: httpx.Client, server: LiveServer) -> None:
    """Every card in every response, plus the engine's hidden cards, is exactly the deck: nothing more leaks."""
    seed = hashlib.sha256(b"hidden").digest()
    for variant in ("tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52"):
        rules = get_game(variant)
        deck = Counter(TEXT[c] for c in canonical_deck(rules.info.deck_size))
        data = new_game(client, server, variant, seed)
        gid, h = data["game"]["gameId"], bearer(data["gameToken"])
        state = rules.deal(seed)
        version = 1
        for _ in range(12):
            hidden = Counter(TEXT[c] for c in hidden_cards(rules, state))
            for body in (
                client.get(f"/v1/games/{gid}", headers=h, params={"includeMoves": "true"}).json(),
                client.get(f"/v1/games/{gid}/legal-moves", headers=h).json(),
            ):
                assert body.get("game", {}).get("seed", "") == ""
                shown = cards_in(body)
                assert shown + hidden <= deck or not shown, (variant, version)
            view_cards = cards_in(client.get(f"/v1/games/{gid}", headers=h).json()["game"]["view"])
            assert view_cards + hidden == deck, (variant, version)
            moves = client.get(f"/v1/games/{gid}/legal-moves", headers=h).json()["moves"]
            if not moves:
                break
            text = moves[-1]["text"]  # stock moves come last: deal/turn as much as possible
            reply = client.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": version, "text": text})
            assert reply.status_code == 200, reply.text
            assert cards_in(reply.json()) <= deck
            state, _ = rules.play(state, Move.parse(reply.json()["applied"]["text"]))
            version += 1


def _fixture(variant: str = "cats-tail") -> tuple[bytes, list[str]]:
    fixtures = fcs_fixtures(variant)
    assert fixtures, f"no Freecell Solver fixture for {variant} in tests/data/fcs"
    return fixtures[0]


def test_submit_solution_for_a_game_wins_a_certificate_that_verifies(client: httpx.Client, server: LiveServer) -> None:
    seed, moves = _fixture()
    data = new_game(client, server, "cats-tail", seed)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    bad = client.post(f"/v1/games/{gid}/solution", headers=h, json={"moves": [*moves[:3], "1-1"]})
    assert bad.status_code == 200
    verdict = bad.json()["verdict"]
    assert (
        verdict["outcome"] == "OUTCOME_ILLEGAL" and verdict["errorIndex"] == 3 and verdict["errorReason"] == "SAME_PILE"
    )
    # A submission is final: the game is forfeited, its seed revealed.
    assert bad.json()["game"]["status"] == "GAME_STATUS_FORFEITED"
    assert base64.b64decode(bad.json()["game"]["seed"]) == seed
    error(client.post(f"/v1/games/{gid}/solution", headers=h, json={"moves": moves}), 400, "GAME_OVER")
    data = new_game(client, server, "cats-tail", seed)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    unfinished = client.post("/v1/solutions", headers=h, json={"gameId": gid, "moves": [" ".join(moves[:10])]})
    assert unfinished.json()["verdict"]["outcome"] == "OUTCOME_UNFINISHED"
    assert unfinished.json()["game"]["status"] == "GAME_STATUS_FORFEITED"
    data = new_game(client, server, "cats-tail", seed)
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    won = client.post(f"/v1/games/{gid}/solution", headers=h, json={"moves": moves})
    assert won.status_code == 200, won.text
    body = won.json()
    assert body["verdict"]["outcome"] == "OUTCOME_WON" and body["verdict"]["moveCount"] == len(moves)
    cert = body["certificate"]
    assert base64.b64decode(cert["seed"]) == seed and cert["variant"] == "cats-tail"
    assert cert["played"] == "submitted" and body["game"]["status"] == "GAME_STATUS_WON"
    verified = client.post("/v1/certificates/verify", json={"certificate": cert["encoded"], "replay": True})
    assert verified.status_code == 200 and verified.json()["valid"] is True, verified.text
    tampered = bytearray(base64.b64decode(cert["encoded"]))
    envelope = json.loads(tampered)
    envelope["signature"] = base64.b64encode(bytes(64)).decode()
    forged = base64.b64encode(json.dumps(envelope, sort_keys=True, separators=(",", ":")).encode()).decode()
    refused = client.post("/v1/certificates/verify", json={"certificate": forged})
    assert refused.json()["valid"] is False and refused.json()["reason"] == "BAD_SIGNATURE"
    garbage = client.post("/v1/certificates/verify", json={"certificate": base64.b64encode(b"nope").decode()})
    assert garbage.json() == {**garbage.json(), "valid": False, "reason": "MALFORMED"}
    error(client.post("/v1/certificates/verify", json={"certificate": 12}), 400, "INVALID_JSON")
    # The game is over: its seed is revealed and its moves are the solution.
    game = client.get(f"/v1/games/{gid}", headers=h, params={"includeMoves": True}).json()["game"]
    assert game["status"] == "GAME_STATUS_WON" and len(game["moves"]) == len(moves)
    error(client.post(f"/v1/games/{gid}/solution", headers=h, json={"moves": moves}), 400, "GAME_OVER")


def test_submit_solution_errors(client: httpx.Client) -> None:
    error(client.post("/v1/solutions", json={"moves": ["1-2"]}), 400, "MISSING_DEAL")
    error(client.post("/v1/solutions", json={"gameId": "x", "dealTicket": "y"}), 400, "INVALID_JSON")
    error(client.post("/v1/solutions", json={"dealTicket": "not-a-ticket", "moves": []}), 400, "BAD_TICKET")
    error(client.post("/v1/solutions", json={"gameId": "missing", "moves": []}), 401, "MISSING_TOKEN")


def test_mint_deal_and_play_the_ticket(client: httpx.Client) -> None:
    error(client.post("/v1/deals", json={"variant": "cats-tail"}), 401, "MISSING_OPERATOR_KEY")
    error(
        client.post("/v1/deals", json={"variant": "cats-tail"}, headers={"x-operator-key": "wrong"}),
        403,
        "WRONG_OPERATOR_KEY",
    )
    op = {"x-operator-key": OPERATOR_KEY}
    error(client.post("/v1/deals", json={"variant": "nope"}, headers=op), 400, "UNKNOWN_VARIANT")
    error(client.post("/v1/deals", json={"variant": "cats-tail", "validSeconds": -5}, headers=op), 400, "BAD_VALIDITY")
    minted = client.post("/v1/deals", json={"variant": "cats-tail", "label": "daily"}, headers=op)
    assert minted.status_code == 200, minted.text
    ticket = minted.json()
    assert ticket["variant"] == "cats-tail" and ticket["ticketId"] and ticket["expiresAt"]
    a = client.post("/v1/games", json={"dealTicket": ticket["dealTicket"]}).json()["game"]
    b = client.post("/v1/games", json={"dealTicket": ticket["dealTicket"]}).json()["game"]
    assert a["view"] == b["view"] and a["commitment"] == b["commitment"] == ticket["commitment"]
    assert a["ticketId"] == ticket["ticketId"]
    error(
        client.post("/v1/games", json={"dealTicket": ticket["dealTicket"], "variant": "tribunal"}),
        400,
        "TICKET_FIXES_DEAL",
    )
    error(
        client.post("/v1/games", json={"dealTicket": ticket["dealTicket"], "clientSeed": "AA=="}),
        400,
        "CLIENT_SEED_WITH_TICKET",
    )
    verdict = client.post("/v1/solutions", json={"dealTicket": ticket["dealTicket"], "moves": ["1-1"]}).json()[
        "verdict"
    ]
    assert verdict["outcome"] == "OUTCOME_ILLEGAL" and verdict["errorIndex"] == 0


def test_signing_keys(client: httpx.Client) -> None:
    keys = client.get("/v1/signing-keys").json()["keys"]
    assert len(keys) >= 1 and keys[0]["algorithm"] == "Ed25519" and keys[0]["active"] is True
    raw = base64.b64decode(keys[0]["publicKey"])
    assert len(raw) == 32 and keys[0]["keyId"] == hashlib.sha256(raw).hexdigest()[:16]


def test_routes_methods_and_static_files(client: httpx.Client) -> None:
    error(client.get("/v1/nothing-here"), 404, "NO_SUCH_ROUTE")
    response = client.delete("/v1/variants")
    error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "GET"
    error(
        client.request("GET", "/v1/variants", content=b'{"a":1}', headers={"content-type": "application/json"}),
        400,
        "UNEXPECTED_BODY",
    )
    doc = client.get("/openapi.json")
    assert doc.status_code == 200 and doc.json()["openapi"].startswith("3.1")
    home = client.get("/")
    assert home.status_code == 200 and "<title>Patience</title>" in home.text
    assert "script-src 'self'" in home.headers["content-security-policy"]
    assert home.headers["x-content-type-options"] == "nosniff"
    assert client.get("/app.js").headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert client.get("/../pyproject.toml").status_code == 404
    assert client.get("/%2e%2e/pyproject.toml").status_code == 404


def test_request_id_is_kept(client: httpx.Client) -> None:
    response = client.get("/v1/variants", headers={"x-request-id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    response = client.get("/v1/variants", headers={"x-request-id": "bad id {with} spaces"})
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])


def test_store_down_is_503(tmp_path: Path) -> None:
    from redis_support import free_port

    with live_server(f"redis://127.0.0.1:{free_port()}/0", tmp_path) as down, httpx.Client(base_url=down.base_url) as c:
        assert c.get("/v1/variants").status_code == 200  # the catalogue needs no store
        error(c.post("/v1/games", json={"variant": "cats-tail"}), 503, "STORE_UNAVAILABLE")


def test_listener_socket_gets_tcp_nodelay_connections() -> None:
    """asyncio sets TCP_NODELAY on accepted connections only for IPPROTO_TCP sockets (else ~40 ms a keep-alive call)."""
    import socket

    from service.rest.serving import _bind

    sock = _bind("127.0.0.1:0")
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_too_many_moves_is_413(client: httpx.Client, server: LiveServer) -> None:
    """RESOURCE_EXHAUSTED for a request that is too big is 413 (retrying cannot help), not 429."""
    data = new_game(client, server, "tribunal")
    gid, h = data["game"]["gameId"], bearer(data["gameToken"])
    limit = server.server.settings.max_moves
    meta = error(
        client.post(f"/v1/games/{gid}/solution", headers=h, json={"moves": ["d"] * (limit + 1)}), 413, "TOO_MANY_MOVES"
    )
    assert meta["limit"] == str(limit)


def test_bad_label_and_expired_ticket(client: httpx.Client) -> None:
    op = {"x-operator-key": OPERATOR_KEY}
    error(client.post("/v1/deals", json={"variant": "cats-tail", "label": "x" * 201}, headers=op), 400, "BAD_LABEL")
    ticket = client.post("/v1/deals", json={"variant": "cats-tail", "validSeconds": "1"}, headers=op).json()
    time.sleep(2.1)
    error(client.post("/v1/games", json={"dealTicket": ticket["dealTicket"]}), 400, "TICKET_EXPIRED")


def test_a_server_without_keys_or_operator_key(redis_url: str) -> None:
    """Minting and signing switched off, and games that expire after one idle second."""
    overrides: dict[str, Any] = {"operator_key": None, "generate_keys": False, "idle_timeout": 1}
    with live_server(redis_url, None, **overrides) as bare, httpx.Client(base_url=bare.base_url) as c:
        error(
            c.post("/v1/deals", json={"variant": "cats-tail"}, headers={"x-operator-key": "x"}), 403, "MINTING_DISABLED"
        )
        error(c.post("/v1/certificates/verify", json={"certificate": "AA=="}), 503, "SIGNING_UNAVAILABLE")
        assert c.get("/v1/signing-keys").json() == {"keys": []}
        data = c.post("/v1/games", json={"variant": "captives"}).json()
        gid, h = data["game"]["gameId"], bearer(data["gameToken"])
        time.sleep(2.1)
        game = c.get(f"/v1/games/{gid}", headers=h).json()["game"]
        assert game["status"] == "GAME_STATUS_EXPIRED" and game["seed"]  # over: the seed is revealed
        error(
            c.post(f"/v1/games/{gid}/moves", headers=h, json={"expectedVersion": game["version"], "text": "s"}),
            400,
            "GAME_EXPIRED",
        )


def test_an_unexpected_failure_is_a_generic_500() -> None:
    """A bug behind the transport answers 500 INTERNAL without its details (they go to the log)."""
    import asyncio

    from service.rest.app import create_app

    async def broken(*_: Any) -> Any:
        raise RuntimeError("secret detail: redis://user:pass@host")

    async def run() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=create_app(broken, web_dir=None))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            return await c.get("/v1/variants"), await c.get("/")

    response, home = asyncio.run(run())
    assert response.status_code == 500
    assert response.json() == {"code": 13, "message": "internal error"}
    assert home.status_code == 404  # no web client directory: no page


def test_rest_calls_are_counted_and_timed(client: httpx.Client) -> None:
    """REST calls feed the same Prometheus registry as gRPC (patience_http_*), by RPC and status code."""
    from prometheus_client import REGISTRY

    def sample(name: str, labels: dict[str, str]) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    ok_before = sample("patience_http_requests_total", {"rpc": "ListVariants", "code": "OK"})
    timed_before = sample("patience_http_request_duration_seconds_count", {"rpc": "ListVariants"})
    missing_before = sample("patience_http_requests_total", {"rpc": "GetGame", "code": "NOT_FOUND"})
    assert client.get("/v1/variants").status_code == 200
    assert client.get("/v1/games/" + "0" * 24, headers=bearer("pgt_x")).status_code == 404
    assert sample("patience_http_requests_total", {"rpc": "ListVariants", "code": "OK"}) == ok_before + 1
    assert sample("patience_http_request_duration_seconds_count", {"rpc": "ListVariants"}) == timed_before + 1
    assert sample("patience_http_requests_total", {"rpc": "GetGame", "code": "NOT_FOUND"}) == missing_before + 1


def test_cors_is_off_by_default_and_follows_the_listed_origins(redis_url: str, client: httpx.Client) -> None:
    """A page on another origin may call the API only when its origin is listed (``--cors-origins``)."""
    other = "https://cards.example"
    preflight = {"origin": other, "access-control-request-method": "POST",
                 "access-control-request-headers": "authorization,content-type"}  # fmt: skip
    r = client.get("/v1/variants", headers={"origin": other})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    assert "access-control-allow-origin" not in client.options("/v1/games", headers=preflight).headers

    with live_server(redis_url, None, cors_origins=(other,)) as live, httpx.Client(base_url=live.base_url) as c:
        r = c.options("/v1/games", headers=preflight)
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == other
        allowed = {h.strip() for h in r.headers["access-control-allow-headers"].lower().split(",")}
        assert {"authorization", "content-type"} <= allowed
        assert {"GET", "POST", "PATCH", "DELETE"} <= {
            m.strip() for m in r.headers["access-control-allow-methods"].split(",")
        }
        assert "access-control-allow-credentials" not in r.headers  # no cookies: the token travels in a header
        created = c.post("/v1/games", json={"variant": "tribunal"}, headers={"origin": other})
        assert created.status_code == 200 and created.headers["access-control-allow-origin"] == other
        assert "x-request-id" in created.headers["access-control-expose-headers"].lower()
        refused = c.options("/v1/games", headers={**preflight, "origin": "https://evil.example"})
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers
        plain = c.get("/v1/variants", headers={"origin": "https://evil.example"})
        assert plain.status_code == 200 and "access-control-allow-origin" not in plain.headers


def test_cors_origins_setting_is_checked() -> None:
    from service.settings.config import load

    assert load(["--cors-origins", "https://a.example, http://localhost:8080/"], {}).cors_origins == (
        "https://a.example",
        "http://localhost:8080",
    )
    assert load([], {"PATIENCE_CORS_ORIGINS": "*"}).cors_origins == ("*",)
    assert load([], {}).cors_origins == ()
    with pytest.raises(SystemExit):
        load(["--cors-origins", "cards.example"], {})


# ---------------------------------------------------------------------------------------------------------
# Bad input: deep or huge JSON is a 400 with a reason, never a 500


DEEP = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (DEEP, "JSON_TOO_DEEP"),
        (b'{"variant": ' + DEEP + b"}", "JSON_TOO_DEEP"),
        (b'{"options": {"a": ' + b'{"b": ' * 40 + b"1" + b"}" * 41, "JSON_TOO_DEEP"),
        (b'{"variant": "' + b"[" * 5000 + b'"}', "UNKNOWN_VARIANT"),  # brackets inside a string are text
        (b'{"allowUndo": ' + b"1" * 5000 + b"}", "INVALID_JSON"),  # past Python's int-from-text limit
        (b'{"variant": ' + b"9" * 400 + b"e999999}", "INVALID_JSON"),
        (b"[" * 31 + b"]" * 31, "INVALID_JSON"),  # deep enough to parse, not an object
    ],
)
def test_deep_or_huge_json_is_a_400_with_a_reason(client: httpx.Client, body: bytes, reason: str) -> None:
    reply = client.post("/v1/games", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 400, reply.text
    assert reply.json()["details"][0]["reason"] == reason


def test_a_deeply_nested_certificate_is_invalid_argument(client: httpx.Client, server: LiveServer) -> None:
    body = {"certificate": base64.b64encode(DEEP).decode()}
    reply = client.post("/v1/certificates/verify", json=body)
    assert reply.status_code == 400
    assert reply.json()["details"][0]["reason"] == "JSON_TOO_DEEP"
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        stub = pb_grpc.PatienceServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.VerifyCertificate(pb.VerifyCertificateRequest(certificate=DEEP), timeout=10)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        # Shallow nonsense stays an answer, not an error: "MALFORMED".
        reply_pb = stub.VerifyCertificate(pb.VerifyCertificateRequest(certificate=b"[[[]]]"), timeout=10)
        assert not reply_pb.valid and reply_pb.reason == "MALFORMED"


def test_the_certificate_library_never_raises_on_deep_input() -> None:
    from patience.certificates import verify_certificate

    from service.security.signing import KeyRing

    checked = verify_certificate(DEEP, KeyRing.generate())
    assert not checked.valid and checked.reason == "MALFORMED"
    envelope = json.dumps({"key_id": "x", "payload": base64.b64encode(DEEP).decode(), "signature": ""})
    assert verify_certificate(envelope, KeyRing.generate()).reason in ("MALFORMED", "UNKNOWN_KEY")


def test_json_depth_scanner() -> None:
    from patience.jsonlimits import too_deep

    assert not too_deep(b"[]" * 10_000)  # many brackets, shallow
    assert too_deep(b"[" * 33 + b"]" * 33)
    assert not too_deep(b"[" * 32 + b"]" * 32)
    assert not too_deep(b'["' + b"[" * 100 + b'"]')
    assert too_deep(b'["\\"", ' + b"{" * 40)
    assert too_deep(b"{" * 5, limit=4) and not too_deep(b"{" * 4, limit=4)
