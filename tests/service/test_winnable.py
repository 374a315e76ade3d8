"""Winnable deals end to end: the pools in a real Redis (and a Redis Cluster), the filler (in this process and as
``python -m service.solving.filler``), NewGame ``winnable`` over gRPC and REST on a real server, the solution hidden
until the game ends and checkable after it."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import grpc
import httpx
import pytest
import redis_support
from grpc_status import rpc_status
from hypothesis import given
from hypothesis import strategies as st
from patience.v1 import patience_pb2 as pb
from service_harness import ROOT, Client, ServerThread, bearer, refusal, settings_for

from engine import movelog
from engine.catalogue import configurations, get_game
from engine.game import Game
from engine.verify import Outcome, replay
from service.errors import error_info
from service.solving.filler.embedded import filler_environment
from service.solving.filler.work import Filler
from service.solving.winnable import Budget, Entry, all_games, choose_pool, pool_name, prove, selected_games
from service.store import RedisGameStore, open_store

T = TypeVar("T")
#: Configurations the solver wins nearly always within a small budget: the filler tests fill these for real.
FAST = ("sultan-36", "tribunal", "picture-gallery", "royal-retinue-aces", "cats-tail")
SMALL = Budget(max_states=20_000, max_seconds=10.0)


def with_store(url: str, body: Callable[[RedisGameStore], Awaitable[T]], prefix: str = "pat") -> T:
    async def main() -> T:
        store = open_store(url, idle_seconds=600, key_prefix=prefix)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def proven(game: Game, count: int, start: int = 0) -> list[Entry]:
    """``count`` entries of ``game``, proven as the filler proves them, from the seeds ``start``, ``start+1``..."""
    out: list[Entry] = []
    i = start
    while len(out) < count:
        attempt = prove(game, (b"winnable-test-%d" % i).ljust(32, b"."), SMALL)
        i += 1
        if attempt.entry is not None:
            out.append(attempt.entry)
    return out


def push(url: str, pool: str, entries: list[Entry]) -> None:
    async def body(store: RedisGameStore) -> None:
        for entry in entries:
            await store.push_winnable(pool, entry.pack())

    with_store(url, body)


def sizes(url: str, pools: list[str]) -> dict[str, int]:
    return with_store(url, lambda store: store.pool_sizes(pools))


# -- the choice of pool and the entries (no Redis) ---------------------------------------------------------------


def test_pool_names_are_one_per_configuration_and_fit_a_hash_tag() -> None:
    names = [pool_name(game) for game in all_games()]
    assert len(names) == len(set(names)) == len(configurations())
    assert "cats-tail" in names and "cats-tail:sequence_moves=false" in names
    assert not any(c in name for name in names for c in "{} ")


def test_the_emptiest_pool_below_its_target_is_filled_first() -> None:
    assert choose_pool({"a": 3, "b": 1, "c": 2}, 5, {}) == "b"
    assert choose_pool({"a": 3, "b": 5, "c": 4}, 5, {}) == "a"
    assert choose_pool({"a": 5, "b": 6}, 5, {}) is None  # every pool full (one over: two fillers raced)
    # Equally empty: the one tried least since its size last changed, then the first.
    assert choose_pool({"a": 0, "b": 0, "c": 0}, 2, {"a": 3, "b": 1, "c": 1}) == "b"
    assert choose_pool({"a": 0, "b": 0}, 2, {}) == "a"


@given(
    target=st.integers(1, 4),
    start=st.lists(st.integers(0, 5), min_size=1, max_size=14),
    wins=st.lists(st.booleans(), min_size=1, max_size=7).filter(any),
)
def test_every_pool_reaches_its_target_however_often_its_deals_are_won(
    target: int, start: list[int], wins: list[bool]
) -> None:
    """The filler's choice over every configuration, with a solver that wins each pool's deals in a pattern of
    its own (some rarely): every pool reaches the target, and none is starved behind a pool it cannot fill."""
    pools = {f"pool-{i}": size for i, size in enumerate(start)}
    tries: Counter[str] = Counter()
    attempts: Counter[str] = Counter()
    steps = 0
    while (name := choose_pool(pools, target, tries)) is not None:
        steps += 1
        assert steps < 10_000, "the pools are not filling"
        pattern = wins[hash(name) % len(wins) :] + wins[: hash(name) % len(wins)]
        won = pattern[attempts[name] % len(pattern)]
        attempts[name] += 1
        if won:
            pools[name] += 1
            tries[name] = 0
        else:
            tries[name] += 1
    assert all(size >= target for size in pools.values())


def test_the_choice_covers_every_configuration() -> None:
    """From empty pools, the first rounds try every configuration once before any twice."""
    names = [pool_name(game) for game in all_games()]
    pools = dict.fromkeys(names, 0)
    tries: Counter[str] = Counter()
    chosen = []
    for _ in names:
        name = choose_pool(pools, 1, tries)
        assert name is not None
        tries[name] += 1  # a deal the solver did not win: the pool stays empty
        chosen.append(name)
    assert sorted(chosen) == sorted(names)


def test_selected_games_are_checked() -> None:
    assert [pool_name(g) for g in selected_games(["tribunal", "cats-tail:sequence_moves=false"])] == [
        "tribunal",
        "cats-tail:sequence_moves=false",
    ]
    assert len(selected_games([])) == len(configurations())
    with pytest.raises(ValueError, match="no pool nope"):
        selected_games(["nope"])


def test_an_entry_is_a_seed_and_its_line() -> None:
    [entry] = proven(get_game("sultan-36"), 1)
    assert Entry.unpack(entry.pack()) == entry
    for damaged in (b"", entry.seed, entry.seed + b"\xff"):
        with pytest.raises(ValueError):
            Entry.unpack(damaged)


@pytest.mark.parametrize("variant", FAST)
def test_a_proven_line_replays_as_a_win(variant: str) -> None:
    game = get_game(variant)
    for entry in proven(game, 2):
        assert replay(game, game.deal(entry.seed), entry.line).verdict.outcome is Outcome.WON


def test_a_deal_the_budget_does_not_win_makes_no_entry() -> None:
    game = get_game("royal-retinue")
    attempt = prove(game, bytes(32), Budget(max_states=1, max_seconds=10.0))
    assert attempt.entry is None and attempt.outcome.value == "unknown"


# -- the pools in Redis ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cluster", [False, True], ids=["redis", "cluster"])
def test_pools_pop_each_entry_once_in_order(redis_db: str, redis_cluster_db: str, cluster: bool) -> None:
    url = redis_cluster_db if cluster else redis_db
    entries = proven(get_game("sultan-36"), 3)

    async def body(store: RedisGameStore) -> list[bytes | None]:
        for entry in entries:
            await store.push_winnable("sultan-36", entry.pack())
        assert await store.pool_sizes(["sultan-36", "tribunal"]) == {"sultan-36": 3, "tribunal": 0}
        return [await store.pop_winnable("sultan-36") for _ in range(4)]

    popped = with_store(url, body)
    assert popped == [e.pack() for e in entries] + [None]


def test_a_pool_is_one_cluster_slot_and_pools_spread(redis_cluster_db: str) -> None:
    async def body(store: RedisGameStore) -> set[int]:
        return {int(await store.client.cluster_keyslot(store.pool_key(pool_name(g)))) for g in all_games()}

    assert len(with_store(redis_cluster_db, body)) > 1


def test_a_pool_name_cannot_break_out_of_its_hash_tag(redis_db: str) -> None:
    async def body(store: RedisGameStore) -> None:
        for bad in ("", "a}b", "{x", "a b"):
            with pytest.raises(ValueError):
                await store.pop_winnable(bad)

    with_store(redis_db, body)


# -- the filler ---------------------------------------------------------------------------------------------------


def test_the_filler_fills_every_pool_it_is_given_with_lines_that_win(redis_db: str) -> None:
    games = selected_games(list(FAST))

    async def body(store: RedisGameStore) -> list[tuple[str, bytes]]:
        filler = Filler(store, games, target=2, budget=SMALL)
        while await filler.step():
            pass
        assert filler.proven == 2 * len(games)
        found = []
        for game in games:
            while (packed := await store.pop_winnable(pool_name(game))) is not None:
                found.append((pool_name(game), packed))
        return found

    found = with_store(redis_db, body)
    assert Counter(name for name, _ in found) == dict.fromkeys(FAST, 2)
    by_name = {pool_name(g): g for g in games}
    for name, packed in found:
        entry = Entry.unpack(packed)
        game = by_name[name]
        assert replay(game, game.deal(entry.seed), entry.line).verdict.outcome is Outcome.WON
    assert len({Entry.unpack(p).seed for _, p in found}) == len(found)  # fresh seeds, none reused


def test_a_seed_the_solver_fails_on_costs_one_attempt_not_the_filler(redis_db: str) -> None:
    """A deal that makes the engine raise (here a seed of the wrong length, from the filler's seed source, a
    constructor argument) is logged and counted; the filler goes on with the next seed."""
    seeds = iter([b"short", hashlib.sha256(b"next").digest()])

    async def body(store: RedisGameStore) -> tuple[bool, bool, int, dict[str, int]]:
        filler = Filler(store, selected_games(["sultan-36"]), target=1, budget=SMALL, seed_source=seeds.__next__)
        first = await filler.step()
        after_error = filler.tries["sultan-36"]
        second = await filler.step()
        return first, second, after_error, await store.pool_sizes(["sultan-36"])

    first, second, after_error, pools = with_store(redis_db, body)
    assert first and second and after_error == 1
    assert pools == {"sultan-36": 1}


def filler_process(
    redis_url: str, tmp: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_")}
    environ.update(env or {}, PYTHONUNBUFFERED="1")
    args = [sys.executable, "-m", "service.solving.filler", "--redis-url", redis_url, "--log-format", "text", *extra]
    with (tmp / "filler.log").open("wb") as out:
        return subprocess.Popen(args, cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_python_m_service_filler_fills_serves_metrics_and_stops_on_sigterm(redis_db: str, tmp_path: Path) -> None:
    metrics_port = redis_support.free_port()
    proc = filler_process(
        redis_db,
        tmp_path,
        "--winnable-pools", "sultan-36,tribunal",
        "--winnable-pool-target", "3",
        "--metrics-listen", f"127.0.0.1:{metrics_port}",
    )  # fmt: skip
    try:
        pools = ["sultan-36", "tribunal"]
        wait_for(lambda: sizes(redis_db, pools) == {"sultan-36": 3, "tribunal": 3}, 60, "the pools did not fill")
        time.sleep(1.5)  # a look at the full pools: nothing more is added
        assert sizes(redis_db, pools) == {"sultan-36": 3, "tribunal": 3}
        assert sizes(redis_db, ["cats-tail"]) == {"cats-tail": 0}  # not one of its pools
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
        assert 'patience_winnable_pool_size{pool="tribunal"} 3.0' in text
        assert 'patience_winnable_proven_total{pool="sultan-36"} 3.0' in text
        assert "patience_winnable_attempts_total" in text and "patience_winnable_pool_target 3.0" in text
        assert "grpc_server" not in text  # the filler's own metrics, not the service's
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, (tmp_path / "filler.log").read_text()[-2000:]
    log = (tmp_path / "filler.log").read_text()
    assert "seed proven" in log and "filler stopped" in log


def test_the_filler_refuses_bad_settings(tmp_path: Path) -> None:
    proc = filler_process("redis://127.0.0.1:1/0", tmp_path, "--winnable-pools", "nope")
    assert proc.wait(30) == 2
    assert "no pool nope" in (tmp_path / "filler.log").read_text()
    proc = filler_process("", tmp_path, env={})
    assert proc.wait(30) == 2


def test_an_embedded_filler_stops_when_its_service_is_gone(redis_db: str, tmp_path: Path) -> None:
    """The service starts its filler with its own pid; a filler whose parent died (SIGKILL: no chance to stop
    it) stops by itself instead of filling forever."""
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        env = {"PATIENCE_FILLER_PARENT_PID": str(parent.pid)}
        # started by this process, whose pid is not the "parent" named: it sees a parent that is gone at once
        proc = filler_process(redis_db, tmp_path, "--winnable-pools", "sultan-36", env=env)
        assert proc.wait(30) == 0
        assert "is gone" in (tmp_path / "filler.log").read_text()
    finally:
        parent.kill()
        parent.wait()


def test_the_embedded_filler_gets_the_services_settings() -> None:
    settings = settings_for("redis://example:6379/3", winnable_pools=("tribunal",), metrics_listen="0.0.0.0:9100")
    env = filler_environment(settings, {"PATIENCE_METRICS_LISTEN": "0.0.0.0:9100", "PROMETHEUS_MULTIPROC_DIR": "/x"})
    assert env["PATIENCE_REDIS_URL"] == "redis://example:6379/3"
    assert env["PATIENCE_WINNABLE_POOLS"] == "tribunal"
    assert env["PATIENCE_WINNABLE_POOL_TARGET"] == "20"
    assert "PATIENCE_METRICS_LISTEN" not in env and "PROMETHEUS_MULTIPROC_DIR" not in env
    assert env["PATIENCE_FILLER_PARENT_PID"] == str(os.getpid())


# -- NewGame winnable ---------------------------------------------------------------------------------------------


@pytest.fixture
def server(redis_db: str) -> Iterator[ServerThread]:
    from service.security.signing import KeyRing

    srv = ServerThread(
        settings_for(redis_db, winnable_wait=0.3, http_listen="127.0.0.1:0"), crypto=(KeyRing.generate(), None)
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.address)
    yield c
    c.close()


def test_an_empty_pool_answers_unavailable_after_the_wait(client: Client) -> None:
    started = time.monotonic()
    refused = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="tribunal", winnable=True)))
    assert refused.code == grpc.StatusCode.UNAVAILABLE and refused.reason == "WINNABLE_POOL_EMPTY"
    assert refused.metadata == {"pool": "tribunal", "waited_seconds": "0.3"}
    assert time.monotonic() - started >= 0.3  # it waited (how long exactly is not a test's business)
    # winnable=false is an ordinary deal
    assert client.NewGame(pb.NewGameRequest(variant="tribunal", winnable=False)).game.game_id


def test_a_pool_filled_during_the_wait_deals(client: Client, redis_db: str, server: ServerThread) -> None:
    [entry] = proven(get_game("sultan-36"), 1)
    # the server waits 0.3 s for an empty pool: push from this thread meanwhile
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(client.NewGame, pb.NewGameRequest(variant="sultan-36", winnable=True))
        time.sleep(0.1)
        push(redis_db, "sultan-36", [entry])
        reply = future.result(10)
    assert reply.game.commitment == hashlib.sha256(entry.seed).digest()


@pytest.mark.parametrize(
    "extra",
    [
        {"client_seed": b"mine"},
        {"prepared_id": "abc"},
        {"deal_ticket": "t"},
        {"replay_seed": bytes(32)},
        {"deal_number": 7},
    ],
    ids=["client_seed", "prepared_id", "deal_ticket", "replay_seed", "deal_number"],
)
def test_winnable_takes_no_seed_a_client_chooses(client: Client, redis_db: str, extra: dict[str, Any]) -> None:
    push(redis_db, "sultan-36", proven(get_game("sultan-36"), 1))
    refused = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True, **extra)))
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "WINNABLE_NOT_COMBINABLE")
    assert refused.metadata == {"field": next(iter(extra))}
    assert sizes(redis_db, ["sultan-36"]) == {"sultan-36": 1}, "a refused call used up a proven deal"


def test_an_unknown_variant_is_refused_before_the_pool(client: Client) -> None:
    refused = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="nope", winnable=True)))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT


def test_concurrent_new_games_each_pop_a_different_proven_deal(client: Client, redis_db: str) -> None:
    game = get_game("sultan-36")
    entries = proven(game, 8)
    push(redis_db, "sultan-36", entries)
    calls = 14

    def deal(_: int) -> bytes | str:
        try:
            return bytes(client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True)).game.commitment)
        except grpc.RpcError as exc:
            return str(exc.code())  # type: ignore[attr-defined]

    with ThreadPoolExecutor(calls) as pool:
        results = list(pool.map(deal, range(calls)))
    dealt = [r for r in results if isinstance(r, bytes)]
    assert sorted(dealt) == sorted(hashlib.sha256(e.seed).digest() for e in entries)  # each once, none lost
    assert [r for r in results if not isinstance(r, bytes)] == ["StatusCode.UNAVAILABLE"] * (calls - len(entries))


def test_the_solution_is_hidden_until_the_end_and_then_verifies(client: Client, redis_db: str, tmp_path: Path) -> None:
    game = get_game("tribunal")  # hidden cards: the stock
    [entry] = proven(game, 1)
    push(redis_db, "tribunal", [entry])
    reply = client.NewGame(pb.NewGameRequest(variant="tribunal", winnable=True))
    token = bearer(reply.game_token)
    game_id = reply.game.game_id
    line = [m.text() for m in entry.line]
    for message in (
        reply,
        client.GetGame(pb.GetGameRequest(game_id=game_id, include_moves=True), metadata=token),
        client.ApplyMove(pb.ApplyMoveRequest(game_id=game_id, expected_version=1, text=line[0]), metadata=token),
    ):
        raw = message.SerializeToString()
        assert not message.game.solution and not message.game.seed
        assert entry.seed not in raw and movelog.pack_all(entry.line[:8]) not in raw
        assert " ".join(line[:6]).encode() not in raw
    over = client.Resign(pb.ResignRequest(game_id=game_id, expected_version=2), metadata=token).game
    assert over.status == pb.GAME_STATUS_RESIGNED
    assert over.seed == entry.seed and list(over.solution) == line
    # Anyone can check the claim with the engine's verifier, or `patience verify`.
    assert replay(game, game.deal(over.seed), over.solution).verdict.outcome is Outcome.WON
    (tmp_path / "line.txt").write_text("\n".join(over.solution))
    command = ["verify", "tribunal", "--seed", over.seed.hex(), str(tmp_path / "line.txt")]
    verify = subprocess.run(
        [sys.executable, "-m", "engine.cli", *command],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
    again = client.GetGame(pb.GetGameRequest(game_id=game_id), metadata=token).game
    assert list(again.solution) == line


def test_an_ordinary_game_never_carries_a_solution(client: Client) -> None:
    reply = client.NewGame(pb.NewGameRequest(variant="sultan-36"))
    over = client.Resign(
        pb.ResignRequest(game_id=reply.game.game_id, expected_version=1), metadata=bearer(reply.game_token)
    ).game
    assert over.seed and not over.solution


def test_a_winnable_game_won_by_its_line_is_certified(client: Client, redis_db: str) -> None:
    game = get_game("sultan-36")
    [entry] = proven(game, 1)
    push(redis_db, "sultan-36", [entry])
    reply = client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True))
    token = bearer(reply.game_token)
    solved = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=reply.game.game_id, moves=[m.text() for m in entry.line]), metadata=token
    )
    assert solved.verdict.outcome == pb.OUTCOME_WON and solved.certificate.encoded
    assert list(solved.game.solution) == [m.text() for m in entry.line]
    assert reply.game.dealt == solved.game.dealt == "winnable"
    assert solved.certificate.dealt == "winnable"  # signed: the certificate says the deal was dealt as winnable
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=solved.certificate.encoded))
    assert checked.valid and checked.certificate.dealt == "winnable"


def test_winnable_over_rest(server: ServerThread, redis_db: str) -> None:
    game = get_game("picture-gallery", {"deals": 3})
    [entry] = proven(game, 1)
    push(redis_db, "picture-gallery:deals=3", [entry])
    base = f"http://127.0.0.1:{server.server.http_port}"
    with httpx.Client(base_url=base, timeout=10) as http:
        body = {"variant": "picture-gallery", "options": {"deals": "3"}, "winnable": True}
        dealt = http.post("/v1/games", json=body)
        assert dealt.status_code == 200, dealt.text
        game_id, token = dealt.json()["game"]["gameId"], dealt.json()["gameToken"]
        assert dealt.json()["game"]["solution"] == []
        auth = {"authorization": f"Bearer {token}"}
        over = http.post(f"/v1/games/{game_id}/resign", json={"expectedVersion": 1}, headers=auth)
        assert over.status_code == 200, over.text
        assert over.json()["game"]["solution"] == [m.text() for m in entry.line]
        empty = http.post("/v1/games", json=body)
        assert empty.status_code == 503 and empty.headers["retry-after"] == "5"
        assert empty.json()["details"][0]["reason"] == "WINNABLE_POOL_EMPTY"


def test_a_damaged_pool_entry_is_never_dealt(client: Client, redis_db: str) -> None:
    async def body(store: RedisGameStore) -> None:
        await store.push_winnable("sultan-36", b"short")

    with_store(redis_db, body)
    refused = refusal(lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True)))
    assert refused.reason == "WINNABLE_POOL_EMPTY"


# -- a share per address ------------------------------------------------------------------------------------------

FRONT_END_KEY = "front-end-key-for-winnable-0123"


def as_user(address: str) -> tuple[tuple[str, str], ...]:
    """The metadata of a call a trusted front end makes for the end user at ``address`` (service.security.ratelimit)."""
    return (("x-client-address", address), ("x-front-end-key", FRONT_END_KEY))


def test_one_address_takes_its_share_and_cannot_drain_the_pool(redis_db: str) -> None:
    """The finding of issue 23: one address took a whole pool in 0.2 s. Now it takes its share (3 here) however
    many it asks for at once, the rest refused RESOURCE_EXHAUSTED WINNABLE_SHARE_USED with when to ask again; the
    pool keeps the other deals, and another address still gets one. An ordinary deal is not limited by it."""
    settings = settings_for(
        redis_db,
        http_listen="127.0.0.1:0",
        winnable_wait=0.3,
        rate_limits=True,
        limit_new_game="1000/minute",
        limit_winnable="3/minute;10/hour",
        front_end_key=FRONT_END_KEY,
    )
    entries = proven(get_game("sultan-36"), 8)
    push(redis_db, "sultan-36", entries)
    server = ServerThread(settings).start()
    client = Client(server.address)
    attacker, victim = "198.51.100.7", "203.0.113.70"

    def deal(_: int) -> bytes | str:
        try:
            request = pb.NewGameRequest(variant="sultan-36", winnable=True)
            return bytes(client.NewGame(request, metadata=as_user(attacker)).game.commitment)
        except grpc.RpcError as exc:
            info = error_info(rpc_status.from_call(exc))  # type: ignore[arg-type]
            return info.reason if info is not None else str(exc)

    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(deal, range(8)))  # all at once: no call sees another's count late
        taken = [r for r in results if isinstance(r, bytes)]
        assert len(taken) == 3 and sorted(r for r in results if isinstance(r, str)) == ["WINNABLE_SHARE_USED"] * 5
        r = refusal(
            lambda: client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True), metadata=as_user(attacker))
        )
        assert (r.code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "WINNABLE_SHARE_USED")
        assert r.metadata["pool"] == "sultan-36" and r.metadata["limit"] == "3 per 1 minute"
        assert 1 <= int(r.metadata["retry_after_seconds"]) <= 60
        assert sizes(redis_db, ["sultan-36"]) == {"sultan-36": 5}, "a refused call took a deal"
        # Another address gets a proven deal from what is left, and the attacker an ordinary one.
        dealt = client.NewGame(pb.NewGameRequest(variant="sultan-36", winnable=True), metadata=as_user(victim))
        commitments = {hashlib.sha256(e.seed).digest() for e in entries}
        assert dealt.game.dealt == "winnable" and dealt.game.commitment in commitments
        assert dealt.game.commitment not in taken
        plain = client.NewGame(pb.NewGameRequest(variant="sultan-36"), metadata=as_user(attacker))
        assert plain.game.dealt != "winnable"
        # The share is per pool: another configuration's pool is the attacker's to share too.
        push(redis_db, "tribunal", proven(get_game("tribunal"), 1))
        other = client.NewGame(pb.NewGameRequest(variant="tribunal", winnable=True), metadata=as_user(attacker))
        assert other.game.dealt == "winnable"
        # Over REST: 429 with Retry-After.
        base = f"http://127.0.0.1:{server.server.http_port}"
        reply = httpx.post(
            f"{base}/v1/games",
            json={"variant": "sultan-36", "winnable": True},
            headers={"x-client-address": attacker, "x-front-end-key": FRONT_END_KEY},
        )
        assert reply.status_code == 429 and 1 <= int(reply.headers["retry-after"]) <= 60
        assert reply.json()["details"][0]["reason"] == "WINNABLE_SHARE_USED"
    finally:
        client.close()
        server.stop()
