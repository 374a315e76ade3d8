"""The habits of patience players, in a real headless Chromium against a live server (real Redis): Redo after
Undo (the button and Ctrl+Y), Restart (the same deal from the beginning, counted as a restart and not a loss),
auto-drop after every move when the player switches it on (off by default), a clock that starts at the first move
and stands still while the page is hidden, the result reachable again after closing its panel and after a reload,
and a link that deals any finished deal to anyone.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from http_support import LiveServer
from web_support import DESKTOP, Table

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.solver.safe import autoplay

SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal with a column-to-column move at the start
#: Run in the page: the play time the page keeps for the game in play (ms).
PLAY_MS = "() => JSON.parse(localStorage.getItem('patience.games'))[localStorage.getItem('patience.last')].playMs"


@pytest.fixture
def table(browser: Any, server: LiveServer) -> Iterator[Table]:
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.on("dialog", lambda dialog: dialog.accept())  # Restart and Resign ask first
    t = Table(page, server.base_url).open()
    yield t
    errors = list(t.errors)
    ctx.close()
    assert errors == [], errors


def _column_move(state: Any) -> str:
    rules = get_game("cats-tail")
    move = next(
        m for m in rules.legal_moves(state) if m.source.kind.value == "" and m.target and m.target.kind.value == ""
    )
    return str(move.text())


def _columns(table: Table) -> list[list[str]]:
    return [table.pile(str(i)) for i in range(1, 10)]


def _stats(table: Table, kind: str = "") -> dict[str, Any]:
    key = "patience.stats" + (f".{kind}" if kind else "")
    raw = table.page.evaluate(f"() => localStorage.getItem('{key}')")
    return dict(json.loads(raw or "{}"))


def test_redo_plays_the_move_undone_by_button_and_key(table: Table, server: LiveServer) -> None:
    page = table.page
    state = get_game("cats-tail").deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    assert page.is_disabled("#btn-redo")
    table.click_move(_column_move(state))
    after = _columns(table)
    page.click("#btn-undo")
    table.wait_settled(3)
    assert table.moves() == 0 and _columns(table) != after
    assert page.is_enabled("#btn-redo")
    page.click("#btn-redo")
    table.wait_settled(4)
    assert _columns(table) == after and table.moves() == 1
    assert page.is_disabled("#btn-redo")  # nothing undone is left to play again
    # The keys: Ctrl+Z takes back, Ctrl+Y plays it again.
    page.keyboard.press("Control+z")
    table.wait_settled(5)
    page.keyboard.press("Control+y")
    table.wait_settled(6)
    assert _columns(table) == after
    # Another move forgets what was undone.
    page.keyboard.press("Control+z")
    table.wait_settled(7)
    table.click_move(_column_move(state))
    assert page.is_disabled("#btn-redo")


def test_restart_deals_the_same_deal_again_as_a_restart_not_a_loss(table: Table, server: LiveServer) -> None:
    page = table.page
    state = get_game("cats-tail").deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    first = _columns(table)
    old = page.evaluate("() => localStorage.getItem('patience.last')")
    table.click_move(_column_move(state))
    page.click("#menu > summary")
    page.click("#btn-restart")
    page.wait_for_function(f"() => localStorage.getItem('patience.last') !== '{old}'")
    page.wait_for_selector("body[data-dealt='replay']", state="attached")
    table.wait_settled(1)
    assert _columns(table) == first and table.moves() == 0
    fresh = _stats(table)["cats-tail"]
    assert fresh["restarts"] == 1 and fresh["played"] == 0 and fresh["streak"] == 0 and fresh["open"] is None


def _drop_seed() -> tuple[bytes, str, int]:
    """A cats-tail deal with nothing safe to send home at first, and a move after which something is."""
    rules = get_game("cats-tail")
    for i in range(400):
        seed = hashlib.sha256(f"drop {i}".encode()).digest()
        state = rules.deal(seed)
        if autoplay(rules, state)[1]:
            continue
        for move in rules.legal_moves(state):
            if move.source.kind.value != "" or not move.target or move.target.kind.value != "":
                continue
            after, _ = rules.play(state, move)
            dropped = autoplay(rules, after)[1]
            if dropped:
                return seed, str(move.text()), len(dropped)
    raise AssertionError("no deal with a move that frees a safe card")


def test_auto_drop_is_off_by_default_and_sends_safe_cards_home_when_on(table: Table, server: LiveServer) -> None:
    page = table.page
    seed, move, n = _drop_seed()
    server.seeds.push(seed)
    table.deal("cats-tail")
    table.click_move(move)
    assert table.moves() == 1  # off by default: the safe card stays where it is
    page.click("#menu > summary")
    assert not page.is_checked("#opt-autodrop")
    page.check("#opt-autodrop")
    page.click("#menu > summary")
    server.seeds.push(seed)
    table.deal("cats-tail")
    before = table.version
    _click_and_wait_dropped(table, move)
    assert table.moves() == 1 + n
    assert page.get_attribute("body", "data-auto-dropped") == str(n)
    assert table.version > before + 1
    assert page.evaluate("() => localStorage.getItem('patience.autodrop')") == "on"


def _click_and_wait_dropped(table: Table, move: str) -> None:
    source, target = move.split("-")[0], move.split("-")[1].split("/")[0]
    table.click_card(source)
    table.click_pile(target)
    table.page.wait_for_selector("body[data-auto-dropped]", state="attached")
    table.wait_settled(table.version)


def test_the_clock_starts_at_the_first_move_and_stops_while_hidden(table: Table, server: LiveServer) -> None:
    page = table.page
    state = get_game("cats-tail").deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    page.wait_for_timeout(2_500)
    assert page.inner_text("#timer") == "0:00"  # no move yet: the clock has not started
    table.click_move(_column_move(state))
    page.wait_for_function("() => document.getElementById('timer').textContent !== '0:00'", timeout=10_000)
    # Hidden (another tab): the clock stands still.
    page.evaluate(
        """() => {
            Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
            document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    kept = page.evaluate(PLAY_MS)
    page.wait_for_timeout(2_500)
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    again = page.evaluate(PLAY_MS)
    assert 1000 <= kept <= again < kept + 300, (kept, again)


def test_the_result_comes_back_after_closing_it_and_after_a_reload_with_a_link_for_anyone(
    table: Table, server: LiveServer, browser: Any
) -> None:
    page = table.page
    server.seeds.push(SEED)
    table.deal("cats-tail")
    page.click("#btn-resign")
    page.wait_for_selector("#result:not([hidden])")
    link = page.get_attribute("#share-link", "href")
    assert link and re.search(r"[?&]variant=cats-tail&.*replay=", link), link
    page.click("#result-close")
    assert page.is_hidden("#result") and page.is_hidden("#btn-resign")
    page.click("#btn-result")
    page.wait_for_selector("#result:not([hidden]) #result-again")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_hidden("#result")
    page.click("#btn-result")
    page.wait_for_selector("#result:not([hidden])")
    assert page.is_visible("#result-again") and page.get_attribute("#share-link", "href") == link
    # The link deals the same deal, in another browser, as a replay.
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    other = Table(ctx.new_page(), server.base_url)
    try:
        other.page.goto(link)
        other.page.wait_for_selector("body[data-ready=true]")
        other.page.wait_for_selector("body[data-dealt='replay']", state="attached")
        first = [[TEXT[c] for c in col] for col in get_game("cats-tail").deal(SEED).columns]
        assert [other.pile(str(i)) for i in range(1, 10)] == first
        assert other.errors == []
    finally:
        ctx.close()
