"""A real patience service for the client tests (tests/test_client_*.py).

``service.server.create_server`` runs in its own event-loop thread on a real
port over the real Redis of tests/conftest.py, with deterministic seeds, its
own signing keys and an operator key, so the client under test crosses the
network exactly as an application's would. The tests import the service only
here, to run it: the client package itself never imports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from service_harness import solve

from engine.catalogue import get_game

OPERATOR_KEY = "client-tests-operator-key-0123456789"


def seed_for(n: int) -> bytes:
    """The n-th deterministic deal seed of the client tests."""
    return hashlib.sha256(b"patience-client-test-%d" % n).digest()


class Seeds:
    """A seed source for the server: the ``preset`` seeds, then ``seed_for(0)``, ``seed_for(1)``, ...

    so that tests know every deal.
    """

    def __init__(self, *preset: bytes) -> None:
        self.preset = list(preset)
        self.issued: list[bytes] = []
        self._generated = 0
        self._lock = threading.Lock()

    def __call__(self) -> bytes:
        with self._lock:
            if self.preset:
                seed = self.preset.pop(0)
            else:
                seed = seed_for(self._generated)
                self._generated += 1
            self.issued.append(seed)
            return seed


class ServiceThread:
    """``create_server`` + ``start`` on an event loop of its own; ``stop`` ends both."""

    def __init__(self, redis_url: str, keys_dir: Path, *, port: int = 0, seeds: Seeds | None = None) -> None:
        from service.settings.config import Settings

        self.settings = Settings(
            listen=f"127.0.0.1:{port}",
            redis_url=redis_url,
            operator_key=OPERATOR_KEY,
            keys_dir=keys_dir,
            generate_keys=True,
            grace=0.5,
            rate_limits=False,  # a test calls far faster than a person plays
            hint_states=300,  # a small solver budget: the tests check the calls, not how far a hint looks
        )
        self.seeds = seeds or Seeds()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="patience-service")
        self.server: Any = None
        self.port = port

    def with_settings(self, **changes: Any) -> ServiceThread:
        self.settings = replace(self.settings, **changes)
        return self

    def start(self) -> ServiceThread:
        from service.server import create_server

        self.thread.start()

        async def boot() -> tuple[Any, int]:
            server, port = await create_server(self.settings, seed_source=self.seeds)
            await server.start()
            return server, port

        self.server, self.port = asyncio.run_coroutine_threadsafe(boot(), self.loop).result(30)
        return self

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.server is not None:
            asyncio.run_coroutine_threadsafe(self.server.stop(0.2), self.loop).result(30)
            self.server = None
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def service(redis_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceThread]:
    """A running service over a freshly flushed Redis."""
    server = ServiceThread(redis_db, tmp_path_factory.mktemp("keys")).start()
    try:
        yield server
    finally:
        server.stop()


def solution_for(variant: str, seed: bytes) -> list[str]:
    game = get_game(variant)
    return solve(game, game.deal(seed))


def refused_move(
    variant: str, seed: bytes, reasons: tuple[str, ...] = ("DOES_NOT_FIT", "WRONG_COLOUR")
) -> tuple[str, str]:
    """A column-to-column move the engine refuses at the deal for one of ``reasons``: (text, reason code)."""
    from engine.errors import IllegalMoveError

    game = get_game(variant)
    state = game.deal(seed)
    n = len(state.columns)
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            if a == b:
                continue
            try:
                game.play(state, game_move(f"{a}-{b}"))
            except IllegalMoveError as exc:
                if exc.reason.value in reasons:
                    return f"{a}-{b}", exc.reason.value
    raise AssertionError(f"no refused column move for {variant}")


def game_move(text: str) -> Any:
    from engine.moves import Move

    return Move.parse(text)


def ticket_seed(server: ServiceThread, ticket: str) -> bytes:
    """A ticket's deal seed, read from the server's own minter: the API withholds it until the ticket expires."""
    minter = server.server.games.tickets
    return bytes(minter.seed(minter.authenticate(ticket)))
