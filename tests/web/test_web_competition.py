"""The web table's daily deals and leaderboards (docs/competition.md) in Debian's Chromium, against a real service
(REST, a real Redis) whose day the test moves: "Today's daily deal" from the New game dialog, one ranked game per
signed-in player, the daily note while the day lasts, and the Leaderboard panel whose every entry is checked in
the browser (clients/web/leaderboard.js and certificate.js, WebCrypto), in English and in Russian.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from competition_support import DayClock
from google.protobuf import json_format
from http_support import LiveServer, fcs_fixtures, live_server
from patience.leaderboards import check_leaderboard
from patience.v1 import patience_pb2 as pb
from web_support import DESKTOP, Table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def clock() -> DayClock:
    return DayClock()


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory, clock: DayClock) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), clock=clock) as live:
        yield live


@pytest.fixture
def table(browser: Any, server: LiveServer) -> Iterator[Table]:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    page = context.new_page()
    try:
        yield Table(page, server.base_url).open()
    finally:
        context.close()


def guest(api: httpx.Client, name: str) -> dict[str, Any]:
    answer = api.post("/v1/players:guest", json={"displayName": name})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def win(api: httpx.Client, game_id: str, token: str, moves: list[str]) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    version = int(api.get(f"/v1/games/{game_id}", headers=auth).json()["game"]["version"])
    for text in moves:
        answer = api.post(f"/v1/games/{game_id}/moves", headers=auth, json={"expectedVersion": version, "text": text})
        assert answer.status_code == 200, answer.text
        version = int(answer.json()["game"]["version"])


def sign_in(table: Table, who: dict[str, Any]) -> None:
    """What the page keeps of a signed-in player (localStorage "patience.identity"), then the page opened again."""
    table.page.evaluate(
        "(v) => localStorage.setItem('patience.identity', JSON.stringify(v))",
        {"token": who["token"], "player": who["player"]},
    )
    table.open()


def deal_daily(table: Table, variant: str) -> str:
    page = table.page
    if not page.locator("#new-game").is_visible():
        page.click("#btn-new")
    page.select_option("#variant", variant)
    page.check("#daily")
    page.click("#deal")
    # Selectors, never JS predicates: the page's CSP (script-src 'self') forbids evaluating strings.
    page.wait_for_selector("#new-game", state="hidden")
    page.wait_for_selector("body[data-dealt='daily']")
    return str(page.get_attribute("body", "data-game"))


def kept_token(table: Table, game_id: str) -> str:
    return str(table.page.evaluate("(id) => JSON.parse(localStorage.getItem('patience.games'))[id].token", game_id))


def marks(table: Table) -> list[str]:
    return list(table.page.eval_on_selector_all("#board-body td.check", "els => els.map(e => e.dataset.check || '')"))


def test_the_daily_deal_and_its_board_checked_in_the_browser(
    table: Table, server: LiveServer, clock: DayClock, api: httpx.Client
) -> None:
    day = clock.fresh_day()
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)
    page = table.page
    ada, bob = guest(api, "Ада"), guest(api, "Bob <b>")
    sign_in(table, ada)

    game_id = deal_daily(table, "cats-tail")
    assert "daily deal (ranked)" in page.inner_text("#game-title")
    page.click("#menu summary")
    assert page.locator("#btn-restart").is_disabled()  # the seed stays secret: nothing to deal again from
    page.click("#menu summary")
    page.click("#btn-new")
    assert "daily=true" in page.get_attribute("#variant-link", "href")  # type: ignore[operator]
    assert deal_daily(table, "cats-tail") != "" and page.get_attribute("body", "data-game") == game_id  # resumed

    win(api, game_id, kept_token(table, game_id), moves)
    bobs = api.post(
        "/v1/games", json={"variant": "cats-tail", "daily": True}, headers={"Authorization": f"Bearer {bob['token']}"}
    ).json()
    win(api, bobs["game"]["gameId"], bobs["gameToken"], moves)

    page.goto(f"{server.base_url}/?game={game_id}")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#btn-result")
    assert page.locator("#daily-note").is_visible() and "midnight UTC" in page.inner_text("#daily-note")
    assert not page.locator("#cert-none").is_visible() and not page.locator("#certificate").is_visible()

    # During the day: the ranking, our own row, and nothing to check yet.
    page.click("#result-board")
    page.wait_for_selector("#board[open] #board-body tr")
    page.wait_for_selector("#board[data-checked]")
    assert page.inner_text("#board-name") == f"daily-cats-tail-{day}"
    assert marks(table) == ["sealed", "sealed"] and page.get_attribute("#board", "data-checked") == "SEALED"
    assert "race is on" in page.inner_text("#board-state")
    own = page.locator("#board-body tr.own")
    assert own.count() == 1 and "Ада" in own.inner_text()
    names = page.eval_on_selector_all("#board-body tr td:nth-child(2)", "els => els.map(e => e.textContent)")
    assert "Bob <b>" in names and page.locator("#board-body b").count() == 0  # a name is text, never HTML

    clock.next_day()  # the day is over: every entry is checked here, in the browser
    page.click("#board-show")
    page.wait_for_selector("#board[data-checked='ok']")
    assert marks(table) == ["ok", "ok"] and "final" in page.inner_text("#board-state")
    rest = api.get(f"/v1/leaderboards/daily-cats-tail-{day}").json()
    keys = {k["keyId"]: base64.b64decode(k["publicKey"]) for k in api.get("/v1/signing-keys").json()["keys"]}
    assert check_leaderboard(json_format.ParseDict(rest, pb.GetLeaderboardResponse()), keys).valid

    page.keyboard.press("Escape")
    page.click("#menu summary")
    page.click("#btn-lang")  # in Russian: the menu's Leaderboards opens the game's board, checked again
    page.click("#menu summary")
    page.click("#btn-board")
    page.wait_for_selector("#board[open][data-checked='ok']")
    assert page.inner_text("#board-title") == "Таблица результатов"
    assert "окончательна" in page.inner_text("#board-state") and marks(table) == ["ok", "ok"]
    page.keyboard.press("Escape")

    # The game opened again: the seed and the certificate are out, naming the player and the board.
    page.goto(f"{server.base_url}/?game={game_id}")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#btn-result")
    page.wait_for_selector("#cert-status[data-valid='true']")
    fields = page.inner_text("#cert-fields")
    assert "Ада" in fields and f"daily-cats-tail-{day}" in fields
    page.wait_for_selector("#fair-status[data-ok='true']")
    assert not page.locator("#daily-note").is_visible()
    assert not table.errors, table.errors


def test_the_shared_board_vectors_in_the_browser(table: Table) -> None:
    """The page's board check in Chromium (its own WebCrypto, atob and JSON) gives every board of
    docs/certificate-vectors/leaderboard.json its reasons."""
    vectors = ROOT / "docs" / "certificate-vectors"
    cases = json.loads((vectors / "leaderboard.json").read_text(encoding="utf-8"))["cases"]
    keys = json.loads((vectors / "signing-keys.json").read_text(encoding="utf-8"))["keys"]
    got = table.page.evaluate(
        """async ([cases, keys]) => {
            const m = await import('/leaderboard.js');
            const out = [];
            for (const c of cases) {
                const r = await m.checkLeaderboard(c.board, keys);
                out.push([r.reason, r.entries.map((e) => e.reason)]);
            }
            return out;
        }""",
        [cases, keys],
    )
    assert got == [[c["reason"], c["entries"]] for c in cases]


def test_a_public_board_from_the_menu(table: Table) -> None:
    """The Leaderboards item opens a board by game and deal: a public deal nobody has won yet is an empty open
    puzzle; a bad number is refused with the server's reason, in words."""
    page = table.page
    if page.locator("#new-game").is_visible():  # a first visit opens the New game dialog
        page.click("#new-cancel")
    page.click("#menu summary")
    page.click("#btn-board")
    page.wait_for_selector("#board[open]")
    page.select_option("#board-variant", "tribunal")
    page.select_option("#board-kind", "public")
    page.fill("#board-number", "77")
    page.click("#board-show")
    page.wait_for_selector("#board-name:text-is('public-tribunal-77')")
    page.wait_for_selector("#board-empty:not([hidden])")
    assert "open puzzle" in page.inner_text("#board-state")
    page.fill("#board-number", "0")
    page.click("#board-show")
    page.wait_for_selector("#board-state:has-text('no such leaderboard')")
    assert not table.errors, table.errors
