"""The pieces of the use cases' answers: statuses, times, the per-game template, verdicts and certificates as
messages. Pure functions of records and engine values; the player sees the engine's player view only
(``engine.view.player_view``), and a game's seed only once the game is over."""

from __future__ import annotations

import hashlib

from google.protobuf.timestamp_pb2 import Timestamp
from patience.certificates import CertificateContents, Verification
from patience.v1 import patience_pb2 as pb

from engine import movelog
from engine.deal import ALGORITHM
from engine.game import Game, Status
from engine.verify import Replay
from engine.view import hidden_cards
from service.games import convert
from service.store import GameRecord, StoreStatus

#: The statuses of a game that is over (its seed may be revealed).
OVER = frozenset({pb.GAME_STATUS_WON, pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_EXPIRED, pb.GAME_STATUS_FORFEITED})
_MAX_TS_MS = 253_402_300_800_000  # 10000-01-01: Timestamp's upper bound


def ts(ms: int) -> Timestamp:
    out = Timestamp()
    out.FromMilliseconds(ms)
    return out


def set_ms(out: Timestamp, ms: int) -> None:
    """``out.FromMilliseconds(ms)`` without its Python-level checks for the times a store hands out."""
    if 0 <= ms < _MAX_TS_MS:
        out.seconds = ms // 1000
        out.nanos = (ms % 1000) * 1_000_000
    else:
        out.FromMilliseconds(ms)


def ticket_field(ticket_id: str, expires_at: int) -> str:
    """What the store keeps of a ticket: its id and its expiry (``id@unix_seconds``)."""
    return f"{ticket_id}@{int(expires_at)}"


def ticket_id(field: str) -> str:
    return field.rpartition("@")[0] if "@" in field else field


def ticket_expires_ms(field: str) -> int:
    _, _, expires = field.rpartition("@")
    return int(expires) * 1000 if expires.isdigit() else 0


def shown_status(record: GameRecord, view_status: Status | None) -> pb.GameStatus:
    """The status a player sees: the store's when the game is closed or expired, else the position's."""
    if record.status == StoreStatus.WON:
        return pb.GAME_STATUS_WON
    if record.status == StoreStatus.RESIGNED:
        return pb.GAME_STATUS_RESIGNED
    if record.status == StoreStatus.FORFEITED:
        return pb.GAME_STATUS_FORFEITED
    if not record.open:
        return pb.GAME_STATUS_RESIGNED
    if record.expired:
        return pb.GAME_STATUS_EXPIRED
    return convert.status_message(view_status) if view_status is not None else pb.GAME_STATUS_IN_PROGRESS


def seed_revealed(record: GameRecord, status: pb.GameStatus) -> bool:
    """Over, and -- for a ticket's deal -- the ticket expired (docs/fairness.md: a resignation must not hand the
    ticket's deal to the players still playing it)."""
    if status not in OVER:
        return False
    if record.ticket_id:
        return ticket_expires_ms(record.ticket_id) <= record.now
    return True


def solution_texts(record: GameRecord) -> list[str]:
    """A winnable deal's winning line in explicit notation (``Game.solution``; for a game that is over only)."""
    return [m.text() for m in movelog.unpack(record.solution)] if record.solution else []


def template_key(record: GameRecord, game: Game) -> tuple[object, ...]:
    """What a game's template depends on."""
    return (record.game_id, game, record.allow_undo, record.seed, record.client_seed, record.server_seed,
            record.ticket_id, record.created_at, record.dealt, record.deal_number, record.owner,
            record.owner_name, record.watchable)  # fmt: skip


def template(record: GameRecord, game: Game) -> pb.Game:
    """What a game's messages share from deal to end."""
    return pb.Game(
        game_id=record.game_id,
        variant=game.id,
        options=convert.options_map(game),
        allow_undo=record.allow_undo,
        deal_algorithm=ALGORITHM,
        commitment=record.commitment,
        client_seed=record.client_seed,
        ticket_id=ticket_id(record.ticket_id),
        created_at=ts(record.created_at),
        server_seed_commitment=hashlib.sha256(record.server_seed).digest() if record.server_seed else b"",
        dealt=record.dealt,
        deal_number=record.deal_number,
        player=pb.Player(id=record.owner, display_name=record.owner_name, kind=record.owner_kind)
        if record.owner
        else None,
        watchable=record.watchable,
    )


def verdict(game: Game, result: Replay) -> pb.Verdict:
    """The verdict message; the final state's hash only when that position hides no card -- a hash of a
    position with hidden cards lets a player test guesses of them offline (two cards left in the stock: two
    guesses)."""
    message = convert.verdict_message(result.verdict)
    if hidden_cards(game, result.state):
        message.final_state_hash = ""
    return message


def certificate_message(encoded: bytes, contents: CertificateContents, checked: Verification) -> pb.Certificate:
    return pb.Certificate(
        encoded=encoded,
        key_id=checked.key_id,
        signature=checked.signature,
        game_id=contents.game_id,
        variant=contents.variant,
        options=dict(contents.options),
        seed=contents.seed,
        commitment=contents.commitment,
        moves=list(contents.moves),
        move_count=contents.move_count,
        undo_count=contents.undo_count,
        started_at=ts(contents.started_at),
        finished_at=ts(contents.finished_at),
        ticket_id=contents.ticket_id,
        final_state_hash=contents.final_state_hash,
        played=contents.played,
        dealt=contents.dealt,
        deal_number=contents.deal_number,
        hint_count=contents.hints or 0,
    )
