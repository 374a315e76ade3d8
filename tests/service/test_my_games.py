"""A signed-in player's games (docs/players.md, "A player's games"): every call on an own game with the identity
instead of the game token, from one device (gRPC, one replica) to another (REST, another replica on the same
Redis); a game that is not theirs refused exactly as a wrong token is; ListGames, newest first and paged;
UpdatePlayer; ErasePlayer, which unlinks the games. Real servers, real ports, a real Redis (and Redis Cluster).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import redis
from http_support import LiveServer, fcs_fixtures, live_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer, refusal

from service.store.connect import open_store
from service.store.players import PlayerRecords

PREFIX = "mine" + secrets.token_hex(2)


@pytest.fixture(scope="module")
def keys_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("keys")


@pytest.fixture(scope="module")
def phone(redis_url: str, keys_dir: Path) -> Iterator[LiveServer]:
    """One replica (the phone talks to it over gRPC) ..."""
    with live_server(redis_url, keys_dir, store_prefix=PREFIX, hint_states=600, hint_cpu_seconds=60.0) as live:
        yield live


@pytest.fixture(scope="module")
def laptop(redis_url: str, keys_dir: Path, phone: LiveServer) -> Iterator[LiveServer]:
    """... and another on the same Redis and keys (the laptop talks to it over REST)."""
    with live_server(redis_url, keys_dir, store_prefix=PREFIX, hint_states=600, hint_cpu_seconds=60.0) as live:
        yield live


@pytest.fixture(scope="module")
def client(phone: LiveServer) -> Iterator[Client]:
    stub = Client(f"127.0.0.1:{phone.grpc_port}")
    yield stub
    stub.close()


def guest(client: Client, name: str = "Ada") -> pb.CreateGuestResponse:
    created: pb.CreateGuestResponse = client.CreateGuest(pb.CreateGuestRequest(display_name=name))
    return created


def rest(server: LiveServer, method: str, path: str, token: str | None, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, server.base_url + path, headers=headers, json=body, timeout=60)


def rest_reason(answer: httpx.Response) -> str:
    (info,) = [d for d in answer.json()["details"] if d["@type"].endswith("ErrorInfo")]
    return str(info["reason"])


def listed(server: LiveServer, token: str, **query: Any) -> dict[str, Any]:
    answer = httpx.get(
        server.base_url + "/v1/players/me/games", params=query, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


# --------------------------------------------------------------------------- one game, two devices


def test_a_game_started_on_a_phone_continues_on_a_laptop_with_the_identity_alone(
    phone: LiveServer, laptop: LiveServer, client: Client
) -> None:
    me = guest(client)
    token = me.token
    # The phone deals and plays over gRPC on one replica, with the identity (the game token is never used).
    dealt = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(token))
    game_id = dealt.game.game_id
    moves = client.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=bearer(token)).moves
    played = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game_id, expected_version=1, text=moves[0].text), metadata=bearer(token)
    )
    assert played.game.version == 2 and played.game.player == me.player
    # The laptop lists the player's games on the other replica over REST and resumes this one.
    (entry,) = listed(laptop, token)["games"]
    assert entry["gameId"] == game_id and entry["moveCount"] == 1 and entry["status"] == "GAME_STATUS_IN_PROGRESS"
    got = rest(laptop, "GET", f"/v1/games/{game_id}", token)
    assert got.status_code == 200 and got.json()["game"]["version"] == "2"
    assert got.json()["game"]["player"]["id"] == me.player.id
    legal = rest(laptop, "GET", f"/v1/games/{game_id}/legal-moves", token).json()["moves"]
    moved = rest(laptop, "POST", f"/v1/games/{game_id}/moves", token, {"expectedVersion": 2, "text": legal[0]["text"]})
    assert moved.status_code == 200 and moved.json()["game"]["version"] == "3"
    undone = rest(laptop, "POST", f"/v1/games/{game_id}/undo", token, {"expectedVersion": 3})
    assert undone.status_code == 200 and undone.json()["game"]["version"] == "4"
    hint = rest(laptop, "GET", f"/v1/games/{game_id}/hint", token)
    assert hint.status_code == 200 and hint.json()["version"] == "4"
    auto = rest(laptop, "POST", f"/v1/games/{game_id}/autoplay", token, {"expectedVersion": 4})
    assert auto.status_code == 200
    version = int(auto.json()["game"]["version"])
    # Back on the phone: it sees the laptop's moves.
    again = client.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token))
    assert again.game.version == version
    resigned = rest(laptop, "POST", f"/v1/games/{game_id}/resign", token, {"expectedVersion": version})
    assert resigned.status_code == 200 and resigned.json()["game"]["status"] == "GAME_STATUS_RESIGNED"
    # The game token still works beside the identity.
    assert client.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(dealt.game_token)).game.version > 1


def test_a_solution_is_submitted_for_an_own_game_with_the_identity(phone: LiveServer, client: Client) -> None:
    seed, moves = fcs_fixtures("cats-tail")[0]
    me = guest(client)
    phone.seeds.push(seed)
    game_id = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game.game_id
    answer = rest(phone, "POST", f"/v1/games/{game_id}/solution", me.token, {"moves": moves})
    assert answer.status_code == 200, answer.text
    assert answer.json()["verdict"]["outcome"] == "OUTCOME_WON" and answer.json()["certificate"]["encoded"]
    (entry,) = listed(phone, me.token)["games"]
    assert entry["status"] == "GAME_STATUS_WON" and "finishedAt" in entry and "expiresAt" not in entry


def test_a_game_that_is_not_theirs_is_refused_exactly_as_a_wrong_token(
    phone: LiveServer, laptop: LiveServer, client: Client
) -> None:
    owner, other = guest(client, "Owner"), guest(client, "Other")
    mine = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(owner.token)).game.game_id
    anonymous = client.NewGame(pb.NewGameRequest(variant="cats-tail")).game.game_id
    calls = {
        "GetGame": lambda gid, md: client.GetGame(pb.GetGameRequest(game_id=gid), metadata=md),
        "LegalMoves": lambda gid, md: client.LegalMoves(pb.LegalMovesRequest(game_id=gid), metadata=md),
        "ApplyMove": lambda gid, md: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=gid, expected_version=1, text="d"), metadata=md
        ),
        "UndoMove": lambda gid, md: client.UndoMove(pb.UndoMoveRequest(game_id=gid, expected_version=1), metadata=md),
        "Hint": lambda gid, md: client.Hint(pb.HintRequest(game_id=gid), metadata=md),
        "AutoPlay": lambda gid, md: client.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=1), metadata=md),
        "Resign": lambda gid, md: client.Resign(pb.ResignRequest(game_id=gid), metadata=md),
        "SubmitSolution": lambda gid, md: client.SubmitSolution(
            pb.SubmitSolutionRequest(game_id=gid, moves=["d"]), metadata=md
        ),
    }
    for name, call in calls.items():
        for game_id in (mine, anonymous):
            wrong_token = refusal(lambda c=call, g=game_id: c(g, bearer("pgt_" + "x" * 43)))
            not_theirs = refusal(lambda c=call, g=game_id: c(g, bearer(other.token)))
            assert (not_theirs.code, not_theirs.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_TOKEN"), name
            assert (not_theirs.metadata, not_theirs.message) == (wrong_token.metadata, wrong_token.message), name
    # Over REST too, on the other replica; and the owner's own identity passes there.
    for token, status in ((other.token, 403), (owner.token, 200)):
        assert rest(laptop, "GET", f"/v1/games/{mine}", token).status_code == status
    assert rest_reason(rest(laptop, "GET", f"/v1/games/{mine}", other.token)) == "WRONG_TOKEN"
    # A bad identity is refused as an identity, whatever the game.
    refused = refusal(lambda: client.GetGame(pb.GetGameRequest(game_id=mine), metadata=bearer("a.b.c")))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "IDENTITY_MALFORMED")
    # Nothing of the owner's game changed.
    assert client.GetGame(pb.GetGameRequest(game_id=mine), metadata=bearer(owner.token)).game.version == 1


# --------------------------------------------------------------------------- ListGames


def test_list_games_pages_newest_first_with_live_and_ended_games(
    phone: LiveServer, laptop: LiveServer, client: Client
) -> None:
    me = guest(client)
    ids = []
    for _ in range(5):
        ids.append(client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game.game_id)
    client.Resign(pb.ResignRequest(game_id=ids[1]), metadata=bearer(me.token))
    client.NewGame(pb.NewGameRequest(variant="cats-tail"))  # anonymous: nobody's
    client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(guest(client).token))  # another's
    seen: list[dict[str, Any]] = []
    page = listed(laptop, me.token, pageSize=2)
    pages = 1
    while True:
        assert len(page["games"]) <= 2
        seen += page["games"]
        if not page.get("nextPageToken"):
            break
        page = listed(laptop if pages % 2 else phone, me.token, pageSize=2, pageToken=page["nextPageToken"])
        pages += 1
    assert pages == 3 and [g["gameId"] for g in seen] == ids[::-1]
    by_id = {g["gameId"]: g for g in seen}
    assert by_id[ids[1]]["status"] == "GAME_STATUS_RESIGNED" and "finishedAt" in by_id[ids[1]]
    assert by_id[ids[0]]["status"] == "GAME_STATUS_IN_PROGRESS" and "expiresAt" in by_id[ids[0]]
    assert by_id[ids[0]]["variant"] == "cats-tail" and by_id[ids[0]]["options"]
    assert [g["gameId"] for g in listed(phone, me.token)["games"]] == ids[::-1]  # 20 by default
    # The same over gRPC.
    first = client.ListGames(pb.ListGamesRequest(page_size=3), metadata=bearer(me.token))
    assert [g.game_id for g in first.games] == ids[:1:-1] and first.next_page_token
    rest_of = client.ListGames(pb.ListGamesRequest(page_token=first.next_page_token), metadata=bearer(me.token))
    assert [g.game_id for g in rest_of.games] == ids[1::-1] and not rest_of.next_page_token


def test_a_game_gone_from_the_store_is_dropped_from_the_list(phone: LiveServer, client: Client) -> None:
    me = guest(client)
    ids = [client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game.game_id
           for _ in range(4)]  # fmt: skip
    games_key = f"{PREFIX}:pg:{{{me.player.id}}}"
    r = redis.Redis.from_url(phone.server.games.settings.redis_url)
    try:
        for gone in (ids[1], ids[2]):
            assert r.delete(f"{PREFIX}:{{{gone}}}") == 1  # as Redis drops an expired game
        page = client.ListGames(pb.ListGamesRequest(page_size=1), metadata=bearer(me.token))
        assert [g.game_id for g in page.games] == [ids[3]]
        page = client.ListGames(pb.ListGamesRequest(page_token=page.next_page_token), metadata=bearer(me.token))
        assert [g.game_id for g in page.games] == [ids[0]] and not page.next_page_token
        assert sorted(m.decode() for m in r.zrange(games_key, 0, -1)) == sorted([ids[0], ids[3]])
    finally:
        r.close()


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ({"pageSize": -1}, "BAD_PAGE_SIZE"),
        ({"pageSize": 101}, "BAD_PAGE_SIZE"),
        ({"pageToken": "not-a-token"}, "BAD_PAGE_TOKEN"),
        ({"pageToken": "MTIz"}, "BAD_PAGE_TOKEN"),  # base64 of "123": no game id
    ],
)
def test_bad_pages_are_refused(phone: LiveServer, client: Client, query: dict[str, Any], reason: str) -> None:
    me = guest(client)
    answer = httpx.get(
        phone.base_url + "/v1/players/me/games",
        params=query,
        headers={"Authorization": f"Bearer {me.token}"},
        timeout=30,
    )
    assert (answer.status_code, rest_reason(answer)) == (400, reason)
    # Their legal neighbours.
    assert listed(phone, me.token, pageSize=100)["games"] == [] and listed(phone, me.token, pageSize=0)["games"] == []


def test_list_games_needs_an_identity(phone: LiveServer, client: Client) -> None:
    game = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
    for token in (None, game.game_token):
        answer = rest(phone, "GET", "/v1/players/me/games", token)
        assert (answer.status_code, rest_reason(answer)) == (401, "MISSING_IDENTITY")


def test_a_game_that_falls_off_a_full_list_is_unlinked(phone: LiveServer, client: Client) -> None:
    records = phone.server.games.steps.players
    records.max_games = 3
    try:
        me = guest(client)
        dealt = [client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)) for _ in range(4)]
    finally:
        records.max_games = 1000
    listed_ids = [g.game_id for g in client.ListGames(pb.ListGamesRequest(), metadata=bearer(me.token)).games]
    assert listed_ids == [d.game.game_id for d in dealt[:0:-1]]
    oldest = dealt[0]
    shown = client.GetGame(pb.GetGameRequest(game_id=oldest.game.game_id), metadata=bearer(oldest.game_token))
    assert not shown.game.HasField("player")
    refused = refusal(lambda: client.GetGame(pb.GetGameRequest(game_id=oldest.game.game_id), metadata=bearer(me.token)))
    assert refused.reason == "WRONG_TOKEN"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.text("0123456789abcdef", min_size=24, max_size=24)), unique_by=lambda e: e[1]
    ),
    st.integers(1, 7),
)
def test_pages_of_a_list_are_the_list_in_order_whatever_ties(
    redis_url: str, entries: list[tuple[int, str]], size: int
) -> None:
    """Paging the sorted set (scores with many ties) gives every game once, newest first, ties by descending id."""

    async def run() -> list[tuple[int, str]]:
        store = open_store(redis_url, idle_seconds=60)
        records = PlayerRecords(store.client, "prop" + secrets.token_hex(3))
        pid = "p_" + "a" * 26
        try:
            for score, game_id in entries:
                await records.add_game(pid, game_id, score)
            out: list[tuple[int, str]] = []
            after = None
            while True:
                page = await records.games(pid, after, size)
                out += page
                if len(page) < size:
                    return out
                after = page[-1]
        finally:
            await records.delete(pid)
            await store.close()

    assert asyncio.run(run()) == sorted(entries, reverse=True)


# --------------------------------------------------------------------------- UpdatePlayer and ErasePlayer


def test_update_player_changes_the_name_for_games_dealt_after(
    phone: LiveServer, laptop: LiveServer, client: Client
) -> None:
    me = guest(client, "Before")
    before = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game.game_id
    answer = rest(
        laptop, "PATCH", "/v1/players/me", me.token, {"displayName": "  \uff2d\uff41\uff4c\uff4c\uff4f\uff52\uff59  "}
    )
    assert answer.status_code == 200 and answer.json()["player"] == {
        "id": me.player.id,
        "displayName": "Mallory",
        "kind": "guest",
    }
    assert client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(me.token)).player.display_name == "Mallory"
    after = client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game
    assert after.player.display_name == "Mallory"
    kept = client.GetGame(pb.GetGameRequest(game_id=before), metadata=bearer(me.token)).game
    assert kept.player.display_name == "Before"
    for bad in ("", "Ada\u202eecalevol", "x" * 33):
        refused = refusal(
            lambda b=bad: client.UpdatePlayer(pb.UpdatePlayerRequest(display_name=b), metadata=bearer(me.token))
        )
        assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME")
    refused = refusal(lambda: client.UpdatePlayer(pb.UpdatePlayerRequest(display_name="Nobody")))
    assert refused.reason == "MISSING_IDENTITY"


def test_erase_player_unlinks_their_games_and_forgets_them(
    phone: LiveServer, laptop: LiveServer, client: Client
) -> None:
    me = guest(client, "Erasable")
    dealt = [client.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)) for _ in range(3)]
    first = dealt[0]
    # A move on the phone's replica (it now remembers the game, owner included).
    moves = client.LegalMoves(pb.LegalMovesRequest(game_id=first.game.game_id), metadata=bearer(first.game_token))
    played = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=first.game.game_id, expected_version=1, text=moves.moves[0].text),
        metadata=bearer(first.game_token),
    )
    assert played.game.player == me.player
    client.Resign(pb.ResignRequest(game_id=dealt[1].game.game_id), metadata=bearer(me.token))
    # Erased on the laptop's replica, over REST.
    answer = rest(laptop, "DELETE", "/v1/players/me", me.token)
    assert answer.status_code == 200 and answer.json() == {"gamesUnlinked": 3}
    r = redis.Redis.from_url(phone.server.games.settings.redis_url)
    try:
        assert r.exists(f"{PREFIX}:pl:{{{me.player.id}}}", f"{PREFIX}:pg:{{{me.player.id}}}") == 0
        for d in dealt:
            assert r.hmget(f"{PREFIX}:{{{d.game.game_id}}}", "ow", "on", "ok") == [None, None, None]
    finally:
        r.close()
    for d in dealt:
        game = client.GetGame(pb.GetGameRequest(game_id=d.game.game_id), metadata=bearer(d.game_token)).game
        assert not game.HasField("player")  # the games stay, with their tokens, nobody's
        refused = refusal(
            lambda g=d.game.game_id: client.GetGame(pb.GetGameRequest(game_id=g), metadata=bearer(me.token))
        )
        assert refused.reason == "WRONG_TOKEN"
    # The next move on the phone's replica, which remembered the game with its owner: no name in it either.
    legal = client.LegalMoves(pb.LegalMovesRequest(game_id=first.game.game_id), metadata=bearer(first.game_token))
    again = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=first.game.game_id, expected_version=2, text=legal.moves[0].text),
        metadata=bearer(first.game_token),
    )
    assert again.game.version == 3 and not again.game.HasField("player")
    # Signing in again (the identity is still valid) starts a new, empty record.
    assert client.ListGames(pb.ListGamesRequest(), metadata=bearer(me.token)).games == []
    assert client.GetPlayer(pb.GetPlayerRequest(), metadata=bearer(me.token)).player.display_name == "Erasable"
    assert client.ErasePlayer(pb.ErasePlayerRequest(), metadata=bearer(me.token)).games_unlinked == 0
    refused = refusal(lambda: client.ErasePlayer(pb.ErasePlayerRequest(), metadata=bearer(first.game_token)))
    assert refused.reason == "MISSING_IDENTITY"


def test_my_games_on_redis_cluster(redis_cluster_db: str, tmp_path: Path) -> None:
    with live_server(redis_cluster_db, tmp_path) as live:
        stub = Client(f"127.0.0.1:{live.grpc_port}")
        try:
            me = guest(stub)
            ids = [stub.NewGame(pb.NewGameRequest(variant="cats-tail"), metadata=bearer(me.token)).game.game_id
                   for _ in range(6)]  # fmt: skip
            page = stub.ListGames(pb.ListGamesRequest(page_size=4), metadata=bearer(me.token))
            more = stub.ListGames(pb.ListGamesRequest(page_token=page.next_page_token), metadata=bearer(me.token))
            assert [g.game_id for g in [*page.games, *more.games]] == ids[::-1]
            assert stub.GetGame(pb.GetGameRequest(game_id=ids[0]), metadata=bearer(me.token)).game.player == me.player
            assert stub.ErasePlayer(pb.ErasePlayerRequest(), metadata=bearer(me.token)).games_unlinked == 6
            refused = refusal(lambda: stub.GetGame(pb.GetGameRequest(game_id=ids[0]), metadata=bearer(me.token)))
            assert refused.reason == "WRONG_TOKEN"
        finally:
            stub.close()
