"""The smaller defects a new player met, each held in a real headless Chromium against a live server (real Redis):
a stale "pick where it goes" after a double-click that cannot go home; Back after a /?variant= link; More out of
line with the bar's buttons on a phone; the result's buttons below the window; revealed captives under their
king slots; the stock's count over a card's corner; half a pip showing in a column's strip.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from http_support import LiveServer, fcs_fixtures
from web_support import DESKTOP, PHONE, Table

from engine.catalogue import get_game
from engine.solver.safe import autoplay

SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal (tests/web/test_web_e2e.py)


def _table(browser: Any, server: LiveServer, viewport: dict[str, int] = DESKTOP, **context: Any) -> Table:
    ctx = browser.new_context(viewport=viewport, reduced_motion="reduce", **context)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.on("dialog", lambda dialog: dialog.accept())
    return Table(page, server.base_url)


def _close(table: Table) -> None:
    errors = list(table.errors)
    table.page.context.close()
    assert errors == [], errors


def test_a_double_click_that_cannot_go_home_leaves_no_stale_prompt(browser: Any, server: LiveServer) -> None:
    rules = get_game("cats-tail")
    # A deal where some column's free card cannot go home.
    seed = next(
        s
        for s in (hashlib.sha256(f"stale {i}".encode()).digest() for i in range(200))
        if not autoplay(rules, rules.deal(s))[1]
    )
    table = _table(browser, server).open()
    try:
        server.seeds.push(seed)
        table.deal("cats-tail")
        table.page.dblclick('.pile[data-pile="1"] .card.top')
        table.page.wait_for_function("() => document.getElementById('message').textContent.includes('cannot go')")
        assert "pick where" not in table.message()
        assert table.page.locator(".card.selected").count() == 0
        assert table.moves() == 0
    finally:
        _close(table)


def test_back_after_a_variant_link_never_leaves_the_address_and_the_table_apart(
    browser: Any, server: LiveServer
) -> None:
    table = _table(browser, server)
    page = table.page
    try:
        page.goto(f"{server.base_url}/?lang=en")
        page.wait_for_selector("body[data-ready=true]")
        page.goto(f"{server.base_url}/?variant=cats-tail")
        page.wait_for_selector("#table[data-variant='cats-tail']")
        dealt = page.get_attribute("body", "data-game")
        page.go_back()
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("body[data-game]", state="attached")
        shown = page.get_attribute("body", "data-game")
        named = parse_qs(urlparse(page.url).query).get("game", [None])[0]
        assert shown == dealt == named, (page.url, shown, dealt)
    finally:
        _close(table)


@pytest.mark.parametrize("locale", ["en-GB", "ru-RU"])
def test_more_stands_in_line_with_the_bars_buttons_on_a_phone(browser: Any, server: LiveServer, locale: str) -> None:
    table = _table(browser, server, PHONE, has_touch=True, is_mobile=True, locale=locale)
    page = table.page
    try:
        page.goto(f"{server.base_url}/?variant=cats-tail")
        page.wait_for_selector("body[data-ready=true]")
        boxes = page.evaluate(
            """() => ['#btn-resign', '#menu > summary'].map((s) => {
                const node = document.querySelector(s);
                const box = node.getBoundingClientRect();
                const range = document.createRange();
                range.selectNodeContents(node);
                const text = range.getBoundingClientRect();
                return [box.top, box.bottom, (text.top + text.bottom) / 2];
            })"""
        )
        resign, more = boxes
        # The same box as the buttons beside it, and its word on the same line as theirs (not at its top edge).
        assert abs(more[0] - resign[0]) <= 1 and abs(more[1] - resign[1]) <= 1, boxes
        assert abs(more[2] - resign[2]) <= 2, boxes
    finally:
        _close(table)


def _win(table: Table, api: httpx.Client, server: LiveServer) -> None:
    """A known Cat's Tail win: all but the last move through the API, the last one by click in the page."""
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)
    body = api.post("/v1/games", json={"variant": "cats-tail"}).json()
    game = body["game"]
    for text in moves[:-1]:
        game = api.post(
            f"/v1/games/{game['gameId']}/moves",
            headers={"authorization": f"Bearer {body['gameToken']}"},
            json={"expectedVersion": game["version"], "text": text},
        ).json()["game"]
    table.page.evaluate(
        """([id, token]) => {
            const games = JSON.parse(localStorage.getItem('patience.games') || '{}');
            games[id] = { token, variant: 'cats-tail', dealt: Date.now() };
            localStorage.setItem('patience.games', JSON.stringify(games));
        }""",
        [game["gameId"], body["gameToken"]],
    )
    table.page.goto(f"{table.base_url}/?game={game['gameId']}")
    table.page.wait_for_selector("body[data-ready=true]")
    table.wait_settled(len(moves))
    table.click_move(moves[-1])


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_win_panels_buttons_are_in_the_window(
    browser: Any, server: LiveServer, api: httpx.Client, size: str
) -> None:
    phone = size == "phone"
    extra: dict[str, Any] = {"has_touch": True, "is_mobile": True} if phone else {}
    table = _table(browser, server, PHONE if phone else DESKTOP, **extra)
    page = table.page
    try:
        table.open()
        _win(table, api, server)
        page.wait_for_selector("#cert-status[data-valid='true']")
        page.wait_for_selector("#fair-status[data-ok]")
        view = page.viewport_size
        assert view
        for button in ("#result-close", "#result-again", "#result-new"):
            box = page.locator(button).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= view["height"], (button, box)
        page.mouse.click(*_middle(page.locator("#result-new").bounding_box()))  # nothing lies over it
        page.wait_for_selector("#new-game[open]")
    finally:
        _close(table)


def _middle(box: Any) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_revealed_captives_are_not_under_their_king_slots(browser: Any, server: LiveServer) -> None:
    table = _table(browser, server)
    page = table.page
    try:
        page.goto(f"{server.base_url}/?variant=captives")
        page.wait_for_selector("body[data-ready=true]")
        page.click("#btn-resign")
        page.wait_for_selector("#result:not([hidden])")
        page.click("#result-close")
        page.wait_for_selector(".pile.captive .card.revealed")
        hidden = page.evaluate(
            """() => [...document.querySelectorAll('.pile.captive .card.revealed')].filter((card) => {
                const r = card.querySelector('.corner.tl').getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return hit?.closest('.card') !== card;
            }).map((card) => card.dataset.card)"""
        )
        assert hidden == []
    finally:
        _close(table)


def test_the_stock_count_covers_no_corner_and_covered_cards_show_no_half_pip(
    browser: Any, server: LiveServer, api: httpx.Client
) -> None:
    body = api.post("/v1/games", json={"variant": "captives", "dealNumber": 2}).json()
    variant = next(v for v in api.get("/v1/variants").json()["variants"] if v["id"] == "captives")
    view = {**body["game"]["view"], "stockVisible": True, "stock": ["QS", "2H"], "stockCount": 12}
    table = _table(browser, server).open()
    try:
        out = table.page.evaluate(
            """async ([variant, view]) => {
                const { drawTable } = await import('/table.js');
                const table = document.getElementById('table');
                drawTable(table, variant, view, null, {});
                const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
                const covered = [];
                for (const badge of table.querySelectorAll('.badge')) {
                    const b = badge.getBoundingClientRect();
                    const pile = badge.closest('.pile');
                    for (const corner of pile.querySelectorAll('.corner')) {
                        if (overlap(b, corner.getBoundingClientRect())) covered.push(pile.dataset.pile);
                    }
                }
                const pips = [...table.querySelectorAll('.pile.fan-down .card')].map((c) => [
                    c.classList.contains('top'), getComputedStyle(c.querySelector('.pip')).visibility]);
                return { covered, badges: table.querySelectorAll('.pile.stock .badge').length, pips };
            }""",
            [variant, view],
        )
        assert out["badges"] == 1 and out["covered"] == [], out
        assert all((vis == "visible") == top for top, vis in out["pips"]), out["pips"]
        assert any(not top for top, _ in out["pips"])
    finally:
        _close(table)
