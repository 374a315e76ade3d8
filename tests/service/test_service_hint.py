"""Hint end to end over gRPC and REST: a real server, its real pool of solver processes, a real Redis.

The answer is the engine's hint (engine.solver.hint) under the server's seed; it is counted once per version on
the game and in its certificate; a game that is over, a wrong token and a busy pool are refused with stable
reasons. That a hint does not depend on hidden cards is checked in test_noninterference.py.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from prometheus_client import REGISTRY
from service_harness import Client, FixedSeeds, ServerThread, bearer, refusal, settings_for

from engine.catalogue import get_game
from engine.encoding import encode_state
from engine.moves import Move
from engine.solver import autoplay, solve
from engine.view import player_view
from service.games.convert import view_message
from service.security.signing import KeyRing
from service.solving import hint_worker

KEY_RING = KeyRing.generate()
CODES = ("WINNING_LINE", "WINS_IN_GUESSES", "SAFE_MOVE", "BEST_SCORE", "NO_MOVE")
STATES = 600  # positions per hint: small, so that the tests stay quick
CPU_SECONDS = 60.0  # far above what 600 positions take: the answer is the budget's, on a loaded machine too


def seed_of(name: str) -> bytes:
    return hashlib.sha256(name.encode()).digest()


#: cats-tail: the solver wins this deal in about 100 positions. sultan-36: hidden cards (the stock).
WON_QUICKLY, SULTAN = seed_of("t-11"), seed_of("t-0")


@pytest.fixture(scope="module")
def seeds() -> FixedSeeds:
    return FixedSeeds()


@pytest.fixture(scope="module")
def server(redis_url: str, seeds: FixedSeeds) -> Iterator[ServerThread]:
    settings = settings_for(
        redis_url, http_listen="127.0.0.1:0", store_prefix="hint", hint_states=STATES, hint_cpu_seconds=CPU_SECONDS
    )
    srv = ServerThread(settings, seed_source=seeds, crypto=(KEY_RING, None)).start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def new_game(client: Client, seeds: FixedSeeds, seed: bytes, variant: str) -> tuple[pb.Game, str]:
    seeds.seeds.insert(0, seed)
    reply = client.NewGame(pb.NewGameRequest(variant=variant))
    return reply.game, reply.game_token


def expected(server: ServerThread, variant: str, seed: bytes, moves: list[str], version: int) -> hint_worker.HintAnswer:
    """The engine's hint for the position, under the server's seed for that version and view."""
    game = get_game(variant)
    state = game.deal(seed)
    for text in moves:
        state = game.play(state, Move.parse(text))[0]
    hint_seed = server.server.games.hints.seed(
        version, view_message(player_view(game, state)).SerializeToString(deterministic=True)
    )
    return hint_worker.compute(encode_state(game, state), hint_seed, STATES, CPU_SECONDS)


def test_a_face_up_game_gets_the_first_move_of_a_winning_line(
    server: ServerThread, client: Client, seeds: FixedSeeds
) -> None:
    game, token = new_game(client, seeds, WON_QUICKLY, "cats-tail")
    reply = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    want = expected(server, "cats-tail", WON_QUICKLY, [], 1)
    assert (reply.move.text, reply.reason, reply.reason_code) == (want.move, want.reason, want.code)
    assert reply.reason_code == "WINNING_LINE" and reply.wins == reply.tried == 1
    assert reply.moves_to_end == want.moves_to_end > 0 and f"{reply.moves_to_end} moves" in reply.reason
    assert (reply.version, reply.hint_count) == (1, 1)
    # The line is a real one: its first move is legal, and the solver wins from there.
    moved = client.ApplyMove(
        pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text=reply.move.text), metadata=bearer(token)
    )
    engine_game = get_game("cats-tail")
    after = engine_game.play(engine_game.deal(WON_QUICKLY), Move.parse(reply.move.text))[0]
    assert solve(engine_game, after, max_states=STATES).outcome.value == "won"
    assert moved.game.hint_count == 1


def test_hints_are_counted_once_per_version_on_the_game(
    server: ServerThread, client: Client, seeds: FixedSeeds
) -> None:
    game, token = new_game(client, seeds, SULTAN, "sultan-36")
    first = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    again = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    assert first == again and first.hint_count == 1  # the same hint, counted once
    want = expected(server, "sultan-36", SULTAN, [], 1)
    assert (first.move.text, first.reason_code, first.wins, first.tried) == (
        want.move,
        want.code,
        want.wins,
        want.tried,
    )
    # Six guesses (engine.solver.guesses): the two solved, or, when neither won and no card goes home safely, all six
    # looked along.
    assert first.reason_code in ("WINS_IN_GUESSES", "SAFE_MOVE", "BEST_SCORE")
    assert first.tried == (6 if first.reason_code == "BEST_SCORE" else 2)
    seen = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token))
    assert seen.game.hint_count == 1 and seen.game.version == 1  # a hint changes nothing else in the game
    client.ApplyMove(pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token))
    second = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    assert (second.version, second.hint_count) == (2, 2)
    assert client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token)).game.hint_count == 2


def test_the_certificate_counts_the_hints(client: Client, seeds: FixedSeeds) -> None:
    engine_game = get_game("sultan-36")
    start = engine_game.deal(SULTAN)
    line = solve(engine_game, start, max_states=20_000)
    states = [start]
    for move in line.moves:
        states.append(engine_game.play(states[-1], move)[0])
    finishes = [autoplay(engine_game, s) for s in states]
    k = next(i for i, (end, safe) in enumerate(finishes) if safe and engine_game.is_won(end))
    game, token = new_game(client, seeds, SULTAN, "sultan-36")
    client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    for version, move in enumerate(line.moves[:k], start=1):
        client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=move.text()),
            metadata=bearer(token),
        )
        if version == 10:
            client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    won = client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=k + 1), metadata=bearer(token))
    assert won.game.status == pb.GAME_STATUS_WON and won.game.hint_count == 2
    certificate = won.game.certificate
    assert certificate.hint_count == 2
    payload = json.loads(base64.b64decode(json.loads(certificate.encoded)["payload"]))
    assert payload["hints"] == 2
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=certificate.encoded, replay=True))
    assert checked.valid and checked.certificate.hint_count == 2
    # Over: no more hints.
    r = refusal(lambda: client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token)))
    assert (r.code, r.reason, r.metadata["status"]) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER", "won")


def test_refusals(client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, SULTAN, "sultan-36")
    r = refusal(lambda: client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer("not-the-token")))
    assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_TOKEN")
    r = refusal(lambda: client.Hint(pb.HintRequest(game_id=game.game_id)))
    assert (r.code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
    r = refusal(lambda: client.Hint(pb.HintRequest(game_id="no-such-game"), metadata=bearer(token)))
    assert (r.code, r.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    r = refusal(lambda: client.Hint(pb.HintRequest(), metadata=bearer(token)))
    assert (r.code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MISSING_GAME_ID")
    assert client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=bearer(token)).game.hint_count == 0
    client.Resign(pb.ResignRequest(game_id=game.game_id), metadata=bearer(token))
    r = refusal(lambda: client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token)))
    assert (r.code, r.reason, r.metadata["status"]) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER", "resigned")


def test_hint_over_rest(server: ServerThread, client: Client, seeds: FixedSeeds) -> None:
    game, token = new_game(client, seeds, WON_QUICKLY, "cats-tail")
    grpc_reply = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    base = f"http://127.0.0.1:{server.server.http_port}"
    with httpx.Client(base_url=base, timeout=60) as http:
        reply = http.get(f"/v1/games/{game.game_id}/hint", headers={"authorization": f"Bearer {token}"})
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["move"]["text"] == grpc_reply.move.text and body["reasonCode"] == "WINNING_LINE"
        assert body["hintCount"] == 1 and body["version"] == "1" and body["movesToEnd"] == grpc_reply.moves_to_end
        wrong = http.get(f"/v1/games/{game.game_id}/hint", headers={"authorization": "Bearer x"})
        assert wrong.status_code == 403 and wrong.json()["details"][0]["reason"] == "WRONG_TOKEN"


# ------------------------------------------------------------------------------------------ a busy pool


def sample(name: str, **labels: str) -> float:
    """A metric of this process (the servers of this module run in it)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_the_hint_metrics_count_each_computed_hint(server: ServerThread, client: Client, seeds: FixedSeeds) -> None:
    """Per variant, the solver's CPU (a histogram) and, per reason_code, the hints computed; a hint answered from
    memory (asked again at the same version) costs no solver run and is not counted again."""
    before = {
        "count": sample("patience_hint_solver_cpu_seconds_count", variant="sultan-36"),
        "sum": sample("patience_hint_solver_cpu_seconds_sum", variant="sultan-36"),
        "codes": {c: sample("patience_hints_total", reason_code=c) for c in CODES},
    }
    game, token = new_game(client, seeds, SULTAN, "sultan-36")
    reply = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
    client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))  # from memory
    assert sample("patience_hint_solver_cpu_seconds_count", variant="sultan-36") == before["count"] + 1
    assert sample("patience_hint_solver_cpu_seconds_sum", variant="sultan-36") > before["sum"]
    for code in CODES:
        want = before["codes"][code] + (1 if code == reply.reason_code else 0)
        assert sample("patience_hints_total", reason_code=code) == want
    assert (sample("patience_hints_running"), sample("patience_hints_queued")) == (0, 0)


def wait_for(path: str) -> bool:
    """Work for a pool process that lasts until ``path`` exists (so that the pool is busy while a test asks)."""
    while not Path(path).exists():
        time.sleep(0.01)
    return True


def test_a_saturated_pool_refuses_at_once_with_a_stable_reason(
    redis_url: str, seeds: FixedSeeds, tmp_path: Path
) -> None:
    settings = settings_for(
        redis_url, store_prefix="hintbusy", hint_processes=1, hint_queue=0, hint_states=STATES, hint_cpu_seconds=60.0
    )
    server = ServerThread(settings, seed_source=seeds).start()
    client = Client(server.address)
    gate = tmp_path / "open"
    try:
        game, token = new_game(client, seeds, SULTAN, "sultan-36")
        pool = server.server.games.hints
        first = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
        busy_before = sample("patience_hints_busy_total")
        # The one process is taken by work that waits for the gate: the pool admits nothing more.
        running = asyncio.run_coroutine_threadsafe(pool.run(wait_for, str(gate)), server.loop)
        while pool.in_flight == 0:
            time.sleep(0.01)
        assert (sample("patience_hints_running"), sample("patience_hints_queued")) == (1, 0)
        # Asked again at the same version: the hint this server gave, without the pool.
        assert client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token)) == first
        client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=1, text="s"), metadata=bearer(token)
        )
        with pytest.raises(grpc.RpcError) as caught:
            client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
        status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
        assert status is not None
        retry = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
        assert len(retry) == 1
        r = refusal(lambda: client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token)))
        assert (r.reason, r.metadata["limit"]) == ("HINTS_BUSY", "1")
        assert sample("patience_hints_busy_total") == busy_before + 2  # both refusals counted
        # Refused hints are not counted; once the work is done, the pool serves the hint.
        gate.touch()
        assert running.result(60) is True
        while pool.in_flight:
            time.sleep(0.01)
        assert sample("patience_hints_running") == 0
        reply = client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token))
        assert (reply.version, reply.hint_count) == (2, 2)
    finally:
        gate.touch()
        client.close()
        server.stop()


def test_the_pool_runs_off_the_event_loop(redis_url: str, seeds: FixedSeeds, tmp_path: Path) -> None:
    """While the pool's process is busy, every other call of the server is served."""
    settings = settings_for(redis_url, store_prefix="hintloop", hint_processes=1, hint_queue=1)
    server = ServerThread(settings, seed_source=seeds).start()
    client = Client(server.address)
    gate = tmp_path / "open"
    try:
        game, token = new_game(client, seeds, SULTAN, "sultan-36")
        running = asyncio.run_coroutine_threadsafe(server.server.games.hints.run(wait_for, str(gate)), server.loop)
        waiting: list[pb.HintResponse] = []
        asker = threading.Thread(
            target=lambda: waiting.append(client.Hint(pb.HintRequest(game_id=game.game_id), metadata=bearer(token)))
        )
        asker.start()  # queued behind the busy process (the queue admits one)
        while server.server.games.hints.in_flight < 2:
            time.sleep(0.01)
        for version in (1, 2):  # the event loop still serves the game meanwhile
            client.ApplyMove(
                pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text="s"), metadata=bearer(token)
            )
        assert not waiting
        gate.touch()
        assert running.result(60) is True
        asker.join(120)
        assert waiting and waiting[0].version == 1 and waiting[0].hint_count == 1
    finally:
        gate.touch()
        client.close()
        server.stop()
