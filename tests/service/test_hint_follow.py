"""A player who follows the hints never meets a position twice (issue 26): through the service, over gRPC and
REST, with two replicas on one Redis (each hint asked of one replica, each move played on the other, so the line
a hint came from must be continued from the store).

Every game, two deals each (one per transport), followed until won, stuck (no move hinted) or ``MAX_MOVES``
moves: a smaller bound than docs/solvability.md's 1,500, so that the test stays within a minute or two on a loaded
2-core machine; before the trail (docs/solver.md, "Hints never lead back"), six of the eight king-chain runs came
back to a position within their first 75 moves.
The positions are the real ones, replayed here with the engine from the deal's seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, settings_for

from engine.catalogue import get_game, variants
from engine.encoding import encode_state
from engine.moves import Move
from service.security.signing import KeyRing

KEY_RING = KeyRing.generate()  # one deal-ticket key for both replicas: the same hint key, the same hints
STATES = 600  # positions per hint: small, so that the test stays quick
MAX_MOVES = 400
VARIANTS = [v.id for v in variants()]


@dataclass
class Replicas:
    seeds: FixedSeeds
    servers: tuple[ServerThread, ServerThread]


@pytest.fixture(scope="module")
def replicas(redis_url: str) -> Iterator[Replicas]:
    seeds = FixedSeeds()
    settings = settings_for(
        redis_url, http_listen="127.0.0.1:0", store_prefix="follow", hint_states=STATES, hint_cpu_seconds=60.0
    )
    one = ServerThread(settings, seed_source=seeds, crypto=(KEY_RING, None)).start()
    two = ServerThread(settings, seed_source=seeds, crypto=(KEY_RING, None)).start()
    yield Replicas(seeds, (one, two))
    one.stop()
    two.stop()


class Grpc:
    def __init__(self, servers: tuple[ServerThread, ServerThread]) -> None:
        self.clients = [Client(s.address) for s in servers]

    def new_game(self, variant: str) -> tuple[str, str]:
        reply = self.clients[0].NewGame(pb.NewGameRequest(variant=variant))
        return reply.game.game_id, reply.game_token

    def hint(self, n: int, game_id: str, token: str) -> tuple[str, str, int]:
        reply = self.clients[n % 2].Hint(pb.HintRequest(game_id=game_id), metadata=bearer(token))
        return reply.move.text if reply.HasField("move") else "", reply.reason_code, reply.version

    def move(self, n: int, game_id: str, token: str, text: str, version: int) -> str:
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
        reply = self.clients[(n + 1) % 2].ApplyMove(request, metadata=bearer(token))
        return pb.GameStatus.Name(reply.game.status)

    def close(self) -> None:
        for c in self.clients:
            c.close()


class Rest:
    def __init__(self, servers: tuple[ServerThread, ServerThread]) -> None:
        self.http = [httpx.Client(base_url=f"http://127.0.0.1:{s.server.http_port}", timeout=120) for s in servers]

    def new_game(self, variant: str) -> tuple[str, str]:
        body = self._ok(self.http[0].post("/v1/games", json={"variant": variant}))
        return body["game"]["gameId"], body["gameToken"]

    def hint(self, n: int, game_id: str, token: str) -> tuple[str, str, int]:
        body = self._ok(self.http[n % 2].get(f"/v1/games/{game_id}/hint", headers=_auth(token)))
        return body.get("move", {}).get("text", ""), body["reasonCode"], int(body["version"])

    def move(self, n: int, game_id: str, token: str, text: str, version: int) -> str:
        body = {"expectedVersion": version, "text": text}
        reply = self.http[(n + 1) % 2].post(f"/v1/games/{game_id}/moves", headers=_auth(token), json=body)
        return str(self._ok(reply)["game"]["status"])

    @staticmethod
    def _ok(reply: httpx.Response) -> Any:
        assert reply.status_code == 200, reply.text
        return reply.json()

    def close(self) -> None:
        for c in self.http:
            c.close()


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_follower_of_the_hints_never_meets_a_position_twice(replicas: Replicas, variant: str, transport: str) -> None:
    seed = hashlib.sha256(f"follow-{variant}-{transport}".encode()).digest()
    replicas.seeds.seeds.insert(0, seed)
    player = Grpc(replicas.servers) if transport == "grpc" else Rest(replicas.servers)
    try:
        game_id, token = player.new_game(variant)
        game = get_game(variant)
        state = game.deal(seed)
        met = {encode_state(game, state)}
        for n in range(MAX_MOVES):
            text, code, version = player.hint(n, game_id, token)
            if not text:
                assert code == "NO_MOVE"
                break
            status = player.move(n, game_id, token, text, version)
            state = game.play(state, Move.parse(text))[0]
            here = encode_state(game, state)
            assert here not in met, f"{variant}: move {n + 1} ({text}, {code}) came back to a position met before"
            met.add(here)
            if game.is_won(state):
                assert status in ("GAME_STATUS_WON", "won")
                break
    finally:
        player.close()
