"""Moves between the engine's value type and the API's structured form.

The API takes a move as text (RULES.md notation) or as a structured ``Move``;
both convert without loss, so a client may keep engine ``Move`` values and send
either form.
"""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from engine.errors import NotationError
from engine.moves import Move, MoveKind, Pile, PileKind

_KIND_TO_PB = {
    MoveKind.TRANSFER: pb.MOVE_KIND_TRANSFER,
    MoveKind.DEAL: pb.MOVE_KIND_DEAL,
    MoveKind.STOCK: pb.MOVE_KIND_STOCK,
    MoveKind.REDEAL: pb.MOVE_KIND_REDEAL,
}
_KIND_FROM_PB = {v: k for k, v in _KIND_TO_PB.items()}
_PILE_TO_PB = {
    PileKind.COLUMN: pb.PILE_KIND_COLUMN,
    PileKind.RESERVE: pb.PILE_KIND_RESERVE,
    PileKind.FOUNDATION: pb.PILE_KIND_FOUNDATION,
    PileKind.WASTE: pb.PILE_KIND_WASTE,
    PileKind.CAPTIVE: pb.PILE_KIND_CAPTIVE,
    PileKind.KING_ROW: pb.PILE_KIND_KING_ROW,
}
_PILE_FROM_PB = {v: k for k, v in _PILE_TO_PB.items()}

MoveLike = str | Move | pb.Move


def pile_to_proto(pile: Pile) -> pb.PileRef:
    ref = pb.PileRef(kind=_PILE_TO_PB[pile.kind])
    if pile.index is not None:
        ref.index = pile.index
    return ref


def pile_from_proto(ref: pb.PileRef) -> Pile:
    kind = _PILE_FROM_PB.get(ref.kind)
    if kind is None:
        raise NotationError(f"no pile kind {ref.kind}")
    return Pile(kind, ref.index if ref.HasField("index") else None)


def move_to_proto(move: Move) -> pb.Move:
    """The structured form of an engine move."""
    out = pb.Move(kind=_KIND_TO_PB[move.kind])
    out.sources.extend(pile_to_proto(p) for p in move.sources)
    if move.target is not None:
        out.target.CopyFrom(pile_to_proto(move.target))
    if move.count is not None:
        out.count = move.count
    return out


def move_from_proto(move: pb.Move) -> Move:
    """The engine move for a structured one; NotationError if it is not a move at all."""
    kind = _KIND_FROM_PB.get(move.kind)
    if kind is None:
        raise NotationError(f"no move kind {move.kind}")
    if kind is not MoveKind.TRANSFER:
        return Move(kind)
    found = Move(
        kind,
        tuple(pile_from_proto(p) for p in move.sources),
        pile_from_proto(move.target) if move.HasField("target") else None,
        move.count if move.HasField("count") else None,
    )
    return Move.parse(found.text())  # the parser's checks (sources, targets, counts) apply to this form too


def move_text(move: MoveLike) -> str:
    """The notation of any move form."""
    if isinstance(move, str):
        return move
    if isinstance(move, Move):
        return move.text()
    return move_from_proto(move).text()
