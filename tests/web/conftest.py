"""The browser tests' shared parts: one live service (gRPC, REST and the web client on real ports, a real Redis)
and one Debian Chromium per test module, and a REST client of that service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_support import LiveServer, live_server
from web_support import chromium_missing, launch


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys")) as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = chromium_missing()
    if missing:  # as with Redis: a missing tool fails loudly and says how to install it, it never skips
        pytest.fail(missing, pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def api(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        yield client
