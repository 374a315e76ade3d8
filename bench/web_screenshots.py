"""Screenshots of the web client for docs/screenshots/: every family's table at 1280x800 and phone size.

    .venv/bin/python bench/web_screenshots.py [OUT_DIR] [--png]

Starts a real server (a throwaway redis-server, fresh keys), deals known seeds through the page in Debian's
headless Chromium, plays a few moves by clicking (foundation moves first, then the others, then the stock)
so that the tables look like games in progress, and saves one JPEG per family and size, plus a won Cat's
Tail game with its certificate checked in the browser.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402
import redis_support  # noqa: E402
from http_support import fcs_fixtures, live_server  # noqa: E402
from web_support import DESKTOP, PHONE, Table, launch  # noqa: E402

#: JPEG: a felt gradient and card backs make PNGs five times larger (--png for lossless pictures).
IMAGE: dict[str, Any] = {"type": "jpeg", "quality": 82}
EXT = "jpg"
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
    saved = table.page.evaluate("() => JSON.parse(localStorage.getItem('patience.game'))")
    return saved["id"], saved["token"]


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with (
        redis_support.redis_server() as url,
        tempfile.TemporaryDirectory() as keys,
        live_server(url, Path(keys)) as server,
        sync_playwright() as p,
        httpx.Client(base_url=server.base_url) as api,
    ):
        browser = launch(p)
        desktop = Table(browser.new_context(viewport=DESKTOP).new_page(), server.base_url).open()
        phone = Table(browser.new_context(viewport=PHONE, device_scale_factor=2).new_page(), server.base_url).open()
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
            phone.page.evaluate(
                "([id, token]) => localStorage.setItem('patience.game', JSON.stringify({id, token}))", [gid, token]
            )
            phone.page.reload()
            phone.page.wait_for_selector(f"#table[data-variant='{variant}']")
            phone.page.wait_for_selector("body[data-settled]", state="attached")
            phone.page.screenshot(path=str(out / f"{family}-phone.{EXT}"), **IMAGE)
            print(f"{family}: {variant}, {desktop.moves()} moves", file=sys.stderr)
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
        browser.close()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--png"]
    if "--png" in sys.argv:
        IMAGE, EXT = {"type": "png"}, "png"
    main(Path(args[0]) if args else ROOT / "docs" / "screenshots")
