"""The table's controls that lean on the solver and on how a deal is chosen, in a real headless Chromium against
a live server (real Redis, real REST): Hint marks the server's move with its reason in English and Russian and
counts; Auto-play sends the safe cards home as the engine's autoplay does; the page knows when a game can
finish on its own (finish.js, on hand-built positions of every family and their neighbours); "Winnable deals
only" is kept and an empty pool is explained; "Play this deal again" deals a replay and "deal #N" a public
deal, both marked and counted apart from fresh deals; an axe-core scan of the new controls.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_support import LiveServer, fcs_fixtures, live_server
from web_support import Table

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.solver.safe import autoplay
from engine.verify import Outcome, replay
from service.solving.winnable import Budget, pool_name, prove
from service.store import open_store

AXE = Path(__file__).resolve().parents[2] / "tools" / "node_modules" / "axe-core" / "axe.min.js"
SEED = hashlib.sha256(b"web0").digest()
#: A reason code as the API spells it: the page never shows one.
CODE = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b")


@pytest.fixture
def table(browser: Any, server: LiveServer) -> Iterator[Table]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    t = Table(page, server.base_url)
    t.open()
    try:
        yield t
    finally:
        errors = list(t.errors)
        ctx.close()
        assert errors == [], errors


def _axe(table: Table) -> list[dict[str, Any]]:
    table.page.add_script_tag(path=str(AXE))
    result = table.page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [(n["target"], n["failureSummary"]) for n in v["nodes"][:2]]}
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


def _resign(table: Table) -> None:
    table.page.once("dialog", lambda d: d.accept())
    table.page.click("#btn-resign")
    table.page.wait_for_selector("#result:not([hidden])")
    table.page.wait_for_selector("#fair-status[data-ok]")


# ------------------------------------------------------------------------------------------------ finishing

#: Run in the page: finish.js's verdict on a view.
CAN_FINISH = """async ([view, family, deckSize]) => {
    const { allCanGoHome } = await import('/finish.js');
    return allCanGoHome(view, family, deckSize);
}"""

SUITS = "CCDDHHSS"


def _piles(order: str, tops: list[str]) -> list[dict[str, list[str]]]:
    """Foundations built in ``order`` up to each of ``tops`` (a card text each)."""
    return [{"cards": [r + top[1] for r in order[: order.index(top[0]) + 1]]} for top in tops]


def _king_chain(columns: list[list[str]]) -> dict[str, Any]:
    tops = [f"K{s}" for s in SUITS[:7]] + ["JS"]
    return {"columns": [{"cards": c} for c in columns], "cells": [""] * 8, "foundations": _piles("A23456789TJQK", tops)}


def _salic(columns: list[list[str]], stock: int = 0) -> dict[str, Any]:
    tops = [f"J{s}" for s in SUITS[:7]] + ["9S"]
    view = {"columns": [{"cards": c} for c in columns], "foundations": _piles("A23456789TJ", tops)}
    return {**view, "stockCount": stock}


def _captives(column: list[str], captive: str) -> dict[str, Any]:
    tops = [f"Q{s}" for s in SUITS[:7]] + ["JS"]
    return {
        "columns": [{"cards": column}] + [{"cards": []}] * 7,
        "foundations": _piles("KA23456789TJQ", tops),
        "captives": ["", "", "", "", "", "", captive],
        "waste": [],
        "stockCount": 0,
    }


def _sultan(cells: list[str], stock: int) -> dict[str, Any]:
    tops = ["QC", "QC", "QD", "QD", "JH", "QS", "QS"]
    foundations = [*_piles("KA23456789TJQ", tops), {"cards": ["AH", *[r + "H" for r in "23456789TJQ"]]}]
    return {"columns": [], "cells": cells, "foundations": foundations, "waste": [], "stockCount": stock}


FINISH_CASES = [
    # (what, view, family, deck size, can finish)
    ("king chain: QS then KS go home", _king_chain([["KS", "QS"]]), "king-chain", 104, True),
    ("king chain: KS lies on QS", _king_chain([["QS", "KS"]]), "king-chain", 104, False),
    ("salic law: the kings stay", _salic([["KC", "TS"], ["KD", "JS"]]), "salic-law", 104, True),
    ("salic law: a card still in the stock", _salic([["KC", "TS"], ["KD", "JS"]], stock=1), "salic-law", 104, False),
    ("salic law: JS lies on TS", _salic([["KC", "TS", "JS"]]), "salic-law", 104, False),
    ("captives: the last queen is a released captive", _captives([], "QS"), "captives", 104, True),
    ("captives: a captive still face down", _captives(["QS"], "??"), "captives", 104, False),
    ("sultan: the last queen", _sultan(["QH", ""], 0), "sultan", 104, True),
    ("sultan: a card in the stock", _sultan(["QH", ""], 1), "sultan", 104, False),
]


#: Run in the page: the moves finish.js would play.
HOME_LINE = """async ([view, family, deckSize]) => {
    const { homeLine } = await import('/finish.js');
    return homeLine(view, family, deckSize);
}"""


def test_the_page_knows_when_every_card_left_goes_home(table: Table) -> None:
    table.page.keyboard.press("Escape")
    for what, view, family, size, expected in FINISH_CASES:
        assert table.page.evaluate(CAN_FINISH, [view, family, size]) is expected, what
    # The line it plays then: explicit moves, free cards first.
    line = table.page.evaluate(HOME_LINE, [_king_chain([["KS", "QS"]]), "king-chain", 104])
    assert line == ["1-f8", "1-f8"]
    assert table.page.evaluate(HOME_LINE, [_captives([], "QS"), "captives", 104]) == ["c7-f8"]
    assert table.page.evaluate(HOME_LINE, [_salic([["KC", "TS"], ["KD", "JS"]]), "salic-law", 104]) == ["1-f8", "2-f8"]


# ------------------------------------------------------------------------------------------------ hint, auto-play


def test_hint_marks_the_servers_move_with_its_reason_and_counts(table: Table, server: LiveServer) -> None:
    page = table.page
    server.seeds.push(SEED)
    table.deal("cats-tail")
    rules = get_game("cats-tail")
    legal = [m.text() for m in rules.legal_moves(rules.deal(SEED))]
    page.click("#btn-hint")
    page.wait_for_selector("#message.hint")
    move = page.get_attribute("body", "data-hint")
    assert move in legal
    message = table.message()
    assert message.startswith("Hint: ") and move in message and not CODE.search(message), message
    assert " — " in message  # the reason, in words
    source = move.split("-")[0].split(",")[0]
    assert page.locator(f'.pile.hint[data-pile="{source}"]').count() == 1
    assert page.locator(".pile.target").count() >= 1
    assert page.inner_text("#hints") == "1"
    # The hint moved nothing; H asks again, in Russian: the same position is not counted twice.
    assert table.moves() == 0
    page.click("#menu > summary")
    page.click("#btn-lang")
    page.evaluate("() => { document.getElementById('message').textContent = ''; }")
    page.keyboard.press("h")
    page.wait_for_selector("#message:has-text('Подсказка: ')")
    message = table.message()
    assert not CODE.search(message) and " — " in message, message
    assert page.inner_text("#hints") == "1"
    # After a move, a new position: its hint counts.
    table.click_move(next(text for text in legal if re.fullmatch(r"\d-\d/\d+", text)))
    assert table.moves() == 1
    page.keyboard.press("h")
    page.wait_for_selector("#hints:text-is('2')")


def _safe_seed(variant: str) -> tuple[bytes, list[str]]:
    """A deal where the engine's autoplay sends at least one card home at once, and the moves it makes."""
    rules = get_game(variant)
    for i in range(400):
        seed = hashlib.sha256(f"auto {i}".encode()).digest()
        _, moves = autoplay(rules, rules.deal(seed))
        if moves:
            return seed, [m.text() for m in moves]
    raise AssertionError("no deal with a safe move")


def test_auto_play_sends_the_safe_cards_home_as_the_engine_does(table: Table, server: LiveServer) -> None:
    page = table.page
    seed, moves = _safe_seed("cats-tail")
    rules = get_game("cats-tail")
    expected, _ = autoplay(rules, rules.deal(seed))
    server.seeds.push(seed)
    table.deal("cats-tail")
    page.click("#btn-auto")
    page.wait_for_selector("body[data-auto-applied]", state="attached")
    table.wait_settled(table.version)
    assert table.moves() == len(moves)
    assert page.get_attribute("body", "data-auto-applied") == str(len(moves))
    for i, foundation in enumerate(expected.foundations, start=1):
        assert table.pile(f"f{i}") == [TEXT[c] for c in foundation]
    # Nothing safe is left: a second press says so and changes nothing.
    page.keyboard.press("a")
    page.wait_for_selector("body[data-auto-applied='0']", state="attached")
    assert "no card can go home safely" in table.message()
    assert table.moves() == len(moves)


# ------------------------------------------------------------------------------------------------ winnable deals


def test_winnable_switch_is_kept_and_an_empty_pool_is_explained(table: Table) -> None:
    page = table.page
    page.check("#winnable")
    assert "winnable=true" in (page.get_attribute("#variant-link", "href") or "")
    page.select_option("#variant", "royal-retinue")
    page.click("#deal")
    # The test server runs no filler: its pools stay empty, and the page says what that means.
    page.wait_for_selector("#variant-summary:has-text('No proven winnable deal of this game is ready yet')")
    assert not CODE.search(page.inner_text("#variant-summary"))
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_checked("#winnable")


def test_a_winnable_deal_shows_its_proof_after_the_end(browser: Any, redis_url: str, tmp_path: Path) -> None:
    """A server whose cats-tail pool holds one proven deal (put there as its filler would): the page deals it as
    winnable, and after the end shows the server's winning line, which the engine replays as a win."""
    game = get_game("cats-tail")
    entry = next(
        attempt.entry
        for i in range(20)
        if (attempt := prove(game, hashlib.sha256(b"web winnable %d" % i).digest(), Budget(20_000, 10.0))).entry
    )

    async def fill() -> None:
        store = open_store(redis_url, idle_seconds=600, key_prefix="webwin")
        try:
            await store.push_winnable(pool_name(game), entry.pack())
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API keeps an event loop running in this one
        thread.submit(asyncio.run, fill()).result()
    with live_server(redis_url, tmp_path, store_prefix="webwin") as server:
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        table = Table(page, server.base_url).open()
        try:
            page.check("#winnable")
            page.select_option("#variant", "cats-tail")
            page.click("#deal")
            page.wait_for_selector("body[data-dealt='winnable']")
            assert page.inner_text("#game-title") == "Cat's Tail · winnable deal"
            _resign(table)
            assert "dealt as winnable" in page.inner_text("#dealt-note")
            page.click("#solution > summary")
            line = page.inner_text("#solution-moves").split()
            assert line == [m.text() for m in entry.line]
            assert replay(game, game.deal(entry.seed), line).verdict.outcome is Outcome.WON
            assert f"{len(line)} moves" in page.inner_text("#solution-count")
        finally:
            errors = list(table.errors)
            ctx.close()
            assert errors == [], errors


# ------------------------------------------------------------------------------------------------ replays, deal #N


def test_play_this_deal_again_deals_a_replay_counted_apart(table: Table, server: LiveServer) -> None:
    page = table.page
    server.seeds.push(SEED)
    table.deal("cats-tail")
    first = table.pile("1")
    _resign(table)
    assert page.locator("#result-again").is_visible()
    page.click("#result-again")
    page.wait_for_selector("body[data-dealt='replay']")
    table.wait_settled(1)
    assert table.pile("1") == first
    assert "replay" in page.inner_text("#game-title")
    _resign(table)
    assert "Your Cat's Tail, replays: played 1, won 0, streak 0." in page.inner_text("#result-stats")
    page.wait_for_selector("#deal-status[data-ok='true']")
    assert page.locator("#dealt-note").is_visible() and "replay" in page.inner_text("#dealt-note")
    fresh, replays = page.evaluate(
        "() => ['patience.stats', 'patience.stats.replay'].map((k) => JSON.parse(localStorage.getItem(k)))"
    )
    assert fresh["cats-tail"]["played"] == 1  # the first game only
    assert (replays["cats-tail"]["played"], replays["cats-tail"]["won"]) == (1, 0)
    # The panel keeps them apart, a table for each kind of deal.
    page.click("#result-close")
    page.click("#menu > summary")
    page.click("#btn-stats")
    assert page.inner_text("#stats-body table[data-kind='fresh'] caption").startswith("Fresh deals")
    assert page.inner_text("#stats-body table[data-kind='replay'] caption") == "Replays"
    row = page.locator("#stats-body table[data-kind='replay'] tr[data-variant='cats-tail']").inner_text()
    assert row.split("\t")[1:3] == ["1", "0"], row
    assert page.locator("#stats-body table[data-kind='public']").count() == 0


def _count_end(table: Table, game: dict[str, Any], won: bool) -> dict[str, Any]:
    """storage.js's count of a game's deal and end, run in the page; the entry of its kind."""
    return dict(
        table.page.evaluate(
            """async ([g, won]) => {
                const store = await import('/storage.js');
                store.keepGame(g.gameId, { token: 't', variant: g.variant });
                store.countDeal(g);
                return store.countEnd(g, { won, seconds: 60, moves: 100 }).entry;
            }""",
            [game, won],
        )
    )


def test_a_replayed_or_numbered_win_never_lifts_the_streak_of_fresh_deals(table: Table) -> None:
    """Each kind of deal has its own streak: wins of replays, numbered and winnable deals leave the fresh one
    alone, and an unfinished replay does not break it."""
    page = table.page
    page.keyboard.press("Escape")
    page.evaluate("() => localStorage.clear()")
    fresh = {"variant": "tribunal", "dealt": "random"}
    assert _count_end(table, {**fresh, "gameId": "a"}, True)["streak"] == 1
    for i, kind in enumerate(["replay", "public", "winnable", "replay"]):
        entry = _count_end(table, {"gameId": f"k{i}", "variant": "tribunal", "dealt": kind}, True)
        assert entry["won"] == entry["streak"] == (2 if i == 3 else 1), (kind, entry)
    # A replay dealt and left unfinished: the fresh streak goes on.
    opened = {"gameId": "open", "variant": "tribunal", "dealt": "replay"}
    page.evaluate("async (g) => (await import('/storage.js')).countDeal(g)", opened)
    entry = _count_end(table, {**fresh, "gameId": "b"}, True)
    assert (entry["played"], entry["won"], entry["streak"]) == (2, 2, 2), entry
    # A ticket's deal and one with the player's seed are fresh deals; a fresh loss breaks only the fresh streak.
    assert _count_end(table, {**fresh, "gameId": "c", "dealt": "ticket"}, False)["streak"] == 0
    replays = page.evaluate("JSON.parse(localStorage.getItem('patience.stats.replay'))")["tribunal"]
    assert (replays["played"], replays["won"], replays["streak"]) == (3, 2, 2), replays
    assert replays["open"] == "open"  # it breaks the replays' streak once the next replay is dealt


def test_a_won_replay_is_certified_as_a_replay(table: Table, api: httpx.Client) -> None:
    """A replay of a known win (a Freecell Solver line), all but its last move through the API, the last by click."""
    seed, moves = fcs_fixtures("cats-tail")[0]
    body = api.post("/v1/games", json={"variant": "cats-tail", "replaySeed": base64.b64encode(seed).decode()}).json()
    game, token = body["game"], body["gameToken"]
    assert game["dealt"] == "replay"
    for text in moves[:-1]:
        response = api.post(
            f"/v1/games/{game['gameId']}/moves",
            headers={"authorization": f"Bearer {token}"},
            json={"expectedVersion": game["version"], "text": text},
        )
        game = response.json()["game"]
    page = table.page
    page.evaluate(
        """([id, token]) => {
            const games = JSON.parse(localStorage.getItem('patience.games') || '{}');
            games[id] = { token, variant: 'cats-tail', dealt: Date.now() };
            localStorage.setItem('patience.games', JSON.stringify(games));
        }""",
        [game["gameId"], token],
    )
    page.goto(f"{table.base_url}/?game={game['gameId']}")
    page.wait_for_selector("body[data-ready=true]")
    assert "replay" in page.inner_text("#game-title")
    table.click_move(moves[-1])
    page.wait_for_selector("#cert-status[data-valid='true']")
    fields = page.inner_text("#cert-fields")
    assert "Dealt" in fields and "a replay of a revealed seed" in fields, fields
    assert "replay" in page.inner_text("#dealt-note")


def test_a_deal_number_link_deals_the_public_deal(table: Table, api: httpx.Client) -> None:
    page = table.page
    page.goto(f"{table.base_url}/?variant=captives&deal=7")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_attribute("body", "data-dealt") == "public"
    assert page.inner_text("#game-title").endswith("deal #7")
    shown = table.pile("1")
    # Every player gets the same deal #7.
    body = api.post("/v1/games", json={"variant": "captives", "dealNumber": 7}).json()
    assert [c for c in body["game"]["view"]["columns"][0]["cards"]] == shown
    _resign(table)
    page.wait_for_selector("#dealt-note[data-ok]")
    assert page.get_attribute("#dealt-note", "data-ok") == "true"
    assert "deal #7" in page.inner_text("#dealt-note") and "“patience-public-deal|7”" in page.inner_text("#dealt-note")
    # A number that is not one is explained, never dealt.
    page.goto(f"{table.base_url}/?variant=captives&deal=0")
    page.wait_for_selector("body[data-ready=true]")
    assert "1 to 4294967295" in table.message()


def test_the_dialog_deals_a_numbered_deal(table: Table) -> None:
    page = table.page
    page.click("#new-game .advanced > summary")
    page.fill("#deal-number", "42")
    assert "deal=42" in (page.get_attribute("#variant-link", "href") or "")
    page.select_option("#variant", "tribunal")
    page.click("#deal")
    page.wait_for_selector("body[data-dealt='public']")
    assert page.inner_text("#game-title").endswith("deal #42")


def test_axe_finds_no_serious_violation_in_the_new_controls(browser: Any, server: LiveServer) -> None:
    assert AXE.is_file(), "axe-core is missing: deploy/setup.sh installs it (npm ci in tools/)"
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce", bypass_csp=True)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    table = Table(page, server.base_url).open()
    try:
        page.click("#new-game .advanced > summary")
        page.check("#winnable")
        page.fill("#deal-number", "3")
        assert _axe(table) == []  # the dialog with the switch and the number
        page.fill("#deal-number", "")
        page.uncheck("#winnable")
        server.seeds.push(SEED)
        table.deal("cats-tail")
        page.click("#btn-hint")
        page.wait_for_selector("#message.hint")
        assert _axe(table) == []  # the table with a hint marked, the hint count and Auto
        _resign(table)
        assert _axe(table) == []  # the result with Play this deal again
    finally:
        ctx.close()


def test_every_word_of_the_page_is_in_english_and_russian() -> None:
    """words-en.js and words-ru.js: the Russian table has exactly the English keys, each with as many | forms as
    the language needs."""
    web = Path(__file__).resolve().parents[2] / "clients" / "web"
    en_text, ru_text = (web / "words-en.js").read_text(), (web / "words-ru.js").read_text()
    en_block = en_text[en_text.index("export const EN = {") : en_text.index("};")]
    ru_block = ru_text[ru_text.index("export const RU = {") : ru_text.index("};")]
    entry = re.compile(r"^  '?([\w.\-]+)'?: '(.*)',$", re.M)
    en, ru = dict(entry.findall(en_block)), dict(entry.findall(ru_block))
    assert len(en) > 150 and set(en) == set(ru), set(en) ^ set(ru)
    assert len(entry.findall(en_block)) == len(en) and len(entry.findall(ru_block)) == len(ru)  # no key twice
    for key in ("hints", "btn.auto", "btn.again", "new.winnable", "new.number", "hint.WINNING_LINE", "deal.public"):
        assert en[key] and ru[key] and en[key] != ru[key], key
    # Russian plurals have one, few and many forms where English has one and other.
    for key, value in en.items():
        if "|" in value and key != "result.won-text":
            assert ru[key].count("|") == 2, key
