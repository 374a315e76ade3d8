"""Watching a game live in a real headless Chromium against a live server (real Redis, real REST): a game dealt
from the New game dialog with "Others may watch" has a watch link in the menu; the page it opens (/?watch=ID, no
key) follows the player's moves as they are made, read-only, until the game ends; a private game's page says it
cannot be watched. The moves are made through the REST API, as the player's own page (or another device) makes
them."""

from __future__ import annotations

from typing import Any

import httpx
from http_support import LiveServer
from web_support import Table


def _legal(api: httpx.Client, game_id: str, token: str) -> str:
    reply = api.get(f"/v1/games/{game_id}/legal-moves", headers={"authorization": f"Bearer {token}"})
    return str(reply.json()["moves"][0]["text"])


def test_a_spectator_follows_a_watchable_game_live(server: LiveServer, browser: Any, api: httpx.Client) -> None:
    context = browser.new_context()
    try:
        # The player deals a watchable game in the dialog: the menu links to its live page.
        player = Table(context.new_page(), server.base_url).open()
        if not player.page.locator("#new-game").is_visible():  # a first visit opens the dialog by itself
            player.page.click("#btn-new")
        player.page.check("#watchable")
        player.deal("cats-tail")
        game_id = player.page.get_attribute("body", "data-game")
        assert player.page.get_attribute("#watch-link", "href") == f"/?watch={game_id}"
        player.page.click("#menu summary")
        assert player.page.locator("#watch-link").is_visible()
        # A private game has none.
        player.page.click("#menu summary")
        player.page.click("#btn-new")
        player.page.uncheck("#watchable")
        player.deal("cats-tail")
        assert player.page.get_attribute("body", "data-game") != game_id
        assert player.page.locator("#watch-link").is_hidden()
        assert player.errors == []
    finally:
        context.close()


def test_the_spectator_page_follows_moves_and_the_end(server: LiveServer, browser: Any, api: httpx.Client) -> None:
    new = api.post("/v1/games", json={"variant": "cats-tail", "watchable": True}).json()
    game_id, token = new["game"]["gameId"], new["gameToken"]
    auth = {"authorization": f"Bearer {token}"}
    context = browser.new_context()
    try:
        page = context.new_page()
        spectator = Table(page, server.base_url)
        page.goto(f"{server.base_url}/?watch={game_id}")
        page.wait_for_selector("body[data-spectating=true][data-version='1']")
        assert page.locator("nav.actions").is_hidden()  # read-only: no move, undo or resign buttons
        # The player moves (another device): the spectator's table follows.
        move = _legal(api, game_id, token)
        played = api.post(f"/v1/games/{game_id}/moves", json={"expectedVersion": 1, "text": move}, headers=auth)
        assert played.is_success
        page.wait_for_selector("body[data-version='2']", state="attached", timeout=30_000)
        assert spectator.moves() == 1
        # The player resigns: the spectator sees the end, and the stream stops.
        assert api.post(f"/v1/games/{game_id}/resign", json={}, headers=auth).is_success
        page.wait_for_selector("body[data-status=GAME_STATUS_RESIGNED]", state="attached", timeout=30_000)
        page.wait_for_selector("#message:has-text('The game is over')", timeout=30_000)
        assert spectator.errors == []
    finally:
        context.close()


def test_a_private_game_cannot_be_watched(server: LiveServer, browser: Any, api: httpx.Client) -> None:
    new = api.post("/v1/games", json={"variant": "tribunal"}).json()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server.base_url}/?watch={new['game']['gameId']}")
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("#message.refused", state="attached", timeout=30_000)
        assert "cannot be watched" in page.inner_text("#message")
        assert page.get_attribute("body", "data-version") is None  # nothing of the game was shown
    finally:
        context.close()
