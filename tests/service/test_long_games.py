"""Long games cost no more per call than the cap allows: a game holds at most ``--max-moves`` moves (ApplyMove,
AutoPlay and SubmitSolution refused beyond it), UndoMove checks the version before any work and rebuilds the
position from the latest checkpoint, never from the deal of a long game, and after any walk of moves, undos
and auto-plays the position is the one the engine reaches by replaying the log from the deal.

Real server, real Redis; the deal is fixed (``replay_seed``) so that a pair of moves that undo each other can
make a game as long as a test needs.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from service_harness import Client, ServerThread, bearer, refusal, settings_for

from engine.catalogue import get_game
from engine.game import Game, Status
from engine.solver import autoplay
from engine.state import State
from engine.verify import replay
from engine.view import player_view
from service.games.convert import view_message
from service.security.signing import KeyRing
from service.store.scripts import CHECKPOINT_EVERY

KEY_RING = KeyRing.generate()
VARIANT = "royal-retinue"
SEED = (1).to_bytes(32, "big")
CYCLE = ("3-7/1", "7-3/1")  # at this deal's start each takes the other back
CAP = 300


class CountingDealer:
    """The engine's deal, counted: a deal during an undo means the game was replayed from its start."""

    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, game: Game, seed: bytes) -> State:
        with self.lock:
            self.calls += 1
        return game.deal(seed)


@pytest.fixture(scope="module")
def dealer() -> CountingDealer:
    return CountingDealer()


@pytest.fixture(scope="module")
def server(redis_url: str, dealer: CountingDealer) -> Iterator[ServerThread]:
    settings = settings_for(redis_url, http_listen="127.0.0.1:0", store_prefix="long", max_moves=CAP)
    with_server = ServerThread(settings, crypto=(KEY_RING, None), dealer=dealer)
    with_server.start()
    yield with_server
    with_server.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def new_game(client: Client) -> tuple[pb.Game, Any]:
    reply = client.NewGame(pb.NewGameRequest(variant=VARIANT, replay_seed=SEED))
    return reply.game, bearer(reply.game_token)


def cycle(client: Client, game: pb.Game, auth: Any, n: int) -> pb.Game:
    """``n`` moves of the pair that undo each other (in a game of nothing else: its length says which is next)."""
    for _ in range(n):
        text = CYCLE[game.move_count % 2]
        request = pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=text)
        game = client.ApplyMove(request, metadata=auth).game
    return game


def undo(client: Client, game: pb.Game, auth: Any) -> pb.Game:
    return client.UndoMove(pb.UndoMoveRequest(game_id=game.game_id, expected_version=game.version), metadata=auth).game


# --------------------------------------------------------------------------- the cap


def test_a_game_takes_moves_up_to_the_cap_then_refuses_with_game_too_long(client: Client) -> None:
    game, auth = new_game(client)
    game = cycle(client, game, auth, CAP)
    assert game.move_count == CAP
    over = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=CYCLE[CAP % 2]),
            metadata=auth,
        )
    )
    assert (over.code, over.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "GAME_TOO_LONG")
    assert over.metadata == {"limit": str(CAP), "move_count": str(CAP)}
    # A stale version is said first, as for any other refusal of a move.
    stale = refusal(
        lambda: client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version - 1, text=CYCLE[0]),
            metadata=auth,
        )
    )
    assert stale.code == grpc.StatusCode.ABORTED
    # Taking a move back makes room for one.
    game = undo(client, game, auth)
    assert game.move_count == CAP - 1
    game = cycle(client, game, auth, 1)
    assert game.move_count == CAP


def line_to_auto_play(at_least: int, parity: int) -> tuple[list[str], int]:
    """A line from the deal (random legal moves, seeds tried in turn) to a position where AutoPlay makes at least
    ``at_least`` moves, of a length whose parity is ``parity``; and how many moves AutoPlay makes there."""
    engine_game = get_game(VARIANT)
    for seed in range(1000):
        rng = random.Random(seed)
        state, line = engine_game.deal(SEED), []
        while len(line) < 60 and engine_game.legal_moves(state):
            safe = autoplay(engine_game, state)[1]
            if len(safe) >= at_least and len(line) % 2 == parity:
                return line, len(safe)
            state, explicit = engine_game.play(state, rng.choice(list(engine_game.legal_moves(state))))
            line.append(explicit.text())
    raise AssertionError("no walk reached a position with safe moves")


def to_auto_play(client: Client, room: int, at_least: int) -> tuple[pb.Game, Any, int]:
    """A game ``room`` moves short of the cap at a position where AutoPlay makes at least ``at_least`` moves:
    the pair (an even number of times, so the deal's position stays) then the line there."""
    line, safe = line_to_auto_play(at_least, (CAP - room) % 2)
    game, auth = new_game(client)
    game = cycle(client, game, auth, CAP - room - len(line))
    for text in line:
        game = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=text), metadata=auth
        ).game
    assert game.move_count == CAP - room
    return game, auth, safe


@pytest.mark.parametrize("room", [0, 1])
def test_auto_play_past_the_cap_is_game_too_long_and_changes_nothing(client: Client, room: int) -> None:
    game, auth, safe = to_auto_play(client, room, room + 1)
    assert safe > room
    refused = refusal(
        lambda: client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=game.version), metadata=auth)
    )
    assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "GAME_TOO_LONG")
    after = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth).game
    assert (after.version, after.move_count) == (game.version, game.move_count)


def test_auto_play_that_fits_under_the_cap_plays(client: Client) -> None:
    game, auth, safe = to_auto_play(client, 1, 1)
    if safe > 1:  # the neighbour above: one more move than the room is refused
        pytest.fail("line_to_auto_play gave more safe moves than asked for the room; pick another seed range")
    played = client.AutoPlay(pb.AutoPlayRequest(game_id=game.game_id, expected_version=game.version), metadata=auth)
    assert played.game.move_count == CAP


def test_a_solution_longer_than_the_cap_is_too_many_moves(client: Client) -> None:
    game, auth = new_game(client)
    moves = [CYCLE[i % 2] for i in range(CAP + 2)]
    refused = refusal(
        lambda: client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game.game_id, moves=moves), metadata=auth)
    )
    assert (refused.code, refused.reason, refused.metadata["limit"]) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MOVES", str(CAP),
    )  # fmt: skip
    # The game is untouched: a refused submission is no submission.
    assert client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth).game.status == (
        pb.GAME_STATUS_IN_PROGRESS
    )


def test_rest_says_413_with_game_too_long(client: Client, server: ServerThread) -> None:
    game, auth = new_game(client)
    game = cycle(client, game, auth, CAP)
    port = server.server.http_port
    reply = httpx.post(
        f"http://127.0.0.1:{port}/v1/games/{game.game_id}/moves",
        headers={"authorization": auth[0][1]},
        json={"expectedVersion": game.version, "text": CYCLE[0]},
        timeout=30,
    )
    assert reply.status_code == 413
    assert reply.json()["details"][0]["reason"] == "GAME_TOO_LONG"


# --------------------------------------------------------------------------- undo without the whole game


def test_undo_of_a_long_game_starts_from_a_checkpoint_not_the_deal(client: Client, dealer: CountingDealer) -> None:
    game, auth = new_game(client)
    length = 2 * CHECKPOINT_EVERY + 20
    game = cycle(client, game, auth, length)
    before = dealer.calls
    from_the_deal = 0
    while game.move_count > 0:
        if game.move_count <= CHECKPOINT_EVERY:  # no checkpoint before the last move yet: replayed from the deal
            from_the_deal += 1
        game = undo(client, game, auth)
    assert dealer.calls - before == from_the_deal == CHECKPOINT_EVERY
    assert game.move_count == 0 and game.undo_count == length


def test_stale_undos_are_refused_before_any_replay(client: Client, dealer: CountingDealer) -> None:
    game, auth = new_game(client)
    game = cycle(client, game, auth, 40)  # no checkpoint: an undo here replays from the deal
    before = dealer.calls
    results: list[grpc.StatusCode] = []

    def stale() -> None:
        results.append(
            refusal(
                lambda: client.UndoMove(
                    pb.UndoMoveRequest(game_id=game.game_id, expected_version=game.version - 1), metadata=auth
                )
            ).code
        )

    threads = [threading.Thread(target=stale) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [grpc.StatusCode.ABORTED] * 16
    assert dealer.calls == before


# --------------------------------------------------------------------------- any walk


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32))
def test_after_any_walk_the_position_is_the_replay_of_the_log(client: Client, walk: int) -> None:
    """Moves (mostly the pair, to grow the game past several checkpoints), random legal moves, undos, and
    AutoPlay: after each, the player's view is the engine's view of the log replayed from the deal."""
    rng = random.Random(walk)
    engine_game = get_game(VARIANT)
    start = engine_game.deal(SEED)
    game, auth = new_game(client)
    log: list[str] = []
    state = start
    # Growing past a checkpoint first (few undos), then mostly taking back, across it.
    for step in range(CHECKPOINT_EVERY * 5):
        roll = rng.random()
        stuck = engine_game.status(state) is Status.STUCK  # no legal move: the way on is back
        if (stuck or roll < (0.1 if step < CHECKPOINT_EVERY * 3 else 0.6)) and log:
            game = undo(client, game, auth)
            log.pop()
        elif roll < 0.3:
            _, moves = autoplay(engine_game, state)
            if len(log) + len(moves) > CAP:
                continue
            game = client.AutoPlay(
                pb.AutoPlayRequest(game_id=game.game_id, expected_version=game.version), metadata=auth
            ).game
            log.extend(m.text() for m in moves)
        else:
            legal = [m.text() for m in engine_game.legal_moves(state)]
            if not legal or len(log) >= CAP:
                continue
            pair = [text for text in CYCLE if text in legal]
            move = pair[0] if pair and roll < 0.85 else rng.choice(legal)
            reply = client.ApplyMove(
                pb.ApplyMoveRequest(game_id=game.game_id, expected_version=game.version, text=move), metadata=auth
            )
            game = reply.game
            log.append(reply.applied.text)
        state = replay(engine_game, start, log).state
        assert game.move_count == len(log)
        assert game.view == view_message(player_view(engine_game, state))
        if engine_game.status(state) is Status.WON:
            break
    stored = client.GetGame(pb.GetGameRequest(game_id=game.game_id, include_moves=True), metadata=auth).game
    assert list(stored.moves) == log
