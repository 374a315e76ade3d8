"""What the king-chain games' rules share (royal_retinue.py deals and lists the moves, king_chain_play.py checks
and plays them): their sizes, the table of which card lies on which, the explicit moves built once, and a quick
``State`` constructor. ``play`` is the replay verifier's inner loop, so it looks things up instead of working them
out, and returns these pre-built moves instead of making new ones."""

from __future__ import annotations

from ..cards import RANK, RED, Card
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State

NUM_CELLS = 8
NUM_FOUNDATIONS = 8
ALL_CARDS = 104

_COL = PileKind.COLUMN
_RES = PileKind.RESERVE
_FND = PileKind.FOUNDATION
_TRANSFER = MoveKind.TRANSFER

#: ``ONTO[lower * 52 + upper]``: ``lower`` may lie on ``upper`` in a column (one rank lower, other colour).
ONTO = tuple(RANK[lo] == RANK[up] - 1 and RED[lo] != RED[up] for lo in range(52) for up in range(52))

# Explicit moves, built once: ``play`` returns these instead of making new Move objects. A move between
# columns always states its length (``3-7/1``); a reserve card's move names its cell and target (``r1-4``).
_MAX_COLS = 9
_MAX_RUN = 13
_COLS = tuple(Pile(_COL, i) for i in range(_MAX_COLS + 1))
_CELLS = tuple(Pile(_RES, i) for i in range(NUM_CELLS + 1))
_FNDS = tuple(Pile(_FND, i) for i in range(NUM_FOUNDATIONS + 1))


def _mv(src: Pile, dst: Pile, count: int | None = None) -> Move:
    return Move(_TRANSFER, (src,), dst, count)


#: ``C2C[(s * 10 + t) * 14 + k]``: column s to column t, k cards (1-based piles).
C2C = tuple(
    _mv(_COLS[s], _COLS[t], k)  # entries with a 0 are never used
    for s in range(10)
    for t in range(10)
    for k in range(_MAX_RUN + 1)
)
C2R = tuple(tuple(_mv(_COLS[s], c) for c in _CELLS) for s in range(10))
C2F = tuple(tuple(_mv(_COLS[s], f) for f in _FNDS) for s in range(10))
R2C = tuple(tuple(_mv(r, _COLS[t]) for t in range(10)) for r in _CELLS)
R2F = tuple(tuple(_mv(r, f) for f in _FNDS) for r in _CELLS)
#: ``F2F[(s * 9 + t) * 14 + k]``: foundation run of k cards from f_s onto f_t.
F2F = tuple(
    _mv(_FNDS[s], _FNDS[t], k)  # entries with a 0 are never used
    for s in range(9)
    for t in range(9)
    for k in range(_MAX_RUN + 1)
)

_tuple_new = tuple.__new__


def new_state(
    columns: tuple[tuple[Card, ...], ...], cells: tuple[Card, ...], foundations: tuple[tuple[Card, ...], ...]
) -> State:
    """``State(columns, cells, foundations)`` without the named tuple's Python-level ``__new__`` (every move
    builds one). The field order is ``State``'s; ``tests/engine/test_royal_retinue.py`` checks the two agree."""
    return _tuple_new(State, (columns, cells, foundations, (), (), (), (), 0, False))


def run_length(col: tuple[Card, ...]) -> int:
    """Length of the run at the end of a non-empty column (alternate colours, one rank apart)."""
    k = 1
    n = len(col)
    while k < n and ONTO[col[-k] * 52 + col[-k - 1]]:
        k += 1
    return k


def is_run(s: tuple[Card, ...], k: int) -> bool:
    """Whether the last ``k`` cards of ``s`` (1 <= k <= len(s)) form a run."""
    for i in range(len(s) - k, len(s) - 1):  # noqa: SIM110 - a plain loop beats all(genexpr) on short runs
        if not ONTO[s[i + 1] * 52 + s[i]]:
            return False
    return True
