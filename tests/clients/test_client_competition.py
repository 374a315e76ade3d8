"""The Python client and patience-cli on daily deals and leaderboards (docs/competition.md), against a real service
on real ports and a real Redis, its day moved by the clock it is given: a ranked daily game, the board sealed all
day, then every entry checked offline by the SDK (sync and asyncio) and by ``patience-cli leaderboard --verify``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from competition_support import DayClock, guest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from http_support import LiveServer, fcs_fixtures, live_server
from patience_client import AsyncPatienceClient, ClientSettings, PatienceClient, cli
from patience_client.certificates import keys_from_proto
from service_harness import Client


@pytest.fixture(scope="module")
def clock() -> DayClock:
    return DayClock()


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory, clock: DayClock) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), clock=clock) as live:
        yield live


@pytest.fixture
def env(server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PATIENCE_TARGET", f"127.0.0.1:{server.grpc_port}")
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(tmp_path / "current.json"))
    for var in ("PATIENCE_TOKEN", "PATIENCE_GAME", "PATIENCE_IDENTITY", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return f"127.0.0.1:{server.grpc_port}"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def test_the_sdk_plays_a_ranked_daily_game_and_checks_the_board(server: LiveServer, clock: DayClock, env: str) -> None:
    day = clock.fresh_day()
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)
    stub = Client(env)
    tokens = [guest(stub, "Ада"), guest(stub, "Bob")]
    stub.close()
    with PatienceClient(ClientSettings(target=env)) as client:
        deal = client.daily_deal("cats-tail")
        assert deal.board == f"daily-cats-tail-{day}" and deal.commitment == hashlib.sha256(seed).digest()
        assert client.daily_deal("cats-tail", {"sequence_moves": False}).board == deal.board + ":sequence_moves=false"
        for token in tokens:
            with PatienceClient(ClientSettings(target=env, identity=token)) as player:  # signed in
                first = player.new_game("cats-tail", daily=True)
                again = player.new_game("cats-tail", daily=True)  # the same ranked game, a new token
                assert again.game.game_id == first.game.game_id and again.game.ranked
                session = player.session(again.game)
                for text in moves:
                    session.move(text)
                assert player.daily_deal("cats-tail").game_id == first.game.game_id
        with PatienceClient(ClientSettings(target=env, identity=tokens[1])) as bob:
            sealed = bob.leaderboard(deal.board)
        assert sealed.total == 2 and sealed.own.player.display_name == "Bob"
        assert client.verify_leaderboard(deal.board).reason == "SEALED"
        clock.next_day()
        checked = client.verify_leaderboard(deal.board, replay=True, page_size=1)
        assert checked.valid and [e.rank for e in checked.entries] == [1, 2]
        stranger = {"0" * 16: Ed25519PrivateKey.generate().public_key().public_bytes_raw()}
        assert {e.reason for e in client.verify_leaderboard(deal.board, keys=stranger).entries} == {"UNKNOWN_KEY"}
        keys = keys_from_proto(client.get_signing_keys())

    async def asynchronously() -> bool:
        async with AsyncPatienceClient(ClientSettings(target=env)) as aio:
            assert (await aio.daily_deal("cats-tail", date=day.isoformat())).seed == seed
            pages = await aio.leaderboard_pages(deal.board, page_size=1)
            assert len(pages) == 2
            return (await aio.verify_leaderboard(deal.board, keys=keys)).valid

    assert asyncio.run(asynchronously())


def test_patience_cli_daily_and_leaderboard(
    server: LiveServer, clock: DayClock, env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = clock.fresh_day()
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)
    stub = Client(env)
    token = guest(stub, "Cli")
    stub.close()
    monkeypatch.setenv("PATIENCE_IDENTITY", token)  # signed in (or: patience-cli guest NAME)
    code, out = run("daily", "cats-tail")
    assert code == 0 and f"daily-cats-tail-{day}" in out and hashlib.sha256(seed).hexdigest() in out
    assert "secret until the day is over" in out
    code, out = run("new", "cats-tail", "--daily")
    assert code == 0 and "a daily deal" in out and "your ranked game" in out
    code, out = run("move", *moves)
    assert code == 0 and "won" in out
    code, out = run("daily", "cats-tail")
    assert code == 0 and "your ranked game" in out
    board = f"daily-cats-tail-{day}"
    code, out = run("leaderboard", board)
    assert code == 0 and "1. Cli" in out and "you:" in out and "open" in out
    code, out = run("leaderboard", board, "--verify")
    assert code == 1 and "not checkable yet" in out
    clock.next_day()
    code, out = run("daily", "cats-tail", "--date", day.isoformat())
    assert code == 0 and f"seed {seed.hex()}" in out and "matches" in out
    code, out = run("leaderboard", board, "--verify", "--replay")
    assert code == 0 and "frozen" in out and "✓ every entry checked and replayed" in out and "1. Cli" in out
    wrong = Ed25519PrivateKey.generate().public_key().public_bytes_raw().hex()
    code, out = run("leaderboard", board, "--verify", "--public-key", f"{'0' * 16}:{wrong}")
    assert code == 1 and "✗ UNKNOWN_KEY" in out
    code, out = run("leaderboard", "daily-nope-2026-01-01")
    assert code == 1 and "BAD_BOARD" in out
