"""The REST load of bench/rest_bench.py and bench/library_bench.py: keep-alive HTTP/1.1 clients playing
``sultan-52`` over ``POST /v1/games/{id}/moves`` (a light client on asyncio streams, or httpx), each slice in a
process of its own with the servers' CPU clocks read once its clients are connected; and the same for gRPC's
loads (bench/service_loads.py). The REST twin of service_loads.py: what a benchmark sends, apart from what it
starts and reports.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import cpu_seconds


class _Connection:
    """One keep-alive HTTP/1.1 connection speaking just what the benchmark needs (a JSON POST, an answer with a
    Content-Length): a client far lighter than httpx, so that on a shared host the load starves the servers
    less and each slice holds more calls."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, base: str) -> _Connection:
        host, _, port = base.removeprefix("http://").partition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        return cls(reader, writer, f"{host}:{port}")

    async def post(self, path: str, data: Any, token: str = "") -> tuple[int, Any]:
        body = json.dumps(data, separators=(",", ":")).encode()
        auth = f"authorization: Bearer {token}\r\n" if token else ""
        head = (
            f"POST {path} HTTP/1.1\r\nhost: {self.host}\r\nuser-agent: rest-bench\r\naccept: application/json\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n{auth}\r\n"
        )
        self.writer.write(head.encode() + body)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
        return int(lines[0].split(" ", 2)[1]), json.loads(await self.reader.readexactly(length))

    def close(self) -> None:
        self.writer.close()


Game = tuple[str, str, int, int, int]  # id, token, version, cards in the stock, redeals left


def _game(answer: Any, token: str) -> Game:
    game, view = answer["game"], answer["game"]["view"]
    return (game["gameId"], token, int(game["version"]), int(view.get("stockCount", 0)),
            int(view.get("redealsLeft", 0)))  # fmt: skip


class _Httpx:
    """The same calls through httpx (``--client httpx``: the client of this benchmark's first figures)."""

    def __init__(self, base: str, concurrency: int) -> None:
        import httpx

        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self.http = httpx.AsyncClient(base_url=base, limits=limits, timeout=30)

    async def post(self, path: str, data: Any, token: str = "") -> tuple[int, Any]:
        r = await self.http.post(path, json=data, headers={"authorization": f"Bearer {token}"} if token else {})
        return r.status_code, r.json()

    def close(self) -> None:
        pass


async def _play(
    base: str, concurrency: int, seconds: float, games: list[Game], started: Callable[[], None], client_kind: str
) -> int:
    """Moves for ``seconds`` once every client is connected (``started`` then starts the clocks); ``games`` holds
    each client's game and is updated."""
    connections: list[Any]
    if client_kind == "httpx":
        shared = _Httpx(base, concurrency)
        connections = [shared] * concurrency
        for g in games:  # connect each before the clock starts
            await shared.post(f"/v1/games/{g[0]}/moves", {"expectedVersion": "0", "text": "s"}, g[1])
    else:
        connections = [await _Connection.open(base) for _ in range(concurrency)]
    started()
    stop = time.monotonic() + seconds
    calls = 0

    async def client(i: int, http: Any) -> None:
        nonlocal calls
        while time.monotonic() < stop:
            game_id, token, version, stock, redeals = games[i]
            if stock == 0 and redeals == 0:
                _, answer = await http.post("/v1/games", {"variant": "sultan-52"})
                games[i] = _game(answer, answer["gameToken"])
                continue
            text = "s" if stock else "rd"
            status, answer = await http.post(
                f"/v1/games/{game_id}/moves", {"expectedVersion": str(version), "text": text}, token
            )
            calls += 1
            if status == 200 and answer["game"].get("gameId") == game_id:
                games[i] = _game(answer, token)

    await asyncio.gather(*(client(i, c) for i, c in enumerate(connections)))
    for c in connections:
        c.close()
    if client_kind == "httpx":
        await shared.http.aclose()
    return calls


def deal(base: str, count: int) -> list[Game]:
    """``count`` fresh sultan-52 games."""
    import httpx

    answers = [httpx.post(base + "/v1/games", json={"variant": "sultan-52"}, timeout=30).json() for _ in range(count)]
    return [_game(a, a["gameToken"]) for a in answers]


def _load(base: str, concurrency: int, seconds: float, state_file: str, pids: list[int], client: str, out: Any) -> None:
    """One slice of REST load, in a process of its own: (calls, CPU seconds of each of ``pids``, wall seconds)."""
    games = [tuple(g) for g in json.loads(Path(state_file).read_text())]
    marks: dict[str, Any] = {}

    def started() -> None:
        marks["cpu"], marks["at"] = [cpu_seconds(p) for p in pids], time.monotonic()

    calls = asyncio.run(_play(base, concurrency, seconds, games, started, client))  # type: ignore[arg-type]
    spent = [cpu_seconds(p) - b for p, b in zip(pids, marks["cpu"], strict=True)]
    Path(state_file).write_text(json.dumps(games))  # the service's games go on where they stopped
    out.put((calls, spent[0], spent[1] if len(spent) > 1 else 0.0, time.monotonic() - marks["at"]))


Slice = tuple[int, float, float, float]


def run_slice(
    base: str, pid: int, concurrency: int, seconds: float, state_file: str, redis_pid: int | None, client: str
) -> Slice:
    """One slice of load on one server: (calls, the server's CPU seconds, Redis's CPU seconds, wall seconds)."""
    queue: mp.Queue[Slice] = mp.Queue()
    pids = [pid] if redis_pid is None else [pid, redis_pid]
    proc = mp.Process(target=_load, args=(base, concurrency, seconds, state_file, pids, client, queue))
    proc.start()
    figures = queue.get(timeout=seconds + 120)
    proc.join(30)
    return figures


def _grpc_load(
    kind: str, address: str, concurrency: int, seconds: float, pids: list[int], extra: Any, out: Any
) -> None:
    """One slice of bench/service_loads.py's gRPC load ``kind`` ("apply_move" or "echo"); the servers' CPU clocks start
    once the load is set up (its games dealt, its channels connected), as in that benchmark."""
    import service_loads

    marks: dict[str, Any] = {}

    def started() -> None:
        marks["cpu"], marks["at"] = [cpu_seconds(p) for p in pids], time.monotonic()

    result = asyncio.run(service_loads.LOADS[kind](address, concurrency, seconds, started, **extra))
    spent = [cpu_seconds(p) - b for p, b in zip(pids, marks["cpu"], strict=True)]
    out.put((len(result["latencies"]), spent[0], spent[1] if len(spent) > 1 else 0.0, time.monotonic() - marks["at"]))


def run_grpc_slice(kind: str, address: str, concurrency: int, seconds: float, pids: list[int], extra: Any) -> Slice:
    queue: mp.Queue[Slice] = mp.Queue()
    proc = mp.Process(target=_grpc_load, args=(kind, address, concurrency, seconds, pids, extra, queue))
    proc.start()
    figures = queue.get(timeout=seconds + 120)
    proc.join(30)
    return figures
