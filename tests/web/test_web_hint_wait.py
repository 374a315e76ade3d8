"""The Hint button while the server thinks, in a real headless Chromium against a live server (real Redis, a real
hint pool process): the button says it is busy (aria-busy, "Thinking about a hint…") and sends no second
request; the table stays playable, and an answer for a position the table has left is dropped; HINTS_BUSY says
when to ask again (Retry-After) and the button comes back then.

The pool is held busy by a job of the test's own that waits for a file (``LiveServer.occupy_hints``): the hint
queued behind it waits as a slow solver would, and a full pool refuses at once, as it does under load.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_support import LiveServer, live_server
from web_support import Table

from engine.catalogue import get_game

SEED = hashlib.sha256(b"web hint wait").digest()
CODE = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b")


@pytest.fixture(scope="module")
def slow_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One solver process and room for one hint waiting behind it: two held jobs fill the pool."""
    keys = tmp_path_factory.mktemp("keys")
    with live_server(redis_url, keys, store_prefix="webhintwait", hint_processes=1, hint_queue=1) as live:
        yield live


def _wait_in_flight(server: LiveServer, n: int) -> None:
    deadline = time.monotonic() + 60
    while server.hints_in_flight() != n:
        assert time.monotonic() < deadline, f"the hint pool never held {n} jobs"
        time.sleep(0.02)


def test_a_slow_hint_shows_progress_and_a_late_answer_is_dropped(
    browser: Any, slow_server: LiveServer, tmp_path: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    table = Table(page, slow_server.base_url).open()
    gates = [tmp_path / "first", tmp_path / "second"]
    held: list[Any] = []
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/hint") else None)
    try:
        slow_server.seeds.push(SEED)
        table.deal("cats-tail")
        rules = get_game("cats-tail")
        legal = [m.text() for m in rules.legal_moves(rules.deal(SEED))]
        held.append(slow_server.occupy_hints(gates[0]))
        _wait_in_flight(slow_server, 1)
        # Asked while the solver is taken: the hint waits, and the page says so.
        page.click("#btn-hint")
        page.wait_for_selector("#btn-hint[aria-busy='true']")
        assert page.is_disabled("#btn-hint")
        assert table.message() == "Thinking about a hint…"
        _wait_in_flight(slow_server, 2)
        page.keyboard.press("h")
        page.keyboard.press("h")
        assert len(asked) == 1, asked  # no second request
        # The table stays playable: a move while the server thinks.
        move = next(text for text in legal if re.fullmatch(r"\d-\d/1", text))
        table.click_move(move)
        assert table.moves() == 1
        # The answer, for the position before the move, arrives and is dropped: nothing is marked.
        gates[0].touch()
        page.wait_for_selector("body[data-hint-dropped='1']", state="attached")
        page.wait_for_selector("#btn-hint:not([aria-busy]):not([disabled])")
        assert page.locator(".pile.hint, .card.hint-card").count() == 0
        assert page.get_attribute("body", "data-hint") is None
        assert "Thinking" not in table.message()
        # A pool with no room: HINTS_BUSY at once, explained with when to ask again; the button comes back.
        _wait_in_flight(slow_server, 0)
        held += [slow_server.occupy_hints(gates[1]), slow_server.occupy_hints(gates[1])]
        _wait_in_flight(slow_server, 2)
        page.click("#btn-hint")
        page.wait_for_selector("#message.refused")
        assert table.message() == "The hint solver is busy: ask again in 1 second.", table.message()
        assert page.get_attribute("body", "data-last-reason") == "HINTS_BUSY"
        assert page.is_disabled("#btn-hint")
        page.wait_for_selector("#btn-hint:not([disabled])")
        # In Russian too, with no reason code shown.
        page.click("#menu > summary")
        page.click("#btn-lang")
        page.click("#btn-hint")
        page.wait_for_selector("#message.refused:has-text('Подсказки сейчас заняты')")
        assert not CODE.search(table.message()) and "1 секунду" in table.message(), table.message()
        page.wait_for_selector("#btn-hint:not([disabled])")
        # Room again: the hint is given and marked.
        gates[1].touch()
        _wait_in_flight(slow_server, 0)
        page.click("#btn-hint")
        page.wait_for_selector("#message.hint")
        after = rules.legal_moves(rules.play(rules.deal(SEED), move)[0])
        assert page.get_attribute("body", "data-hint") in {m.text() for m in after}
        assert len(asked) == 4, asked
    finally:
        for gate in gates:
            gate.touch()
        for job in held:
            job.result(60)
        errors = list(table.errors)
        ctx.close()
        assert errors == [], errors
