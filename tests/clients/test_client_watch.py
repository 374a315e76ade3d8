"""Following a game live with the client library and ``patience-cli watch``, against a real service (real Redis,
real gRPC): the iterator yields the game after every change until it is over, resumes by itself when the server
ends a stream for its lifetime, and a spectator follows a watchable game without its token."""

from __future__ import annotations

import asyncio
import io
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_harness import ServiceThread
from patience.v1 import patience_pb2 as pb
from patience_client import AsyncPatienceClient, ClientSettings, PatienceClient, cli
from patience_client.errors import ServiceError

WAIT = 30.0


@pytest.fixture
def short_streams(redis_db: str, tmp_path: Path) -> Iterator[ServiceThread]:
    """A service whose streams end after a second: the client must resume them by itself."""
    server = ServiceThread(redis_db, tmp_path / "keys").with_settings(watch_max_seconds=1.0).start()
    try:
        yield server
    finally:
        server.stop()


def _follow(updates: Iterator[pb.Game]) -> tuple[queue.Queue[Any], threading.Thread]:
    """Read ``updates`` on a thread: each game, then None at the end (or the error)."""
    out: queue.Queue[Any] = queue.Queue()

    def run() -> None:
        try:
            for game in updates:
                out.put(game)
            out.put(None)
        except Exception as exc:  # reported to the test
            out.put(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return out, thread


def _first_legal(client: PatienceClient, game_id: str) -> str:
    return str(client.legal_moves(game_id).moves[0].text)


def test_the_iterator_follows_the_game_across_stream_ends_until_it_is_over(short_streams: ServiceThread) -> None:
    settings = ClientSettings(target=short_streams.target)
    with PatienceClient(settings) as player, PatienceClient(settings) as spectator:
        new = player.new_game("cats-tail", watchable=True)
        assert new.game.watchable
        gid = new.game.game_id
        owner_q, owner_t = _follow(player.watch(gid))
        spectator_q, spectator_t = _follow(spectator.watch(gid, spectator=True))
        assert owner_q.get(timeout=WAIT).version == 1 and spectator_q.get(timeout=WAIT).version == 1
        session = player.session(new.game)
        for _ in range(2):
            # Moves made after a stream or two ended for its lifetime: the iterator resumed with the version seen.
            threading.Event().wait(1.5)
            session.move(_first_legal(player, gid))
            assert owner_q.get(timeout=WAIT).version == session.version
            assert spectator_q.get(timeout=WAIT).version == session.version
        final = session.resign()
        for q in (owner_q, spectator_q):
            last = q.get(timeout=WAIT)
            assert last.version == final.version and last.status == pb.GAME_STATUS_RESIGNED and last.seed
            assert q.get(timeout=WAIT) is None  # the iterator ended with the game
        owner_t.join(WAIT)
        spectator_t.join(WAIT)
        # Over at the version given: nothing more, and the iterator ends (the stream's trailer says why).
        assert list(player.watch(gid, after_version=final.version)) == []


def test_a_spectator_of_a_private_game_is_refused(short_streams: ServiceThread) -> None:
    with PatienceClient(ClientSettings(target=short_streams.target)) as client:
        private = client.new_game("tribunal")
        with pytest.raises(ServiceError) as refused:
            next(iter(client.watch(private.game.game_id, spectator=True)))
        assert refused.value.reason == "MISSING_TOKEN"


def test_the_async_iterator(short_streams: ServiceThread) -> None:
    async def main() -> list[int]:
        async with AsyncPatienceClient(ClientSettings(target=short_streams.target)) as client:
            new = await client.new_game("cats-tail")
            gid = new.game.game_id
            seen: list[int] = []
            async for game in client.watch(gid):
                seen.append(game.version)
                if game.version == 1:
                    await client.resign(gid)
            return seen

    assert asyncio.run(main()) == [1, 2]


def test_patience_cli_watch(short_streams: ServiceThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATIENCE_TARGET", short_streams.target)
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(tmp_path / "current.json"))
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert cli.main(["new", "cats-tail", "--watchable"], out=out) == 0
    with PatienceClient(ClientSettings(target=short_streams.target)) as client:
        game_id = out.getvalue().split("new game ", 1)[1].split(":", 1)[0].split()[0]
        watched = io.StringIO()
        assert cli.main(["watch", game_id, "--spectator", "--count", "1"], out=watched) == 0
        assert "version 1: in_progress" in watched.getvalue()
        # The owner's watch of the current game ends with the game.
        result: list[int] = []
        thread = threading.Thread(target=lambda: result.append(cli.main(["watch"], out=watched)), daemon=True)
        thread.start()
        threading.Event().wait(0.5)
        client.remember(game_id, _token(tmp_path))
        client.resign(game_id)
        thread.join(WAIT)
        assert result == [0] and "resigned" in watched.getvalue()


def _token(tmp_path: Path) -> str:
    from patience_client import statefile

    saved = statefile.load(tmp_path / "current.json")
    assert saved is not None
    return saved.token
