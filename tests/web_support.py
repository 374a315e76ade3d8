"""Driving the web client in Debian's headless Chromium through Playwright (never `playwright install`).

``Table`` speaks the page's language: deal a game from the dialog, read piles back from the DOM, and play a
move written in docs/rules.md notation *by clicking* its source card and then its destination, exactly as a
player would (the page turns the clicks into the move; the tests only read notation to know where to click).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

_TRANSFER = re.compile(r"^(r?\d|w|c\d|f\d)-(r\d*|f\d*|k|\d)(?:/(\d+))?$")


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium; deploy/setup.sh installs it in CI)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install --group test)"
    return None


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


class Table:
    """One page of the web client."""

    def __init__(self, page: Any, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.errors: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", self._console)

    def _console(self, msg: Any) -> None:
        # A refused move is an HTTP 4xx by design; Chromium logs every 4xx as "Failed to load resource".
        if msg.type == "error" and not msg.text.startswith("Failed to load resource: the server responded"):
            self.errors.append(msg.text)

    def open(self) -> Table:
        self.page.goto(self.base_url + "/")
        self.page.wait_for_selector("body[data-ready=true]")
        return self

    # ------------------------------------------------------------------ state read from the page

    @property
    def version(self) -> int:
        return int(self.page.get_attribute("body", "data-version") or 0)

    def wait_settled(self, version: int, timeout: float = 15_000, *, or_finishing: bool = False) -> None:
        """Wait for the page to have drawn ``version`` (or, ``or_finishing``, to be finishing the game on its own)."""
        # A selector, not a JS predicate: the page's CSP (script-src 'self') forbids evaluating strings.
        selector = f"body[data-settled='{version}']" + (", body[data-finished='auto']" if or_finishing else "")
        self.page.wait_for_selector(selector, state="attached", timeout=timeout)

    def moves(self) -> int:
        return int(self.page.inner_text("#moves"))

    def pile(self, pile: str) -> list[str]:
        """Face-up cards shown in a pile, bottom first ("??" for a face-down one)."""
        return list(
            self.page.eval_on_selector_all(
                f'.pile[data-pile="{pile}"] .card',
                "els => els.map(e => e.dataset.card || '??')",
            )
        )

    def targets(self) -> set[str]:
        return set(self.page.eval_on_selector_all(".pile.target", "els => els.map(e => e.dataset.pile)"))

    def message(self) -> str:
        return str(self.page.inner_text("#message"))

    # ------------------------------------------------------------------ actions

    def deal(self, variant: str) -> None:
        """Deal ``variant`` from the New game dialog and wait until the page shows it with its legal moves."""
        if not self.page.locator("#new-game").is_visible():
            self.page.click("#btn-new")
        self.page.select_option("#variant", variant)
        self.page.click("#deal")
        self.page.wait_for_selector(f"#table[data-variant='{variant}']")
        self.wait_settled(1)

    def click_card(self, pile: str, pos: int | None = None) -> None:
        """Click a card of ``pile`` (its top card unless ``pos``, 0 = bottom)."""
        selector = f'.pile[data-pile="{pile}"] .card[data-pos="{pos}"]' if pos is not None else None
        if selector is None:
            selector = f'.pile[data-pile="{pile}"] .card.top'
        self.page.click(selector)

    def click_pile(self, pile: str) -> None:
        box = self.page.locator(f'.pile[data-pile="{pile}"]').bounding_box()
        assert box is not None, pile
        # Near the bottom of a column: the free card's place, where a player drops a card.
        self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] - 8)

    def click_move(self, text: str) -> None:
        """Play ``text`` with two clicks (or one for the stock) and wait for the page to settle: on the move's version,
        or, when the move lets the page finish the game on its own, on its finishing (which marks the move's version
        settled only for the moment before its next call, a moment a loaded machine's polling can miss)."""
        before = self.version
        unfinished = self.page.get_attribute("body", "data-finished") != "auto"
        if text in ("d", "s", "rd"):
            self.page.click('.pile[data-pile="stock"]')
        else:
            m = _TRANSFER.match(text)
            assert m, f"cannot click {text!r}"
            source, target, count = m.group(1), m.group(2), m.group(3)
            if source.isdigit() and count:
                self.click_card(source, len(self.pile(source)) - int(count))
            else:
                self.click_card(source)
            if target in ("f", "r"):
                # "first that fits": the page highlights where the card may go; click the first of those.
                first = self.page.locator(f'.pile.target[data-pile^="{target}"]').first
                self.click_pile(str(first.get_attribute("data-pile")))
            elif target == "k":
                first = self.page.locator('.pile.target[data-pile^="f"]').first
                self.click_pile(str(first.get_attribute("data-pile")))
            else:
                self.click_pile(target)
        self.wait_settled(before + 1, or_finishing=unfinished)

    def drag(self, source: str, pos: int, target: str) -> None:
        """Drag the card at ``pos`` of ``source`` (and what lies on it) onto pile ``target``."""
        card = self.page.locator(f'.pile[data-pile="{source}"] .card[data-pos="{pos}"]').bounding_box()
        goal = self.page.locator(f'.pile[data-pile="{target}"]').bounding_box()
        assert card and goal
        mouse = self.page.mouse
        mouse.move(card["x"] + card["width"] / 2, card["y"] + 6)
        mouse.down()
        mouse.move(card["x"] + card["width"] / 2 + 10, card["y"] + 20, steps=3)
        mouse.move(goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] - 10, steps=8)
        mouse.up()
