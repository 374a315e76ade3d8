"""Family 3, Captives (seed 001): kings free the cards held face down beneath them.

Layout in a :class:`State`: ``columns`` are the 8 columns (last = the playable
card), ``foundations`` the 8 king-row slots (a pile K, A, 2 .. Q; last = top),
``captives`` the 7 face-down cards under slots 1-7 (``NO_CARD`` once played),
``stock``/``waste`` the stock (index 0 turned next) and the waste (last = top),
``redeals`` the waste turns used. A captive is released when its slot holds 13
cards; nothing in the state changes for that, so it happens "in the same move"
as the queen that completes the slot.

The Decisions taken here are in docs/rules-decisions.md, "Family 3: Captives".
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Final

from ..cards import KING, NO_CARD, RANK, SUIT, TEXT, Card, canonical_deck
from ..deal import Pick, topmost
from ..errors import Reason
from ..game import VariantInfo, illegal
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State
from .stock_waste import TurnsStock, turn_one, turn_waste

CAPTIVE_COUNT: Final = 7
SLOT_COUNT: Final = 8
COLUMN_COUNT: Final = 8
ROW_COUNT: Final = 4
COMPLETE: Final = 13  # K, A, 2 .. Q
TURNS: Final = 2  # waste turns: three passes in all

_FULL_DECK: Final = sorted(canonical_deck(104))
_KING_ROW: Final = Pile(PileKind.KING_ROW)
_WASTE: Final = Pile(PileKind.WASTE)
_STOCK: Final = Move(MoveKind.STOCK)
_REDEAL: Final = Move(MoveKind.REDEAL)
#: The piles and column moves ``successors`` hands out, built once (columns and slots by 0-based index).
_COLUMNS: Final = tuple(Pile(PileKind.COLUMN, i + 1) for i in range(9))
_FOUNDATIONS: Final = tuple(Pile(PileKind.FOUNDATION, i + 1) for i in range(9))

#: ``_NEXT[top]``: the card that goes onto a king-row pile topped by ``top`` (K -> A, A -> 2, ..., Q -> none).
_NEXT: Final = tuple(c - 12 if RANK[c] == KING else (NO_CARD if RANK[c] == KING - 1 else c + 1) for c in range(52))


def _on_column(c: Card, top: Card) -> bool:
    """Columns build down in suit in natural order; nothing goes on an ace (no wrap)."""
    return c == top - 1 and RANK[top] != 1


def _run_length(col: tuple[Card, ...]) -> int:
    """How many cards at the end of ``col`` form a run in suit (1 for a lone free card)."""
    n = 1
    i = len(col) - 1
    while i > 0 and _on_column(col[i], col[i - 1]):
        n += 1
        i -= 1
    return n


class Captives(TurnsStock):
    info = VariantInfo(
        id="captives",
        name_en="Captives",
        name_ru="Пленники",
        family="captives",
        summary="Seven face-down captives wait under the king row; 8 columns of 4 build down in suit; kings go "
        "to the king row and build up in suit K, A, 2 .. Q; a completed pile frees its captive. Stock one card "
        "at a time, three passes.",
        deck_size=104,
    )

    # -- the deal ---------------------------------------------------------------

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        """7 captives, then 4 rows of 8 face up (row by row), then the stock of 65 (nothing is pulled out: ``pick``
        is unused)."""
        if sorted(deck) != _FULL_DECK:
            raise ValueError(f"captives deals from two full decks ({self.info.deck_size} cards), not these {len(deck)}")
        captives = tuple(deck[:CAPTIVE_COUNT])
        tableau = deck[CAPTIVE_COUNT : CAPTIVE_COUNT + COLUMN_COUNT * ROW_COUNT]
        columns = tuple(tuple(tableau[col::COLUMN_COUNT]) for col in range(COLUMN_COUNT))
        return State(
            columns=columns,
            foundations=((),) * SLOT_COUNT,
            stock=tuple(deck[CAPTIVE_COUNT + COLUMN_COUNT * ROW_COUNT :]),
            captives=captives,
        )

    # -- what the player sees ----------------------------------------------------

    def captive_released(self, state: State, slot: int) -> bool:
        """A slot's captive is face up once the slot holds its 13 cards, until it is played."""
        return (
            0 <= slot < len(state.captives)
            and state.captives[slot] != NO_CARD
            and len(state.foundations[slot]) == COMPLETE
        )

    def redeals_allowed(self) -> int:
        return TURNS

    def is_won(self, state: State) -> bool:
        """All 104 cards in 8 complete piles."""
        if state.stock or state.waste:  # a card still to play is not home (the quick answer after most moves)
            return False
        f = state.foundations
        return len(f) == SLOT_COUNT and all(len(p) == COMPLETE for p in f)

    # -- legal moves --------------------------------------------------------------

    def generate_legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move in explicit form: home moves first, then column moves, then the stock."""
        if self.is_won(state):
            return
        columns = state.columns
        found = state.foundations
        empty_slot = _first_empty(found)
        # Playable cards that may go home: column tops, the waste top, released captives.
        sources: list[tuple[Pile, Card]] = [
            (Pile(PileKind.COLUMN, i + 1), col[-1]) for i, col in enumerate(columns) if col
        ]
        if state.waste:
            sources.append((_WASTE, state.waste[-1]))
        sources += [
            (Pile(PileKind.CAPTIVE, i + 1), c)
            for i, c in enumerate(state.captives)
            if c != NO_CARD and len(found[i]) == COMPLETE
        ]
        for src, c in sources:
            if RANK[c] == KING:
                if empty_slot is not None:
                    yield Move(MoveKind.TRANSFER, (src,), _KING_ROW)
                continue
            for slot in _distinct_fits(state, c):
                yield Move(MoveKind.TRANSFER, (src,), Pile(PileKind.FOUNDATION, slot + 1))
        # Column runs.
        for s, col in enumerate(columns):
            if not col:
                continue
            run = _run_length(col)
            top = col[-1]
            src = Pile(PileKind.COLUMN, s + 1)
            for d, target in enumerate(columns):
                if d == s:
                    continue
                dst = Pile(PileKind.COLUMN, d + 1)
                if target:
                    n = _fitting_length(top, run, target[-1])
                    if n:
                        yield Move(MoveKind.TRANSFER, (src,), dst, n)
                else:
                    for n in range(1, run + 1):
                        yield Move(MoveKind.TRANSFER, (src,), dst, n)
        # The waste top onto a column.
        if state.waste:
            w = state.waste[-1]
            for d, target in enumerate(columns):
                if not target or _on_column(w, target[-1]):
                    yield Move(MoveKind.TRANSFER, (_WASTE,), Pile(PileKind.COLUMN, d + 1))
        if state.stock:
            yield Move(MoveKind.STOCK)
        elif state.waste and state.redeals < TURNS:
            yield Move(MoveKind.REDEAL)

    def successors(self, state: State) -> Iterator[tuple[State, Move]]:
        """``generate_legal_moves`` with each move's position, built without ``play``'s checks (the same order)."""
        if self.is_won(state):
            return
        columns = state.columns
        found = state.foundations
        empty_slot = _first_empty(found)
        sources: list[tuple[Pile, int, Card]] = [(_COLUMNS[i], i, col[-1]) for i, col in enumerate(columns) if col]
        if state.waste:
            sources.append((_WASTE, 0, state.waste[-1]))
        sources += [
            (Pile(PileKind.CAPTIVE, i + 1), i, c)
            for i, c in enumerate(state.captives)
            if c != NO_CARD and len(found[i]) == COMPLETE
        ]
        for src, at, c in sources:
            if RANK[c] == KING:
                if empty_slot is not None:
                    yield _homed(state, src.kind, at, c, empty_slot), Move(MoveKind.TRANSFER, (src,), _KING_ROW)
                continue
            for slot in _distinct_fits(state, c):
                yield _homed(state, src.kind, at, c, slot), Move(MoveKind.TRANSFER, (src,), _FOUNDATIONS[slot])
        for s, col in enumerate(columns):
            if not col:
                continue
            run = _run_length(col)
            top = col[-1]
            for d, target in enumerate(columns):
                if d == s:
                    continue
                if target:
                    n = _fitting_length(top, run, target[-1])
                    if n:
                        yield _run_moved(state, s, d, n), _column_move(s, d, n)
                else:
                    for n in range(1, run + 1):
                        yield _run_moved(state, s, d, n), _column_move(s, d, n)
        if state.waste:
            w = state.waste[-1]
            for d, target in enumerate(columns):
                if not target or _on_column(w, target[-1]):
                    yield _waste_moved(state, d), Move(MoveKind.TRANSFER, (_WASTE,), _COLUMNS[d])
        if state.stock:
            yield turn_one(state, _STOCK), _STOCK
        elif state.waste and state.redeals < TURNS:
            yield turn_waste(state, _REDEAL, TURNS), _REDEAL

    # -- playing a move -------------------------------------------------------------

    def _play(self, state: State, move: Move) -> tuple[State, Move]:
        if self.is_won(state):
            raise illegal(Reason.GAME_OVER, "the game is won: no move is left to play", move)
        kind = move.kind
        if kind is MoveKind.STOCK:
            return turn_one(state, move), move
        if kind is MoveKind.REDEAL:
            return turn_waste(state, move, TURNS), move
        if kind is not MoveKind.TRANSFER:
            raise illegal(Reason.NOT_IN_THIS_GAME, "captives has no deal move: turn the stock with 's'", move)
        if len(move.sources) > 1:
            raise illegal(Reason.NOT_IN_THIS_GAME, "captives has no reserve: one source a move", move)
        src = move.sources[0]
        dst = move.target
        assert dst is not None
        if src.kind is PileKind.FOUNDATION:
            raise illegal(Reason.NOT_IN_THIS_GAME, "cards on the king row never move", move)
        if src.kind is PileKind.RESERVE or dst.kind is PileKind.RESERVE:
            raise illegal(Reason.NO_SUCH_PILE, "captives has no reserve cells", move)
        if dst.kind is PileKind.COLUMN:
            if src.kind is PileKind.CAPTIVE:
                raise illegal(
                    Reason.NOT_IN_THIS_GAME, "a released captive goes only onto a king-row pile, never a column", move
                )
            return _to_column(state, move, src, dst)
        return _home(state, move, src, dst)


# -- helpers (module level: no self, cheap to call) -----------------------------------


def _first_empty(found: tuple[tuple[Card, ...], ...]) -> int | None:
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


def _distinct_fits(state: State, c: Card) -> list[int]:
    """Every king-row pile that takes ``c`` (not a king) and leads to a distinct position.

    Two piles that take ``c`` have the same top card, so they differ only by what waits under them: a pile
    with a captive still held under it is unlike every other (completing it releases that captive), while
    piles with no captive waiting (slot 8, or a slot whose captive was played) are interchangeable: only
    the first of those is listed.
    """
    found = state.foundations
    captives = state.captives
    out: list[int] = []
    plain = False
    for i, p in enumerate(found):
        if p and _NEXT[p[-1]] == c:
            if i < len(captives) and captives[i] != NO_CARD:
                out.append(i)
            elif not plain:
                plain = True
                out.append(i)
    return out


def _fitting_length(top: Card, run: int, target: Card) -> int:
    """The one tail length of a run (free card ``top``) that goes onto ``target``; 0 if none."""
    if SUIT[top] != SUIT[target]:
        return 0
    n = RANK[target] - RANK[top]  # the run card of rank target-1 is n cards from the end
    return n if 1 <= n <= run else 0


@lru_cache(maxsize=1024)
def _column_move(s: int, d: int, n: int) -> Move:
    """``s+1``-``d+1``/``n``, one value per move."""
    return Move(MoveKind.TRANSFER, (_COLUMNS[s],), _COLUMNS[d], n)


def _column_index(pile: Pile, move: Move) -> int:
    i = pile.index
    if i is None or not 1 <= i <= COLUMN_COUNT:
        raise illegal(Reason.NO_SUCH_PILE, f"captives has columns 1 to {COLUMN_COUNT}, not {pile.text()}", move)
    return i - 1


def _replace_columns(state: State, columns: tuple[tuple[Card, ...], ...], waste: tuple[Card, ...]) -> State:
    return State(
        columns=columns,
        foundations=state.foundations,
        stock=state.stock,
        waste=waste,
        captives=state.captives,
        redeals=state.redeals,
    )


def _to_column(state: State, move: Move, src: Pile, dst: Pile) -> tuple[State, Move]:
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
        return _waste_moved(state, d), Move(MoveKind.TRANSFER, (_WASTE,), dst)
    s = _column_index(src, move)
    if s == d:
        raise illegal(Reason.SAME_PILE, f"column {s + 1} onto itself", move)
    col = columns[s]
    if not col:
        raise illegal(Reason.EMPTY_PILE, f"column {s + 1} is empty", move)
    run = _run_length(col)
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
        n = _fitting_length(col[-1], run, target[-1])
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
    return _run_moved(state, s, d, n), Move(MoveKind.TRANSFER, (src,), dst, n)


def _run_moved(state: State, s: int, d: int, n: int) -> State:
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


def _waste_moved(state: State, d: int) -> State:
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


def _home(state: State, move: Move, src: Pile, dst: Pile) -> tuple[State, Move]:
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
        slot = _first_empty(found)
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
        explicit = Move(MoveKind.TRANSFER, (src,), _KING_ROW)
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
    return _homed(state, src.kind, at, c, slot), explicit


def _homed(state: State, kind: PileKind, at: int, c: Card, slot: int) -> State:
    """The position after card ``c`` goes from its source (a column or a captive ``at``, 0-based, or the waste)
    onto king-row slot ``slot`` (0-based; checked before)."""
    columns = state.columns
    waste = state.waste
    captives = state.captives
    found = state.foundations
    new_found = (*found[:slot], found[slot] + (c,), *found[slot + 1 :])
    # Remove the card from its source.
    if kind is PileKind.COLUMN:
        columns = (*columns[:at], columns[at][:-1], *columns[at + 1 :])
    elif kind is PileKind.WASTE:
        waste = waste[:-1]
    else:
        captives = (*captives[:at], NO_CARD, *captives[at + 1 :])
    return State(
        columns=columns,
        foundations=new_found,
        stock=state.stock,
        waste=waste,
        captives=captives,
        redeals=state.redeals,
    )
