"""The web client end to end, in a real headless Chromium against a live server (gRPC + REST, real Redis).

Deals a game, plays legal moves by clicking and by dragging, undoes, sees a refused move explained, wins a
Cat's Tail deal by replaying a Freecell Solver solution click by click and sees its certificate verified
in the browser, checks that no hidden card reaches the page or its network traffic before the game ends,
and draws every family's table at desktop and phone size (screenshots in the test's tmp dir;
``bench/web_screenshots.py`` writes the ones in docs/screenshots). tests/web/test_web_table.py checks the rest of
what a player wants (fit, touch, keyboard, motion, accessibility, languages, links, the end of a game).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_support import CARD, LiveServer, cards_in, fcs_fixtures
from web_support import DESKTOP, PHONE, Table

from engine.cards import TEXT
from engine.catalogue import get_game
from engine.deal import canonical_deck
from engine.moves import Move
from engine.view import hidden_cards

ROOT = Path(__file__).resolve().parents[2]

SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal with a column-to-column move at the start


@pytest.fixture
def table(browser: Any, server: LiveServer) -> Iterator[Table]:
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(15_000)
    t = Table(page, server.base_url).open()
    try:
        yield t
        assert t.errors == [], t.errors
    finally:
        context.close()


def texts(pile: tuple[int, ...] | list[int]) -> list[str]:
    return [TEXT[c] for c in pile]


def test_deal_play_drag_and_undo(table: Table, server: LiveServer) -> None:
    rules = get_game("cats-tail")
    state = rules.deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    for i, column in enumerate(state.columns, start=1):
        assert table.pile(str(i)) == texts(column)
    assert table.moves() == 0
    # Selecting a card highlights exactly the destinations the rules allow for it.
    legal = list(rules.legal_moves(state))
    column_move = next(m for m in legal if m.source.kind.value == "" and m.target and m.target.kind.value == "")
    src, count = str(column_move.source.index), column_move.count or 1
    table.click_card(src, len(state.columns[int(src) - 1]) - count)
    expected = {
        m.target.text() if m.target.kind.value != "r" else "r"
        for m in legal
        if m.sources == column_move.sources and (m.count or 1) == count and m.target is not None
    }
    shown = {t if not t.startswith("r") else "r" for t in table.targets()}
    assert shown == expected
    table.click_pile(str(column_move.target.index))
    table.wait_settled(2)
    state, _ = rules.play(state, column_move)
    assert table.moves() == 1
    for i, column in enumerate(state.columns, start=1):
        assert table.pile(str(i)) == texts(column)
    # Drag a free card to a reserve cell.
    free = next(i for i, c in enumerate(state.columns, start=1) if c)
    table.drag(str(free), len(state.columns[free - 1]) - 1, "r3")
    table.wait_settled(3)
    state, _ = rules.play(state, Move.parse(f"{free}-r3"))
    assert table.pile("r3") == texts(state.cells[2:3]) and table.moves() == 2
    # Undo takes it back.
    table.page.click("#btn-undo")
    table.wait_settled(4)
    assert table.pile("r3") == [] and table.moves() == 1
    assert table.page.inner_text("#undos") == "1"
    assert "Took back" in table.message()


def test_several_free_cards_go_to_the_reserve_in_one_move(table: Table, server: LiveServer) -> None:
    """Seed 000 rule 4: shift-click free cards (a column twice takes its last two), then an empty cell."""
    rules = get_game("cats-tail")
    state = rules.deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    a, b = [i for i, col in enumerate(state.columns, start=1) if len(col) >= 2][:2]
    for col in (a, a, b):
        table.page.click(f'.pile[data-pile="{col}"] .card.top', modifiers=["Shift"])
    assert len(table.page.query_selector_all(".card.selected")) == 3
    assert table.targets() == {f"r{i}" for i in range(1, 9)}
    table.click_pile("r5")
    table.wait_settled(2)
    state, _ = rules.play(state, Move.parse(f"{a},{a},{b}-r"))
    assert table.moves() == 1
    assert [table.pile(f"r{i}") for i in range(1, 4)] == [[TEXT[c]] for c in state.cells[:3]]
    for i, column in enumerate(state.columns, start=1):
        assert table.pile(str(i)) == texts(column)


def test_a_refused_move_is_explained(table: Table, server: LiveServer) -> None:
    rules = get_game("cats-tail")
    state = rules.deal(SEED)
    server.seeds.push(SEED)
    table.deal("cats-tail")
    legal = {m.text() for m in rules.legal_moves(state)}
    a, b = next(
        (a, b)
        for a in range(1, 10)
        for b in range(1, 10)
        if a != b and state.columns[a - 1] and state.columns[b - 1] and f"{a}-{b}/1" not in legal
    )
    table.click_card(str(a))
    table.click_pile(str(b))
    table.page.wait_for_selector("body[data-refusals='1']", state="attached")
    message = table.message()
    assert table.page.get_attribute("#message", "class") == "message refused"
    # The move in the player's words: the card taken and the card it was put on (never the notation).
    label = table.page.evaluate(
        "async ([a, b]) => { const c = await import('/cards.js'); return [a, b].map(c.cardLabel); }",
        [TEXT[state.columns[a - 1][-1]], TEXT[state.columns[b - 1][-1]]],
    )
    assert message.startswith(f"{label[0]} → {label[1]}: "), message
    assert f"{a}-{b}/1" not in message
    reason = table.page.get_attribute("body", "data-last-reason")
    assert reason in ("DOES_NOT_FIT", "WRONG_COLOUR")
    assert "does not fit" in message or "alternating colours" in message
    assert table.moves() == 0 and table.version == 1


def _replay_through_the_page(table: Table, moves: list[str]) -> int:
    """Click ``moves`` until the page finishes the game on its own (every card left goes home); how many."""
    for i, text in enumerate(moves):
        try:
            table.click_move(text)
        except Exception as exc:
            raise AssertionError(f"move {i} {text!r}: {table.message()!r}") from exc
        if table.page.get_attribute("body", "data-finished") == "auto":
            return i + 1
    return len(moves)


def test_win_cats_tail_through_the_page_and_verify_the_certificate(
    table: Table, server: LiveServer, tmp_path: Path
) -> None:
    fixtures = fcs_fixtures("cats-tail")
    assert fixtures, "no Freecell Solver fixture for cats-tail in tests/data/fcs"
    seed, moves = fixtures[0]
    server.seeds.push(seed)
    table.deal("cats-tail")
    clicked = _replay_through_the_page(table, moves)
    page = table.page
    page.wait_for_selector("#result:not([hidden])", timeout=90_000)  # the page plays the rest, move by move
    assert page.inner_text("#result-title") == "You won!"
    assert page.get_attribute("body", "data-status") == "GAME_STATUS_WON"
    # The page finished the game on its own once every card left could go home, before the solution's end.
    assert page.get_attribute("body", "data-finished") == "auto" and clicked < len(moves)
    page.wait_for_selector("#cert-status[data-valid]")
    assert page.get_attribute("#cert-status", "data-valid") == "true", page.inner_text("#cert-status")
    assert "Verified in this browser" in page.inner_text("#cert-status")
    fields = page.inner_text("#cert-fields")
    assert seed.hex() in fields and str(table.moves()) in fields
    page.wait_for_selector("#fair-status[data-ok]")
    assert page.get_attribute("#fair-status", "data-ok") == "true"
    page.wait_for_selector("#deal-status[data-ok]")
    assert page.get_attribute("#deal-status", "data-ok") == "true"
    # The bar's clock and the result read the same time (the clock stopped at the win).
    assert f" in {page.inner_text('#timer')}" in page.inner_text("#result-text")
    # The certificate is kept under the time of the win, not of the moment the panel was shown.
    gid = str(page.get_attribute("body", "data-game"))
    record = page.evaluate("(id) => JSON.parse(localStorage.getItem('patience.games'))[id]", gid)
    with httpx.Client(base_url=server.base_url) as client:
        game = client.get(f"/v1/games/{gid}", headers={"authorization": f"Bearer {record['token']}"}).json()["game"]
    finished = page.evaluate("(at) => Date.parse(at)", game["finishedAt"])
    assert record["finished"] == finished, (record["finished"], game["finishedAt"])
    page.screenshot(path=str(tmp_path / "won.png"))


def test_a_forged_certificate_is_refused_in_the_browser(table: Table, server: LiveServer) -> None:
    """The page's verifier is not a rubber stamp: a flipped signature byte fails."""
    with httpx.Client(base_url=server.base_url) as client:
        keys = client.get("/v1/signing-keys").json()["keys"]
    payload = base64.b64encode(json.dumps({"type": "patience-certificate/v1"}).encode()).decode()
    envelope = {"key_id": keys[0]["keyId"], "payload": payload, "signature": base64.b64encode(bytes(64)).decode()}
    encoded = json.dumps(envelope, separators=(",", ":"), sort_keys=True).encode()
    result = table.page.evaluate(
        """async ([encoded, keys]) => {
            const m = await import('/certificate.js');
            return m.verifyCertificate(Uint8Array.from(atob(encoded), c => c.charCodeAt(0)), keys);
        }""",
        [base64.b64encode(encoded).decode(), keys],
    )
    assert result["valid"] is False and result["reason"] == "BAD_SIGNATURE"


def test_the_shared_vectors_in_the_browser(table: Table) -> None:
    """The page's verifier in Chromium (its own JSON.parse, atob, TextDecoder and WebCrypto, not node's) gives every
    shared vector its reason (docs/certificate-vectors/tampered.json): duplicate members and the other double
    readings of docs/certificates.md included."""
    vectors = ROOT / "docs" / "certificate-vectors"
    cases = json.loads((vectors / "tampered.json").read_text(encoding="utf-8"))
    keys = json.loads((vectors / "signing-keys.json").read_text(encoding="utf-8"))["keys"]
    certificates = [
        c["certificate"] if c["certificate_is_base64"] else base64.b64encode(c["certificate"].encode()).decode()
        for c in cases
    ]
    reasons = table.page.evaluate(
        """async ([certificates, keys]) => {
            const m = await import('/certificate.js');
            const out = [];
            for (const c of certificates) {
                out.push((await m.verifyCertificate(Uint8Array.from(atob(c), (x) => x.charCodeAt(0)), keys)).reason);
            }
            return out;
        }""",
        [certificates, keys],
    )
    names = [c["name"] for c in cases]
    assert dict(zip(names, reasons, strict=True)) == {c["name"]: c["reason"] for c in cases}
    assert any(name.startswith("envelope-duplicate-") for name in names)


def test_a_resigned_deal_is_re_dealt_in_the_browser(table: Table, server: LiveServer) -> None:
    """For every variant the page's own deal-v2 module (clients/web/deal.js) rebuilds the first layout it was shown;
    a changed one fails."""
    page = table.page
    page.on("dialog", lambda dialog: dialog.accept())
    with httpx.Client(base_url=server.base_url) as client:
        variants = [v["id"] for v in client.get("/v1/variants").json()["variants"]]
    for i, variant in enumerate([*variants, "cats-tail"]):
        tamper = i == len(variants)
        server.seeds.push(hashlib.sha256(f"re-deal {variant}".encode()).digest())
        table.deal(variant)
        if tamper:  # as if the server had shown one layout and revealed the seed of another
            page.evaluate(
                """() => {
                    const games = JSON.parse(localStorage.getItem('patience.games'));
                    const saved = games[localStorage.getItem('patience.last')];
                    const cards = saved.firstView.columns[1].cards;
                    [cards[0], cards[1]] = [cards[1], cards[0]];
                    localStorage.setItem('patience.games', JSON.stringify(games));
                }"""
            )
        page.click("#btn-resign")
        page.wait_for_selector("#deal-status[data-ok]")
        assert page.get_attribute("#fair-status", "data-ok") == "true", variant
        expected = "false" if tamper else "true"
        assert page.get_attribute("#deal-status", "data-ok") == expected, (variant, page.inner_text("#deal-status"))
        page.click("#result-new")
        page.wait_for_selector("#new-game[open]")


def test_a_client_seed_deal_is_prepared_first_and_checked_in_the_browser(table: Table, server: LiveServer) -> None:
    """With a client seed the page asks for the server's commitment first, keeps it, and checks the revealed server
    seed against it; a commitment that does not match fails."""
    page = table.page
    page.on("dialog", lambda dialog: dialog.accept())
    for tamper in (False, True):
        server.seeds.push(hashlib.sha256(f"prepared {tamper}".encode()).digest())
        if not page.locator("#new-game").is_visible():
            page.click("#btn-new")
        if not page.locator("#client-seed").is_visible():
            page.click("details.advanced > summary")
        page.fill("#client-seed", "my luck")
        with page.expect_request(lambda r: r.url.endswith("/v1/games:prepare")):
            table.deal("tribunal")
        if tamper:  # as if the server had committed to one seed and revealed another
            page.evaluate(
                """() => {
                    const games = JSON.parse(localStorage.getItem('patience.games'));
                    const saved = games[localStorage.getItem('patience.last')];
                    saved.serverCommitment = btoa(String.fromCharCode(...new Uint8Array(32)));
                    localStorage.setItem('patience.games', JSON.stringify(games));
                }"""
            )
        page.click("#btn-resign")
        page.wait_for_selector("#mix-status[data-ok]")
        assert page.get_attribute("#fair-status", "data-ok") == "true"
        expected = "false" if tamper else "true"
        assert page.get_attribute("#mix-status", "data-ok") == expected, page.inner_text("#mix-status")
        page.click("#result-new")
        page.wait_for_selector("#new-game[open]")
        page.fill("#client-seed", "")


@pytest.mark.parametrize("variant", ["tribunal", "captives", "sultan-52"])
def test_no_hidden_card_in_the_page_or_its_traffic(table: Table, server: LiveServer, variant: str) -> None:
    rules = get_game(variant)
    deck = Counter(TEXT[c] for c in canonical_deck(rules.info.deck_size))
    bodies: list[Any] = []

    def record(response: Any) -> None:
        if "/v1/" in response.url and response.headers.get("content-type", "").startswith("application/json"):
            bodies.append(response.json())

    table.page.on("response", record)
    server.seeds.push(SEED)
    table.deal(variant)
    for _ in range(6):
        table.click_move("d" if rules.info.family == "salic-law" else "s")
    # Replay the same moves in the engine to know, at every version, which cards are hidden.
    states = [rules.deal(SEED)]
    for text in ["d" if rules.info.family == "salic-law" else "s"] * 6:
        states.append(rules.play(states[-1], Move.parse(text))[0])
    table.page.wait_for_timeout(100)
    checked = 0
    for body in bodies:
        game = body.get("game")
        if not game:
            assert all(not CARD.match(k) for k in cards_in(body)) or "variants" in body, body
            continue
        assert game.get("seed", "") == "" and game["status"] == "GAME_STATUS_IN_PROGRESS"
        hidden = Counter(TEXT[c] for c in hidden_cards(rules, states[int(game["version"]) - 1]))
        assert cards_in(body) + hidden == deck
        checked += 1
    assert checked >= 7
    # The page: face-down cards carry no face, and the stock shows only its count.
    html = table.page.content()
    assert 'class="card back" data-card' not in html
    shown = Counter(table.page.eval_on_selector_all(".card[data-card]", "els => els.map(e => e.dataset.card)"))
    hidden = Counter(TEXT[c] for c in hidden_cards(rules, states[-1]))
    assert shown + hidden <= deck


FAMILY_SAMPLES = {
    "king-chain": "royal-retinue",
    "salic-law": "picture-gallery",
    "captives": "captives",
    "sultan": "sultan-36",
}


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_family_is_drawn_as_players_know_it(browser: Any, server: LiveServer, size: str, tmp_path: Path) -> None:
    context = browser.new_context(viewport=DESKTOP if size == "desktop" else PHONE)
    try:
        table = Table(context.new_page(), server.base_url).open()
        page = table.page
        for family, variant in FAMILY_SAMPLES.items():
            server.seeds.push(SEED)
            table.deal(variant)
            state = get_game(variant).deal(SEED)
            if family == "king-chain":
                assert page.locator(".reserve .pile[data-pile^=r]").count() == 8
                assert page.locator(".foundations .pile[data-pile^=f]").count() == 8
                assert page.locator(".columns .pile").count() == len(state.columns)
            elif family == "salic-law":
                assert page.locator(".queens .card").count() == 8
                assert page.locator('.pile[data-pile="stock"] .card.back').count() == 1
                assert page.locator(".columns .pile").count() == 8  # a place for each king's column
            elif family == "captives":
                assert page.locator(".king-row .king-slot").count() == 8
                assert page.locator(".pile.captive .card.back").count() == 7
                assert page.locator('.pile[data-pile="w"]').count() == 1
            else:
                assert page.locator(".square > .pile").count() == 9
                assert page.locator(".sultan-card .card").get_attribute("data-card") == "KH"
                assert page.locator(".side .pile[data-pile^=r]").count() == 6
            # Playable at this size: the engine's first legal move, three times, each by clicks (taps).
            rules = get_game(variant)
            for n in range(1, 4):
                move = next(iter(rules.legal_moves(state)))
                table.click_move(move.text())
                state, _ = rules.play(state, move)
                assert table.moves() == n, (variant, size, move.text(), table.message())
                for i, column in enumerate(state.columns, start=1):
                    assert table.pile(str(i)) == texts(column), (variant, move.text())
            # Nothing spills sideways at either size.
            overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, (variant, size, overflow)
            page.screenshot(path=str(tmp_path / f"{variant}-{size}.png"))
        assert table.errors == []
    finally:
        context.close()
