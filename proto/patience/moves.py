"""Engine moves <-> the API's structured ``patience.v1.Move``: one conversion for the service and its clients.

Hand-written (unlike ``patience.v1``), and here because both the service and the client library depend on
this package and the engine, while the client must not import the service.
"""

from __future__ import annotations

from engine.errors import NotationError
from engine.moves import Move, MoveKind, Pile, PileKind
from patience.v1 import patience_pb2 as pb

PILE_KIND_TO_PB = {
    PileKind.COLUMN: pb.PILE_KIND_COLUMN,
    PileKind.RESERVE: pb.PILE_KIND_RESERVE,
    PileKind.FOUNDATION: pb.PILE_KIND_FOUNDATION,
    PileKind.WASTE: pb.PILE_KIND_WASTE,
    PileKind.CAPTIVE: pb.PILE_KIND_CAPTIVE,
    PileKind.KING_ROW: pb.PILE_KIND_KING_ROW,
}
PILE_KIND_FROM_PB = {v: k for k, v in PILE_KIND_TO_PB.items()}
MOVE_KIND_TO_PB = {
    MoveKind.TRANSFER: pb.MOVE_KIND_TRANSFER,
    MoveKind.DEAL: pb.MOVE_KIND_DEAL,
    MoveKind.STOCK: pb.MOVE_KIND_STOCK,
    MoveKind.REDEAL: pb.MOVE_KIND_REDEAL,
}
MOVE_KIND_FROM_PB = {v: k for k, v in MOVE_KIND_TO_PB.items()}


def pile_message(pile: Pile) -> pb.PileRef:
    ref = pb.PileRef(kind=PILE_KIND_TO_PB[pile.kind])
    if pile.index is not None:
        ref.index = pile.index
    return ref


def move_message(move: Move) -> pb.Move:
    """The structured form of an engine move."""
    msg = pb.Move(kind=MOVE_KIND_TO_PB[move.kind])
    if move.kind is MoveKind.TRANSFER:
        msg.sources.extend(pile_message(p) for p in move.sources)
        assert move.target is not None
        msg.target.CopyFrom(pile_message(move.target))
        if move.count is not None:
            msg.count = move.count
    return msg


def _pile_text(ref: pb.PileRef) -> str:
    kind = PILE_KIND_FROM_PB.get(ref.kind)
    if kind is None:
        raise NotationError("a pile needs its kind")
    index = ref.index if ref.HasField("index") else None
    if kind is PileKind.COLUMN:
        if index is None:
            raise NotationError("a column needs its number")
        return str(index)
    return kind.value if index is None else f"{kind.value}{index}"


def move_from_message(msg: pb.Move) -> Move:
    """The engine move for a structured move, validated exactly as its text would be (NotationError)."""
    kind = MOVE_KIND_FROM_PB.get(msg.kind)
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
