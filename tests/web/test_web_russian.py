"""Russian all the way, in a real headless Chromium against a live server (real Redis): every refusal of the
server is read from its reason code in the player's language (the server's English words never follow on a
Russian page), a refused move is written as the cards it took (not as notation), numbers meet words in the form
the number takes ("223 хода", "21 карта", "1 move"), and the certificate's fields all have names in both
languages.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from http_support import LiveServer
from web_support import DESKTOP, Table

from engine.cards import TEXT
from engine.catalogue import get_game
from service.errors import REASONS

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
SEED = hashlib.sha256(b"web0").digest()  # a cats-tail deal (tests/web/test_web_e2e.py)


def _page(browser: Any, server: LiveServer, lang: str) -> Table:
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="reduce", locale="ru-RU" if lang == "ru" else "en-GB")
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    table = Table(page, server.base_url)
    page.goto(f"{server.base_url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    return table


def _close(table: Table) -> None:
    errors = list(table.errors)
    table.page.context.close()
    assert errors == [], errors


def test_every_reason_code_reads_in_russian_without_the_servers_english(browser: Any, server: LiveServer) -> None:
    table = _page(browser, server, "ru")
    try:
        out = table.page.evaluate(
            """async (codes) => {
                const m = await import('/messages.js');
                return codes.map((code) => [code, m.reasonText(code),
                                            m.explain({ reason: code, message: 'TD does not go on 4C' })]);
            }""",
            sorted(REASONS),
        )
        for code, text, shown in out:
            assert text and re.search("[\u0400-\u04ff]", text), code  # a Russian text for every code
            assert shown == text, (code, shown)  # and nothing after it: no English in parentheses
    finally:
        _close(table)
    english = _page(browser, server, "en")
    try:
        shown = english.page.evaluate(
            "async (e) => (await import('/messages.js')).explain(e)",
            {"reason": "DOES_NOT_FIT", "message": "TD does not go on 4C"},
        )
        assert shown == "That card does not fit there. (10♦ does not go on 4♣)"
    finally:
        _close(english)


def test_a_refused_move_in_russian_names_its_cards_in_russian(browser: Any, server: LiveServer) -> None:
    rules = get_game("cats-tail")
    state = rules.deal(SEED)
    table = _page(browser, server, "ru")
    try:
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
        labels = table.page.evaluate(
            "async (cards) => { const c = await import('/cards.js'); return cards.map(c.cardLabel); }",
            [TEXT[state.columns[a - 1][-1]], TEXT[state.columns[b - 1][-1]]],
        )
        assert message.startswith(f"{labels[0]} → {labels[1]}: "), message
        words = message.removeprefix(f"{labels[0]} → {labels[1]}: ")
        assert not re.search("[A-Za-z]", words), message  # not a word of the server's English, no notation
    finally:
        _close(table)


@pytest.mark.parametrize(
    ("lang", "n", "text"),
    [
        ("ru", 1, "1 ход за 0:08."),
        ("ru", 22, "22 хода за 0:08."),
        ("ru", 223, "223 хода за 0:08."),
        ("ru", 111, "111 ходов за 0:08."),
        ("ru", 25, "25 ходов за 0:08."),
        ("en", 1, "1 move in 0:08."),
        ("en", 223, "223 moves in 0:08."),
    ],
)
def test_numbers_meet_words_in_the_form_the_number_takes(
    browser: Any, server: LiveServer, lang: str, n: int, text: str
) -> None:
    table = _page(browser, server, lang)
    try:
        out = table.page.evaluate(
            "async (n) => (await import('/i18n.js')).t('result.won-text', { moves: n, undos: 0, time: '0:08' })", n
        )
        assert out == text
    finally:
        _close(table)


def test_no_russian_text_puts_a_bare_number_before_a_word() -> None:
    """A number followed by a Russian word takes the word's forms ({n#w.card}) or picks among "a|b|c" forms."""
    # The numbers' names ({card}, {name} are words already); "в 3 из 12 догадок": "из" is no counted word.
    bare = re.compile(r"\{(n|count|moves|more|undos|tried|wins|total|played|won|streak)\} (?!из )[\u0400-\u04ff]")
    for line in (WEB / "words-ru.js").read_text().splitlines():
        if "'" in line and "|" not in line:
            assert not bare.search(line), line


def test_every_certificate_field_has_a_name_in_both_languages() -> None:
    spec = (WEB.parents[1] / "docs" / "certificates.md").read_text()
    fields = re.findall(r"^\| `(\w+)`(?:, `(\w+)`)? \|", spec, re.M)
    names = {n for pair in fields for n in pair if n}
    assert {"type", "seed", "final_state_hash", "started_at", "finished_at"} <= names
    for words in ("words-en.js", "words-ru.js"):
        text = (WEB / words).read_text()
        missing = sorted(n for n in names if f"'cert.field.{n}'" not in text)
        assert not missing, (words, missing)
