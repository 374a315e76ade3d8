"""Time from page load to a playable table, in Debian's headless Chromium against a live server.

    .venv/bin/python bench/web_load.py [--loads 15] [--json OUT] [--sizes 844x390,360x640] [--games royal-retinue]

"Playable" is the page's own mark ``patience-ready``: the variants read, the game dealt or reopened, the table
drawn and fitted, its legal moves fetched (app.js sets it once all of that is done). Two ways in, at 1280x800
and at 390x844 (touch): reopening a saved game by its URL (``/?game=ID``, the usual visit) and dealing a new one
from a link (``/?variant=ID``); each cold and warm. Cold: every load in a new browser context (an empty HTTP
cache and no model of the table's fit kept, as on a first visit; only the game's key is given). Warm: loads in
one context after a first one, as a returning player's. Each load is a fresh page. Reported per case, as medians
over the loads: the wall-clock time to the mark, and the main thread's CPU time by then (Chrome's TaskDuration,
with its script, style and layout parts), which a busy machine disturbs much less than the wall clock.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402
import redis_support  # noqa: E402
from http_support import live_server  # noqa: E402
from web_support import launch  # noqa: E402

#: the longest king-chain deal of the first seeds, a mid-sized Salic Law one, and a Sultan
GAMES = ("royal-retinue", "tribunal", "sultan-52")
METRICS = ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration")


def _load(context: Any, url: str) -> dict[str, float]:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=60_000)
    ready = page.evaluate("performance.getEntriesByName('patience-ready')[0].startTime")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    page.close()
    return {"ready_ms": ready, **{name: metrics.get(name, 0.0) * 1000 for name in METRICS}}


def _context(browser: Any, viewport: dict[str, int], touch: dict[str, bool], record: str) -> Any:
    """A browser context that holds the key of the game to reopen (and nothing else of the page's)."""
    context = browser.new_context(viewport=viewport, reduced_motion="reduce", **touch)
    context.add_init_script(f"localStorage.setItem('patience.games', {json.dumps(record)})")
    return context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=15)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sizes", default="1280x800,390x844", help="windows, WxH comma-separated (touch under 500 px)")
    parser.add_argument("--games", default=",".join(GAMES), help="games, comma-separated")
    args = parser.parse_args()
    sizes = [(s, dict(zip(("width", "height"), map(int, s.split("x")), strict=True))) for s in args.sizes.split(",")]
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, Any]] = []
    with (
        redis_support.redis_server() as url,
        tempfile.TemporaryDirectory() as keys,
        live_server(url, Path(keys)) as server,
        sync_playwright() as p,
        httpx.Client(base_url=server.base_url) as api,
    ):
        browser = launch(p)
        for size, viewport in sizes:
            touch = {"has_touch": True, "is_mobile": True} if min(viewport.values()) < 500 else {}
            for variant in args.games.split(","):
                server.seeds.push(hashlib.sha256(f"load {variant}".encode()).digest())
                dealt = api.post("/v1/games", json={"variant": variant}).json()
                gid, token = dealt["game"]["gameId"], dealt["gameToken"]
                record = json.dumps({gid: {"token": token, "variant": variant, "dealt": 0}})

                cases = {"reopen": f"{server.base_url}/?game={gid}", "deal": f"{server.base_url}/?variant={variant}"}
                for how, link in cases.items():
                    cold = []
                    for _ in range(args.loads):
                        fresh = _context(browser, viewport, touch, record)
                        cold.append(_load(fresh, link))
                        fresh.close()
                    warm_context = _context(browser, viewport, touch, record)
                    _load(warm_context, link)  # a first load fills the browser's caches, as a returning player's are
                    warm = [_load(warm_context, link) for _ in range(args.loads)]
                    warm_context.close()
                    for cache, samples in (("cold", cold), ("warm", warm)):
                        row = {"size": size, "variant": variant, "how": how, "cache": cache, "loads": len(samples)}
                        for key in ("ready_ms", *METRICS):
                            row[key] = round(statistics.median(s[key] for s in samples), 1)
                        rows.append(row)
                        print(
                            f"{size:>8} {variant:<14} {how:<6} {cache:<4} ready {row['ready_ms']:7.1f} ms  main "
                            f"thread {row['TaskDuration']:6.1f} ms (script {row['ScriptDuration']:.1f}, style "
                            f"{row['RecalcStyleDuration']:.1f}, layout {row['LayoutDuration']:.1f})",
                            file=sys.stderr,
                        )
        browser.close()
    result = {"rows": rows, "load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
