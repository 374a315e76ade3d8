"""The fault soak's players (bench/soak.py): half over gRPC, half over REST, each dealing ``sultan-52`` games and
playing them with every move guarded by the version it last saw, and counting what it was answered and which
moves were acknowledged (``Tally``), so that the soak can tell afterwards whether an acknowledged move was lost.

Apart from the soak's run (the faults, the final check, the report) because this is what a player does, whatever
breaks around it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

VARIANT = "sultan-52"
MOVE_TIMEOUT = 3.0


@dataclass
class Tally:
    answers: Counter[tuple[str, str]] = field(default_factory=Counter)  # (transport, code) -> count
    moves: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds) of acknowledged moves
    acks: dict[int, list[float]] = field(default_factory=dict)  # player -> when each of its moves was acknowledged
    acked: dict[str, int] = field(default_factory=dict)  # game id -> highest acknowledged version
    lost_seen: int = 0  # acknowledged moves a player later found missing


class Refused(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class GrpcPlayer:
    transport = "grpc"

    def __init__(self, address: str) -> None:
        import grpc
        from patience.v1 import patience_pb2 as pb
        from patience.v1 import patience_pb2_grpc as pb_grpc

        self.grpc, self.pb = grpc, pb
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.PatienceServiceStub(self.channel)

    async def call(self, name: str, request: Any, token: str | None = None) -> Any:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        try:
            return await getattr(self.stub, name)(request, metadata=metadata, timeout=MOVE_TIMEOUT)
        except self.grpc.aio.AioRpcError as exc:
            raise Refused(exc.code().name) from None

    async def new_game(self) -> tuple[str, str, int, Any]:
        r = await self.call("NewGame", self.pb.NewGameRequest(variant=VARIANT))
        return r.game.game_id, r.game_token, r.game.version, r.game.view

    async def get_game(self, game_id: str, token: str) -> tuple[int, Any]:
        r = await self.call("GetGame", self.pb.GetGameRequest(game_id=game_id), token)
        return r.game.version, r.game.view

    async def move(self, game_id: str, token: str, version: int, text: str) -> tuple[int, Any]:
        request = self.pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
        r = await self.call("ApplyMove", request, token)
        return r.game.version, r.game.view

    async def close(self) -> None:
        await self.channel.close()


class RestPlayer:
    transport = "rest"

    def __init__(self, base: str) -> None:
        import httpx

        self.httpx = httpx
        self.client = httpx.AsyncClient(base_url=base, timeout=MOVE_TIMEOUT)

    async def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        try:
            r = await self.client.request(method, path, json=body, headers=headers)
        except self.httpx.HTTPError:
            raise Refused("NO_ANSWER") from None
        if r.status_code != 200:
            try:
                code = str(r.json().get("code", r.status_code))
            except ValueError:
                code = str(r.status_code)
            raise Refused(_HTTP_CODES.get(code, f"HTTP_{r.status_code}"))
        return r.json()

    @staticmethod
    def _view(game: dict[str, Any]) -> dict[str, Any]:
        return game.get("view", {})

    async def new_game(self) -> tuple[str, str, int, Any]:
        r = await self.call("POST", "/v1/games", {"variant": VARIANT})
        return r["game"]["gameId"], r["gameToken"], int(r["game"]["version"]), self._view(r["game"])

    async def get_game(self, game_id: str, token: str) -> tuple[int, Any]:
        r = await self.call("GET", f"/v1/games/{game_id}", token=token)
        return int(r["game"]["version"]), self._view(r["game"])

    async def move(self, game_id: str, token: str, version: int, text: str) -> tuple[int, Any]:
        body = {"expectedVersion": str(version), "text": text}
        r = await self.call("POST", f"/v1/games/{game_id}/moves", body, token)
        return int(r["game"]["version"]), self._view(r["game"])

    async def close(self) -> None:
        await self.client.aclose()


# google.rpc.Status "code" numbers as the REST error body gives them
_HTTP_CODES = {
    "0": "OK", "1": "CANCELLED", "2": "UNKNOWN", "3": "INVALID_ARGUMENT", "4": "DEADLINE_EXCEEDED", "5": "NOT_FOUND",
    "6": "ALREADY_EXISTS", "7": "PERMISSION_DENIED", "8": "RESOURCE_EXHAUSTED", "9": "FAILED_PRECONDITION",
    "10": "ABORTED", "11": "OUT_OF_RANGE", "12": "UNIMPLEMENTED", "13": "INTERNAL", "14": "UNAVAILABLE",
    "15": "DATA_LOSS", "16": "UNAUTHENTICATED",
}  # fmt: skip


def next_move(view: Any) -> str | None:
    """``s`` while the stock has cards, ``rd`` when it is empty and a turn is left, None when the game is done."""
    get = view.get if isinstance(view, dict) else (lambda k, d=None: getattr(view, _snake(k), d))
    stock = int(get("stockCount", 0) or 0)
    if stock > 0:
        return "s"
    return "rd" if int(get("redealsLeft", 0) or 0) > 0 else None


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


async def play(
    player: GrpcPlayer | RestPlayer, tally: Tally, games: dict[str, float], stop: asyncio.Event, began: float
) -> None:
    """Deal and play until told to stop; every answer is tallied; after a failure the game is read back."""
    game_id = token = ""
    version = 0
    view: Any = None
    while not stop.is_set():
        try:
            if not game_id:
                game_id, token, version, view = await player.new_game()
                games[game_id] = time.monotonic() - began
                tally.answers[(player.transport, "OK")] += 1
                continue
            text = next_move(view)
            if text is None:
                game_id = ""
                continue
            started = time.monotonic()
            version, view = await player.move(game_id, token, version, text)
            tally.moves.append((started, time.monotonic() - started))
            tally.acks.setdefault(id(player), []).append(time.monotonic())
            tally.answers[(player.transport, "OK")] += 1
            tally.acked[game_id] = max(tally.acked.get(game_id, 0), version)
        except Refused as refused:
            tally.answers[(player.transport, refused.code)] += 1
            await asyncio.sleep(0.05)
            if game_id:
                await resync(player, tally, game_id, token, stop)
                with contextlib.suppress(Refused):
                    version, view = await player.get_game(game_id, token)


async def resync(player: GrpcPlayer | RestPlayer, tally: Tally, game_id: str, token: str, stop: asyncio.Event) -> None:
    """Read the game back until the service answers; a version below the acknowledged one is a lost move."""
    while not stop.is_set():
        try:
            current, _ = await player.get_game(game_id, token)
        except Refused:
            await asyncio.sleep(0.1)
            continue
        acked = tally.acked.get(game_id, 0)
        if current < acked:
            tally.lost_seen += acked - current
            tally.acked[game_id] = current  # counted once
        return
