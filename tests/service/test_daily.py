"""Daily deals (docs/competition.md): one deal per UTC day and option set, the same for everyone, its commitment
published the day before and its seed once the day is over; one ranked game per signed-in player, even with two
replicas racing; the seed secret until the day ends whatever became of a game. A real service on real ports and a
real Redis; the day is moved with the clock the service is given.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
import redis
from competition_support import DayClock, guest, play
from http_support import LiveServer, fcs_fixtures, live_server
from patience.certificates import verify_certificate
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc
from service_harness import Client, assert_no_secret, bearer, refusal

from engine import get_game
from engine.game import format_option
from engine.verify import replay
from engine.view import player_view
from service.games.convert import view_message


@pytest.fixture(scope="module")
def clock() -> DayClock:
    return DayClock()


@pytest.fixture(scope="module")
def keys_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("keys")


@pytest.fixture(scope="module")
def server(redis_url: str, keys_dir: Path, clock: DayClock) -> Iterator[LiveServer]:
    with live_server(redis_url, keys_dir, clock=clock) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[Client]:
    stub = Client(f"127.0.0.1:{server.grpc_port}")
    yield stub
    stub.close()


@pytest.fixture
def day(clock: DayClock) -> dt.date:
    return clock.fresh_day()


def daily(client: Client, variant: str, date: str = "", options: str = "", token: str = "") -> pb.GetDailyDealResponse:
    request = pb.GetDailyDealRequest(variant=variant, date=date, options=options)
    return client.GetDailyDeal(request, metadata=bearer(token) if token else None)


# --------------------------------------------------------------------------- the day's deal


def test_the_commitment_is_out_the_day_before_and_the_seed_once_the_day_is_over(
    server: LiveServer, client: Client, clock: DayClock, day: dt.date
) -> None:
    tomorrow, after = day + dt.timedelta(days=1), day + dt.timedelta(days=2)
    ahead = daily(client, "cats-tail", tomorrow.isoformat())
    assert ahead.board == f"daily-cats-tail-{tomorrow}" and len(ahead.commitment) == 32 and not ahead.seed
    assert ahead.opens_at.ToSeconds() == int(dt.datetime.combine(tomorrow, dt.time(), tzinfo=dt.UTC).timestamp())
    assert ahead.closes_at.ToSeconds() - ahead.opens_at.ToSeconds() == 86400
    # Not two days ahead: nobody computes deals weeks in advance.
    too_early = refusal(lambda: daily(client, "cats-tail", after.isoformat()))
    assert (too_early.code, too_early.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "DAILY_NOT_YET")
    assert too_early.metadata["latest"] == tomorrow.isoformat()

    clock.next_day()  # tomorrow is today: the same deal, still sealed, and it is what NewGame deals
    today = daily(client, "cats-tail")
    assert (today.board, today.commitment, today.seed) == (ahead.board, ahead.commitment, b"")
    game = client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True)).game
    assert (game.dealt, game.commitment, game.board, game.ranked) == ("daily", ahead.commitment, "", False)
    assert not client.GetDailyDeal(pb.GetDailyDealRequest(variant="cats-tail", date=after.isoformat())).seed

    clock.next_day()  # the day is over: its seed is out, and it is the one committed to
    over = daily(client, "cats-tail", tomorrow.isoformat())
    assert hashlib.sha256(over.seed).digest() == ahead.commitment
    rest = httpx.get(f"{server.base_url}/v1/daily/cats-tail", params={"date": tomorrow.isoformat()}, timeout=30)
    assert rest.status_code == 200 and rest.json()["board"] == ahead.board and rest.json()["seed"]
    # Anyone deals it again from the seed: the layout the players were shown.
    cats = get_game("cats-tail")
    assert view_message(player_view(cats, cats.deal(over.seed))).columns == game.view.columns


def test_each_variant_and_option_set_has_a_deal_of_its_own(client: Client, day: dt.date) -> None:
    seen = {}
    for variant, options in (("cats-tail", ""), ("cats-tail", "sequence_moves=false"), ("royal-retinue", ""),
                             ("picture-gallery", "deals=3"), ("sultan-36", "")):  # fmt: skip
        deal = daily(client, variant, options=options)
        assert deal == daily(client, variant, options=options)  # drawn once: every call the same
        seen[deal.board] = deal.commitment
        rules = get_game(variant, dict([options.split("=")]) if options else None)
        assert deal.variant == variant and dict(deal.options) == {k: format_option(v) for k, v in rules.options.items()}
    assert set(seen) == {
        f"daily-cats-tail-{day}", f"daily-cats-tail-{day}:sequence_moves=false", f"daily-royal-retinue-{day}",
        f"daily-picture-gallery-{day}:deals=3", f"daily-sultan-36-{day}",
    }  # fmt: skip
    assert len(set(seen.values())) == len(seen)
    # Defaults written out name the same deal as none.
    assert daily(client, "cats-tail", options="sequence_moves=true").board == f"daily-cats-tail-{day}"


def test_bad_requests_are_refused_with_their_reasons(server: LiveServer, client: Client, day: dt.date) -> None:
    yesterday = (day - dt.timedelta(days=1)).isoformat()
    invalid, missing = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    for request, code, reason in (
        (pb.GetDailyDealRequest(variant="cats-tail", date=yesterday), missing, "DAILY_DEAL_NOT_FOUND"),
        (pb.GetDailyDealRequest(variant="cats-tail", date="2026-02-30"), invalid, "BAD_DATE"),
        (pb.GetDailyDealRequest(variant="cats-tail", date="26-01-01"), invalid, "BAD_DATE"),
        (pb.GetDailyDealRequest(variant="nope"), invalid, "UNKNOWN_VARIANT"),
        (pb.GetDailyDealRequest(variant="cats-tail", options="sequence_moves=maybe"), invalid, "BAD_OPTION"),
        (pb.GetDailyDealRequest(variant="cats-tail", options="x" * 201), invalid, "BAD_OPTION"),
    ):  # fmt: skip
        refused = refusal(lambda r=request: client.GetDailyDeal(r))
        assert (refused.code, refused.reason) == (code, reason), request
    # ... and over REST, with the HTTP status of the code.
    answer = httpx.get(f"{server.base_url}/v1/daily/cats-tail", params={"date": yesterday}, timeout=30)
    assert answer.status_code == 404 and "DAILY_DEAL_NOT_FOUND" in answer.text
    for fields, reason in (
        ({"deal_number": 3}, "DEAL_FIELDS_CONFLICT"),
        ({"client_seed": b"x"}, "DEAL_FIELDS_CONFLICT"),
        ({"replay_seed": bytes(32)}, "DEAL_FIELDS_CONFLICT"),
        ({"winnable": True}, "WINNABLE_NOT_COMBINABLE"),
    ):
        refused = refusal(lambda f=fields: client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True, **f)))
        assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason), fields


# --------------------------------------------------------------------------- one ranked game per player


def test_a_second_new_game_resumes_the_ranked_game_under_a_new_token(client: Client, day: dt.date) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    first = client.NewGame(pb.NewGameRequest(variant="sultan-52", daily=True), metadata=bearer(ada))
    board = f"daily-sultan-52-{day}"
    assert (first.game.board, first.game.ranked, first.game.player.display_name) == (board, True, "Ada")
    moved = play(client, first.game, first.game_token, ["s"])
    assert (moved.board, moved.ranked, moved.player.display_name) == (board, True, "Ada")  # kept through a move
    again = client.NewGame(pb.NewGameRequest(variant="sultan-52", daily=True), metadata=bearer(ada))
    assert again.game.game_id == first.game.game_id and again.game_token != first.game_token
    assert again.game.move_count == 1 and again.game.version == moved.version + 1 and again.game.view == moved.view
    old = refusal(
        lambda: client.GetGame(pb.GetGameRequest(game_id=first.game.game_id), metadata=bearer(first.game_token))
    )
    assert old.reason == "WRONG_TOKEN"  # the old token stops working
    play(client, again.game, again.game_token, ["s"])
    assert daily(client, "sultan-52", token=ada).game_id == first.game.game_id
    # Another player: another game of the same deal; an anonymous one: unranked, a new game each time.
    other = client.NewGame(pb.NewGameRequest(variant="sultan-52", daily=True), metadata=bearer(bob)).game
    assert other.game_id != first.game.game_id and other.commitment == first.game.commitment and other.ranked
    assert not daily(client, "sultan-52").game_id
    anonymous = [client.NewGame(pb.NewGameRequest(variant="sultan-52", daily=True)).game for _ in range(2)]
    assert anonymous[0].game_id != anonymous[1].game_id and not any(g.ranked or g.board for g in anonymous)


def test_two_replicas_racing_deal_one_ranked_game(redis_url: str, keys_dir: Path, clock: DayClock) -> None:
    """Ten NewGame calls of one player for today's deal, five to each of two replicas at once: one game, whose id
    every answer carries; the nine dealt in the race are dropped."""
    day = clock.fresh_day()
    prefix = "race" + day.strftime("%m%d")
    with (
        live_server(redis_url, keys_dir, clock=clock, store_prefix=prefix) as a,
        live_server(redis_url, keys_dir, clock=clock, store_prefix=prefix) as b,
    ):
        stub_a, stub_b = Client(f"127.0.0.1:{a.grpc_port}"), Client(f"127.0.0.1:{b.grpc_port}")
        token = guest(stub_a, "Racer")

        async def race() -> list[pb.NewGameResponse]:
            async with (
                grpc.aio.insecure_channel(f"127.0.0.1:{a.grpc_port}") as ca,
                grpc.aio.insecure_channel(f"127.0.0.1:{b.grpc_port}") as cb,
            ):
                stubs = [pb_grpc.PatienceServiceStub(c) for c in (ca, cb)]
                request = pb.NewGameRequest(variant="tribunal", daily=True)
                calls = [stubs[i % 2].NewGame(request, metadata=bearer(token)) for i in range(10)]
                return list(await asyncio.gather(*calls))

        answers = asyncio.run(race())
        assert len({r.game.game_id for r in answers}) == 1 and all(r.game.ranked for r in answers)
        games = [k for k in redis.Redis.from_url(redis_url).scan_iter(f"{prefix}:{{*}}") if k.endswith(b"}")]
        assert len(games) == 1, games
        winner = answers[0].game.game_id
        assert daily(stub_b, "tribunal", token=token).game_id == winner
        # Exactly one of the tokens handed out works: the last one the game was given.
        works = [r.game_token for r in answers if _opens(stub_a, winner, r.game_token)]
        assert len(works) == 1
        stub_a.close()
        stub_b.close()


def _opens(client: Client, game_id: str, token: str) -> bool:
    try:
        client.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer(token))
    except grpc.RpcError:
        return False
    return True


# --------------------------------------------------------------------------- the seed stays secret all day


def test_a_daily_deal_keeps_its_seed_while_the_day_lasts_however_the_game_ends(
    server: LiveServer, client: Client, clock: DayClock, day: dt.date
) -> None:
    seed, moves = fcs_fixtures("cats-tail")[0]
    server.seeds.push(seed)  # the day's deal is drawn from the service's seed source: a deal with a known win
    commitment = daily(client, "cats-tail").commitment
    assert commitment == hashlib.sha256(seed).digest()
    cats = get_game("cats-tail")
    ada = guest(client, "Ada")

    # Won move by move, by a signed-in player: no seed, no certificate (it holds the seed) until the day is over.
    ranked = client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True), metadata=bearer(ada))
    won = play(client, ranked.game, ranked.game_token, moves)
    assert won.status == pb.GAME_STATUS_WON and not won.seed and not won.HasField("certificate")
    assert seed not in won.SerializeToString()
    request = pb.GetGameRequest(game_id=won.game_id, include_moves=True)
    got = client.GetGame(request, metadata=bearer(ranked.game_token))
    assert not got.game.seed and not got.game.HasField("certificate") and seed not in got.SerializeToString()

    # Submitted whole, anonymously: a win, and still nothing that holds the seed.
    anonymous = client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True))
    submitted = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=anonymous.game.game_id, moves=moves), metadata=bearer(anonymous.game_token)
    )
    assert submitted.verdict.outcome == pb.OUTCOME_WON and not submitted.HasField("certificate")
    assert seed not in submitted.SerializeToString()

    # Resigned, and forfeited by a bad solution: the verdict says only "not won", as for a live ticket.
    for end in ("resign", "forfeit"):
        new = client.NewGame(pb.NewGameRequest(variant="cats-tail", daily=True))
        md = bearer(new.game_token)
        if end == "resign":
            over = client.Resign(pb.ResignRequest(game_id=new.game.game_id), metadata=md).game
        else:
            answer = client.SubmitSolution(
                pb.SubmitSolutionRequest(game_id=new.game.game_id, moves=moves[:5]), metadata=md
            )
            assert answer.verdict.outcome == pb.OUTCOME_NOT_WON and not answer.verdict.final_state_hash
            over = answer.game
        assert over.status in (pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_FORFEITED) and not over.seed
        assert_no_secret(over, cats, cats.deal(seed), seed)

    clock.next_day()  # over: the seed and the certificate are shown, the certificate names the player and board
    after = client.GetGame(pb.GetGameRequest(game_id=won.game_id), metadata=bearer(ranked.game_token)).game
    assert after.seed == seed and after.certificate.board == f"daily-cats-tail-{day}"
    assert after.certificate.player.id == ranked.game.player.id and after.certificate.player.display_name == "Ada"
    keys = {k.key_id: k.public_key for k in client.GetSigningKeys(pb.GetSigningKeysRequest()).keys}
    checked = verify_certificate(after.certificate.encoded, keys, replay=True)
    assert checked.valid and checked.contents is not None and checked.contents.dealt == "daily"
    open_again = client.GetGame(
        pb.GetGameRequest(game_id=anonymous.game.game_id), metadata=bearer(anonymous.game_token)
    )
    assert open_again.game.seed == seed and open_again.game.certificate.encoded
    assert not open_again.game.certificate.board and not open_again.game.certificate.HasField("player")
    assert replay(cats, cats.deal(after.seed), moves).verdict.outcome.value == "won"


def test_spectators_wait_for_the_end_of_the_day(client: Client, clock: DayClock, day: dt.date) -> None:
    """A daily game dealt watchable is not watched by spectators while its day lasts (one who plays the deal too
    would see the cards another player turns); its owner watches it; after the day, spectators do too."""
    ada = guest(client, "Ada")
    new = client.NewGame(pb.NewGameRequest(variant="picture-gallery", daily=True, watchable=True), metadata=bearer(ada))
    assert new.game.watchable and new.game.ranked
    watch = pb.WatchGameRequest(game_id=new.game.game_id)
    refused = refusal(lambda: next(iter(client.WatchGame(watch, timeout=10))))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
    owner = next(iter(client.WatchGame(watch, metadata=bearer(new.game_token), timeout=10)))
    assert owner.game.game_id == new.game.game_id
    # The neighbour: an ordinary watchable game is watched at once.
    other = client.NewGame(pb.NewGameRequest(variant="picture-gallery", watchable=True)).game
    assert next(iter(client.WatchGame(pb.WatchGameRequest(game_id=other.game_id), timeout=10))).game.version == 1
    clock.next_day()
    spectator = next(iter(client.WatchGame(watch, timeout=10)))
    assert spectator.game.game_id == new.game.game_id and not spectator.game.seed  # open: its seed stays its own
