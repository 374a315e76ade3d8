"""The web table's player (docs/web.md, "Signing in"), in Debian's headless Chromium against a live service with an
OpenID Connect provider whose key set the test serves over HTTP: a guest signs in with a name (shown as text,
never as HTML), deals a game that is theirs, and a second browser (another device) signed in with the same key
finds it in My games and plays it on; an ID token handed to the page in its address signs a provider's player in;
rename, sign out and erase; in English and Russian; the page's Content-Security-Policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_support import LiveServer, live_server
from oidc_support import AUDIENCE, ISSUER, JwksServer, ProviderKey, claims, jwks_server, provider_settings
from web_support import DESKTOP, PHONE, Table

AXE = Path(__file__).resolve().parents[2] / "tools" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def provider_key() -> ProviderKey:
    return ProviderKey.rsa()


@pytest.fixture(scope="module")
def provider(provider_key: ProviderKey) -> Iterator[JwksServer]:
    with jwks_server(provider_key) as jwks:
        yield jwks


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory, provider: JwksServer) -> Iterator[LiveServer]:
    """This module's own service: the shared one has no provider."""
    settings = provider_settings((ISSUER, AUDIENCE, provider.url))
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), **settings) as live:
        yield live


def device(
    browser: Any, server: LiveServer, *, lang: str = "en", viewport: dict[str, int] = DESKTOP, **options: Any
) -> Table:
    context = browser.new_context(
        viewport=viewport, reduced_motion="reduce", locale="ru-RU" if lang == "ru" else "en-GB", **options
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    table = Table(page, server.base_url)
    page.goto(f"{server.base_url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    return table


def close(table: Table) -> None:
    errors = list(table.errors)
    table.page.context.close()
    assert errors == [], errors


def open_player(table: Table) -> None:
    """From the New game dialog, open on a first visit, else from the More menu."""
    if table.page.locator("#new-game").is_visible():
        table.page.click("#new-sign-in")
    else:
        table.page.click("#menu summary")
        table.page.click("#btn-player")
    table.page.wait_for_selector("#player[open]")


def sign_in_as_guest(table: Table, name: str) -> str:
    open_player(table)
    table.page.fill("#guest-name", name)
    table.page.click("#guest-sign-in")
    table.page.wait_for_selector("#player-in:not([hidden])")
    token = table.page.evaluate("() => JSON.parse(localStorage.getItem('patience.identity')).token")
    table.page.click("#player form[method=dialog] button")
    return str(token)


def me(server: LiveServer, token: str) -> dict[str, Any]:
    answer = httpx.get(server.base_url + "/v1/players/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    player: dict[str, Any] = answer.json()["player"]
    return player


def test_a_guest_deals_on_one_device_and_plays_on_in_another(browser: Any, server: LiveServer) -> None:
    phone = device(browser, server, viewport=PHONE)
    laptop = device(browser, server)
    try:
        name = "<b id=pwned>Ada</b>"  # 1 to 32 characters: a name the server accepts
        token = sign_in_as_guest(phone, name)
        # The name is text wherever it is shown: no element made from it, nothing run.
        assert phone.page.inner_text("#new-sign-in") == f"Player: {name}"
        player = me(server, token)
        assert player["displayName"] == name and player["kind"] == "guest"
        phone.deal("cats-tail")
        phone.page.click("#menu summary")
        assert phone.page.inner_text("#btn-player") == f"Player: {name}"
        assert phone.page.locator("#pwned").count() == 0
        phone.page.click("#menu summary")
        game_id = phone.page.get_attribute("#table", "data-game") or phone.page.evaluate(
            "() => new URLSearchParams(location.search).get('game')"
        )
        shown = httpx.get(
            f"{server.base_url}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        assert shown.status_code == 200 and shown.json()["game"]["player"]["id"] == player["id"]
        # The laptop: the same player by the key copied over (the laptop never saw the game token).
        open_player(laptop)
        laptop.page.click("#key-details summary")
        laptop.page.fill("#key-input", token)
        laptop.page.click("#key-sign-in")
        laptop.page.wait_for_selector("#player-in:not([hidden])")
        assert laptop.page.inner_text("#player-name") == name
        laptop.page.click("#player-my-games")
        laptop.page.wait_for_selector("#my-games[data-loaded='1']")
        laptop.page.click(f"#my-games-list button[data-game='{game_id}']")
        laptop.page.wait_for_selector("#table[data-variant='cats-tail']")
        laptop.wait_settled(1)
        legal = httpx.get(
            f"{server.base_url}/v1/games/{game_id}/legal-moves", headers={"Authorization": f"Bearer {token}"}
        ).json()["moves"]
        simple = next(m["text"] for m in legal if "-" in m["text"] and "," not in m["text"] and "/" not in m["text"])
        laptop.click_move(simple)
        assert laptop.moves() == 1
        stored = laptop.page.evaluate(f"() => JSON.parse(localStorage.getItem('patience.games'))['{game_id}']")
        assert "token" not in stored and stored["mine"] is True  # the identity is not kept as the game's key
        # Back on the phone: a reload shows the laptop's move.
        phone.page.reload()
        phone.page.wait_for_selector("body[data-ready=true]")
        phone.wait_settled(2)
        assert phone.moves() == 1
    finally:
        close(phone)
        close(laptop)


def test_an_id_token_handed_over_in_the_address_signs_a_provider_player_in(
    browser: Any, server: LiveServer, provider_key: ProviderKey
) -> None:
    token = provider_key.sign(claims(sub="web-user-1", name="Grace Hopper"))
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    table = Table(page, server.base_url)
    try:
        page.goto(f"{server.base_url}/?lang=en#id_token={token}")
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("body[data-player^='p_']")
        assert "id_token" not in page.url  # taken out of the address at once
        assert page.inner_text("#new-sign-in") == "Player: Grace Hopper"  # a first visit: the New game dialog
        page.click("#new-sign-in")
        assert page.inner_text("#player-kind") == "account"
        # A token that does not verify is refused with its reason, in words.
        page.goto(f"{server.base_url}/?lang=en#id_token={provider_key.sign(claims(audience='other'))}")
        page.wait_for_selector("#message:has-text('another service')")
        assert "id_token" not in page.url
        assert page.get_attribute("body", "data-player") != ""  # still the player signed in before
    finally:
        errors = [e for e in table.errors]
        context.close()
    assert errors == [], errors


def test_rename_sign_out_and_erase_in_russian(browser: Any, server: LiveServer) -> None:
    table = device(browser, server, lang="ru")
    try:
        token = sign_in_as_guest(table, "Ада")
        table.deal("cats-tail")
        open_player(table)
        assert table.page.inner_text("#player-kind") == "гость"
        table.page.fill("#rename-input", "Ада Лавлейс")
        table.page.click("#rename-save")
        table.page.wait_for_selector("#player-status:has-text('Ада Лавлейс')")
        assert me(server, token)["displayName"] == "Ада Лавлейс"
        table.page.fill("#rename-input", "Ada\u202eecalevol")
        table.page.click("#rename-save")
        table.page.wait_for_selector("#player-status[data-kind='refused']")
        assert "Имя" in table.page.inner_text("#player-status")  # the refusal in Russian (BAD_DISPLAY_NAME)
        table.page.click("#erase")
        table.page.click("#erase-yes")
        table.page.wait_for_selector("#player-status:has-text('отвязана 1 игра')")
        assert table.page.evaluate("() => localStorage.getItem('patience.identity')") is None
        games = httpx.get(
            server.base_url + "/v1/players/me/games", headers={"Authorization": f"Bearer {token}"}, timeout=30
        ).json()
        assert games["games"] == []
        table.page.click("#player form[method=dialog] button")
        # The game goes on with its own key, which this browser kept.
        assert table.page.get_attribute("body", "data-settled") == "1"
        table.page.click("#menu summary")
        assert table.page.inner_text("#btn-player") == "Войти"
        assert table.page.locator("#btn-my-games").is_hidden()
    finally:
        close(table)


def test_sign_out_keeps_the_key_of_a_game_dealt_here(browser: Any, server: LiveServer) -> None:
    table = device(browser, server)
    try:
        sign_in_as_guest(table, "Leaving")
        table.deal("cats-tail")
        open_player(table)
        table.page.click("#sign-out")
        table.page.wait_for_selector("#player-out:not([hidden])")
        table.page.click("#player form[method=dialog] button")
        table.page.reload()
        table.page.wait_for_selector("body[data-ready=true]")
        table.wait_settled(1)  # the game reopens with the game token this browser kept
        assert table.page.get_attribute("#table", "data-variant") == "cats-tail"
    finally:
        close(table)


def test_the_page_is_served_under_its_content_security_policy(server: LiveServer) -> None:
    page = httpx.get(server.base_url + "/", timeout=30)
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert (Path(__file__).resolve().parents[2] / "clients" / "web" / "players.js").read_text().count("innerHTML") == 0


def serious_violations(table: Table) -> list[Any]:
    table.page.add_script_tag(path=str(AXE))
    found = table.page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [(v["id"], [n["target"] for n in v["nodes"][:2]]) for v in found if v["impact"] in ("serious", "critical")]


def test_axe_finds_no_serious_violation_in_the_player_dialogs(browser: Any, server: LiveServer) -> None:
    assert AXE.is_file(), "axe-core is missing: deploy/setup.sh installs it (npm ci in tools/)"
    # The page's CSP admits only its own scripts; the test injects axe-core from node_modules past it.
    table = device(browser, server, viewport=PHONE, bypass_csp=True)
    try:
        open_player(table)
        assert serious_violations(table) == []  # signed out: the two ways in
        table.page.fill("#guest-name", "Axe")
        table.page.click("#guest-sign-in")
        table.page.wait_for_selector("#player-in:not([hidden])")
        assert serious_violations(table) == []  # signed in
        table.page.click("#player form[method=dialog] button")
        table.deal("cats-tail")
        table.page.click("#menu summary")
        table.page.click("#btn-my-games")
        table.page.wait_for_selector("#my-games[data-loaded='1']")
        assert serious_violations(table) == []
        box = table.page.locator("#my-games").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    finally:
        close(table)
