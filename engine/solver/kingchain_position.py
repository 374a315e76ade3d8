"""The king-chain games' compact position (``kingchain``'s search runs on it): columns as ``bytes``, the
reserve as sorted ``bytes``, the foundations by their top ranks; the atomic steps, the compound moves by kind
(Freecell Solver's "tests"), settling safe moves home, and the score that orders a scan's moves. The
module docstring of ``engine.solver.kingchain`` says what each part holds and why."""

from __future__ import annotations

from ..cards import NO_CARD, RANK, RED, SUIT
from ..games.royal_retinue import NUM_CELLS
from ..state import State

#: Atomic steps: a column's free card home, a reserve card home, a run between columns, a reserve card
#: onto a column, a column's free card into the reserve.
F_COL, F_CELL, COL_COL, CELL_COL, COL_CELL = range(5)

Step = tuple[int, ...]
Steps = tuple[Step, ...]
Pos = tuple[tuple[bytes, ...], bytes, bytes]

#: ``_ONTO[lower * 52 + upper]``: ``lower`` may lie on ``upper`` (one rank lower, the other colour).
_ONTO = tuple(RANK[lo] == RANK[up] - 1 and RED[lo] != RED[up] for lo in range(52) for up in range(52))
#: The foundations of a won game.
WON = bytes([13] * 8)
#: Kinds of moves (Freecell Solver's "tests"): home (a free card or a reserve card to its foundation); a
#: reserve card onto a column's card, the cards above that one first into the reserve; a card under others
#: home, the cards above it into the reserve; a run (a whole run of a column) onto a card of another column,
#: the cards above both into the reserve; the top part of a run that lies on its parent onto another parent;
#: a free card into the reserve; a run at the head of its column onto another (the column dies).
HOME, CELL_OUT, DIG_HOME, RUN, PARENT, TO_CELL, HEAD_RUN = range(7)
#: Every atomic move of the game is in one of these kinds (as its simplest case).
ALL_KINDS = frozenset(range(7))


def from_state(state: State) -> Pos:
    """The compact position of a king-chain ``State``."""
    fnd = [0] * 8
    for f in state.foundations:
        if f:
            s = SUIT[f[-1]]
            slot = 2 * s if fnd[2 * s] == 0 else 2 * s + 1
            fnd[slot] = RANK[f[-1]]
    for s in range(4):
        if fnd[2 * s] > fnd[2 * s + 1]:
            fnd[2 * s], fnd[2 * s + 1] = fnd[2 * s + 1], fnd[2 * s]
    cells = bytes(sorted(c for c in state.cells if c != NO_CARD))
    return tuple(bytes(c) for c in state.columns), cells, bytes(fnd)


def key(pos: Pos) -> int:
    """The transposition table's key: the columns as a multiset, the cells, the foundations' ranks; stored
    as its 64-bit hash to keep millions of entries in memory."""
    cols, cells, fnd = pos
    return hash((tuple(sorted(cols)), cells, fnd))


def _home(fnd: bytes, c: int) -> bytes | None:
    """The foundations after ``c`` goes home, or None if it fits none."""
    r = RANK[c]
    i = 2 * SUIT[c]
    lo = fnd[i]
    if lo == r - 1:
        hi = fnd[i + 1]
        if r > hi:
            return fnd[:i] + bytes((hi, r)) + fnd[i + 2 :]
        return fnd[:i] + bytes((r,)) + fnd[i + 1 :]
    if fnd[i + 1] == r - 1:
        return fnd[: i + 1] + bytes((r,)) + fnd[i + 2 :]
    return None


def settle(pos: Pos) -> tuple[Pos, Steps]:
    """Play the safe moves home until none is left (docs/rules-decisions.md: an ace or a two always, a card
    of rank r once both foundations of each suit of the other colour are at r - 1); the steps played."""
    cols, cells, fnd = pos
    steps: list[Step] = []
    while True:
        safe = (_FOUNDATIONS.get(fnd) or _foundations(fnd))[1]
        for i, col in enumerate(cols):
            if col and col[-1] in safe:
                new = _home(fnd, col[-1])
                assert new is not None
                fnd = new
                lst = list(cols)
                lst[i] = col[:-1]
                cols = tuple(lst)
                steps.append((F_COL, i))
                break
        else:
            for c in cells:
                if c in safe:
                    new = _home(fnd, c)
                    assert new is not None
                    fnd = new
                    j = cells.index(c)
                    cells = cells[:j] + cells[j + 1 :]
                    steps.append((F_CELL, c))
                    break
            else:
                break
    if not steps:
        return pos, ()
    return (cols, cells, fnd), tuple(steps)


def apply(pos: Pos, step: Step) -> Pos:
    """One atomic step, assumed legal (the generator only makes legal ones)."""
    cols, cells, fnd = pos
    kind = step[0]
    if kind == F_COL:
        i = step[1]
        col = cols[i]
        new = _home(fnd, col[-1])
        assert new is not None
        lst = list(cols)
        lst[i] = col[:-1]
        return tuple(lst), cells, new
    if kind == F_CELL:
        c = step[1]
        new = _home(fnd, c)
        assert new is not None
        j = cells.index(c)
        return cols, cells[:j] + cells[j + 1 :], new
    if kind == COL_COL:
        _, s, t, k = step
        lst = list(cols)
        src = cols[s]
        lst[s] = src[:-k]
        lst[t] = cols[t] + src[-k:]
        return tuple(lst), cells, fnd
    if kind == CELL_COL:
        _, c, t = step
        j = cells.index(c)
        lst = list(cols)
        lst[t] = cols[t] + bytes((c,))
        return tuple(lst), cells[:j] + cells[j + 1 :], fnd
    i = step[1]
    col = cols[i]
    lst = list(cols)
    lst[i] = col[:-1]
    return tuple(lst), bytes(sorted(cells + col[-1:])), fnd


#: Per column (its bytes): its runs from the free card down, the cards within reach and its disorder; columns
#: recur in many positions, so this is worked out once per column. Emptied now and then to bound memory.
_COLUMNS: dict[bytes, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...], int]] = {}
_COLUMNS_MAX = 300_000
#: Per foundations (their ranks): the cards they take now, and those of them that are safe to send home.
_FOUNDATIONS: dict[bytes, tuple[frozenset[int], frozenset[int]]] = {}


def _column(col: bytes) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...], int]:
    """``(runs, near, disorder)`` of a non-empty column: ``runs`` the (head index, length) of each run from
    the free card down, as far as a full reserve could uncover; ``near`` the (card, cards above it) of its
    top cards that have no child lying on them; ``disorder`` how many cards lie above a lower card that is
    not their parent (the score's term)."""
    n = len(col)
    runs = []
    top = n
    above = 0
    while top > 0 and above <= NUM_CELLS:
        k = 1
        while k < top and _ONTO[col[top - k] * 52 + col[top - k - 1]]:
            k += 1
        runs.append((top - k, k))
        above += k
        top -= k
    near = []
    for dc in range(min(n, NUM_CELLS + 1)):
        c = col[n - 1 - dc]
        if dc == 0 or not _ONTO[col[n - dc] * 52 + c]:
            near.append((c, dc))
    lo = 14
    prev = -1
    disorder = 0
    for c in col:
        r = RANK[c]
        if r > lo and not (prev >= 0 and _ONTO[c * 52 + prev]):
            disorder += 1
        if r < lo:
            lo = r
        prev = c
    info = (tuple(runs), tuple(near), disorder)
    if len(_COLUMNS) >= _COLUMNS_MAX:
        _COLUMNS.clear()
    _COLUMNS[col] = info
    return info


def _foundations(fnd: bytes) -> tuple[frozenset[int], frozenset[int]]:
    """``(wanted, safe)``: the cards ``fnd`` takes now, and those of them that are safe moves (an ace or a
    two always, a card of rank r once both foundations of each suit of the other colour are at r - 1)."""
    wanted = frozenset(13 * s + fnd[2 * s + j] for s in range(4) for j in (0, 1) if fnd[2 * s + j] < 13)
    red_max = max(2, min(fnd[0], fnd[1], fnd[6], fnd[7]) + 1)
    black_max = max(2, min(fnd[2], fnd[3], fnd[4], fnd[5]) + 1)
    safe = frozenset(c for c in wanted if RANK[c] <= (red_max if RED[c] else black_max))
    if len(_FOUNDATIONS) >= _COLUMNS_MAX:
        _FOUNDATIONS.clear()
    _FOUNDATIONS[fnd] = info = (wanted, safe)
    return info


def moves(pos: Pos, runs: bool) -> list[list[Steps]]:
    """Every move of each kind (``HOME`` .. ``HEAD_RUN``) in ``pos``, each a tuple of atomic steps."""
    cols, cells, fnd = pos
    free = NUM_CELLS - len(cells)
    wanted = (_FOUNDATIONS.get(fnd) or _foundations(fnd))[0]
    home: list[Steps] = []
    cell_out: list[Steps] = []
    dig_home: list[Steps] = []
    run: list[Steps] = []
    parent: list[Steps] = []
    to_cell: list[Steps] = []
    head_run: list[Steps] = []
    infos = [(_COLUMNS.get(col) or _column(col)) if col else None for col in cols]
    # where each card lies within reach: (column, cards above it), at most ``free`` cards above, and no child
    # of it lying on it already (no reason to move that one away for another)
    reach: dict[int, list[tuple[int, int]]] = {}
    for t, info in enumerate(infos):
        if info is not None:
            for c, dc in info[1]:
                if dc > free:
                    break
                if c in reach:
                    reach[c].append((t, dc))
                else:
                    reach[c] = [(t, dc)]
    for t, col in enumerate(cols):
        if col and col[-1] in wanted:
            home.append(((F_COL, t),))
    done = set()
    for c in cells:
        if c in done:
            continue
        done.add(c)
        if c in wanted:
            home.append(((F_CELL, c),))
        for p in _PARENTS[c]:
            for t, dc in reach.get(p, ()):
                cell_out.append((*((COL_CELL, t),) * dc, (CELL_COL, c, t)))
    for i, col in enumerate(cols):
        info = infos[i]
        if info is None:
            continue
        n = len(col)
        if free:
            to_cell.append(((COL_CELL, i),))
        # a card under others that goes home
        for d in range(1, min(n - 1, free) + 1):
            if col[n - 1 - d] in wanted:
                dig_home.append((*((COL_CELL, i),) * d, (F_COL, i)))
        # runs: the top one, then the ones below it while the cards above fit in the reserve; the deepest
        # first (it uncovers most), and a run at the head of its column apart (moving it gains nothing:
        # nothing lies under it, and the column dies)
        above = 0
        mine: list[Steps] = []
        seq = info[0] if runs else tuple((j, 1) for j in range(n - 1, max(-1, n - 2 - free), -1))
        for head, k in seq:
            if above > free:
                break
            found = head_run if head == 0 else mine
            for p in _PARENTS[col[head]]:
                for t, dc in reach.get(p, ()):
                    if t != i and above + dc <= free:
                        found.append(((COL_CELL, i),) * above + ((COL_CELL, t),) * dc + ((COL_COL, i, t, k),))
            if above == 0 and k > 1:
                # the top part of the run onto another free card (it leaves its parent free for another)
                for j in range(1, k):
                    for p in _PARENTS[col[n - j]]:
                        for t, dc in reach.get(p, ()):
                            if t != i and dc == 0:
                                parent.append(((COL_COL, i, t, j),))
            above += k
        mine.reverse()
        run.extend(mine)
    return [home, cell_out, dig_home, run, parent, to_cell, head_run]


#: ``_PARENTS[c]``: the cards ``c`` may lie on in a column.
_PARENTS = tuple(tuple(p for p in range(52) if _ONTO[c * 52 + p]) for c in range(52))


Line = tuple[Steps, ...]


class Exhausted(Exception):
    """A scan has seen every position reachable from the start."""


#: The score's weights: cards not home, cards out of order, depth of the wanted cards, empty cells.
WEIGHTS = (8, 3, 1, 2)


def score(pos: Pos, weights: tuple[int, int, int, int] = WEIGHTS) -> int:
    """How far from won (lower is better): cards not home weigh most; then cards lying above a lower card
    of their column that is not their parent in a run, how deep the cards the foundations want next are
    buried, and empty cells count in favour (``profiles``' king-chain score, on the compact position)."""
    cols, cells, fnd = pos
    wanted = (_FOUNDATIONS.get(fnd) or _foundations(fnd))[0]
    disorder = 0
    buried = 0
    for col in cols:
        if col:
            disorder += (_COLUMNS.get(col) or _column(col))[2]
            last = len(col) - 1
            for c in wanted:
                j = col.rfind(c)
                if j >= 0:
                    buried += last - j
                    first = col.find(c)
                    if first != j:
                        buried += last - first
    w_home, w_disorder, w_buried, w_cell = weights
    return w_home * (104 - sum(fnd)) + w_disorder * disorder + w_buried * buried - w_cell * (NUM_CELLS - len(cells))
