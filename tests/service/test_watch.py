"""WatchGame with real parts: real Redis, real gRPC and HTTP ports, two service processes for two replicas.

Two devices of one player (a gRPC stream and a REST event stream, each on another replica) see each other's moves,
each as GetGame shows it; a spectator sees a watchable game and is refused any other as GetGame refuses a call
without a token; a stream resumes from the last version seen (``after_version``, ``Last-Event-ID``) with the latest
game; it ends after the game's last state (a win, a resignation, an expiry); the bounds hold (streams per address
and per replica, the rate limit, the lifetime). No assertion on time: each waits up to ``watch_support.WAIT``."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis_support
from google.protobuf import json_format
from http_support import LiveServer, fcs_fixtures, live_server
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer, refusal, start_process
from watch_support import WAIT, GrpcWatch, SseWatch

from service.errors import ServiceError
from service.games.ports import Credentials


def _json(message: Any) -> Any:
    """A message as the REST layer writes it (every field, defaults included)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _rest_game(base_url: str, game_id: str, token: str) -> Any:
    answer = httpx.get(f"{base_url}/v1/games/{game_id}", headers={"authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["game"]


def _first_legal(client: Client, game_id: str, token: str) -> str:
    return str(client.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=bearer(token)).moves[0].text)


# ------------------------------------------------------------------------------ two devices, two replicas


def test_two_devices_on_two_replicas_see_each_others_moves(redis_db: str, tmp_path: Path) -> None:
    """A phone (gRPC, replica A) and a laptop (REST event stream, replica B) of the game's owner: each move made on
    one, through the other transport and the other replica, reaches the other, as GetGame shows it; both streams
    end after the resignation."""
    ports = [redis_support.free_port(), redis_support.free_port()]
    a = start_process(redis_db, tmp_path, "--http-listen", f"127.0.0.1:{ports[0]}")
    b = start_process(redis_db, tmp_path, "--http-listen", f"127.0.0.1:{ports[1]}")
    rest_a, rest_b = f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"
    phone, laptop = Client(a.address), httpx.Client(base_url=rest_b, timeout=30)
    streams: list[Any] = []
    try:
        new = phone.NewGame(pb.NewGameRequest(variant="cats-tail"))  # not watchable: the owner's devices only
        gid, token = new.game.game_id, new.game_token
        auth = {"authorization": f"Bearer {token}"}
        on_phone = GrpcWatch(a.address, gid, token)
        on_laptop = SseWatch(rest_b, gid, token)
        streams += [on_phone, on_laptop]
        assert on_phone.next().game == new.game
        first = on_laptop.next()
        assert first.id == "1" and first.data["game"] == _rest_game(rest_b, gid, token)

        # The laptop moves (REST, replica B): the phone's stream on replica A shows it.
        move = _first_legal(phone, gid, token)
        played = laptop.post(f"/v1/games/{gid}/moves", json={"expectedVersion": 1, "text": move}, headers=auth)
        assert played.status_code == 200, played.text
        seen = on_phone.next()
        assert seen.game.version == 2
        assert seen.game == phone.GetGame(pb.GetGameRequest(game_id=gid), metadata=bearer(token)).game
        assert on_laptop.next().id == "2"

        # The phone moves (gRPC, replica A): the laptop's event stream on replica B shows it.
        move = _first_legal(phone, gid, token)
        phone.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=2, text=move), metadata=bearer(token))
        event = on_laptop.next()
        assert event.id == "3" and event.data["game"] == _rest_game(rest_a, gid, token)
        assert on_phone.next().game.version == 3

        # Undo on the laptop, AutoPlay on the phone: each a change the other sees.
        assert laptop.post(f"/v1/games/{gid}/undo", json={"expectedVersion": 3}, headers=auth).status_code == 200
        assert on_phone.next().game.undo_count == 1 and on_laptop.next().id == "4"
        auto = phone.AutoPlay(pb.AutoPlayRequest(game_id=gid, expected_version=4), metadata=bearer(token))
        if auto.applied:  # the version went up by the moves played: each stream shows the latest
            assert on_phone.until(auto.game.version).game == auto.game
            assert on_laptop.until(auto.game.version).id == str(auto.game.version)

        # The laptop resigns: both streams send the last state, then end.
        assert laptop.post(f"/v1/games/{gid}/resign", json={}, headers=auth).status_code == 200
        final = phone.GetGame(pb.GetGameRequest(game_id=gid), metadata=bearer(token)).game
        assert final.status == pb.GAME_STATUS_RESIGNED and final.seed
        assert on_phone.until(final.version).game == final
        assert on_laptop.until(final.version).data["game"] == _json(final)
        assert on_phone.end().code == "OK" and on_laptop.end().code == "OK"
        lag = max(on_phone.arrived[-1] - on_laptop.arrived[-1], on_laptop.arrived[-1] - on_phone.arrived[-1])
        print(f"\nthe resignation reached the two replicas' streams {lag * 1000:.1f} ms apart")
    finally:
        for stream in streams:
            stream.close()
        phone.close()
        laptop.close()
        a.terminate()
        b.terminate()
    for process in (a, b):
        log = process.log.read_text()
        assert "Traceback" not in log and " ERROR " not in log, log[-3000:]


# ------------------------------------------------------------------------------ one replica, both transports


@pytest.fixture
def served(redis_db: str, tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(redis_db, tmp_path / "keys") as server:
        yield server


def _grpc(server: LiveServer) -> Client:
    return Client(f"127.0.0.1:{server.grpc_port}")


def test_a_spectator_watches_a_watchable_game_only(served: LiveServer) -> None:
    client = _grpc(served)
    try:
        shown = client.NewGame(pb.NewGameRequest(variant="captives", watchable=True))
        hidden = client.NewGame(pb.NewGameRequest(variant="captives"))
        assert shown.game.watchable and not hidden.game.watchable  # privacy first: not watchable unless asked

        # A watchable game: its player's view, over both transports, what GetGame shows the player.
        for stream in (
            GrpcWatch(f"127.0.0.1:{served.grpc_port}", shown.game.game_id),
            SseWatch(served.base_url, shown.game.game_id),
        ):
            try:
                first = stream.next()
                game = first.game if isinstance(stream, GrpcWatch) else first.data["game"]
                assert game == (shown.game if isinstance(stream, GrpcWatch) else _json(shown.game))
                assert "??" in (game.view.captives if isinstance(stream, GrpcWatch) else game["view"]["captives"])
            finally:
                stream.close()

        # Not watchable, or no such game: refused as GetGame refuses a call without a token, word for word.
        for game_id in (hidden.game.game_id, "no-such-game", secrets.token_hex(12)):
            get = refusal(lambda: client.GetGame(pb.GetGameRequest(game_id=game_id)))  # noqa: B023
            watch = GrpcWatch(f"127.0.0.1:{served.grpc_port}", game_id).end()
            assert (watch.code, watch.reason) == (get.code.name, get.reason) == ("UNAUTHENTICATED", "MISSING_TOKEN")
            rest_get = httpx.get(f"{served.base_url}/v1/games/{game_id}", timeout=30)
            rest_watch = httpx.get(f"{served.base_url}/v1/games/{game_id}:watch", timeout=30)
            assert rest_watch.status_code == rest_get.status_code == 401
            assert rest_watch.json() == rest_get.json()

        # Another game's token: refused on a game that is not watchable, a spectator on one that is.
        wrong = GrpcWatch(f"127.0.0.1:{served.grpc_port}", hidden.game.game_id, shown.game_token).end()
        assert (wrong.code, wrong.reason) == ("PERMISSION_DENIED", "WRONG_TOKEN")
        spectator = GrpcWatch(f"127.0.0.1:{served.grpc_port}", shown.game.game_id, hidden.game_token)
        try:
            assert spectator.next().game == shown.game
        finally:
            spectator.close()
    finally:
        client.close()


def test_a_stream_resumes_with_the_latest_game(served: LiveServer) -> None:
    client = _grpc(served)
    address = f"127.0.0.1:{served.grpc_port}"
    try:
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        gid, token = new.game.game_id, new.game_token
        version = 1
        for _ in range(3):
            move = _first_legal(client, gid, token)
            reply = client.ApplyMove(
                pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=move), metadata=bearer(token)
            )
            version = reply.game.version
        assert version == 4
        # Seen up to 2: the latest (4) comes next, not 3.
        for stream in (GrpcWatch(address, gid, token, after_version=2), SseWatch(served.base_url, gid, token, "2")):
            try:
                assert stream.version(stream.next()) == 4
                assert stream.quiet(0.5)
            finally:
                stream.close()
        # Seen 4 (Last-Event-ID wins over the query's after_version): nothing until the next change, then it.
        resumed = SseWatch(served.base_url, gid, token, last_event_id="4", after_version=1)
        grpc_resumed = GrpcWatch(address, gid, token, after_version=4)
        try:
            assert resumed.quiet(0.5) and grpc_resumed.quiet(0.1)
            move = _first_legal(client, gid, token)
            client.ApplyMove(pb.ApplyMoveRequest(game_id=gid, expected_version=4, text=move), metadata=bearer(token))
            assert resumed.next().id == "5" and grpc_resumed.next().game.version == 5
        finally:
            resumed.close()
            grpc_resumed.close()
        # A version the game never had (ahead of it): the current game first.
        ahead = GrpcWatch(address, gid, token, after_version=99)
        try:
            assert ahead.next().game.version == 5
        finally:
            ahead.close()
        # Bad positions: refused before any event.
        bad = SseWatch(served.base_url, gid, token, last_event_id="five").end()
        assert (bad.http_status, bad.reason) == (400, "BAD_LAST_EVENT_ID")
        negative = GrpcWatch(address, gid, token, after_version=-1).end()
        assert (negative.code, negative.reason) == ("INVALID_ARGUMENT", "BAD_AFTER_VERSION")
    finally:
        client.close()


def test_the_stream_ends_after_the_win_and_a_finished_game_sends_its_end_once(served: LiveServer) -> None:
    seed, moves = fcs_fixtures("cats-tail")[0]
    served.seeds.push(seed)
    client = _grpc(served)
    address = f"127.0.0.1:{served.grpc_port}"
    try:
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail", watchable=True))
        gid, token = new.game.game_id, new.game_token
        owner, spectator = GrpcWatch(address, gid, token), SseWatch(served.base_url, gid)
        try:
            version = 1
            for move in moves:
                reply = client.ApplyMove(
                    pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=move), metadata=bearer(token)
                )
                version = reply.game.version
            assert reply.game.status == pb.GAME_STATUS_WON
            won = client.GetGame(pb.GetGameRequest(game_id=gid), metadata=bearer(token)).game
            last = owner.until(won.version)
            assert last.game == won and last.game.certificate.encoded  # the certificate with the last state
            assert spectator.until(won.version).data["game"] == _json(won)
            assert owner.end().code == "OK" and spectator.end().code == "OK"
        finally:
            owner.close()
            spectator.close()
        # Over already: the last state once, then the end; at the last version already, nothing (REST: 204).
        again = GrpcWatch(address, gid, token)
        assert again.next().game == won and again.end().code == "OK"
        nothing = GrpcWatch(address, gid, token, after_version=won.version)
        assert nothing.end().code == "OK"
        no_content = httpx.get(
            f"{served.base_url}/v1/games/{gid}:watch", headers={"last-event-id": str(won.version)}, timeout=30
        )
        assert no_content.status_code == 204 and not no_content.content
    finally:
        client.close()


def test_the_stream_shows_the_expiry_and_ends(redis_db: str, tmp_path: Path) -> None:
    """An expiry writes nothing: the watcher wakes when the game would expire, reads it, sends it and ends."""
    with live_server(redis_db, tmp_path / "keys", fresh_timeout=2) as server:
        client = _grpc(server)
        try:
            new = client.NewGame(pb.NewGameRequest(variant="tribunal", watchable=True))
            stream = SseWatch(server.base_url, new.game.game_id)
            try:
                events = [stream.next()]
                while events[-1].data["game"]["status"] != "GAME_STATUS_EXPIRED":
                    events.append(stream.next())
                assert {e.id for e in events} == {"1"}  # an expiry keeps the version
                assert events[-1].data["game"]["seed"]  # over: the seed is revealed
                assert stream.end().code == "OK"
            finally:
                stream.close()
        finally:
            client.close()


# ------------------------------------------------------------------------------ bounds


def test_streams_per_address_and_per_replica(redis_db: str, tmp_path: Path) -> None:
    with live_server(redis_db, tmp_path / "keys", watch_per_client=2, watch_streams=3) as server:
        client = _grpc(server)
        address = f"127.0.0.1:{server.grpc_port}"
        streams: list[Any] = []
        try:
            new = client.NewGame(pb.NewGameRequest(variant="cats-tail", watchable=True))
            gid = new.game.game_id
            streams += [GrpcWatch(address, gid), SseWatch(server.base_url, gid)]
            for stream in streams:
                stream.next()
            over = GrpcWatch(address, gid).end()
            assert (over.code, over.reason) == ("RESOURCE_EXHAUSTED", "WATCH_STREAMS_PER_CLIENT")
            rest_over = httpx.get(f"{server.base_url}/v1/games/{gid}:watch", timeout=30)
            assert rest_over.status_code == 429 and rest_over.headers["retry-after"]
            assert rest_over.json()["details"][0]["reason"] == "WATCH_STREAMS_PER_CLIENT"
            streams.pop().close()  # one closed: its slot is free again once the server has seen it go
            deadline = time.monotonic() + WAIT
            while server.server.games.watching.slots.open > 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            replacement = GrpcWatch(address, gid)
            streams.append(replacement)
            replacement.next()

            # The replica's own bound: another address (a front end naming its user) fills the third slot.
            async def open_for(peer: str) -> Any:
                return await server.server.games.watch_game(pb.WatchGameRequest(game_id=gid), Credentials(peer=peer))

            assert server.loop is not None
            third = asyncio.run_coroutine_threadsafe(open_for("10.0.0.7"), server.loop).result(30)
            try:
                with pytest.raises(ServiceError) as refused:
                    asyncio.run_coroutine_threadsafe(open_for("10.0.0.8"), server.loop).result(30)
                assert refused.value.reason == "WATCH_STREAMS_FULL"
            finally:
                asyncio.run_coroutine_threadsafe(third.aclose(), server.loop).result(30)
        finally:
            for stream in streams:
                stream.close()
            client.close()


def test_the_rate_limit_and_the_lifetime(redis_db: str, tmp_path: Path) -> None:
    with live_server(
        redis_db, tmp_path / "keys", rate_limits=True, limit_watch="3/minute", watch_max_seconds=1.0
    ) as server:
        client = _grpc(server)
        address = f"127.0.0.1:{server.grpc_port}"
        try:
            new = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
            gid, token = new.game.game_id, new.game_token
            # A stream ends after its lifetime with nothing more (the game goes on): the client reconnects.
            stream = GrpcWatch(address, gid, token)
            assert stream.next().game.version == 1
            assert stream.end().code == "OK"
            sse = SseWatch(server.base_url, gid, token)
            assert sse.next().id == "1" and sse.end().code == "OK"
            resumed = GrpcWatch(address, gid, token, after_version=1)
            assert resumed.end().code == "OK"  # the lifetime again: nothing changed, nothing sent
            refused = GrpcWatch(address, gid, token).end()  # the fourth stream within the minute
            assert (refused.code, refused.reason) == ("RESOURCE_EXHAUSTED", "RATE_LIMITED")
        finally:
            client.close()


def test_a_watcher_that_falls_behind_gets_the_latest_game_only(served: LiveServer) -> None:
    """A watcher that takes no message while the game moves on holds nothing for it (no queue): its next message
    is the game's latest version."""
    client = _grpc(served)
    assert served.loop is not None
    try:
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
        gid, token = new.game.game_id, new.game_token

        async def open_watch() -> Any:
            return await served.server.games.watch_game(
                pb.WatchGameRequest(game_id=gid), Credentials(game_token=token, peer="127.0.0.1")
            )

        def run(coro: Any) -> Any:
            return asyncio.run_coroutine_threadsafe(coro, served.loop).result(30)  # type: ignore[arg-type]

        watch = run(open_watch())
        try:
            assert run(watch.__anext__()).game.version == 1
            version = 1
            for _ in range(6):
                move = _first_legal(client, gid, token)
                version = client.ApplyMove(
                    pb.ApplyMoveRequest(game_id=gid, expected_version=version, text=move), metadata=bearer(token)
                ).game.version
            assert run(watch.__anext__()).game.version == version == 7
        finally:
            run(watch.aclose())
        assert not served.server.games.watching.followed  # the last watcher gone: the game is not followed
    finally:
        client.close()


def test_stopping_the_server_ends_its_streams(redis_db: str, tmp_path: Path) -> None:
    with live_server(redis_db, tmp_path / "keys") as server:
        client = _grpc(server)
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail", watchable=True))
        streams = [
            GrpcWatch(f"127.0.0.1:{server.grpc_port}", new.game.game_id),
            SseWatch(server.base_url, new.game.game_id),
        ]
        for stream in streams:
            stream.next()
        assert server.loop is not None
        asyncio.run_coroutine_threadsafe(server.server.games.watching.close(), server.loop).result(30)
        try:
            for stream in streams:
                assert stream.end().code == "OK"
            refused = GrpcWatch(f"127.0.0.1:{server.grpc_port}", new.game.game_id).end()
            assert (refused.code, refused.reason) == ("UNAVAILABLE", "WATCH_UNAVAILABLE")
        finally:
            for stream in streams:
                stream.close()
            client.close()
