"""Engine values <-> patience.v1 messages: the player's view, moves, statuses, the catalogue.

Only :func:`view_message` turns a position into a message, and it takes the
engine's player view (never a State), so no code path here can put a hidden
card into a response.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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
    message = pb.View()
    fill_view(message, view)
    return message


_PILES: dict[tuple[int, ...], pb.Pile] = {}  # a pile -> its message (copied into each View): a bounded cache
_MAX_PILES = 50_000


def _pile(cards: tuple[int, ...]) -> pb.Pile:
    pile = _PILES.get(cards)
    if pile is None:
        if len(_PILES) >= _MAX_PILES:
            _PILES.clear()
        pile = _PILES[cards] = pb.Pile(cards=_cards(cards))
    return pile


def fill_view(into: pb.View, view: View) -> None:
    """Write the player's view into an empty View message (a response's own field: no copy). A pile's message is
    made once and copied in by protobuf, since most piles of a position are those of the position before: this
    way a move's View costs about what writing it in protobuf's wire format by hand did (docs/service-benchmark.md)."""
    into.variant = view.variant
    into.columns.extend(map(_pile, view.columns))
    if view.cells:
        into.cells.extend(map(_slot, view.cells))
    into.foundations.extend(map(_pile, view.foundations))
    into.stock_count = view.stock_count
    if view.stock is not None:
        into.stock_visible = True
        into.stock.extend(_cards(view.stock))
    if view.waste:
        into.waste.extend(_cards(view.waste))
    if view.captives:
        into.captives.extend(map(_slot, view.captives))
    if view.fixed:
        into.fixed.extend(_cards(view.fixed))
    into.redeals_used = view.redeals_used
    into.redeals_left = view.redeals_left
    into.status = _STATUS_TO_PB[view.status]


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
