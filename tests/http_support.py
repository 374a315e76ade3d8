"""A real server (gRPC + REST in one asyncio loop, real Redis) running in a background thread for sync tests.

The REST, schemathesis and browser tests drive it over HTTP from the test thread exactly as any client
would; nothing is mocked. ``SeedQueue`` is the test-only seed source the service accepts
(``create_server(settings, seed_source=...)``): a test that must deal a known deal (a Freecell Solver
fixture) puts its seed first in the queue.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.server import create_server
from service.settings.config import Settings

OPERATOR_KEY = "test-operator-key-0123456789"
FCS_DIR = Path(__file__).parent / "data" / "fcs"


class SeedQueue:
    """Seeds for new games: queued ones first (known deals), then random ones."""

    def __init__(self) -> None:
        self._queue: deque[bytes] = deque()
        self._lock = threading.Lock()

    def push(self, seed: bytes) -> None:
        assert len(seed) == 32
        with self._lock:
            self._queue.append(seed)

    def __call__(self) -> bytes:
        with self._lock:
            return self._queue.popleft() if self._queue else secrets.token_bytes(32)


@dataclass
class LiveServer:
    base_url: str
    grpc_port: int
    http_port: int
    seeds: SeedQueue
    server: Any
    loop: asyncio.AbstractEventLoop | None = None  # the server's event loop (a test schedules work on it)

    def occupy_hints(self, gate: Path) -> Any:
        """Give the server's hint pool one job that lasts until ``gate`` exists (so a hint waits, or is refused
        as HINTS_BUSY); returns its concurrent future. The job runs in a pool process, as a hint does, for a
        client of its own (each job another: one address holds one place in the pool, service.solving.hint_queue)."""
        assert self.loop is not None
        self._occupiers = getattr(self, "_occupiers", 0) + 1
        job = self.server.games.hints.run(wait_for_file, str(gate), client=f"occupier-{self._occupiers}")
        return asyncio.run_coroutine_threadsafe(job, self.loop)

    def hints_in_flight(self) -> int:
        return int(self.server.games.hints.in_flight)


def wait_for_file(path: str) -> bool:
    """A hint pool's job that lasts until ``path`` exists."""
    while not Path(path).exists():
        time.sleep(0.01)
    return True


@contextmanager
def live_server(
    redis_url: str, keys_dir: Path | None, *, clock: Callable[[], float] | None = None, **overrides: Any
) -> Iterator[LiveServer]:
    """gRPC on a free port and REST on another, both served by one ``create_server`` in a thread's loop; ``clock``
    is the time of day the server reads (a test moves it: docs/competition.md)."""
    base: dict[str, Any] = {
        "listen": "127.0.0.1:0",
        "http_listen": "127.0.0.1:0",
        "redis_url": redis_url,
        "operator_key": OPERATOR_KEY,
        "keys_dir": keys_dir,
        "generate_keys": True,
        "grace": 0.5,
        "store_prefix": f"t{secrets.token_hex(3)}",
        "rate_limits": False,  # a test calls far faster than a person plays
    }
    settings = Settings(**{**base, **overrides})
    seeds = SeedQueue()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)

        async def start() -> None:
            server, port = await create_server(settings, seed_source=seeds, clock=clock)
            await server.start()
            box["server"], box["port"] = server, port

        try:
            loop.run_until_complete(start())
        except BaseException as exc:  # reported to the test thread
            box["error"] = exc
            ready.set()
            return
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="live-server", daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the server did not start in 30 s")
    if "error" in box:
        raise box["error"]
    server = box["server"]
    try:
        yield LiveServer(f"http://127.0.0.1:{server.http_port}", box["port"], server.http_port, seeds, server, loop)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def fcs_fixtures(variant: str) -> list[tuple[bytes, list[str]]]:
    """Freecell Solver solutions ``tests/data/fcs/<variant>-<seedhex>.txt``: (seed, moves), shortest first."""
    out: list[tuple[bytes, list[str]]] = []
    for path in sorted(FCS_DIR.glob(f"{variant}-*.txt")):
        seed_hex = path.stem[len(variant) + 1 :]
        try:
            seed = bytes.fromhex(seed_hex)
        except ValueError:
            continue
        if len(seed) != 32:
            continue
        moves = path.read_text().split()
        out.append((seed, moves))
    return sorted(out, key=lambda item: len(item[1]))


CARD = re.compile(r"^[A2-9TJQK][CDHS]$")


def cards_in(node: Any) -> Counter[str]:
    """Every card-looking string anywhere in a JSON value (to count what a response shows)."""
    found: Counter[str] = Counter()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if CARD.match(item):
                found[item] += 1
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
