"""Leaderboards (docs/competition.md) on a real service, real ports and a real Redis: ranked wins of signed-in players,
each with its certificate, checked offline with the published keys; a daily board sealed all day and frozen after
it; a public board; bad names and pages refused with their reasons.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from competition_support import DayClock, board_store_round, guest, play
from http_support import LiveServer, fcs_fixtures, live_server
from patience.boards import rank_key
from patience.leaderboards import check_leaderboard, check_pages
from patience.v1 import patience_pb2 as pb
from service_harness import Client, bearer, refusal

from engine import get_game
from engine.deal import public_deal_seed
from engine.solver.search import solve


@pytest.fixture(scope="module")
def clock() -> DayClock:
    return DayClock()


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory, clock: DayClock) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys"), clock=clock) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[Client]:
    stub = Client(f"127.0.0.1:{server.grpc_port}")
    yield stub
    stub.close()


def keys(client: Client) -> dict[str, bytes]:
    return {k.key_id: bytes(k.public_key) for k in client.GetSigningKeys(pb.GetSigningKeysRequest()).keys}


def board_of(client: Client, name: str, token: str = "", size: int = 0, page: str = "") -> pb.GetLeaderboardResponse:
    request = pb.GetLeaderboardRequest(board=name, page_size=size, page_token=page)
    return client.GetLeaderboard(request, metadata=bearer(token) if token else None)


def every_page(client: Client, name: str, size: int) -> list[pb.GetLeaderboardResponse]:
    pages = [board_of(client, name, size=size)]
    while pages[-1].next_page_token:
        pages.append(board_of(client, name, size=size, page=pages[-1].next_page_token))
    return pages


def test_a_daily_board_is_sealed_all_day_then_frozen_and_every_entry_checks(
    server: LiveServer, client: Client, clock: DayClock
) -> None:
    day = clock.fresh_day()
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)
    name = f"daily-cats-tail-{day}"
    players = {who: guest(client, who) for who in ("Ada", "Бор", "Cyd", "Dee", "Eve")}
    games: dict[str, pb.NewGameResponse] = {
        who: client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True), metadata=bearer(token))
        for who, token in players.items()
    }
    # Ada plays it move by move; Бор takes a move back first (ranked after every win without undo); Cyd submits
    # the whole solution; Dee plays on past midnight; Eve never wins.
    play(client, games["Ada"].game, games["Ada"].game_token, moves)
    bor = games["Бор"]
    once = play(client, bor.game, bor.game_token, moves[:1])
    client.UndoMove(
        pb.UndoMoveRequest(game_id=once.game_id, expected_version=once.version), metadata=bearer(bor.game_token)
    )
    again = client.GetGame(pb.GetGameRequest(game_id=once.game_id), metadata=bearer(bor.game_token)).game
    play(client, again, bor.game_token, moves)
    cyd = games["Cyd"]
    submitted = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=cyd.game.game_id, moves=moves), metadata=bearer(cyd.game_token)
    )
    assert submitted.verdict.outcome == pb.OUTCOME_WON
    dee = play(client, games["Dee"].game, games["Dee"].game_token, moves[:-1])

    # During the day: the ranking, the caller's own entry, and no certificate (each holds the seed).
    sealed = board_of(client, name, players["Бор"])
    assert (sealed.kind, sealed.frozen, sealed.total, sealed.seed) == ("daily", False, 3, b"")
    assert sealed.commitment == hashlib.sha256(seed).digest()
    assert [e.player.display_name for e in sealed.entries] == ["Ada", "Cyd", "Бор"] or [
        e.player.display_name for e in sealed.entries
    ] == ["Cyd", "Ada", "Бор"]
    assert [e.rank for e in sealed.entries] == [1, 2, 3] and sealed.entries[2].undo_count == 1
    assert sealed.own.rank == 3 and sealed.own.player.display_name == "Бор"
    assert not any(e.HasField("certificate") for e in (*sealed.entries, sealed.own))
    assert seed not in sealed.SerializeToString()
    assert check_leaderboard(sealed, keys(client)).reason == "SEALED"
    assert not board_of(client, name, players["Eve"]).HasField("own")
    played = {e.player.display_name: e.played for e in sealed.entries}
    assert played == {"Ada": "moves", "Бор": "moves", "Cyd": "submitted"}

    clock.next_day()  # the day is over: the board is frozen, its seed out, every entry with its certificate
    late = play(client, dee, games["Dee"].game_token, moves[-1:])
    assert late.status == pb.GAME_STATUS_WON and late.board == name  # a win, on no board: it came too late
    frozen = board_of(client, name)
    assert (frozen.frozen, frozen.total, frozen.seed) == (True, 3, seed)
    assert all(e.certificate.board == name and e.certificate.player.id == e.player.id for e in frozen.entries)
    published = keys(client)
    check = check_pages(every_page(client, name, 1), published, replay=True)
    assert check.valid and [e.rank for e in check.entries] == [1, 2, 3], check
    # REST gives the same board, base64 and all.
    rest = httpx.get(f"{server.base_url}/v1/leaderboards/{name}", timeout=30).json()
    assert rest["total"] == 3 and rest["frozen"] and len(rest["entries"]) == 3
    assert [e["player"]["id"] for e in rest["entries"]] == [e.player.id for e in frozen.entries]


def test_a_public_board_keeps_each_players_best_win(server: LiveServer, client: Client) -> None:
    cats = get_game("cats-tail")
    number = 4
    line = [m.text() for m in solve(cats, cats.deal(public_deal_seed(number)), max_states=200_000).moves]
    assert line
    name = f"public-cats-tail-{number}"
    ada, bob = guest(client, "Ada"), guest(client, "Bob")

    def win(token: str | None, *, undo: bool = False) -> pb.Game:
        new = client.NewGame(
            pb.NewGameRequest(variant="cats-tail", deal_number=number), metadata=bearer(token) if token else None
        )
        assert new.game.board == (name if token else "") and not new.game.ranked
        game = new.game
        if undo:
            game = play(client, game, new.game_token, line[:1])
            undone = pb.UndoMoveRequest(game_id=game.game_id, expected_version=game.version)
            game = client.UndoMove(undone, metadata=bearer(new.game_token)).game
        return play(client, game, new.game_token, line)

    win(ada, undo=True)
    first = board_of(client, name)
    assert (first.kind, first.deal_number, first.total, first.frozen) == ("public", number, 1, False)
    assert first.seed == public_deal_seed(number) and first.entries[0].undo_count == 1
    win(ada)  # a better win replaces the worse
    win(ada, undo=True)  # a worse one does not
    win(bob)
    win(None)  # an anonymous win counts on no board
    board = board_of(client, name, ada)
    assert board.total == 2 and [e.undo_count for e in board.entries] == [0, 0]
    assert {e.player.display_name for e in board.entries} == {"Ada", "Bob"} and board.own.player.display_name == "Ada"
    assert check_pages([board], keys(client), replay=True).valid
    certified = [e.certificate for e in board.entries]
    assert all(c.dealt == "public" and c.deal_number == number and c.board == name for c in certified)
    order = [rank_key(e.undo_count, e.move_count, e.certificate.started_at.ToMilliseconds(),
                      e.certificate.finished_at.ToMilliseconds()) for e in board.entries]  # fmt: skip
    assert order == sorted(order)


def test_pages_and_names(server: LiveServer, client: Client) -> None:
    """Bad names, sizes and tokens are refused with their reasons over both transports; a valid name of a board
    nobody is on is an empty board."""
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    for name in ("", "daily-cats-tail", "daily-nope-2026-01-01", "daily-cats-tail-2026-02-30",
                 "public-cats-tail-0", "public-cats-tail-7:sequence_moves=true", "public-cats-tail-4294967296",
                 "public-picture-gallery-7:deals=4", "public-cats-tail-7 ", "x" * 300):  # fmt: skip
        refused = refusal(lambda n=name: board_of(client, n))
        assert (refused.code, refused.reason) == (invalid, "BAD_BOARD"), name
    for size, page, reason in ((51, "", "BAD_PAGE_SIZE"), (-1, "", "BAD_PAGE_SIZE"), (0, "x", "BAD_PAGE_TOKEN"),
                               (0, "-1", "BAD_PAGE_TOKEN"), (0, "999999999", "BAD_PAGE_TOKEN")):  # fmt: skip
        refused = refusal(lambda s=size, p=page: board_of(client, "public-cats-tail-9", size=s, page=p))
        assert (refused.code, refused.reason) == (invalid, reason)
    answer = httpx.get(f"{server.base_url}/v1/leaderboards/daily-nope-2026-01-01", timeout=30)
    assert answer.status_code == 400 and "BAD_BOARD" in answer.text
    empty = board_of(client, "public-picture-gallery-123:deals=3")
    assert (empty.total, len(empty.entries), empty.next_page_token, empty.options["deals"]) == (0, 0, "", "3")
    past = board_of(client, f"daily-tribunal-{dt.date(2020, 1, 1)}")
    assert past.frozen and not past.seed and not past.commitment and past.total == 0


# --------------------------------------------------------------------------- the store: one Redis (and Cluster)


def test_the_board_store_on_one_redis(redis_db: str) -> None:
    board_store_round(redis_db)


def test_what_a_board_entry_costs_redis(redis_db: str) -> None:
    """The capacity model's figure (docs/operations.md, "Capacity"): a board entry is its certificate and a few
    hundred bytes; printed for the docs, bounded so that a change that bloats it fails here."""
    import asyncio
    import time

    import redis

    from service.store import open_store
    from service.store.boards import BoardEntry, Boards

    certificate = (
        Path(__file__).resolve().parents[2] / "docs/certificate-vectors/certificate-ranked.json"
    ).read_bytes()

    async def fill() -> list[str]:
        store = open_store(redis_db, idle_seconds=60, key_prefix="mem")
        boards = Boards(store.client, "mem")
        until = int(time.time() * 1000) + 86_400_000
        for i in range(500):
            pid = "p_" + f"{i:026d}".translate(str.maketrans("0123456789", "abcdefghij"))
            entry = BoardEntry(
                pid, f"Player {i}", "guest", f"g{i:023d}", 290, i % 2, 0, 1000, 2000 + i, "moves", certificate
            )
            await boards.enter("public-cats-tail-1", entry, rank_key(i % 2, 290, 1000, 2000 + i), until)
        await store.close()
        return boards.keys("public-cats-tail-1")

    keys = asyncio.run(fill())
    client = redis.Redis.from_url(redis_db)
    per_entry = sum(client.memory_usage(k, samples=0) or 0 for k in keys) / 500
    print(f"\n[board entry, redis] {per_entry:.0f} B with a certificate of {len(certificate)} B (290 moves)")
    assert len(certificate) < per_entry < len(certificate) + 1200


def test_an_erased_player_leaves_every_board(client: Client) -> None:
    """ErasePlayer takes the player off every board they are on; the others stay, in order."""
    cats = get_game("cats-tail")
    number = 5
    line = [m.text() for m in solve(cats, cats.deal(public_deal_seed(number)), max_states=200_000).moves]
    name = f"public-cats-tail-{number}"
    tokens = {who: guest(client, who) for who in ("Gone", "Stays")}
    for token in tokens.values():
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail", deal_number=number), metadata=bearer(token))
        play(client, new.game, new.game_token, line)
    assert {e.player.display_name for e in board_of(client, name).entries} == {"Gone", "Stays"}
    client.ErasePlayer(pb.ErasePlayerRequest(), metadata=bearer(tokens["Gone"]))
    after = board_of(client, name)
    assert [e.player.display_name for e in after.entries] == ["Stays"] and after.total == 1
    assert after.entries[0].rank == 1 and check_pages([after], keys(client)).valid
