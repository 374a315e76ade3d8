"""The REST gateway on its own: CPU per call of ``service.rest.app``'s ``/v1/`` path around a fixed answer, against the
bare Starlette handler of bench/rest_bench.py, both driven in-process through ASGI (no network, no uvicorn, no
use case, no Redis): what the REST layer itself adds to a call.

The gateway's invoker answers every ApplyMove with the same ``ApplyMoveResponse`` (a sultan-52 game after a
deal from the stock, as the service answers one), so the figure holds the request's reading, the call
wrapper (request id, metrics), the answer's JSON mapping and the response's headers, and nothing else.

    python bench/rest_gateway.py [--calls 5000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEADERS = [
    (b"host", b"127.0.0.1:8080"),
    (b"user-agent", b"rest-bench"),
    (b"accept", b"application/json"),
    (b"content-type", b"application/json"),
    (b"content-length", b"35"),
    (b"authorization", b"Bearer pgt_" + b"x" * 43),
]
BODY = b'{"expectedVersion":"12","text":"s"}'
PATH = "/v1/games/0123456789abcdef01234567/moves"


def answer() -> Any:
    """An ApplyMove answer shaped like the service's for sultan-52 after one deal from the stock."""
    from patience.v1 import patience_pb2 as pb

    game = pb.Game(game_id="0123456789abcdef01234567", variant="sultan-52", version=13, move_count=12,
                   allow_undo=True, deal_algorithm="patience-deal-v2", commitment=bytes(range(32)),
                   status=pb.GAME_STATUS_IN_PROGRESS)  # fmt: skip
    for stamp in (game.created_at, game.updated_at, game.expires_at):
        stamp.seconds, stamp.nanos = 1_790_000_000, 123_456_000
    view = game.view
    view.variant, view.stock_count, view.redeals_left, view.status = "sultan-52", 86, 2, pb.GAME_STATUS_IN_PROGRESS
    view.cells.extend(["6C", "9S", "9C", "3S", "AS", "8D", "QD", "AD"])
    for top in ("KC", "KC", "KD", "KD", "KH", "KS", "KS", "AH"):
        view.foundations.add(cards=[top])
    view.waste.append("TS")
    view.fixed.append("KH")
    return pb.ApplyMoveResponse(game=game, applied=pb.NotatedMove(text="s"))


def gateway_app() -> Any:
    from service.rest.app import create_app

    reply = answer()

    async def invoke(method: Any, request: Any, credentials: Any) -> Any:
        return reply

    return create_app(invoke, web_dir=None)


def bare_app() -> Any:
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    from service.rest.app import encode_json
    from service.rest.json_mapping import to_dict

    body = encode_json(to_dict(answer()))

    async def move(request: Any) -> Response:
        await request.body()
        return Response(body, media_type="application/json")

    return Starlette(routes=[Route("/v1/games/{game_id}/moves", move, methods=["POST"])])


async def cpu_per_call(app: Any, calls: int) -> float:
    """µs of this process's CPU per call, after 200 calls to warm up."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "server": ("127.0.0.1", 8080),
             "client": ("127.0.0.1", 50000), "scheme": "http", "method": "POST", "root_path": "", "path": PATH,
             "raw_path": PATH.encode(), "query_string": b"", "headers": HEADERS}  # fmt: skip

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def one() -> None:
        sent.clear()
        await app(dict(scope), receive, send)
        assert sent[0]["status"] == 200, sent

    for _ in range(200):
        await one()
    began = time.process_time()
    for _ in range(calls):
        await one()
    return (time.process_time() - began) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3, help="the two apps measured in turn this many times")
    args = parser.parse_args()
    apps = {"gateway": gateway_app(), "bare": bare_app()}
    figures: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(args.rounds):
        for name, app in apps.items():
            figures[name].append(asyncio.run(cpu_per_call(app, args.calls)))
    for name, values in figures.items():
        each = ", ".join(f"{v:.1f}" for v in values)
        print(f"{name}: {statistics.median(values):.1f} µs a call (each round: {each})")


if __name__ == "__main__":
    main()
