"""Moves: small immutable values with a text form that round-trips.

The text form is position-independent (``Move.parse(m.text()) == m``). What
needs the position -- the run length when ``/n`` is left out, the first
foundation that fits, the first empty cell -- is settled by the game when it
applies the move; ``Game.resolve`` returns the explicit move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from .errors import NotationError

MAX_MOVE_TEXT = 64


class PileKind(StrEnum):
    """Where a card can be; the value is the notation's prefix."""

    COLUMN = ""
    RESERVE = "r"
    FOUNDATION = "f"
    WASTE = "w"
    CAPTIVE = "c"
    KING_ROW = "k"


class MoveKind(StrEnum):
    """``transfer`` moves cards between piles; the others touch the stock."""

    TRANSFER = "transfer"
    DEAL = "d"
    STOCK = "s"
    REDEAL = "rd"


@dataclass(frozen=True, slots=True)
class Pile:
    """A pile reference; ``index`` is 1-based as in the notation, None = "any that fits"."""

    kind: PileKind
    index: int | None = None

    def text(self) -> str:
        if self.kind is PileKind.COLUMN:
            return str(self.index)
        if self.index is None:
            return self.kind.value
        return f"{self.kind.value}{self.index}"

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True)
class Move:
    """One move. ``sources`` has several entries only for a multi-card reserve move."""

    kind: MoveKind
    sources: tuple[Pile, ...] = ()
    target: Pile | None = None
    count: int | None = None

    @staticmethod
    def parse(text: str) -> Move:
        """Parse docs/rules.md notation; raise NotationError on anything else."""
        if not isinstance(text, str):
            raise NotationError(f"a move is text, not {type(text).__name__}", text=repr(text))
        if len(text) > MAX_MOVE_TEXT:
            raise NotationError(f"a move is at most {MAX_MOVE_TEXT} characters", text=text[:MAX_MOVE_TEXT])
        return _parse(text.strip().lower())

    def text(self) -> str:
        if self.kind is not MoveKind.TRANSFER:
            return self.kind.value
        assert self.target is not None
        out = ",".join(p.text() for p in self.sources) + "-" + self.target.text()
        return out if self.count is None else f"{out}/{self.count}"

    @property
    def source(self) -> Pile:
        return self.sources[0]

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.parse({self.text()!r})"


DEAL = Move(MoveKind.DEAL)
STOCK = Move(MoveKind.STOCK)
REDEAL = Move(MoveKind.REDEAL)

_PILE = r"(?:[1-9]|[rfc][1-9]|[rf]|w|k)"
_MOVE_RE = re.compile(rf"^({_PILE}(?:,{_PILE})*)-({_PILE})(?:/([1-9][0-9]{{0,2}}))?$")
_SOURCE_KINDS = {PileKind.COLUMN, PileKind.RESERVE, PileKind.FOUNDATION, PileKind.WASTE, PileKind.CAPTIVE}
_TARGET_KINDS = {PileKind.COLUMN, PileKind.RESERVE, PileKind.FOUNDATION, PileKind.KING_ROW}


def _pile(tok: str) -> Pile:
    if tok.isdigit():
        return Pile(PileKind.COLUMN, int(tok))
    kind = PileKind(tok[0])
    return Pile(kind, int(tok[1:]) if len(tok) > 1 else None)


@lru_cache(maxsize=4096)
def _parse(t: str) -> Move:
    if t in ("d", "s", "rd"):
        return {"d": DEAL, "s": STOCK, "rd": REDEAL}[t]
    m = _MOVE_RE.match(t)
    if m is None:
        raise NotationError(f"not a move: {t!r}", text=t)
    sources = tuple(_pile(tok) for tok in m.group(1).split(","))
    target = _pile(m.group(2))
    count = int(m.group(3)) if m.group(3) else None
    for p in sources:
        if p.kind not in _SOURCE_KINDS or (p.kind is not PileKind.WASTE and p.index is None):
            raise NotationError(f"{p.text()!r} cannot be the source of a move", text=t)
    if target.kind not in _TARGET_KINDS:
        raise NotationError(f"{target.text()!r} cannot be the target of a move", text=t)
    if len(sources) > 1:
        if target != Pile(PileKind.RESERVE) or any(p.kind is not PileKind.COLUMN for p in sources):
            raise NotationError("several sources move only from columns to 'r'", text=t)
        if len(sources) > 8:
            raise NotationError("at most 8 cards go to the reserve in one move", text=t)
    if count is not None and (target.kind is not PileKind.COLUMN and sources[0].kind is not PileKind.FOUNDATION):
        raise NotationError("'/n' is for runs onto columns and foundation runs", text=t)
    if count is not None and len(sources) > 1:
        raise NotationError("'/n' goes with one source", text=t)
    return Move(MoveKind.TRANSFER, sources, target, count)


def split_moves(text: str) -> list[str]:
    """A replay file's moves: separated by spaces or new lines."""
    return text.split()
