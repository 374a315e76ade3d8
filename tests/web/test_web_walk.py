"""What a new player met on the table, walked in a real headless Chromium at 1280x800 and at 390x844 with touch,
in English and in Russian (live server, real Redis), each with a test: in Russian the bar's buttons ran off a
phone's screen (the page scrolled sideways and More was out of reach); a bar that grew after the table was fitted
(a longer title in Russian wraps the bar at 1280x800) and a message on two or three lines (a hint's reason on a
phone) pushed the table's cards below the window.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

import pytest
from http_support import LiveServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from web_support import DESKTOP, PHONE, Table

from engine.catalogue import get_game

#: Run in the page: what lies outside the window (the bar's controls, every top card or empty slot).
OUTSIDE = """() => {
    const W = window.innerWidth, H = window.innerHeight;
    const out = { overflowX: document.scrollingElement.scrollWidth - W, outside: [] };
    const shown = '.actions > *, .counters > *, #table .card.top, #table .pile.empty .slot';
    for (const el of document.querySelectorAll(shown)) {
        const r = el.getBoundingClientRect();
        if (!r.width) continue;  // hidden on this screen (the undo count on a phone)
        if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
            const name = el.id || el.closest('[data-pile]')?.dataset.pile || el.className;
            out.outside.push([name, Math.round(r.right), Math.round(r.bottom)]);
        }
    }
    return out;
}"""

#: Run in the page: where the table begins.
TOP = "() => document.getElementById('table').getBoundingClientRect().top"

#: Two frames: the page's own resize observers have run and the layout has settled.
FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _on_screen(page: Any) -> dict[str, Any]:
    """What lies outside the window once the layout has settled: the bar's height can still change a few frames
    after the page says it is ready (a font's metrics arrive, a title wraps) and the table is then fitted again;
    on a loaded machine that takes longer than two frames. Waits up to 10 s for nothing to lie outside, then
    answers what does (an empty answer when all is on screen)."""
    page.evaluate(FRAMES)
    settled = f"() => {{ const o = ({OUTSIDE})(); return !o.overflowX && !o.outside.length; }}"
    with contextlib.suppress(PlaywrightTimeout):  # then what is off screen is the answer
        page.wait_for_function(settled, timeout=10_000)
    result: dict[str, Any] = page.evaluate(OUTSIDE)
    return result


def _longest_public_deal(variant: str) -> int:
    """The public deal number (of the first 60) whose deal has the longest column: the tallest table."""
    game = get_game(variant)

    def longest(n: int) -> int:
        state = game.deal(hashlib.sha256(f"patience-public-deal|{n}".encode()).digest())
        return max(len(c) for c in state.columns)

    return max(range(1, 61), key=longest)


@pytest.mark.parametrize("locale", ["en-GB", "ru-RU"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_bar_and_the_table_stay_on_screen_in_both_languages(
    browser: Any, server: LiveServer, locale: str, size: str
) -> None:
    touch = {"has_touch": True, "is_mobile": True} if size == "phone" else {}
    viewport = PHONE if size == "phone" else DESKTOP
    ctx = browser.new_context(viewport=viewport, locale=locale, reduced_motion="reduce", **touch)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    table = Table(page, server.base_url)
    try:
        number = _longest_public_deal("royal-retinue")
        page.goto(f"{server.base_url}/?variant=royal-retinue&deal={number}")
        page.wait_for_selector("body[data-ready=true]")
        assert _on_screen(page) == {"overflowX": 0, "outside": []}
        top = page.evaluate(TOP)
        # A hint: its reason takes two lines or more on a phone. It lies over the table's top edge for a while;
        # the table, fitted to the window, stays where it is.
        page.click("#btn-hint")
        page.wait_for_selector("#message.hint")
        assert _on_screen(page) == {"overflowX": 0, "outside": []}
        assert page.evaluate(TOP) == top
        # A tap puts the message away.
        page.click("#message")
        assert table.message() == ""
        # Every button of the bar can be pressed: More opens its menu.
        page.click("#menu > summary")
        page.wait_for_selector("#btn-stats", state="visible")
    finally:
        errors = list(table.errors)
        ctx.close()
        assert errors == [], errors
