"""Winnable deals from the clients: the Python library (sync and asyncio) and patience-cli (``new --winnable``,
``play --winnable``), against a real service whose pools a real filler fills (the one ``python -m service``
starts beside itself, ``service.solving.filler.embedded``)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from client_harness import ServiceThread, service
from patience.v1 import patience_pb2 as pb
from patience_client import AsyncPatienceClient, ClientSettings, PatienceClient, ServiceError, cli
from test_client_play import spawn

from engine.catalogue import get_game
from engine.verify import Outcome, replay
from service.solving.filler.embedded import embedded_filler

__all__ = ["service"]

POOLS = ("sultan-36",)  # the fastest to prove: a few thousandths of a second a deal (hidden cards too)


@pytest.fixture
def filled(service: ServiceThread) -> Iterator[ServiceThread]:
    """The service with a filler keeping a pool at 3 deals."""
    settings = dataclasses.replace(
        service.settings, winnable_filler="embedded", winnable_pools=POOLS, winnable_pool_target=3
    )
    with embedded_filler(settings) as proc:
        assert proc is not None
        yield service


def settings(service: ServiceThread) -> ClientSettings:
    return ClientSettings(target=service.target, timeout=20.0)


def new_winnable(client: PatienceClient, variant: str) -> pb.NewGameResponse:
    """NewGame winnable, once the filler has had time to put a deal in the pool."""
    deadline = time.monotonic() + 180  # the filler runs at a low priority: on a busy machine it takes a while
    while True:
        try:
            return client.new_game(variant, winnable=True)
        except ServiceError as exc:
            if exc.reason != "WINNABLE_POOL_EMPTY" or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_the_library_deals_winnable_games_and_shows_the_line_at_the_end(filled: ServiceThread) -> None:
    with PatienceClient(settings(filled)) as client:
        dealt = new_winnable(client, "sultan-36")
        assert not dealt.game.solution and not dealt.game.seed
        over = client.resign(dealt.game.game_id, expected_version=1)
    game = get_game("sultan-36")
    assert replay(game, game.deal(over.seed), over.solution).verdict.outcome is Outcome.WON


def test_the_asyncio_library_deals_winnable_games(filled: ServiceThread) -> None:
    async def body() -> pb.Game:
        async with AsyncPatienceClient(settings(filled)) as client:
            deadline = time.monotonic() + 180
            while True:  # until the filler has put a deal in the pool
                try:
                    dealt = await client.new_game("sultan-36", winnable=True)
                    break
                except ServiceError as exc:
                    if exc.reason != "WINNABLE_POOL_EMPTY" or time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.2)
            return await client.resign(dealt.game.game_id, expected_version=1)

    over = asyncio.run(body())
    assert over.solution and over.status == pb.GAME_STATUS_RESIGNED


def test_winnable_with_a_client_seed_is_refused(filled: ServiceThread) -> None:
    with PatienceClient(settings(filled)) as client, pytest.raises(ServiceError) as refused:
        client.new_game("sultan-36", winnable=True, client_seed=b"mine")
    assert refused.value.reason == "WINNABLE_NOT_COMBINABLE"


def test_patience_cli_new_winnable_then_resign_checks_the_line(
    filled: ServiceThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATIENCE_TARGET", filled.target)
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(tmp_path / "current.json"))
    with PatienceClient(settings(filled)) as client:  # wait until the filler runs
        client.resign(new_winnable(client, "sultan-36").game.game_id)
    out = io.StringIO()
    assert cli.main(["new", "sultan-36", "--winnable"], out=out) == 0
    assert "new game" in out.getvalue() and "winning line" not in out.getvalue()
    out = io.StringIO()
    assert cli.main(["resign"], out=out) == 0
    assert "dealt as winnable: the server's winning line (" in out.getvalue()
    assert ") wins this deal:" in out.getvalue()


def test_patience_cli_play_winnable(filled: ServiceThread, tmp_path: Path) -> None:
    with PatienceClient(settings(filled)) as client:
        client.resign(new_winnable(client, "sultan-36").game.game_id)
    child = spawn(filled, tmp_path / "current.json", "play", "sultan-36", "--winnable")
    child.expect("new game (\\S+) \\(a deal the server's solver has won\\):")
    child.expect("move> ")
    child.sendline("resign")
    child.expect("dealt as winnable: the server's winning line \\((\\d+) moves\\) wins this deal")
    child.expect(pexpect.EOF)
