"""States a player can meet, in a real headless Chromium against a live server (real Redis): a game that expires
(the page says what happened, shows the revealed seed and offers the deal again, also after a reload), the server
gone and back (said in words, never "HTTP 0", and the table taken up again when it answers), and deals refused by
the rate limit (when to try again, in the player's language, without the raw limit).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_support import LiveServer, live_server
from web_support import DESKTOP, Table

from engine.cards import TEXT
from engine.catalogue import get_game

SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal with a column-to-column move at the start


def _table(browser: Any, base_url: str, lang: str = "en") -> Table:
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="reduce", locale="ru-RU" if lang == "ru" else "en-GB")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    return Table(page, base_url)


def _close(table: Table) -> None:
    errors = [e for e in table.errors if "net::ERR_FAILED" not in e]  # the server made unreachable on purpose
    table.page.context.close()
    assert errors == [], errors


def _column_move() -> str:
    rules = get_game("cats-tail")
    state = rules.deal(SEED)
    move = next(
        m for m in rules.legal_moves(state) if m.source.kind.value == "" and m.target and m.target.kind.value == ""
    )
    return str(move.text())


@pytest.fixture
def short_lived(redis_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """A server whose games expire after 3 seconds without a move."""
    with live_server(redis_url, tmp_path / "keys", idle_timeout=3, fresh_timeout=3) as live:
        yield live


def test_an_expired_game_says_so_shows_its_seed_and_deals_it_again(browser: Any, short_lived: LiveServer) -> None:
    table = _table(browser, short_lived.base_url)
    page = table.page
    try:
        table.open()
        short_lived.seeds.push(SEED)
        table.deal("cats-tail")
        # Nobody moves: at the time the server gave, the page asks, and shows the end.
        page.wait_for_selector("#result:not([hidden])", timeout=60_000)
        assert page.inner_text("#result-title") == "This game expired"
        assert "Nobody moved in it for too long" in page.inner_text("#result-text")
        assert page.get_attribute("body", "data-status") == "GAME_STATUS_EXPIRED"
        page.wait_for_selector("#fair-status[data-ok='true']")  # the revealed seed, checked
        assert page.is_visible("#result-again") and page.is_hidden("#btn-resign")
        # A reload: the same explanation, not a dead table.
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result-title") == "This game expired"
        # The way on: the same deal again.
        page.click("#result-again")
        page.wait_for_selector("body[data-dealt='replay']", state="attached")
        first = [[TEXT[c] for c in col] for col in get_game("cats-tail").deal(SEED).columns]
        assert [table.pile(str(i)) for i in range(1, 10)] == first
        assert page.get_attribute("body", "data-status") == "GAME_STATUS_IN_PROGRESS"
    finally:
        _close(table)


def test_a_move_on_an_expired_game_shows_the_end(browser: Any, short_lived: LiveServer) -> None:
    table = _table(browser, short_lived.base_url)
    page = table.page
    try:
        table.open()
        short_lived.seeds.push(SEED)
        table.deal("cats-tail")
        # The page's own look at the expiry time is held back: the player's move meets the expiry first.
        page.evaluate("() => document.addEventListener('patience:expiry', (e) => e.stopImmediatePropagation(), true)")
        page.wait_for_timeout(5_000)  # past the 3 seconds the server gives a game nobody moved
        move = _column_move()
        source, target = move.split("-")[0], move.split("-")[1].split("/")[0]
        table.click_card(source)
        table.click_pile(target)
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result-title") == "This game expired"
        assert page.is_hidden("#btn-resign") and page.is_disabled("#btn-hint")
    finally:
        _close(table)


def test_the_server_gone_and_back(browser: Any, server: LiveServer) -> None:
    table = _table(browser, server.base_url)
    page = table.page
    try:
        table.open()
        server.seeds.push(SEED)
        table.deal("cats-tail")
        page.route("**/v1/**", lambda route: route.abort())
        move = _column_move()
        source, target = move.split("-")[0], move.split("-")[1].split("/")[0]
        table.click_card(source)
        table.click_pile(target)
        page.wait_for_selector("body[data-server='gone']", state="attached")
        message = table.message()
        assert "The server cannot be reached" in message and "HTTP" not in message, message
        assert table.moves() == 0
        page.unroute("**/v1/**")
        page.wait_for_selector("body[data-server='back']", state="attached", timeout=30_000)
        page.wait_for_function("() => document.getElementById('message').textContent.includes('server is back')")
        table.click_move(move)
        assert table.moves() == 1
    finally:
        _close(table)


@pytest.mark.parametrize(("lang", "words"), [("en", "Try again in"), ("ru", "Попробуйте снова через")])
def test_a_rate_limited_deal_says_when_to_try_again(
    browser: Any, redis_url: str, tmp_path: Path, lang: str, words: str
) -> None:
    with live_server(redis_url, tmp_path / "keys", rate_limits=True, limit_new_game="2/minute") as live:
        table = _table(browser, live.base_url, lang)
        page = table.page
        try:
            page.goto(f"{live.base_url}/?lang={lang}")
            page.wait_for_selector("body[data-ready=true]")
            for _ in range(2):
                table.deal("cats-tail")
            page.click("#btn-new")
            page.select_option("#variant", "cats-tail")
            page.click("#deal")
            page.wait_for_function(
                "(w) => document.getElementById('variant-summary').textContent.includes(w)", arg=words
            )
            said = page.inner_text("#variant-summary")
            assert re.search(r"\d+ (second|секунд)", said), said
            assert "2/minute" not in said and "at most" not in said and "RATE" not in said, said
        finally:
            _close(table)
