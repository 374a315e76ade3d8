"""Engine values <-> patience.v1 messages: the player's view, moves, statuses, the catalogue.

Only :func:`view_message` turns a position into a message, and it takes the
engine's player view (never a State), so no code path here can put a hidden
card into a response.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from patience.v1 import patience_pb2 as pb

from engine.cards import NO_CARD, TEXT
from engine.errors import NotationError
from engine.game import Game, Status, VariantInfo, format_option
from engine.moves import Move, MoveKind, Pile, PileKind
from engine.verify import Outcome, Verdict
from engine.view import HIDDEN, View

HIDDEN_TEXT = "??"

_PILE_KIND_TO_PB = {
    PileKind.COLUMN: pb.PILE_KIND_COLUMN,
    PileKind.RESERVE: pb.PILE_KIND_RESERVE,
    PileKind.FOUNDATION: pb.PILE_KIND_FOUNDATION,
    PileKind.WASTE: pb.PILE_KIND_WASTE,
    PileKind.CAPTIVE: pb.PILE_KIND_CAPTIVE,
    PileKind.KING_ROW: pb.PILE_KIND_KING_ROW,
}
_PILE_KIND_FROM_PB = {v: k for k, v in _PILE_KIND_TO_PB.items()}
_MOVE_KIND_TO_PB = {
    MoveKind.TRANSFER: pb.MOVE_KIND_TRANSFER,
    MoveKind.DEAL: pb.MOVE_KIND_DEAL,
    MoveKind.STOCK: pb.MOVE_KIND_STOCK,
    MoveKind.REDEAL: pb.MOVE_KIND_REDEAL,
}
_MOVE_KIND_FROM_PB = {v: k for k, v in _MOVE_KIND_TO_PB.items()}

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


def _pile_ref(pile: Pile) -> pb.PileRef:
    ref = pb.PileRef(kind=_PILE_KIND_TO_PB[pile.kind])
    if pile.index is not None:
        ref.index = pile.index
    return ref


def move_message(move: Move) -> pb.Move:
    msg = pb.Move(kind=_MOVE_KIND_TO_PB[move.kind])
    if move.kind is MoveKind.TRANSFER:
        msg.sources.extend(_pile_ref(p) for p in move.sources)
        assert move.target is not None
        msg.target.CopyFrom(_pile_ref(move.target))
        if move.count is not None:
            msg.count = move.count
    return msg


def notated(move: Move) -> pb.NotatedMove:
    return pb.NotatedMove(text=move.text(), move=move_message(move))


def _pile_text(ref: pb.PileRef) -> str:
    kind = _PILE_KIND_FROM_PB.get(ref.kind)
    if kind is None:
        raise NotationError("a pile needs its kind")
    index = ref.index if ref.HasField("index") else None
    if kind is PileKind.COLUMN:
        if index is None:
            raise NotationError("a column needs its number")
        return str(index)
    return kind.value if index is None else f"{kind.value}{index}"


def move_from_message(msg: pb.Move) -> Move:
    """The engine move for a structured move, validated exactly as its text would be."""
    kind = _MOVE_KIND_FROM_PB.get(msg.kind)
    if kind is None:
        raise NotationError("a move needs its kind")
    if kind is not MoveKind.TRANSFER:
        if msg.sources or msg.HasField("target") or msg.HasField("count"):
            raise NotationError(f"a {kind.name.lower()} move has no piles")
        return Move.parse(kind.value)
    if not msg.sources or not msg.HasField("target"):
        raise NotationError("a transfer needs sources and a target")
    text = ",".join(_pile_text(s) for s in msg.sources) + "-" + _pile_text(msg.target)
    if msg.HasField("count"):
        text += f"/{msg.count}"
    return Move.parse(text)


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
