"""The web table a player wants, in a real headless Chromium against a live server (real Redis, real REST).

Every deal fits the screen at 1280x800 and on a 390x844 phone (20 deals of each game, dealt by the server from
the test's seed queue and drawn in one page per size); a mouse drag, a touch drag, a tap-tap, a double-click and
the keyboard each play a move; animations run, and do not under prefers-reduced-motion; an axe-core scan finds
no serious or critical violation; the page speaks Russian; a game's URL reopens it; statistics, the revealed
deal after Resign, the kept certificate and the notice of a server that signs none.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_support import LiveServer, fcs_fixtures, live_server
from web_support import DESKTOP, PHONE, Table

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.moves import Move

AXE = Path(__file__).resolve().parents[2] / "tools" / "node_modules" / "axe-core" / "axe.min.js"
DEALS = 20


def open_table(browser: Any, base_url: str, path: str = "/", **context: Any) -> Table:
    ctx = browser.new_context(**{"viewport": DESKTOP, "reduced_motion": "reduce", **context})
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    table = Table(page, base_url)
    page.goto(base_url + path)
    page.wait_for_selector("body[data-ready=true]")
    return table


def close(table: Table) -> None:
    errors = list(table.errors)
    table.page.context.close()
    assert errors == [], errors


def new_game(api: httpx.Client, server: LiveServer, variant: str, seed: bytes, **extra: Any) -> dict[str, Any]:
    server.seeds.push(seed)
    response = api.post("/v1/games", json={"variant": variant, **extra})
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


def play_api(api: httpx.Client, body: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    game = body["game"]
    for text in texts:
        response = api.post(
            f"/v1/games/{game['gameId']}/moves",
            headers={"authorization": f"Bearer {body['gameToken']}"},
            json={"expectedVersion": game["version"], "text": text},
        )
        response.raise_for_status()
        game = response.json()["game"]
    return game


def deal_out(api: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """Deal the whole stock of a Salic Law game (``d`` until it is empty)."""
    game = body["game"]
    while game["view"].get("stockCount", 0) and game["status"] == "GAME_STATUS_IN_PROGRESS":
        game = play_api(api, {**body, "game": game}, ["d"])
    return game


def adopt(table: Table, body: dict[str, Any]) -> None:
    """Give the page the key to a game dealt through the API, and open the game's URL."""
    gid, token = body["game"]["gameId"], body["gameToken"]
    table.page.evaluate(
        """([id, token, variant]) => {
            const games = JSON.parse(localStorage.getItem('patience.games') || '{}');
            games[id] = { token, variant, dealt: Date.now() };
            localStorage.setItem('patience.games', JSON.stringify(games));
        }""",
        [gid, token, body["game"]["variant"]],
    )
    table.page.goto(f"{table.base_url}/?game={gid}")
    table.page.wait_for_selector("body[data-ready=true]")


# ------------------------------------------------------------------------------------------------ fitting

#: Run in the page: draw a view with the page's own table.js and measure it against the window.
MEASURE = """async ([variant, view, options, pickable]) => {
    const { drawTable } = await import('/table.js');
    const table = document.getElementById('table');
    window.scrollTo(0, 0);
    drawTable(table, variant, view, null, options);
    const W = window.innerWidth, H = window.innerHeight;
    const out = { overflowX: document.scrollingElement.scrollWidth - W, outside: [], small: [], strips: [],
                  cw: parseFloat(table.style.getPropertyValue('--cw')) };
    const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
    for (const card of table.querySelectorAll('.card.top, .pile.empty .slot')) {
        const r = card.getBoundingClientRect();
        if (!inside(r)) out.outside.push([card.closest('[data-pile]')?.dataset.pile, Math.round(r.bottom)]);
        if (r.width < 24 || r.height < 24) out.small.push(card.closest('[data-pile]')?.dataset.pile);
    }
    // Every card a legal move picks up: the part of it that shows (its strip, or the whole top card) is at
    // least 24 px each way, and a tap in its middle lands on that card.
    for (const [pile, pos] of pickable) {
        const col = table.querySelector(`.pile[data-pile="${pile}"]`);
        const card = col.querySelector(`.card[data-pos="${pos}"]`);
        const next = col.querySelector(`.card[data-pos="${pos + 1}"]`);
        const r = card.getBoundingClientRect();
        const height = (next ? next.getBoundingClientRect().top : r.bottom) - r.top;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(height, r.height) / 2);
        out.strips.push(Math.min(height, r.width));
        if (height < 24 || r.width < 24 || hit?.closest('.card') !== card) out.small.push([pile, pos, height]);
    }
    for (const label of table.querySelectorAll('.group-label')) {  // "Stock · 1 redeal left" included
        const r = label.getBoundingClientRect();
        if (r.left < -0.5 || r.right > W + 0.5) out.outside.push([label.textContent, Math.round(r.right)]);
    }
    out.allCards = [...table.querySelectorAll('.pile')].every((p) => inside(p.getBoundingClientRect()));
    const fans = [...table.querySelectorAll('.pile.fan-down')]
        .map((p) => parseFloat(p.style.getPropertyValue('--fan')));
    out.minFan = fans.length ? Math.min(...fans) : null;
    return out;
}"""


def pickable(api: httpx.Client, body: dict[str, Any], game: dict[str, Any]) -> list[tuple[str, int]]:
    """Every column card a legal move picks up now, as (column, position): from the server's LegalMoves."""
    gid = game["gameId"]
    moves = api.get(f"/v1/games/{gid}/legal-moves", headers={"authorization": f"Bearer {body['gameToken']}"})
    columns = game["view"]["columns"]
    out = set()
    for entry in moves.json()["moves"]:
        move = entry["move"]
        sources = move.get("sources") or []
        if len(sources) == 1 and sources[0]["kind"] == "PILE_KIND_COLUMN":
            i = sources[0]["index"]
            out.add((str(i), len(columns[i - 1].get("cards", [])) - move.get("count", 1)))
    return sorted(out)


Position = tuple[dict[str, Any], Any, dict[str, str], list[tuple[str, int]]]


@pytest.fixture(scope="module")
def positions(api: httpx.Client, server: LiveServer) -> list[Position]:
    """20 deals of every game, plus two Tribunals and two Picture Galleries whose whole stock has been dealt
    (their columns only grow), each as (variant, view, options, cards a legal move picks up): dealt once, drawn
    at both sizes."""
    variants = api.get("/v1/variants").json()["variants"]
    out: list[Position] = []
    for v in variants:
        for i in range(DEALS):
            body = new_game(api, server, v["id"], hashlib.sha256(f"layout {v['id']} {i}".encode()).digest())
            game = body["game"]
            out.append((v, game["view"], game["options"], pickable(api, body, game)))
    for v in variants:
        if v["family"] == "salic-law":
            for i in range(2):
                body = new_game(api, server, v["id"], hashlib.sha256(f"dealt out {v['id']} {i}".encode()).digest())
                game = deal_out(api, body)
                out.append((v, game["view"], game["options"], pickable(api, body, game)))
    return out


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_deal_of_every_game_fits_the_screen(
    browser: Any, server: LiveServer, positions: list[Position], size: str
) -> None:
    phone = size == "phone"
    options: dict[str, Any] = {"viewport": PHONE, "has_touch": True, "is_mobile": True} if phone else {}
    table = open_table(browser, server.base_url, **options)
    try:
        table.page.keyboard.press("Escape")  # the New game dialog
        problems = []
        cards = []
        strips = []
        for variant, view, options, picked in positions:
            vid = variant["id"]
            m = table.page.evaluate(MEASURE, [variant, view, options, picked])
            cards.append(m["cw"])
            strips.extend(m["strips"])
            if m["overflowX"] > 0 or m["outside"] or m["small"] or (not phone and not m["allCards"]):
                problems.append((vid, m))
            if m["minFan"] is not None:
                # The fan never hides a card's corner: at least 30 % of the card's width shows.
                assert m["minFan"] >= 0.3 * m["cw"] - 0.01, (vid, m)
        assert problems == [], problems[:5]
        assert len(cards) == DEALS * 9 + 4
        assert min(cards) >= 24
        # Cards were picked up from runs and from free cards alike, and every one was a 24 px target.
        assert len(strips) > len(positions) and min(strips) >= 24
    finally:
        close(table)


# ------------------------------------------------------------------------------------------------ input


def _column_move(rules: Any, state: Any) -> Move:
    return next(
        m for m in rules.legal_moves(state) if m.source.kind.value == "" and m.target and m.target.kind.value == ""
    )


SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal with a column-to-column move at the start


def test_a_touch_drag_a_tap_tap_and_a_double_tap_each_move_a_card(browser: Any, server: LiveServer) -> None:
    table = open_table(browser, server.base_url, viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = table.page
        rules = get_game("cats-tail")
        state = rules.deal(SEED)
        server.seeds.push(SEED)
        table.deal("cats-tail")
        assert page.eval_on_selector(".pile .card.top", "e => getComputedStyle(e).touchAction") == "none"
        move = _column_move(rules, state)
        src, dst, count = str(move.source.index), str(move.target.index), move.count or 1
        card = page.locator(f'.pile[data-pile="{src}"] .card[data-pos="{len(state.columns[int(src) - 1]) - count}"]')
        a = card.bounding_box()
        b = page.locator(f'.pile[data-pile="{dst}"] .card.top').bounding_box()
        assert a and b
        cdp = page.context.new_cdp_session(page)
        start = (a["x"] + a["width"] / 2, a["y"] + 6)
        end = (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
        for k in range(1, 13):
            x = start[0] + (end[0] - start[0]) * k / 12
            y = start[1] + (end[1] - start[1]) * k / 12
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
            if k == 6:  # mid-drag: a full-size ghost of the carried cards follows the finger
                ghost = page.eval_on_selector(".ghost .card", "e => [e.offsetWidth, e.offsetHeight]")
                assert ghost[0] == pytest.approx(a["width"], abs=1), ghost
                assert ghost[1] == pytest.approx(a["width"] * 1.4, abs=1), ghost
                assert page.locator(".ghost .card").count() == count
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        table.wait_settled(2)
        state, _ = rules.play(state, move)
        assert table.moves() == 1
        for i, column in enumerate(state.columns, start=1):
            assert table.pile(str(i)) == [TEXT[c] for c in column]
        # Tap-tap: a free card, then an empty reserve cell.
        free = next(i for i, c in enumerate(state.columns, start=1) if c)
        page.tap(f'.pile[data-pile="{free}"] .card.top')
        page.tap('.pile[data-pile="r1"]')
        table.wait_settled(3)
        assert table.pile("r1") == [TEXT[state.columns[free - 1][-1]]]
        # A double-tap on a card that a foundation takes sends it there.
        seed, home = _home_seed("royal-retinue-aces")
        server.seeds.push(seed)
        table.deal("royal-retinue-aces")
        src = str(home.source.index)
        card = table.pile(src)[-1]
        page.tap(f'.pile[data-pile="{src}"] .card.top')
        page.tap(f'.pile[data-pile="{src}"] .card.top')
        table.wait_settled(2)
        assert any(table.pile(f"f{i}")[-1:] == [card] for i in range(1, 9)), card
    finally:
        close(table)


def _home_seed(variant: str) -> tuple[bytes, Move]:
    """A deal whose first legal moves include a column's free card going to a foundation."""
    rules = get_game(variant)
    for i in range(500):
        seed = hashlib.sha256(f"home {i}".encode()).digest()
        state = rules.deal(seed)
        for m in rules.legal_moves(state):
            if m.source and m.source.kind.value == "" and m.target and m.target.kind.value == "f":
                return seed, m
    raise AssertionError("no deal with a foundation move")


def test_a_double_click_sends_a_card_home_and_the_keyboard_plays_a_move(browser: Any, server: LiveServer) -> None:
    table = open_table(browser, server.base_url)
    try:
        page = table.page
        seed, home = _home_seed("royal-retinue-aces")
        server.seeds.push(seed)
        table.deal("royal-retinue-aces")
        src = str(home.source.index)
        card = table.pile(src)[-1]
        page.dblclick(f'.pile[data-pile="{src}"] .card.top')
        table.wait_settled(2)
        assert any(table.pile(f"f{i}")[-1:] == [card] for i in range(1, 9)), card
        # The keyboard alone: focus the source pile, Enter, arrow keys to the target, Enter.
        rules = get_game("cats-tail")
        state = rules.deal(SEED)
        server.seeds.push(SEED)
        table.deal("cats-tail")
        move = _column_move(rules, state)
        src, dst, count = str(move.source.index), str(move.target.index), move.count or 1
        page.focus(f'.pile[data-pile="{src}"]')
        page.keyboard.press("Enter")
        for _ in range(count - 1):
            page.keyboard.press("ArrowUp")  # one card more of the run
        assert len(page.query_selector_all(".card.selected")) == count
        piles = page.eval_on_selector_all(".pile[data-pile][tabindex]", "els => els.map(e => e.dataset.pile)")
        steps = piles.index(dst) - piles.index(src)
        for _ in range(abs(steps)):
            page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
        assert page.evaluate("document.activeElement.dataset.pile") == dst
        page.keyboard.press("Enter")
        table.wait_settled(2)
        assert table.moves() == 1
        assert page.evaluate("document.activeElement.dataset.pile") == dst  # focus stays where the player is
        state, _ = rules.play(state, move)
        assert table.pile(dst) == [TEXT[c] for c in state.columns[int(dst) - 1]]
    finally:
        close(table)


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moves_animate_unless_the_player_asks_for_less_motion(browser: Any, server: LiveServer, motion: str) -> None:
    table = open_table(browser, server.base_url, reduced_motion=motion)
    try:
        rules = get_game("cats-tail")
        state = rules.deal(SEED)
        server.seeds.push(SEED)
        table.deal("cats-tail")
        table.click_move(_column_move(rules, state).text())
        animated = table.page.get_attribute("#table", "data-animated")
        if motion == "reduce":
            assert animated is None
        else:
            assert animated is not None and int(animated) >= 1
    finally:
        close(table)


# ------------------------------------------------------------------------------------------------ accessibility


def _axe(table: Table) -> list[dict[str, Any]]:
    table.page.add_script_tag(path=str(AXE))
    result = table.page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [(n["target"], n["failureSummary"]) for n in v["nodes"][:2]]}
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("variant", ["royal-retinue", "tribunal", "captives", "sultan-52"])
def test_axe_finds_no_serious_violation_on_the_table(browser: Any, server: LiveServer, variant: str) -> None:
    assert AXE.is_file(), "axe-core is missing: deploy/setup.sh installs it (npm ci in tools/)"
    # The page's CSP admits only its own scripts; the test injects axe-core from node_modules past it.
    table = open_table(browser, server.base_url, bypass_csp=True)
    try:
        assert _axe(table) == []  # the New game dialog
        server.seeds.push(SEED)
        table.deal(variant)
        table.click_card("1" if variant != "sultan-52" else "r1")  # a selection with its targets marked
        assert _axe(table) == []
    finally:
        close(table)


# ------------------------------------------------------------------------------------------------ language


def test_the_page_speaks_russian_and_switches(browser: Any, server: LiveServer) -> None:
    table = open_table(browser, server.base_url, locale="ru-RU")
    try:
        page = table.page
        assert page.get_attribute("html", "lang") == "ru"
        assert page.inner_text("#deal") == "Сдать"
        rules = get_game("cats-tail")
        state = rules.deal(SEED)
        server.seeds.push(SEED)
        table.deal("cats-tail")
        assert page.inner_text("#game-title") == "Кошачий хвост"
        assert page.inner_text("#btn-undo") == "Отменить"
        legal = {m.text() for m in rules.legal_moves(state)}
        a, b = next(
            (a, b)
            for a in range(1, 10)
            for b in range(1, 10)
            if a != b and state.columns[a - 1] and state.columns[b - 1] and f"{a}-{b}/1" not in legal
        )
        table.click_card(str(a))
        table.click_pile(str(b))
        page.wait_for_selector("body[data-refusals='1']", state="attached")
        message = table.message()
        assert "не подходит" in message or "чередованием цвета" in message, message
        # Cards in the server's words are written as the table shows them: 10♦, never TD.
        shown = [TEXT[state.columns[a - 1][-1]], TEXT[state.columns[b - 1][-1]]]
        for card in shown:
            assert card not in message
        # The rules, in Russian, from docs/rules.ru.md.
        page.click("#menu > summary")
        page.click("#btn-rules")
        page.click("#rules-full > summary")  # the full rules, folded under the game's guide
        assert "Семейство 1" in page.inner_text("#rules-body")
        page.keyboard.press("Escape")
        # Switch to English: every word follows.
        page.click("#menu > summary")
        page.click("#btn-lang")
        assert page.get_attribute("html", "lang") == "en"
        assert page.inner_text("#btn-undo") == "Undo"
        assert page.inner_text("#game-title") == "Cat's Tail"
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        assert page.inner_text("#btn-undo") == "Undo"  # the choice is kept
    finally:
        close(table)


def test_reason_codes_are_read_in_one_place_and_cards_are_written_as_on_the_table(
    browser: Any, server: LiveServer
) -> None:
    table = open_table(browser, server.base_url)
    try:
        out = table.page.evaluate(
            """async () => {
                const m = await import('/messages.js');
                const c = await import('/cards.js');
                return [m.reasonCode('does-not-fit'), m.reasonCode('DOES_NOT_FIT'), m.reasonCode('UNDO_DISABLED'),
                        m.reasonCode('undo-forbidden'), m.reasonText('does-not-fit') === m.reasonText('DOES_NOT_FIT'),
                        c.prettyCards('TD does not go on 4C; 10H and AS')];
            }"""
        )
        assert out == [
            "DOES_NOT_FIT",
            "DOES_NOT_FIT",
            "UNDO_FORBIDDEN",
            "UNDO_FORBIDDEN",
            True,
            "10♦ does not go on 4♣; 10♥ and A♠",
        ]
        # The server's UNDO_FORBIDDEN, met through the page: explained, not shown raw.
        page = table.page
        rules = get_game("cats-tail")
        state = rules.deal(SEED)
        server.seeds.push(SEED)
        page.uncheck("#allow-undo")
        table.deal("cats-tail")
        table.click_move(_column_move(rules, state).text())
        assert page.is_disabled("#btn-undo")
        page.keyboard.press("Control+z")
        page.wait_for_selector("body[data-refusals='1']", state="attached")
        assert page.get_attribute("body", "data-last-reason") == "UNDO_FORBIDDEN"
        assert "Undo is switched off for this game." in table.message()
    finally:
        close(table)


# ------------------------------------------------------------------------------------------------ game flow


def test_a_variant_url_deals_and_a_game_url_reopens(browser: Any, server: LiveServer, api: httpx.Client) -> None:
    table = open_table(browser, server.base_url, path="/?variant=cats-tail&sequence_moves=false")
    try:
        page = table.page
        page.wait_for_selector("#table[data-variant='cats-tail']")
        table.wait_settled(1)
        url = page.url
        assert "?game=" in url
        assert re.fullmatch(r"\d+:\d\d", page.inner_text("#timer"))
        gid = url.split("?game=")[1]
        token = page.evaluate("id => JSON.parse(localStorage.getItem('patience.games'))[id].token", gid)
        game = api.get(f"/v1/games/{gid}", headers={"authorization": f"Bearer {token}"}).json()["game"]
        assert game["options"]["sequence_moves"] == "false"
        # Its URL reopens it, on a reload or in another tab of this browser.
        legal = api.get(f"/v1/games/{gid}/legal-moves", headers={"authorization": f"Bearer {token}"}).json()["moves"]
        table.click_move(next(m["text"] for m in legal if "-" in m["text"] and "," not in m["text"]))
        other = page.context.new_page()
        other.goto(url)
        other.wait_for_selector("body[data-settled='2']", state="attached")
        assert other.inner_text("#moves") == "1"
        other.close()
        # A link to a game this browser holds no key for, or to a game that does not exist: said, not crashed.
        page.goto(server.base_url + "/?game=nope")
        page.wait_for_selector("body[data-ready=true]")
        assert "nope" in table.message() and page.locator("#new-game").is_visible()
        page.goto(server.base_url + "/?variant=cats-tail&sequence_moves=maybe")
        page.wait_for_selector("body[data-ready=true]")
        assert "sequence_moves=maybe" in table.message()
        page.goto(server.base_url + "/?variant=no-such-game")
        page.wait_for_selector("body[data-ready=true]")
        assert "no-such-game" in table.message()
        # The New game dialog shows the link that deals what it is set to.
        page.select_option("#variant", "picture-gallery")
        page.select_option('[data-option="deals"]', "3")
        assert page.get_attribute("#variant-link", "href") == "/?variant=picture-gallery&deals=3"
    finally:
        close(table)


def test_resign_reveals_the_deal_face_up_and_counts_in_the_statistics(browser: Any, server: LiveServer) -> None:
    table = open_table(browser, server.base_url)
    try:
        page = table.page
        page.on("dialog", lambda dialog: dialog.accept())
        for variant in ("captives", "tribunal"):
            rules = get_game(variant)
            seed = hashlib.sha256(f"resign {variant}".encode()).digest()
            state = rules.deal(seed)
            server.seeds.push(seed)
            table.deal(variant)
            assert page.locator(".card.revealed").count() == 0
            page.click("#btn-resign")
            page.wait_for_selector("body[data-revealed='true']", state="attached")
            assert page.inner_text("#result-title") == "Game resigned"
            assert seed.hex() in page.inner_text("#seed-fields")
            assert page.get_attribute("#fair-status", "data-ok") == "true"
            # The stock's next card and the captives, face up, as the engine dealt them.
            assert page.get_attribute('.pile[data-pile="stock"] .card.revealed', "data-card") == TEXT[state.stock[0]]
            if variant == "captives":
                shown = [page.get_attribute(f'.pile[data-pile="c{i}"] .card', "data-card") for i in range(1, 8)]
                assert shown == [TEXT[c] for c in state.captives]
            assert page.locator(".card.back").count() == 0
            page.click("#result-close")
        page.click("#menu > summary")
        page.click("#btn-stats")
        row = page.locator('#stats-body tr[data-variant="tribunal"]').inner_text().split("\t")
        assert row[1:4] == ["1", "0", "0"], row
    finally:
        close(table)


def test_tribunal_empty_stock_says_so_and_sends_nothing(browser: Any, server: LiveServer, api: httpx.Client) -> None:
    body = new_game(api, server, "tribunal", hashlib.sha256(b"empty stock").digest())
    game = deal_out(api, body)
    assert game["status"] != "GAME_STATUS_WON"
    table = open_table(browser, server.base_url)
    try:
        adopt(table, body)
        sent: list[str] = []
        table.page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
        table.page.click('.pile[data-pile="stock"]')
        assert "The stock is empty and there are no redeals left." in table.message()
        assert sent == [] and table.page.get_attribute("body", "data-refusals") is None
    finally:
        close(table)


def _win_in_page(table: Table, api: httpx.Client, server: LiveServer) -> tuple[bytes, list[str], str]:
    """A known Cat's Tail win: all but the last move through the API, the last one by click in the page."""
    fixtures = fcs_fixtures("cats-tail")
    assert fixtures
    seed, moves = fixtures[0]
    body = new_game(api, server, "cats-tail", seed)
    play_api(api, body, moves[:-1])
    adopt(table, body)
    table.wait_settled(len(moves))
    table.click_move(moves[-1])
    table.page.wait_for_selector("#result:not([hidden])")
    return seed, moves, body["game"]["gameId"]


def test_a_won_certificate_is_kept_reopened_copied_and_downloaded(
    browser: Any, server: LiveServer, api: httpx.Client, tmp_path: Path
) -> None:
    table = open_table(browser, server.base_url)
    try:
        page = table.page
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        _, moves, gid = _win_in_page(table, api, server)
        assert page.inner_text("#result-title") == "You won!"
        page.wait_for_selector("#cert-status[data-valid='true']")
        assert page.locator("#cert-none").is_hidden()
        # Every field of the signed payload is shown.
        fields = page.inner_text("#cert-fields")
        for name in ("Seed", "Moves", "Final position (SHA-256)", "Options"):  # every field named for people
            assert name in fields, fields
        # After a reload the certificate is still here: reopened, checked again, copied and downloaded.
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        page.click("#menu > summary")
        page.click("#btn-cert")
        page.wait_for_selector("#cert-dialog-status[data-valid='true']")
        assert page.input_value("#cert-pick") == gid
        with page.expect_download() as info:
            page.click("#cert-dialog-body .cert-download")
        path = tmp_path / "cert.json"
        info.value.save_as(path)
        envelope = json.loads(path.read_text())
        assert sorted(envelope) == ["key_id", "payload", "signature"]
        verdict = api.post("/v1/certificates/verify", json={"certificate": _b64(path.read_bytes())}).json()
        assert verdict["valid"] is True
        page.click("#cert-dialog-body .cert-copy")
        assert json.loads(page.evaluate("navigator.clipboard.readText()")) == envelope
        # The statistics count the win with its moves.
        page.keyboard.press("Escape")
        page.click("#menu > summary")
        page.click("#btn-stats")
        row = page.locator('#stats-body tr[data-variant="cats-tail"]').inner_text().split("\t")
        assert row[2] == "1" and row[-2] == str(len(moves)) and row[-1] == "0", row  # best moves; no restart
        # Kept with its payload written twice, another one first and the genuine one last (issue 23): refused as
        # MALFORMED, and nothing of either copy shown as what it claims.
        payload = json.loads(base64.b64decode(envelope["payload"]))
        other = base64.b64encode(json.dumps({**payload, "game_id": "never-signed"}).encode()).decode()
        twice = (
            f'{{"key_id":{json.dumps(envelope["key_id"])},"payload":"{other}","payload":"{envelope["payload"]}",'
            f'"signature":"{envelope["signature"]}"}}'
        )
        page.keyboard.press("Escape")
        page.evaluate(
            """([gid, encoded]) => {
                const games = JSON.parse(localStorage.getItem('patience.games'));
                games[gid].certificate.encoded = encoded;
                localStorage.setItem('patience.games', JSON.stringify(games));
            }""",
            [gid, _b64(twice.encode())],
        )  # no reload: the page would keep the server's certificate of its last game again
        page.click("#menu > summary")
        page.click("#btn-cert")
        page.wait_for_selector("#cert-dialog-status[data-valid='false']")
        assert page.get_attribute("#cert-dialog-status", "data-reason") == "MALFORMED"
        assert page.inner_text("#cert-dialog-body .cert-fields").strip() == ""
    finally:
        close(table)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_server_that_signs_nothing_is_named_on_a_win(browser: Any, redis_url: str, tmp_path: Path) -> None:
    with live_server(redis_url, None, generate_keys=False) as bare, httpx.Client(base_url=bare.base_url) as client:
        assert client.get("/v1/signing-keys").json().get("keys", []) == []
        table = open_table(browser, bare.base_url)
        try:
            _win_in_page(table, client, bare)
            notice = table.page.locator("#cert-none")
            assert notice.is_visible()
            assert "signs no certificates" in notice.inner_text()
            assert table.page.locator("#certificate").is_hidden()
        finally:
            close(table)


def test_the_load_benchmark_reports_every_case(tmp_path: Path) -> None:
    """bench/web_load.py runs end to end (one load a case: its figures are checked for shape, not speed)."""
    import subprocess
    import sys

    out = tmp_path / "load.json"
    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, str(root / "bench" / "web_load.py"), "--loads", "1", "--json", str(out)],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=600,
    )
    rows = json.loads(out.read_text())["rows"]
    cases = set(itertools.product(("1280x800", "390x844"), ("reopen", "deal"), ("cold", "warm")))
    assert {(r["size"], r["how"], r["cache"]) for r in rows} == cases
    for row in rows:
        assert row["ready_ms"] > 0 and row["TaskDuration"] > 0, row
