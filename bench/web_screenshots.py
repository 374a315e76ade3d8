"""Screenshots of the web client for docs/screenshots/: every family's table at 1280x800 and phone size.

    .venv/bin/python bench/web_screenshots.py [OUT_DIR]

Starts a real server (a throwaway redis-server, fresh keys), deals known seeds through the page in Debian's
headless Chromium, plays a few moves by clicking (foundation moves first, then the others, then the stock)
so that the tables look like games in progress, and saves one PNG per family and size; then a hint marked on
the table, public deal #7 on a phone, a won Cat's Tail game with its certificate checked in the browser, a
winnable deal after the end with the server's winning line, that line being watched on a replay (paused, on a
phone), a resigned Captives game with its deal revealed face up, the statistics kept per kind of deal, the
Russian page with its rules, and the tallest Royal Retinue deal on a phone held sideways, a small phone, a tablet
and a desktop, in English and Russian.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402
import redis_support  # noqa: E402
from http_support import fcs_fixtures, live_server  # noqa: E402
from web_support import DESKTOP, PHONE, Table, launch  # noqa: E402

from engine.catalogue import get_game  # noqa: E402
from service.solving.winnable import Budget, pool_name, prove  # noqa: E402
from service.store import open_store  # noqa: E402

IMAGE: dict[str, Any] = {"type": "png"}
EXT = "png"
#: family -> (variant, moves to play before the picture)
SAMPLES = {
    "king-chain": ("cats-tail", 14),
    "salic-law": ("tribunal", 30),
    "captives": ("captives", 40),
    "sultan": ("sultan-52", 40),
}


def _pick(moves: list[dict[str, Any]]) -> str | None:
    """A plausible player's move: home first, then the king row and columns, then the stock."""

    def rank(m: dict[str, Any]) -> int:
        text = m["text"]
        if text in ("d", "s"):
            return 4
        if text == "rd":
            return 9
        target = text.split("-")[1]
        return 0 if target.startswith("f") else 1 if target in ("k",) or target[0].isdigit() else 3

    usable = sorted((m for m in moves if rank(m) < 9), key=rank)
    return usable[0]["text"] if usable else None


def _token(table: Table) -> tuple[str, str]:
    gid = table.page.evaluate("() => localStorage.getItem('patience.last')")
    token = table.page.evaluate("id => JSON.parse(localStorage.getItem('patience.games'))[id].token", gid)
    return gid, token


def _open(table: Table, gid: str, token: str, variant: str) -> None:
    """Give ``table``'s browser the key to a game and open the game's URL."""
    table.page.evaluate(
        """([id, token, variant]) => {
            const games = JSON.parse(localStorage.getItem('patience.games') || '{}');
            games[id] = { token, variant, dealt: Date.now() };
            localStorage.setItem('patience.games', JSON.stringify(games));
        }""",
        [gid, token, variant],
    )
    table.page.goto(f"{table.base_url}/?game={gid}")
    table.page.wait_for_selector(f"#table[data-variant='{variant}']")
    table.page.wait_for_selector("body[data-ready=true]")


async def _push(url: str, prefix: str, pool: str, entry: bytes) -> None:
    """Put a proven deal into a winnable pool, as the filler does."""
    store = open_store(url, idle_seconds=60, key_prefix=prefix)
    try:
        await store.push_winnable(pool, entry)
    finally:
        await store.close()


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    prefix = "screenshots"
    with (
        redis_support.redis_server() as url,
        tempfile.TemporaryDirectory() as keys,
        live_server(url, Path(keys), store_prefix=prefix) as server,
        sync_playwright() as p,
        httpx.Client(base_url=server.base_url) as api,
    ):
        browser = launch(p)
        quiet = {"reduced_motion": "reduce", "locale": "en-GB"}
        desktop = Table(browser.new_context(viewport=DESKTOP, **quiet).new_page(), server.base_url).open()
        phone_context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, **quiet)
        phone = Table(phone_context.new_page(), server.base_url).open()
        for family, (variant, count) in SAMPLES.items():
            server.seeds.push(hashlib.sha256(f"screenshot {variant}".encode()).digest())
            desktop.deal(variant)
            gid, token = _token(desktop)
            for _ in range(count):
                legal = api.get(f"/v1/games/{gid}/legal-moves", headers={"authorization": f"Bearer {token}"}).json()
                text = _pick(legal.get("moves", []))
                if text is None:
                    break
                desktop.click_move(text)
            desktop.page.keyboard.press("Escape")  # nothing selected
            desktop.page.evaluate("() => window.scrollTo(0, 0)")
            desktop.page.screenshot(path=str(out / f"{family}-desktop.{EXT}"), **IMAGE)
            # The same game on a phone.
            _open(phone, gid, token, variant)
            phone.page.screenshot(path=str(out / f"{family}-phone.{EXT}"), **IMAGE)
            print(f"{family}: {variant}, {desktop.moves()} moves", file=sys.stderr)
        # A hint marked on the table, with its reason; then public deal #7 on a phone.
        server.seeds.push(hashlib.sha256(b"screenshot hint").digest())
        desktop.deal("royal-retinue")
        desktop.page.click("#btn-hint")
        desktop.page.wait_for_selector("#message.hint")
        desktop.page.screenshot(path=str(out / f"hint-desktop.{EXT}"), **IMAGE)
        phone.page.goto(f"{server.base_url}/?variant=captives&deal=7")
        phone.page.wait_for_selector("body[data-ready=true]")
        phone.page.screenshot(path=str(out / f"deal-number-phone.{EXT}"), **IMAGE)
        # A win: all but the last move of a known solution through the API, the last one by click.
        fixtures = fcs_fixtures("cats-tail")
        if fixtures:
            seed, moves = fixtures[0]
            server.seeds.push(seed)
            desktop.deal("cats-tail")
            gid, token = _token(desktop)
            for i, text in enumerate(moves[:-1], start=1):
                api.post(
                    f"/v1/games/{gid}/moves",
                    headers={"authorization": f"Bearer {token}"},
                    json={"expectedVersion": i, "text": text},
                ).raise_for_status()
            desktop.page.reload()
            desktop.page.wait_for_selector(f"body[data-settled='{len(moves)}']", state="attached")
            desktop.click_move(moves[-1])
            desktop.page.wait_for_selector("#cert-status[data-valid=true]")
            desktop.page.screenshot(path=str(out / f"won-desktop.{EXT}"), **IMAGE)
        # A winnable deal (the pool filled as the filler would) after the end: its proof and the server's line.
        game = get_game("cats-tail")
        entry = next(
            attempt.entry
            for i in range(20)
            if (attempt := prove(game, hashlib.sha256(b"screenshot winnable %d" % i).digest(), Budget())).entry
        )
        with ThreadPoolExecutor(1) as thread:  # Playwright's sync API keeps an event loop running in this one
            for _ in range(2):  # one to show its proof, one to watch its line
                thread.submit(asyncio.run, _push(url, prefix, pool_name(game), entry.pack())).result()
        desktop.page.on("dialog", lambda dialog: dialog.accept())
        desktop.page.click("#btn-new")
        desktop.page.check("#winnable")
        desktop.page.select_option("#variant", "cats-tail")
        desktop.page.click("#deal")
        desktop.page.wait_for_selector("body[data-dealt='winnable']")
        desktop.page.click("#btn-resign")
        desktop.page.wait_for_selector("#fair-status[data-ok]")
        desktop.page.click("#solution > summary")
        desktop.page.screenshot(path=str(out / f"winnable-desktop.{EXT}"), **IMAGE)
        desktop.page.evaluate("() => localStorage.setItem('patience.winnable', 'false')")
        # The server's line watched on a replay of such a deal, on a phone, with motion: paused after a few moves.
        watcher = Table(
            browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-GB").new_page(),
            server.base_url,
        ).open()
        watcher.page.on("dialog", lambda dialog: dialog.accept())
        watcher.page.check("#winnable")
        watcher.page.select_option("#variant", "cats-tail")
        watcher.page.click("#deal")
        watcher.page.wait_for_selector("body[data-dealt='winnable']")
        watcher.page.click("#btn-resign")
        watcher.page.click("#result-watch")
        watcher.page.wait_for_selector("body[data-watched='12']", state="attached", timeout=60_000)
        watcher.page.click("#watch-play")
        watcher.page.wait_for_selector("body[data-watch-running='false']", state="attached")
        watcher.page.wait_for_timeout(400)  # the last slide ends
        watcher.page.screenshot(path=str(out / f"watch-phone.{EXT}"), **IMAGE)
        # A resigned game: the deal revealed face up, the seed checked against its commitment.
        server.seeds.push(hashlib.sha256(b"screenshot resigned").digest())
        desktop.deal("captives")
        desktop.page.click("#btn-resign")
        desktop.page.wait_for_selector("body[data-revealed=true]", state="attached")
        desktop.page.screenshot(path=str(out / f"resigned-desktop.{EXT}"), **IMAGE)
        # Played again (a replay), resigned: the statistics keep fresh deals, winnable deals and replays apart.
        desktop.page.click("#result-again")
        desktop.page.wait_for_selector("body[data-dealt='replay']")
        desktop.page.click("#btn-resign")
        desktop.page.wait_for_selector("#fair-status[data-ok]")
        desktop.page.click("#result-close")
        desktop.page.click("#menu > summary")
        desktop.page.click("#btn-stats")
        desktop.page.screenshot(path=str(out / f"stats-desktop.{EXT}"), **IMAGE)
        desktop.page.keyboard.press("Escape")
        # The Russian page, and the rules inside it.
        russian = Table(
            browser.new_context(viewport=PHONE, locale="ru-RU", reduced_motion="reduce").new_page(),
            server.base_url,
        ).open()
        server.seeds.push(hashlib.sha256(b"screenshot russian").digest())
        russian.deal("tribunal")
        for _ in range(12):
            russian.click_move("d")
        russian.page.screenshot(path=str(out / f"russian-phone.{EXT}"), **IMAGE)
        russian.page.click("#menu > summary")
        russian.page.click("#btn-rules")
        russian.page.screenshot(path=str(out / f"rules-phone.{EXT}"), **IMAGE)
        # Every kind of screen, in both languages: the tallest Royal Retinue of the first 60 public deals.
        number = _longest_public_deal("royal-retinue")
        for name, (width, height) in SIZES.items():
            for lang in ("en", "ru"):
                touch = {"has_touch": True, "is_mobile": True} if min(width, height) < 500 else {}
                window = {"width": width, "height": height}
                context = browser.new_context(viewport=window, reduced_motion="reduce", **touch)
                page = context.new_page()
                page.goto(f"{server.base_url}/?variant=royal-retinue&deal={number}&lang={lang}")
                page.wait_for_selector("body[data-ready=true]")
                page.screenshot(path=str(out / f"size-{name}-{lang}.{EXT}"), **IMAGE)
                context.close()
        browser.close()


#: The screens of docs/web.md's "Every screen": name -> window.
SIZES = {"phone-landscape": (844, 390), "small-phone": (360, 640), "tablet": (768, 1024), "desktop": (1280, 800)}


def _longest_public_deal(variant: str) -> int:
    """The public deal number (of the first 60) whose deal has the longest column: the tallest table."""
    game = get_game(variant)

    def longest(n: int) -> int:
        return max(len(c) for c in game.deal(hashlib.sha256(f"patience-public-deal|{n}".encode()).digest()).columns)

    return max(range(1, 61), key=longest)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
