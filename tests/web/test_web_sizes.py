"""The table on every screen a player owns, in a real headless Chromium against a live server (real Redis): from
a 360x640 phone to a 2560x1440 desktop, portrait and landscape, in English and Russian, for the deals with the
longest columns (the public Royal Retinue and Cat's Tail deals of the first 60 whose columns run longest, and a
Tribunal and a Picture Gallery whose whole stock has been dealt).

Held: nothing ever scrolls sideways; on a landscape screen or a desktop nothing scrolls at all (every pile is in
the window); on a portrait phone every top card is in the window; every fanned card shows its whole corner (its
rank and suit, never cut: a Q never reads "O"); every button of the bar is in the window; with bigger cards
chosen the cards are larger and the page scrolls down, never sideways.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_support import LiveServer
from web_support import Table

from engine.catalogue import get_game

SIZES = [
    (844, 390),  # phones held sideways
    (667, 375),
    (800, 600),  # small windows
    (375, 667),  # small phones
    (360, 640),
    (390, 844),
    (768, 1024),  # a tablet, both ways
    (1024, 768),
    (1280, 800),
    (1920, 1080),
    (2560, 1440),
]

#: Run in the page: draw a view with the page's own table.js and measure it against the window.
MEASURE = """async ([variant, view, options, W, H]) => {
    const { drawTable } = await import('/table.js');
    const table = document.getElementById('table');
    window.scrollTo(0, 0);
    drawTable(table, variant, view, null, options);
    // W and H are the screen's: a phone's page that overflows would widen its own layout viewport (zoom out).
    const doc = document.scrollingElement;
    const out = { overflowX: doc.scrollWidth - W, overflowY: doc.scrollHeight - H, outside: [], tops: [],
                  cut: [], bar: [], cw: parseFloat(table.style.getPropertyValue('--cw')),
                  lanes: Math.max(0, ...[...table.querySelectorAll('.pile[data-lanes]')].map((p) => +p.dataset.lanes)),
              };
    const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
    for (const p of table.querySelectorAll('.pile')) {
        const r = p.getBoundingClientRect();
        if (r.width && !inside(r)) out.outside.push([p.dataset.pile, Math.round(r.right), Math.round(r.bottom)]);
    }
    for (const card of table.querySelectorAll('.card.top, .pile.empty .slot')) {
        const r = card.getBoundingClientRect();
        if (!inside(r)) out.tops.push([card.closest('[data-pile]')?.dataset.pile, Math.round(r.bottom)]);
    }
    // Every face-up card of a column shows its whole corner: no card of the column lies over it.
    for (const col of table.querySelectorAll('.pile.fan-down')) {
        const cards = [...col.querySelectorAll('.card[data-card]')];
        const boxes = [...col.querySelectorAll('.card')].map((c) => c.getBoundingClientRect());
        cards.forEach((card) => {
            const corner = card.querySelector('.corner.tl').getBoundingClientRect();
            const i = Number(card.dataset.pos);
            for (const b of boxes.slice(i + 1)) {
                const over = b.left < corner.right - 0.5 && b.right > corner.left + 0.5 &&
                             b.top < corner.bottom - 0.5 && b.bottom > corner.top + 0.5;
                if (over) { out.cut.push([col.dataset.pile, card.dataset.card, Math.round(corner.height)]); break; }
            }
        });
    }
    for (const el of document.querySelectorAll('.bar .actions > *, .bar .counters > *')) {
        const r = el.getBoundingClientRect();
        if (r.width && !inside(r)) out.bar.push([el.id || el.className, Math.round(r.right)]);
    }
    return out;
}"""


def _longest_public_deal(variant: str) -> int:
    """The public deal number (of the first 60) whose deal has the longest column: the tallest table."""
    game = get_game(variant)

    def longest(n: int) -> int:
        state = game.deal(hashlib.sha256(f"patience-public-deal|{n}".encode()).digest())
        return max(len(c) for c in state.columns)

    return max(range(1, 61), key=longest)


Position = tuple[dict[str, Any], dict[str, Any], dict[str, str]]


@pytest.fixture(scope="module")
def positions(api: httpx.Client, server: LiveServer) -> list[Position]:
    variants = {v["id"]: v for v in api.get("/v1/variants").json()["variants"]}
    out: list[Position] = []
    for vid in ("royal-retinue", "cats-tail"):
        body = api.post("/v1/games", json={"variant": vid, "dealNumber": _longest_public_deal(vid)}).json()
        out.append((variants[vid], body["game"]["view"], body["game"]["options"]))
    for vid in ("tribunal", "picture-gallery"):
        body = api.post("/v1/games", json={"variant": vid, "dealNumber": 3}).json()
        game = body["game"]
        while game["view"].get("stockCount", 0) and game["status"] == "GAME_STATUS_IN_PROGRESS":
            game = api.post(
                f"/v1/games/{game['gameId']}/moves",
                headers={"authorization": f"Bearer {body['gameToken']}"},
                json={"expectedVersion": game["version"], "text": "d"},
            ).json()["game"]
        out.append((variants[vid], game["view"], game["options"]))
    for vid in ("captives", "sultan-52"):
        body = api.post("/v1/games", json={"variant": vid, "dealNumber": 1}).json()
        out.append((variants[vid], body["game"]["view"], body["game"]["options"]))
    return out


@pytest.fixture(scope="module", params=["en", "ru"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


def _page(browser: Any, server: LiveServer, size: tuple[int, int], lang: str, cards: str = "") -> Table:
    w, h = size
    phone = min(w, h) < 500
    ctx = browser.new_context(
        viewport={"width": w, "height": h}, reduced_motion="reduce", has_touch=phone, is_mobile=phone
    )
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    table = Table(page, server.base_url)
    if cards:
        page.add_init_script(f"localStorage.setItem('patience.cards', '{cards}')")
    # A game in play: its title and counters in the bar, as a player sees them.
    page.goto(f"{server.base_url}/?variant=royal-retinue&deal={_longest_public_deal('royal-retinue')}&lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    return table


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_longest_tables_fit_every_screen(
    browser: Any, server: LiveServer, positions: list[Position], lang: str, size: tuple[int, int]
) -> None:
    w, h = size
    landscape = w > h or w >= 900
    table = _page(browser, server, size, lang)
    try:
        problems = []
        for variant, view, options in positions:
            m = table.page.evaluate(MEASURE, [variant, view, options, w, h])
            bad = m["overflowX"] > 0 or m["cut"] or m["bar"] or m["tops"] or m["cw"] < 24
            if landscape and (m["overflowY"] > 0 or m["outside"]):
                bad = True
            if bad:
                problems.append((variant["id"], m))
        assert problems == [], problems[:3]
    finally:
        errors = list(table.errors)
        table.page.context.close()
        assert errors == [], errors


def test_a_column_too_long_for_a_phone_held_sideways_takes_a_second_lane(
    browser: Any, server: LiveServer, positions: list[Position]
) -> None:
    table = _page(browser, server, (667, 375), "en")
    try:
        variant, view, options = positions[0]  # Royal Retinue's longest column: far more than a lane holds
        m = table.page.evaluate(MEASURE, [variant, view, options, 667, 375])
        assert m["lanes"] >= 2 and m["cut"] == [] and m["outside"] == [], m
        # The landscape layout: the reserve and the foundations stand beside the columns, not above them.
        boxes = table.page.evaluate(
            """() => ['.reserve', '.foundations', '.columns'].map((s) => {
                const r = document.querySelector(`#table ${s}`).getBoundingClientRect();
                return [r.left, r.right, r.top];
            })"""
        )
        (reserve, foundations, columns) = boxes
        assert reserve[1] <= columns[0] and foundations[0] >= columns[1], boxes
    finally:
        table.page.context.close()


@pytest.mark.parametrize("size", [(1280, 800), (844, 390)], ids=["desktop", "phone-landscape"])
def test_bigger_cards_scroll_down_never_sideways(
    browser: Any, server: LiveServer, positions: list[Position], size: tuple[int, int]
) -> None:
    fitted = _page(browser, server, size, "en")
    big = _page(browser, server, size, "en", cards="large")
    try:
        variant, view, options = positions[1]  # Cat's Tail's longest column
        small = fitted.page.evaluate(MEASURE, [variant, view, options, *size])
        large = big.page.evaluate(MEASURE, [variant, view, options, *size])
        assert large["cw"] > small["cw"] + 10, (small["cw"], large["cw"])
        assert large["overflowX"] <= 0 and large["overflowY"] > 0 and large["cut"] == [], large
    finally:
        fitted.page.context.close()
        big.page.context.close()
