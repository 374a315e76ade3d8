"""Captives' moves applied (``captives.Captives._play``): onto a column, home to a king-row slot, from the
waste; and the layout's constants both modules share. Split from ``captives`` so that each stays small; the
rules and decisions are in its docstring and docs/rules-decisions.md, "Family 3: Captives"."""

from __future__ import annotations

from typing import Final

from ..cards import KING, NO_CARD, RANK, SUIT, TEXT, Card, canonical_deck
from ..errors import Reason
from ..game import illegal
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State

CAPTIVE_COUNT: Final = 7
SLOT_COUNT: Final = 8
COLUMN_COUNT: Final = 8
ROW_COUNT: Final = 4
COMPLETE: Final = 13  # K, A, 2 .. Q
TURNS: Final = 2  # waste turns: three passes in all

FULL_DECK: Final = sorted(canonical_deck(104))
KING_ROW: Final = Pile(PileKind.KING_ROW)
WASTE: Final = Pile(PileKind.WASTE)
STOCK: Final = Move(MoveKind.STOCK)
REDEAL: Final = Move(MoveKind.REDEAL)
#: The piles and moves ``successors`` hands out, built once (columns, slots and captives by 0-based index).
COLUMNS: Final = tuple(Pile(PileKind.COLUMN, i + 1) for i in range(9))
FOUNDATIONS: Final = tuple(Pile(PileKind.FOUNDATION, i + 1) for i in range(9))
CAPTIVES: Final = tuple(Pile(PileKind.CAPTIVE, i + 1) for i in range(CAPTIVE_COUNT))
#: ``HOME[source][slot]``: a card home; ``source`` is a column 0..7, the waste 8 or a captive 9..15; slot 8 (f9)
#: does not exist in captives but keeps the tables square. ``TO_KING_ROW[source]``: a king to the king row.
_SOURCES: Final = (*COLUMNS[:COLUMN_COUNT], WASTE, *CAPTIVES)
WASTE_SOURCE: Final = COLUMN_COUNT
CAPTIVE_SOURCE: Final = COLUMN_COUNT + 1
HOME: Final = tuple(tuple(Move(MoveKind.TRANSFER, (src,), f) for f in FOUNDATIONS) for src in _SOURCES)
TO_KING_ROW: Final = tuple(Move(MoveKind.TRANSFER, (src,), KING_ROW) for src in _SOURCES)
#: ``RUN_MOVES[s][d][n]``: ``s+1``-``d+1``/``n`` (a run in suit is at most 13 cards); ``WASTE_TO[d]``: ``w``-``d+1``.
RUN_MOVES: Final = tuple(
    tuple(tuple(Move(MoveKind.TRANSFER, (COLUMNS[s],), COLUMNS[d], n) for n in range(14)) for d in range(9))
    for s in range(9)
)
WASTE_TO: Final = tuple(Move(MoveKind.TRANSFER, (WASTE,), COLUMNS[d]) for d in range(9))
#: The four kings.
KINGS: Final = frozenset(c for c in range(52) if RANK[c] == KING)
#: ``SUIT_KING[c]``: the king of ``c``'s suit, the highest card a run of that suit can go onto.
SUIT_KING: Final = tuple(c // 13 * 13 + 12 for c in range(52))

#: ``_NEXT[top]``: the card that goes onto a king-row pile topped by ``top`` (K -> A, A -> 2, ..., Q -> none).
_NEXT: Final = tuple(c - 12 if RANK[c] == KING else (NO_CARD if RANK[c] == KING - 1 else c + 1) for c in range(52))


def on_column(c: Card, top: Card) -> bool:
    """Columns build down in suit in natural order; nothing goes on an ace (no wrap)."""
    return c == top - 1 and RANK[top] != 1


def run_length(col: tuple[Card, ...]) -> int:
    """How many cards at the end of ``col`` form a run in suit (1 for a lone free card)."""
    n = 1
    i = len(col) - 1
    c = col[i]
    while i > 0:
        top = col[i - 1]
        if c != top - 1 or RANK[top] == 1:  # not ``on_column(c, top)``
            break
        n += 1
        i -= 1
        c = top
    return n


def first_empty(found: tuple[tuple[Card, ...], ...]) -> int | None:
    for i, p in enumerate(found):
        if not p:
            return i
    return None


def _first_fit(found: tuple[tuple[Card, ...], ...], c: Card) -> int | None:
    """The lowest-numbered non-empty king-row pile that takes ``c`` (not a king)."""
    for i, p in enumerate(found):
        if p and _NEXT[p[-1]] == c:
            return i
    return None


def home_fits(found: tuple[tuple[Card, ...], ...], captives: tuple[Card, ...]) -> dict[Card, list[int]]:
    """For every card a king-row pile takes (never a king), the piles that take it and lead to distinct positions.

    Two piles that take a card have the same top card, so they differ only by what waits under them: a pile
    with a captive still held under it is unlike every other (completing it releases that captive), while
    piles with no captive waiting (slot 8, or a slot whose captive was played) are interchangeable: only
    the first of those is listed.
    """
    fits: dict[Card, list[int]] = {}
    plain: set[Card] = set()
    held = len(captives)
    for i, p in enumerate(found):
        if p:
            c = _NEXT[p[-1]]
            if c == NO_CARD:
                continue
            if i < held and captives[i] != NO_CARD:
                fits.setdefault(c, []).append(i)
            elif c not in plain:
                plain.add(c)
                fits.setdefault(c, []).append(i)
    return fits


#: What ``successors`` needs of a king row and the captives (``KingRow``), for the last ones it was asked of: a
#: position's children mostly share both with it (the very same tuples), and the search often expands a child
#: next. Replaced whole, so that threads never see half an entry.
KingRow = tuple[dict[Card, list[int]], int | None, tuple[tuple[int, Card], ...]]
_row_last: tuple[object, object, KingRow] = ((), (), ({}, None, ()))


def king_row(found: tuple[tuple[Card, ...], ...], captives: tuple[Card, ...]) -> KingRow:
    """``home_fits``, the first empty slot (``first_empty``), and the released captives (slot, card)."""
    global _row_last
    last = _row_last
    if last[0] is found and last[1] is captives:
        return last[2]
    freed = tuple((i, c) for i, c in enumerate(captives) if c != NO_CARD and len(found[i]) == COMPLETE)
    row = home_fits(found, captives), first_empty(found), freed
    _row_last = (found, captives, row)
    return row


def fitting_length(top: Card, run: int, target: Card) -> int:
    """The one tail length of a run (free card ``top``) that goes onto ``target``; 0 if none."""
    if SUIT[top] != SUIT[target]:
        return 0
    n = RANK[target] - RANK[top]  # the run card of rank target-1 is n cards from the end
    return n if 1 <= n <= run else 0


def _column_index(pile: Pile, move: Move) -> int:
    i = pile.index
    if i is None or not 1 <= i <= COLUMN_COUNT:
        raise illegal(Reason.NO_SUCH_PILE, f"captives has columns 1 to {COLUMN_COUNT}, not {pile.text()}", move)
    return i - 1


def _replace_columns(state: State, columns: tuple[tuple[Card, ...], ...], waste: tuple[Card, ...]) -> State:
    _, cells, found, stock, _, captives, fixed, redeals, fresh = state
    return tuple.__new__(State, (columns, cells, found, stock, waste, captives, fixed, redeals, fresh))


def to_column(state: State, move: Move, src: Pile, dst: Pile) -> tuple[State, Move]:
    d = _column_index(dst, move)
    columns = state.columns
    target = columns[d]
    if src.kind is PileKind.WASTE:
        if not state.waste:
            raise illegal(Reason.EMPTY_PILE, "the waste is empty", move)
        if move.count is not None and move.count != 1:
            raise illegal(Reason.NOT_FREE_CARD, "only the waste's top card can be taken", move)
        w = state.waste[-1]
        if target:
            _check_column_fit(w, target[-1], d, move)
        return waste_moved(state, d), Move(MoveKind.TRANSFER, (WASTE,), dst)
    s = _column_index(src, move)
    if s == d:
        raise illegal(Reason.SAME_PILE, f"column {s + 1} onto itself", move)
    col = columns[s]
    if not col:
        raise illegal(Reason.EMPTY_PILE, f"column {s + 1} is empty", move)
    run = run_length(col)
    n = move.count
    if n is not None:
        if n > run:
            raise illegal(
                Reason.NOT_FREE_CARD,
                f"only the last {run} card{'s' if run > 1 else ''} of column {s + 1} form a run in suit, not {n}",
                move,
            )
        if target:
            _check_column_fit(col[-n], target[-1], d, move)
    elif target:
        n = fitting_length(col[-1], run, target[-1])
        if not n:
            t = target[-1]
            tail = col[-run:]
            if any(RANK[c] == RANK[t] - 1 for c in tail):
                raise illegal(
                    Reason.WRONG_SUIT,
                    f"the run {' '.join(TEXT[c] for c in tail)} of column {s + 1} is not of {TEXT[t]}'s suit",
                    move,
                )
            raise illegal(
                Reason.DOES_NOT_FIT,
                f"no card of the run {' '.join(TEXT[c] for c in tail)} of column {s + 1} goes on {TEXT[t]}: "
                f"columns build down in suit",
                move,
            )
    else:
        n = run
    return run_moved(state, s, d, n), Move(MoveKind.TRANSFER, (src,), dst, n)


def run_moved(state: State, s: int, d: int, n: int) -> State:
    """The position after the last ``n`` cards of column ``s`` go onto column ``d`` (0-based; checked before)."""
    columns = state.columns
    col = columns[s]
    target = columns[d]
    moved = col[-n:]
    cut = col[:-n]
    if s < d:
        new_cols = (*columns[:s], cut, *columns[s + 1 : d], target + moved, *columns[d + 1 :])
    else:
        new_cols = (*columns[:d], target + moved, *columns[d + 1 : s], cut, *columns[s + 1 :])
    return _replace_columns(state, new_cols, state.waste)


def waste_moved(state: State, d: int) -> State:
    """The position after the waste's top card goes onto column ``d`` (0-based; checked before)."""
    columns = state.columns
    new_cols = (*columns[:d], (*columns[d], state.waste[-1]), *columns[d + 1 :])
    return _replace_columns(state, new_cols, state.waste[:-1])


def _check_column_fit(c: Card, t: Card, d: int, move: Move) -> None:
    """Rank first, then suit; raise if ``c`` may not go on ``t`` (column ``d``)."""
    if RANK[c] != RANK[t] - 1:
        why = "nothing goes on an ace" if RANK[t] == 1 else f"column {d + 1} takes {TEXT[t - 1]}"
        raise illegal(Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[t]}: {why}", move)
    if SUIT[c] != SUIT[t]:
        raise illegal(Reason.WRONG_SUIT, f"{TEXT[c]} does not go on {TEXT[t]}: columns build down in suit", move)


def to_home(state: State, move: Move, src: Pile, dst: Pile) -> tuple[State, Move]:
    """A playable card to the king row (a king) or onto a king-row pile."""
    columns = state.columns
    waste = state.waste
    captives = state.captives
    found = state.foundations
    if dst.index is not None and not 1 <= dst.index <= len(found):
        raise illegal(Reason.NO_SUCH_PILE, f"the king row has slots f1 to f{len(found)}, not {dst.text()}", move)
    # Take the card (validating the source).
    at = 0  # the source's 0-based index (columns, captives)
    if src.kind is PileKind.COLUMN:
        at = _column_index(src, move)
        col = columns[at]
        if not col:
            raise illegal(Reason.EMPTY_PILE, f"column {at + 1} is empty", move)
        c = col[-1]
    elif src.kind is PileKind.WASTE:
        if not waste:
            raise illegal(Reason.EMPTY_PILE, "the waste is empty", move)
        c = waste[-1]
    else:  # a captive
        i = src.index
        if i is None or not 1 <= i <= len(captives):
            raise illegal(Reason.NO_SUCH_PILE, f"captives sit under slots 1 to {len(captives)}, not {src.text()}", move)
        at = i - 1
        c = captives[at]
        if c == NO_CARD:
            raise illegal(Reason.EMPTY_PILE, f"the captive of slot {i} has been played", move)
        if len(found[i - 1]) != COMPLETE:
            # Never name the card: it is face down.
            raise illegal(Reason.HIDDEN_CARD, f"the captive of slot {i} is held until slot {i} reaches its queen", move)
    # Where it goes.
    if RANK[c] == KING:
        slot = first_empty(found)
        if dst.index is not None:
            j = dst.index - 1
            if found[j]:
                raise illegal(Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[found[j][-1]]}", move)
            if j != slot:
                raise illegal(
                    Reason.DOES_NOT_FIT,
                    f"the king row fills left to right: {TEXT[c]} goes to slot f{(slot or 0) + 1}, not {dst.text()}",
                    move,
                )
        if slot is None:
            raise illegal(Reason.KING_ROW_FULL, f"no empty slot in the king row for {TEXT[c]}", move)
        explicit = Move(MoveKind.TRANSFER, (src,), KING_ROW)
    else:
        if dst.kind is PileKind.KING_ROW:
            raise illegal(Reason.NOT_A_KING, f"only a king starts a slot in the king row, not {TEXT[c]}", move)
        if dst.index is None:
            fit = _first_fit(found, c)
            if fit is None:
                raise illegal(Reason.DOES_NOT_FIT, f"no king-row pile takes {TEXT[c]}", move)
            slot = fit
        else:
            slot = dst.index - 1
            p = found[slot]
            if not p:
                raise illegal(Reason.DOES_NOT_FIT, f"empty slot {dst.text()} takes only a king, not {TEXT[c]}", move)
            t = p[-1]
            nxt = _NEXT[t]
            if nxt == NO_CARD:
                raise illegal(Reason.DOES_NOT_FIT, f"slot {dst.text()} is complete", move)
            if RANK[c] != RANK[nxt]:
                raise illegal(
                    Reason.DOES_NOT_FIT,
                    f"{TEXT[c]} does not go on {TEXT[t]}: slot {dst.text()} takes {TEXT[nxt]} next",
                    move,
                )
            if SUIT[c] != SUIT[nxt]:
                raise illegal(
                    Reason.WRONG_SUIT, f"{TEXT[c]} does not go on {TEXT[t]}: the king row builds in suit", move
                )
        explicit = Move(MoveKind.TRANSFER, (src,), Pile(PileKind.FOUNDATION, slot + 1))
    return homed(state, src.kind, at, c, slot), explicit


def homed(state: State, kind: PileKind, at: int, c: Card, slot: int) -> State:
    """The position after card ``c`` goes from its source (a column or a captive ``at``, 0-based, or the waste)
    onto king-row slot ``slot`` (0-based; checked before)."""
    columns, cells, found, stock, waste, captives, fixed, redeals, fresh = state
    piles = list(found)
    piles[slot] = found[slot] + (c,)
    # Remove the card from its source.
    if kind is PileKind.COLUMN:
        cut = list(columns)
        cut[at] = columns[at][:-1]
        columns = tuple(cut)
    elif kind is PileKind.WASTE:
        waste = waste[:-1]
    else:
        held = list(captives)
        held[at] = NO_CARD
        captives = tuple(held)
    # ``tuple.__new__``: a named tuple's own way, without its keyword handling (the solver's inner loop)
    return tuple.__new__(State, (columns, cells, tuple(piles), stock, waste, captives, fixed, redeals, fresh))
