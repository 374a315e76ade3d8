"""The player's view as a message (service/games/convert.py: ``view_message``): what each slot shows (a card, an empty
slot, a hidden card), the stock shown or only counted; and the Game message built from its per-game template plus
the fields a call changes is the message built field by field."""

from __future__ import annotations

import hashlib
from typing import Any

from patience.v1 import patience_pb2 as pb

from engine import get_game
from engine.cards import NO_CARD, TEXT
from engine.game import Status
from engine.view import HIDDEN, View, player_view
from service.games import convert


def test_what_each_slot_shows() -> None:
    long_pile = (*range(52), 0, 1, 2)
    view = View(
        variant="picture-gallery",
        columns=((), long_pile, (5,)),
        cells=(NO_CARD, 3, NO_CARD),
        foundations=((), (0,), long_pile),
        stock_count=300,
        stock=(7, 8, 9),
        waste=(10, 11),
        captives=(HIDDEN, NO_CARD, 12),
        fixed=(13,),
        redeals_used=2,
        redeals_left=0,
        status=Status.STUCK,
    )
    msg = convert.view_message(view)
    assert [list(p.cards) for p in msg.columns] == [[], [TEXT[c] for c in long_pile], [TEXT[5]]]
    assert list(msg.cells) == ["", TEXT[3], ""]
    assert list(msg.captives) == [convert.HIDDEN_TEXT, "", TEXT[12]]
    assert msg.stock_visible and list(msg.stock) == [TEXT[c] for c in (7, 8, 9)] and msg.stock_count == 300
    assert (msg.redeals_used, msg.redeals_left, msg.status) == (2, 0, pb.GAME_STATUS_STUCK)
    counted = convert.view_message(View("", (), (), (), 12, None, (), (), (), 0, 0, Status.IN_PROGRESS))
    assert not counted.stock_visible and not counted.stock and counted.stock_count == 12
    assert counted == pb.View(stock_count=12, status=pb.GAME_STATUS_IN_PROGRESS)
    again = convert.view_message(view)  # the piles' messages come from the cache now: copies, the same content
    assert again == msg and again.columns[1] is not msg.columns[1]


def test_the_pile_cache_stays_bounded() -> None:
    for n in range(convert._MAX_PILES + 10):
        convert._pile((n % 52, n // 52 % 52, n // 2704 % 52))
    assert len(convert._PILES) <= convert._MAX_PILES


# --- the Game message: per-game template + dynamic fields == the message built field by field -------------------


def reference_game(service: object, record: object, game: object, state: object) -> pb.Game:
    """The Game message built field by field, without templates (no certificate: no key ring)."""
    from engine.deal import ALGORITHM
    from service.games.messages import seed_revealed, shown_status
    from service.games.messages import ticket_id as _ticket_id
    from service.games.messages import ts as _ts

    view = player_view(game, state)  # type: ignore[arg-type]
    status = shown_status(record, view.status)  # type: ignore[arg-type]
    r: Any = record
    msg = pb.Game(
        game_id=r.game_id,
        variant=game.id,  # type: ignore[attr-defined]
        options=convert.options_map(game),  # type: ignore[arg-type]
        version=r.version,
        status=status,
        view=convert.view_message(view),
        move_count=r.move_count,
        undo_count=r.undo_count,
        allow_undo=r.allow_undo,
        deal_algorithm=ALGORITHM,
        commitment=r.commitment,
        client_seed=r.client_seed,
        ticket_id=_ticket_id(r.ticket_id),
        created_at=_ts(r.created_at),
        updated_at=_ts(r.updated_at),
        server_seed_commitment=hashlib.sha256(r.server_seed).digest() if r.server_seed else b"",
        dealt=r.dealt,
        deal_number=r.deal_number,
    )
    if seed_revealed(r, status):
        msg.seed = r.seed
        msg.server_seed = r.server_seed
    if r.finished_at:
        msg.finished_at.CopyFrom(_ts(r.finished_at))
    elif r.expired:
        msg.finished_at.CopyFrom(_ts(r.expires_at))
    else:
        msg.expires_at.CopyFrom(_ts(r.expires_at))
    return msg


def test_game_messages_match_the_field_by_field_message() -> None:
    from dataclasses import replace

    from service.games import GameService
    from service.games.steps import Steps
    from service.settings.config import Settings
    from service.store import GameRecord

    service = GameService(Steps(Settings(), store=None))  # type: ignore[arg-type]
    game = get_game("cats-tail", {"sequence_moves": "false"})
    state = game.deal(bytes(32))
    now = 1_800_000_000_000
    base = GameRecord(
        game_id="0123456789abcdef01234567",
        token_hash=bytes(32),
        variant=game.id,
        options=game.options_text(),
        seed=bytes(range(32)),
        server_seed=b"",
        client_seed=b"",
        ticket_id="",
        allow_undo=True,
        state=b"",
        version=1,
        status="in-progress",
        created_at=now - 5000,
        updated_at=now - 1000,
        finished_at=0,
        move_count=0,
        undo_count=0,
        idle_ms=600_000,
        now=now,
    )
    records = [
        base,
        replace(base, version=7, move_count=5, undo_count=1, allow_undo=False),
        replace(base, server_seed=b"\x01" * 32, client_seed=b"mine"),
        replace(base, ticket_id=f"tk1@{now // 1000 + 60}"),  # a ticket still valid: the seed stays hidden
        replace(base, ticket_id=f"tk1@{now // 1000 - 60}", status="resigned", finished_at=now - 10),
        replace(base, status="resigned", finished_at=now - 10, version=9),
        replace(base, updated_at=now - 700_000),  # expired
        replace(base, created_at=now - 4000),  # same game id, another creation time: a fresh template
        replace(base, created_at=now - 4321, updated_at=now - 987),  # milliseconds: Timestamp nanos
        replace(base, status="won", finished_at=now - 1, version=3, move_count=2),
        replace(base, dealt="public", deal_number=12),  # another way of dealing: another template
        replace(base, dealt="replay"),
        base,
    ]
    for record in records:
        for _ in range(2):  # the second time from the cached template
            assert service.steps.answers.game(record, game, state) == reference_game(service, record, game, state)
    into = pb.ApplyMoveResponse()
    service.steps.answers.game(records[1], game, state, into=into.game)
    assert into.game == reference_game(service, records[1], game, state)


def test_a_stored_position_is_decoded_unless_it_is_the_one_this_replica_wrote() -> None:
    from dataclasses import replace

    from engine.encoding import decode_state, encode_state
    from service.games import GameService
    from service.games.steps import Steps
    from service.settings.config import Settings
    from service.store import GameRecord

    service = GameService(Steps(Settings(), store=None))  # type: ignore[arg-type]
    game = get_game("sultan-52")
    mine = game.deal(bytes(32))
    theirs = game.play(mine, "s")[0]  # another replica moved on
    record = GameRecord("g" * 24, bytes(32), game.id, "", bytes(32), b"", b"", "", True, encode_state(game, mine),
                        3, "in-progress", 1, 2, 0, 0, 0, 600_000, 3)  # fmt: skip
    service.recent.remember(record, game, mine)
    same_game, same_state = service.steps.decode(replace(record))
    assert same_game is game and same_state is mine
    stored = replace(record, version=4, state=encode_state(game, theirs))
    assert service.steps.decode(stored) == decode_state(stored.state) and service.steps.decode(stored)[1] == theirs
