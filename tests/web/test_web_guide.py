"""Rules for people, in a real headless Chromium against a live server (real Redis): every game has a short
guide in English and Russian (a picture of its layout, the goal, the moves, the stock) that fits one phone screen,
and the full rules stay one click below it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from http_support import LiveServer
from web_support import PHONE, Table

FULL = {"en": ("The full rules", "Family"), "ru": ("Полные правила", "Семейство")}


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_game_has_a_guide_one_phone_screen_high_with_the_full_rules_a_click_below(
    browser: Any, server: LiveServer, api: httpx.Client, lang: str
) -> None:
    variants = [v["id"] for v in api.get("/v1/variants").json()["variants"]]
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    table = Table(page, server.base_url)
    try:
        page.goto(f"{server.base_url}/?lang={lang}")
        page.wait_for_selector("body[data-ready=true]")
        known = page.evaluate("async () => (await import('/guide.js')).GUIDE_VARIANTS")
        assert sorted(known) == sorted(variants)
        for vid in variants:
            page.goto(f"{server.base_url}/?variant={vid}&lang={lang}")
            page.wait_for_selector("body[data-ready=true]")
            page.click("#menu > summary")
            page.click("#btn-rules")
            page.wait_for_selector("#rules[open] #guide [role=img]")
            # Every small card of the picture lies inside the picture (none pulled out by the table's styles).
            astray = page.locator("#guide [role=img]").evaluate(
                """(pic) => {
                    const p = pic.getBoundingClientRect();
                    return [...pic.querySelectorAll('.mini')].filter((m) => {
                        const r = m.getBoundingClientRect();
                        return r.left < p.left || r.right > p.right || r.top < p.top || r.bottom > p.bottom;
                    }).length;
                }"""
            )
            assert astray == 0, vid
            sections = page.locator("#guide section").all_inner_texts()
            assert len(sections) == 4 and all(len(s.split("\n", 1)[-1].strip()) > 20 for s in sections), sections
            # The picture, the goal, the deal, the moves, the stock and the fold of the full rules: one screen.
            bottom = page.locator("#rules-full > summary").evaluate("s => s.getBoundingClientRect().bottom")
            assert bottom <= PHONE["height"], (vid, bottom)
            assert page.inner_text("#rules-full > summary") == FULL[lang][0]
            assert not page.locator("#rules-full").evaluate("d => d.open")
            page.click("#rules-full > summary")
            assert FULL[lang][1] in page.inner_text("#rules-body"), vid
            page.keyboard.press("Escape")
            page.wait_for_selector("#rules[open]", state="detached")
    finally:
        errors = list(table.errors)
        ctx.close()
        assert errors == [], errors
