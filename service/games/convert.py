"""Engine values <-> patience.v1 messages: the player's view, moves, statuses, the catalogue.

Only :func:`view_message` turns a position into a message, and it takes the
engine's player view (never a State), so no code path here can put a hidden
card into a response.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, cast

from patience.moves import move_from_message, move_message
from patience.v1 import patience_pb2 as pb

from engine.cards import NO_CARD, TEXT
from engine.errors import NotationError
from engine.game import Game, Status, VariantInfo, format_option
from engine.moves import Move
from engine.verify import Outcome, Verdict
from engine.view import HIDDEN, View

HIDDEN_TEXT = "??"

_STATUS_TO_PB = {
    Status.IN_PROGRESS: pb.GAME_STATUS_IN_PROGRESS,
    Status.WON: pb.GAME_STATUS_WON,
    Status.STUCK: pb.GAME_STATUS_STUCK,
}
_OUTCOME_TO_PB = {
    Outcome.WON: pb.OUTCOME_WON,
    Outcome.UNFINISHED: pb.OUTCOME_UNFINISHED,
    Outcome.ILLEGAL: pb.OUTCOME_ILLEGAL,
}


def status_message(status: Status) -> pb.GameStatus:
    return _STATUS_TO_PB[status]


def _cards(cards: Iterable[int]) -> list[str]:
    return [TEXT[c] for c in cards]


def _slot(c: int) -> str:
    if c == NO_CARD:
        return ""
    if c == HIDDEN:
        return HIDDEN_TEXT
    return TEXT[c]


def view_message(view: View) -> pb.View:
    """The player's view as a message; hidden cards are already out of ``view``."""
    return pb.View.FromString(view_bytes(view))


# --- the View in protobuf's wire format, built from cached pieces ---------------------------------------------
#
# A response carries the whole view, and building it field by field through the protobuf API costs more than the
# engine's move (30 µs for a sultan, 90 µs for a 104-card tableau). Written out directly, a card is a cached
# 4-byte entry, a pile that did not change since it was last shown is one dict lookup, and upb parses the
# result in C. tests/service/test_service_convert.py checks the bytes against the field-by-field message for random
# positions of every game.


def _varint(n: int) -> bytes:
    if 0 <= n < 0x80:
        return _SMALL_VARINT[n]
    if n < 0:
        n += 1 << 64  # int32/int64 negatives: ten bytes of two's complement, as protobuf writes them
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL_VARINT = tuple(bytes([i]) for i in range(0x80))


def _text_entry(field: int, text: str) -> bytes:
    data = text.encode()
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _card_entries(field: int) -> tuple[bytes, ...]:
    """Entry per card for a repeated-string field, indexed like ``TEXT`` (negative indices included)."""
    return tuple(_text_entry(field, text) for text in TEXT)


def _slot_entries(field: int) -> dict[int, bytes]:
    table = dict(enumerate(_card_entries(field)))
    table[NO_CARD] = _text_entry(field, "")
    table[HIDDEN] = _text_entry(field, HIDDEN_TEXT)
    return table


_PILE_CARD = _card_entries(1)  # Pile.cards
_CELL, _CAPTIVE = _slot_entries(3), _slot_entries(9)
_STOCK, _WASTE, _FIXED = _card_entries(7), _card_entries(8), _card_entries(10)
_VARIANT: dict[str, bytes] = {}
# A pile -> its whole entry (tag, length, serialized Pile) in View.columns (field 2) and View.foundations (4).
_COLUMNS: dict[tuple[int, ...], bytes] = {}
_FOUNDATIONS: dict[tuple[int, ...], bytes] = {}
_MAX_PILES = 50_000


def _pile_entry(cache: dict[tuple[int, ...], bytes], tag: bytes, cards: tuple[int, ...]) -> bytes:
    if len(cache) >= _MAX_PILES:
        cache.clear()
    data = b"".join([_PILE_CARD[c] for c in cards])
    entry = cache[cards] = tag + _varint(len(data)) + data
    return entry


def _entries(cache: Mapping[Any, bytes], keys: Sequence[Any], make: Callable[[Any], bytes]) -> list[bytes]:
    """Each key's cached entry, looked up by map() in C; the misses (None) made by ``make``."""
    entries = list(map(cache.get, keys))
    if None in entries:
        return [e or make(k) for e, k in zip(entries, keys, strict=True)]
    return cast("list[bytes]", entries)


def _slot_entry(field: int, c: int) -> bytes:
    return _text_entry(field, _slot(c))  # never for the cards and marks the tables hold


_new_column = partial(_pile_entry, _COLUMNS, b"\x12")
_new_foundation = partial(_pile_entry, _FOUNDATIONS, b"\x22")
_new_cell = partial(_slot_entry, 3)
_new_captive = partial(_slot_entry, 9)


def view_bytes(view: View) -> bytes:
    """``view_message(view).SerializeToString()``, up to field order, without building the message."""
    variant = _VARIANT.get(view.variant)
    if variant is None:
        variant = _VARIANT[view.variant] = _text_entry(1, view.variant) if view.variant else b""
    out = [variant]
    if view.columns:
        out += _entries(_COLUMNS, view.columns, _new_column)
    if view.cells:
        out += _entries(_CELL, view.cells, _new_cell)
    if view.foundations:
        out += _entries(_FOUNDATIONS, view.foundations, _new_foundation)
    if view.stock_count:
        out.append(b"\x28" + _varint(view.stock_count))
    if view.stock is not None:
        out.append(b"\x30\x01")
        out += map(_STOCK.__getitem__, view.stock)
    out += map(_WASTE.__getitem__, view.waste)
    if view.captives:
        out += _entries(_CAPTIVE, view.captives, _new_captive)
    out += map(_FIXED.__getitem__, view.fixed)
    if view.redeals_used:
        out.append(b"\x58" + _varint(view.redeals_used))
    if view.redeals_left:
        out.append(b"\x60" + _varint(view.redeals_left))
    status = _STATUS_TO_PB[view.status]
    if status:
        out.append(b"\x68" + _varint(status))
    return b"".join(out)


def _view_message_fields(view: View) -> pb.View:
    """The same message built field by field (the reference for ``view_bytes``; tests compare the two)."""
    return pb.View(
        variant=view.variant,
        columns=[pb.Pile(cards=_cards(p)) for p in view.columns],
        cells=[_slot(c) for c in view.cells],
        foundations=[pb.Pile(cards=_cards(p)) for p in view.foundations],
        stock_count=view.stock_count,
        stock_visible=view.stock is not None,
        stock=_cards(view.stock) if view.stock is not None else [],
        waste=_cards(view.waste),
        captives=[_slot(c) for c in view.captives],
        fixed=_cards(view.fixed),
        redeals_used=view.redeals_used,
        redeals_left=view.redeals_left,
        status=_STATUS_TO_PB[view.status],
    )


def notated(move: Move) -> pb.NotatedMove:
    return pb.NotatedMove.FromString(notated_bytes(move))


_NOTATED: dict[Move, bytes] = {}  # a move -> its serialized NotatedMove (moves are few: a bounded cache)
_MAX_NOTATED = 20_000


def notated_bytes(move: Move) -> bytes:
    """``notated(move)`` serialized, cached: every ApplyMove answers with its move, LegalMoves with dozens."""
    data = _NOTATED.get(move)
    if data is None:
        if len(_NOTATED) >= _MAX_NOTATED:
            _NOTATED.clear()
        data = _NOTATED[move] = pb.NotatedMove(text=move.text(), move=move_message(move)).SerializeToString()
    return data


def notated_list_bytes(field: int, moves: Iterable[Move]) -> bytes:
    """A repeated NotatedMove field (number ``field``) in wire format, for ``MergeFromString``."""
    tag = _varint(field << 3 | 2)
    out = []
    for move in moves:
        data = notated_bytes(move)
        out.append(tag + _varint(len(data)) + data)
    return b"".join(out)


def move_text_of(msg: pb.Move) -> str:
    """A structured move's text for error reports, even when it is malformed."""
    try:
        return move_from_message(msg).text()
    except NotationError:
        return "<structured move>"


def options_map(game: Game) -> dict[str, str]:
    """Every option of ``game`` with its value as text (defaults included)."""
    return {name: format_option(value) for name, value in game.options.items()}


def variant_message(info: VariantInfo) -> pb.Variant:
    return pb.Variant(
        id=info.id,
        name_en=info.name_en,
        name_ru=info.name_ru,
        family=info.family,
        summary=info.summary,
        deck_size=info.deck_size,
        options=[
            pb.VariantOption(
                name=o.name,
                type="bool" if isinstance(o.default, bool) else "int",
                default_value=format_option(o.default),
                allowed_values=[format_option(a) for a in o.allowed],
                description=o.description,
            )
            for o in info.options
        ],
    )


def verdict_message(verdict: Verdict) -> pb.Verdict:
    msg = pb.Verdict(
        outcome=_OUTCOME_TO_PB[verdict.outcome],
        move_count=verdict.move_count,
        final_state_hash=verdict.final_hash,
        final_status=_STATUS_TO_PB[verdict.status],
    )
    if verdict.outcome is Outcome.ILLEGAL:
        msg.error_index = verdict.error_index or 0
        msg.error_reason = verdict.error_reason.value if verdict.error_reason else ""
        msg.error_message = verdict.error_message
        msg.error_move_text = verdict.error_text
    return msg


def text_options(options: Mapping[str, str]) -> dict[str, str]:
    """Options of a request: names and values trimmed (values stay text; the engine parses them)."""
    return {str(k).strip(): str(v).strip() for k, v in options.items()}
