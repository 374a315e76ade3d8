"""One write per win, over a real service and a real Redis: the certificate of a winning ApplyMove, AutoPlay or
SubmitSolution is signed before the write that wins and kept by it (a read and a write: two scripts run, no third
to keep the certificate), it names the game's own finish time, and a game that changed between the read and the
write (a hint counted there) gets a certificate of the game as written, kept all the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, refusal, settings_for

from service.security.signing import KeyRing
from service.store import GameRecord, RedisGameStore, scripts
from service.store.redispipe import PipelinedRedis

FIXTURE = sorted((Path(__file__).parents[1] / "data" / "fcs").glob("cats-tail-*.txt"))[0]
SEED = bytes.fromhex(FIXTURE.stem.rpartition("-")[2])
MOVES = FIXTURE.read_text().split()
KEYS = KeyRing.generate()
AUTOPLAYED = 5  # from this many moves before the end of MOVES, AutoPlay wins the game


class HintBeforeTheWin(RedisGameStore):
    """The real store, where another caller's Hint is counted at the one moment no test can aim a call at: after
    the winning move's read, before its write."""

    async def set_state(self, game_id: str, expected_version: int, *args: Any, **kwargs: Any) -> GameRecord:
        if kwargs.get("win") is not None:
            await self.count_hint(game_id, expected_version)
        return await super().set_state(game_id, expected_version, *args, **kwargs)


@pytest.fixture
def served(redis_db: str) -> Iterator[tuple[Client, FixedSeeds, redis.Redis]]:
    seeds = FixedSeeds()
    server = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(KEYS, None)).start()
    client = Client(server.address)
    try:
        yield client, seeds, redis.Redis.from_url(redis_db)
    finally:
        client.close()
        server.stop()


def scripts_run(admin: redis.Redis) -> int:
    """The scripts Redis has run since its statistics were reset: one round trip of the service each."""
    stats = admin.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in ("evalsha", "evalsha_ro", "eval"))


def kept(admin: redis.Redis, game_id: str) -> bytes | None:
    meta = next(k for k in admin.keys(f"*{{{game_id}}}") if b":" not in k.split(b"}")[-1])
    value = admin.hget(meta, "ct")
    return None if value is None else bytes(value)


def near_the_end(client: Client, seeds: FixedSeeds, left: int) -> tuple[str, tuple[tuple[str, str], ...], int]:
    """A Cat's Tail game played to ``left`` moves before its win."""
    seeds.seeds.insert(0, SEED)
    dealt = client.NewGame(pb.NewGameRequest(variant="cats-tail"))
    game_id, auth, version = dealt.game.game_id, bearer(dealt.game_token), dealt.game.version
    for text in MOVES[: len(MOVES) - left]:
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=text)
        version = client.ApplyMove(request, metadata=auth).game.version
    return game_id, auth, version


def reset_counts(admin: redis.Redis) -> None:
    """Every script loaded (a script's first run costs a second round trip: NOSCRIPT, then EVAL), counts at 0."""
    for text in (scripts.FETCH, scripts.SET_STATE, scripts.PLAY_MOVES, scripts.REPLACE, scripts.KEEP_CERTIFICATE):
        admin.script_load(text)
    admin.config_resetstat()


def check_kept(client: Client, admin: redis.Redis, game: pb.Game, auth: Any) -> None:
    """The answer's certificate is the one the game keeps, valid, naming the game's counts and finish time."""
    certificate = game.certificate
    assert certificate.encoded and kept(admin, game.game_id) == certificate.encoded
    assert KEYS.verify(certificate.encoded, replay=True).valid
    assert certificate.finished_at == game.finished_at and certificate.started_at == game.created_at
    assert (certificate.move_count, certificate.hint_count) == (game.move_count, game.hint_count)
    shown = client.GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth).game
    assert shown.certificate.encoded == certificate.encoded and shown.finished_at == game.finished_at


def test_a_winning_move_is_one_read_and_one_write(served: tuple[Client, FixedSeeds, redis.Redis]) -> None:
    client, seeds, admin = served
    game_id, auth, version = near_the_end(client, seeds, 1)
    reset_counts(admin)
    request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=MOVES[-1])
    won = client.ApplyMove(request, metadata=auth)
    assert scripts_run(admin) == 2  # the log read (the certificate needs it), the write that wins and keeps it
    assert won.game.status == pb.GAME_STATUS_WON
    check_kept(client, admin, won.game, auth)


def test_a_winning_autoplay_is_one_read_and_one_write(served: tuple[Client, FixedSeeds, redis.Redis]) -> None:
    client, seeds, admin = served
    game_id, auth, version = near_the_end(client, seeds, AUTOPLAYED)
    reset_counts(admin)
    won = client.AutoPlay(pb.AutoPlayRequest(game_id=game_id, expected_version=version), metadata=auth)
    assert scripts_run(admin) == 2
    assert won.game.status == pb.GAME_STATUS_WON and len(won.applied) == AUTOPLAYED
    check_kept(client, admin, won.game, auth)


def test_a_winning_solution_is_one_read_and_one_write(served: tuple[Client, FixedSeeds, redis.Redis]) -> None:
    client, seeds, admin = served
    game_id, auth, _ = near_the_end(client, seeds, len(MOVES) - 3)
    reset_counts(admin)
    won = client.SubmitSolution(pb.SubmitSolutionRequest(game_id=game_id, moves=MOVES), metadata=auth)
    assert scripts_run(admin) == 2  # the game read with its log, the write that replaces it, wins and keeps
    assert won.game.status == pb.GAME_STATUS_WON and won.certificate.encoded == won.game.certificate.encoded
    check_kept(client, admin, won.game, auth)


def test_a_stale_winning_move_signs_nothing_that_is_kept(redis_db: str) -> None:
    """A winning move on a replica that remembers the game one version back (another replica undid a move since)
    is refused as stale once the log is read, before anything is signed, and nothing is kept."""
    seeds = FixedSeeds()
    one = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(KEYS, None)).start()
    two = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(KEYS, None)).start()
    a, b, admin = Client(one.address), Client(two.address), redis.Redis.from_url(redis_db)
    try:
        game_id, auth, version = near_the_end(a, seeds, 1)
        b.UndoMove(pb.UndoMoveRequest(game_id=game_id, expected_version=version), metadata=auth)
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=MOVES[-1])
        refused = refusal(lambda: a.ApplyMove(request, metadata=auth))
        assert (refused.code, refused.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
        assert kept(admin, game_id) is None
        game = a.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth).game
        assert game.status == pb.GAME_STATUS_IN_PROGRESS and game.version == version + 1
    finally:
        a.close()
        b.close()
        one.stop()
        two.stop()


def test_a_hint_counted_between_the_read_and_the_write_is_in_the_certificate(redis_db: str) -> None:
    """The write keeps no certificate that names one hint fewer than the game has: the certificate is signed again
    from the game as written, and kept."""
    seeds = FixedSeeds()
    store = HintBeforeTheWin(
        aioredis.Redis.from_url(redis_db), idle_seconds=600, pipe=PipelinedRedis.from_url(redis_db)
    )
    server = ServerThread(settings_for(redis_db), seed_source=seeds, crypto=(KEYS, None), store=store).start()
    client, admin = Client(server.address), redis.Redis.from_url(redis_db)
    try:
        game_id, auth, version = near_the_end(client, seeds, 1)
        request = pb.ApplyMoveRequest(game_id=game_id, expected_version=version, text=MOVES[-1])
        won = client.ApplyMove(request, metadata=auth)
        assert won.game.status == pb.GAME_STATUS_WON and won.game.hint_count == 1
        assert won.game.certificate.hint_count == 1
        check_kept(client, admin, won.game, auth)
    finally:
        client.close()
        server.stop()
    assert len(won.game.certificate.moves) == len(MOVES) and won.game.certificate.moves[-1] == won.applied.text
