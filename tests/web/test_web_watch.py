""" "Watch the winning line", in a real headless Chromium against a live server (real Redis, real REST) whose
cats-tail pool holds a proven deal (put there as its filler would): after a winnable game ends, the page deals a
replay of its revealed seed and plays the server's line on it through ApplyMove, move by move, animated (play,
pause, step, a speed, "Play on yourself") or at once under reduced motion, until the replay is won and certified
as a replay; the moves the server recorded are the line, and the engine replays them as a win.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_support import LiveServer, live_server
from web_support import DESKTOP, PHONE, Table

from engine.catalogue import get_game
from engine.verify import Outcome, replay
from service.solving.winnable import Budget, Entry, pool_name, prove
from service.store import open_store

AXE = Path(__file__).resolve().parents[2] / "tools" / "node_modules" / "axe-core" / "axe.min.js"
PREFIX = "webwatch"
GAME = get_game("cats-tail")


@pytest.fixture(scope="module")
def proven() -> Entry:
    return next(
        attempt.entry
        for i in range(20)
        if (attempt := prove(GAME, hashlib.sha256(b"web winnable %d" % i).digest(), Budget(20_000, 10.0))).entry
    )


@pytest.fixture(scope="module")
def pool_server(redis_url: str, proven: Entry, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose cats-tail pool holds the proven deal, once for each test of this module."""

    async def fill() -> None:
        store = open_store(redis_url, idle_seconds=600, key_prefix=PREFIX)
        try:
            for _ in range(3):
                await store.push_winnable(pool_name(GAME), proven.pack())
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API keeps an event loop running in this one
        thread.submit(asyncio.run, fill()).result()
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), store_prefix=PREFIX) as live:
        yield live


def _table(browser: Any, server: LiveServer, **context: Any) -> Table:
    ctx = browser.new_context(**{"viewport": DESKTOP, **context})
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    return Table(page, server.base_url).open()


def _close(table: Table) -> None:
    errors = list(table.errors)
    table.page.context.close()
    assert errors == [], errors


def _resign_a_winnable_deal(table: Table, hint: bool = False) -> None:
    page = table.page
    page.check("#winnable")
    page.select_option("#variant", "cats-tail")
    page.click("#deal")
    page.wait_for_selector("body[data-dealt='winnable']")
    table.wait_settled(1)
    if hint:
        page.click("#btn-hint")
        page.wait_for_selector("#message.hint")
    page.once("dialog", lambda d: d.accept())
    page.click("#btn-resign")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_selector("#result-watch", state="visible")


def _axe(table: Table) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is."""
    table.page.add_script_tag(path=str(AXE))
    found = table.page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    serious = [v for v in found if v["impact"] in ("serious", "critical")]
    return [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"][:2]]} for v in serious]


def _recorded(table: Table) -> list[str]:
    """The moves the server recorded for the page's game (asked with the key the page keeps)."""
    page = table.page
    game_id = page.evaluate("new URLSearchParams(location.search).get('game')")
    token = page.evaluate("id => JSON.parse(localStorage.getItem('patience.games'))[id].token", game_id)
    body = httpx.get(
        f"{table.base_url}/v1/games/{game_id}",
        params={"includeMoves": "true"},
        headers={"authorization": f"Bearer {token}"},
        timeout=60,
    ).json()
    return list(body["game"]["moves"])


def test_the_line_plays_with_pause_step_and_speed_then_hands_the_table_back(
    browser: Any, pool_server: LiveServer, proven: Entry
) -> None:
    table = _table(browser, pool_server, bypass_csp=True)  # for axe-core's script
    page = table.page
    line = [m.text() for m in proven.line]
    try:
        _resign_a_winnable_deal(table)
        page.click("#result-watch")
        page.wait_for_selector("body[data-dealt='replay']")
        page.wait_for_selector("#watch", state="visible")
        assert page.locator("nav.actions").is_hidden()  # the game's buttons give way to the line's
        assert page.inner_text("#game-title") == "Cat's Tail · replay"
        page.wait_for_selector("body[data-watched='2']", state="attached")
        assert int(page.get_attribute("#table", "data-animated") or 0) >= 1  # the cards slide
        # Pause: the line stops after the move in flight.
        page.click("#watch-play")
        page.wait_for_selector("body[data-watch='paused'][data-watch-running='false']", state="attached")
        assert page.inner_text("#watch-play") == "Play"
        assert page.get_attribute("#watch-play", "aria-pressed") == "false"
        done = int(page.get_attribute("body", "data-watched") or 0)
        assert table.moves() == done and done < len(line)
        assert f"move {done} of {len(line)}" in table.message()
        assert _axe(table) == []  # the line's controls in the bar
        # Step: exactly one move.
        page.click("#watch-step")
        page.wait_for_selector(f"body[data-watched='{done + 1}']", state="attached")
        page.wait_for_selector("body[data-watch='paused'][data-watch-running='false']", state="attached")
        assert table.moves() == done + 1
        # The table takes no click while the line is shown.
        page.click('.pile[data-pile="1"]')
        assert page.locator(".selected").count() == 0
        # A speed, and on again.
        page.select_option("#watch-speed", "fast")
        page.click("#watch-play")
        page.wait_for_selector("body[data-watch='playing']", state="attached")
        page.wait_for_selector(f"body[data-watched='{done + 4}']", state="attached", timeout=60_000)
        # Play on yourself: the table is the player's again, from where the line got to.
        page.click("#watch-stop")
        page.wait_for_selector("#watch", state="hidden")
        page.wait_for_selector("nav.actions", state="visible")
        assert "Your turn" in table.message()
        table.wait_settled(table.version)
        assert int(page.get_attribute("body", "data-legal") or 0) > 0
        assert page.is_enabled("#btn-hint") and page.is_enabled("#btn-undo")
        assert table.moves() >= done + 4
    finally:
        _close(table)


def test_under_reduced_motion_the_line_plays_at_once_to_a_certified_replay_win(
    browser: Any, pool_server: LiveServer, proven: Entry
) -> None:
    table = _table(browser, pool_server, reduced_motion="reduce")
    page = table.page
    line = [m.text() for m in proven.line]
    try:
        _resign_a_winnable_deal(table)
        page.click("#result-watch")
        page.wait_for_selector("body[data-watch='done']", state="attached", timeout=120_000)
        page.wait_for_selector("#cert-status[data-valid='true']")
        assert page.inner_text("#result-title") == "You won!"
        assert page.get_attribute("#table", "data-animated") is None  # nothing slid
        fields = page.inner_text("#cert-fields")
        assert "a replay of a revealed seed" in fields, fields
        assert table.moves() == len(line)
        # The server checked and recorded every move: they are the line, and they win the deal.
        recorded = _recorded(table)
        assert recorded == line
        assert replay(GAME, GAME.deal(proven.seed), recorded).verdict.outcome is Outcome.WON
        # A line watched is kept out of the statistics of every kind.
        assert "not counted" in page.inner_text("#result-stats")
        kinds = ["patience.stats", "patience.stats.winnable", "patience.stats.replay"]
        fresh, winnable, replays = page.evaluate(
            "keys => keys.map((k) => JSON.parse(localStorage.getItem(k) || '{}'))", kinds
        )
        assert "cats-tail" not in fresh and "cats-tail" not in replays, (fresh, replays)
        assert (winnable["cats-tail"]["played"], winnable["cats-tail"]["won"]) == (1, 0)  # the resigned deal
    finally:
        _close(table)


#: Run in the page: the watch controls that lie outside the window, and how tall the bar is.
WATCH_LAYOUT = """() => {
    const W = window.innerWidth;
    const outside = [...document.querySelectorAll('#watch > *')]
        .filter((el) => { const r = el.getBoundingClientRect(); return r.left < -0.5 || r.right > W + 0.5; })
        .map((el) => el.id || el.className);
    const rows = new Set([...document.querySelectorAll('#watch > :not(.visually-hidden)')]
        .map((el) => Math.round(el.getBoundingClientRect().top)));
    return { overflowX: document.scrollingElement.scrollWidth - W, outside, rows: rows.size };
}"""


def test_the_line_controls_fit_a_phone_in_russian(browser: Any, pool_server: LiveServer) -> None:
    table = _table(browser, pool_server, viewport=PHONE, has_touch=True, is_mobile=True, locale="ru-RU")
    page = table.page
    try:
        _resign_a_winnable_deal(table, hint=True)
        assert table.message() == ""  # the hint for the game in play is gone with it
        page.click("#result-watch")
        page.wait_for_selector("body[data-watched='1']", state="attached")
        page.click("#watch-play")
        page.wait_for_selector("body[data-watch-running='false']", state="attached")
        assert page.inner_text("#watch-play") == "Пуск"
        assert page.evaluate(WATCH_LAYOUT) == {"overflowX": 0, "outside": [], "rows": 1}
        assert table.message().startswith("Выигрышная линия: ход ")
        # The back button leaves the line for the game before it: its buttons come back, the line's go.
        page.go_back()
        page.wait_for_selector("body[data-dealt='winnable']")
        page.wait_for_selector("#watch", state="hidden")
        page.wait_for_selector("nav.actions", state="visible")
    finally:
        _close(table)
