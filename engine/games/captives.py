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

from collections.abc import Iterable, Iterator

from ..cards import KING, NO_CARD, RANK, Card
from ..deal import Pick, topmost
from ..errors import Reason
from ..game import VariantInfo, illegal
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State
from .captives_play import (
    CAPTIVE_COUNT,
    CAPTIVE_SOURCE,
    COLUMN_COUNT,
    COMPLETE,
    FULL_DECK,
    HOME,
    KING_ROW,
    KINGS,
    REDEAL,
    ROW_COUNT,
    RUN_MOVES,
    SLOT_COUNT,
    STOCK,
    SUIT_KING,
    TO_KING_ROW,
    TURNS,
    WASTE,
    WASTE_SOURCE,
    WASTE_TO,
    first_empty,
    fitting_length,
    home_fits,
    homed,
    king_row,
    on_column,
    run_length,
    to_column,
    to_home,
    waste_moved,
)
from .stock_waste import TurnsStock, turn_one, turn_waste

__all__ = ["CAPTIVE_COUNT", "COLUMN_COUNT", "COMPLETE", "ROW_COUNT", "SLOT_COUNT", "TURNS", "Captives"]


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
        if sorted(deck) != FULL_DECK:
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
        empty_slot = first_empty(found)
        fits = home_fits(found, state.captives)
        # Playable cards that may go home: column tops, the waste top, released captives.
        sources: list[tuple[Pile, Card]] = [
            (Pile(PileKind.COLUMN, i + 1), col[-1]) for i, col in enumerate(columns) if col
        ]
        if state.waste:
            sources.append((WASTE, state.waste[-1]))
        sources += [
            (Pile(PileKind.CAPTIVE, i + 1), c)
            for i, c in enumerate(state.captives)
            if c != NO_CARD and len(found[i]) == COMPLETE
        ]
        for src, c in sources:
            if RANK[c] == KING:
                if empty_slot is not None:
                    yield Move(MoveKind.TRANSFER, (src,), KING_ROW)
                continue
            for slot in fits.get(c, ()):
                yield Move(MoveKind.TRANSFER, (src,), Pile(PileKind.FOUNDATION, slot + 1))
        # Column runs.
        for s, col in enumerate(columns):
            if not col:
                continue
            run = run_length(col)
            top = col[-1]
            src = Pile(PileKind.COLUMN, s + 1)
            for d, target in enumerate(columns):
                if d == s:
                    continue
                dst = Pile(PileKind.COLUMN, d + 1)
                if target:
                    n = fitting_length(top, run, target[-1])
                    if n:
                        yield Move(MoveKind.TRANSFER, (src,), dst, n)
                else:
                    for n in range(1, run + 1):
                        yield Move(MoveKind.TRANSFER, (src,), dst, n)
        # The waste top onto a column.
        if state.waste:
            w = state.waste[-1]
            for d, target in enumerate(columns):
                if not target or on_column(w, target[-1]):
                    yield Move(MoveKind.TRANSFER, (WASTE,), Pile(PileKind.COLUMN, d + 1))
        if state.stock:
            yield Move(MoveKind.STOCK)
        elif state.waste and state.redeals < TURNS:
            yield Move(MoveKind.REDEAL)

    def successors(self, state: State) -> Iterator[tuple[State, Move]]:
        """``generate_legal_moves`` with each move's position, built without ``play``'s checks (the same order,
        the same values; the solver's inner loop, so the moves come from tables and each column's targets are
        found by its top card, not by trying every other column)."""
        if self.is_won(state):
            return
        columns, cells, found, stock, waste, captives, fixed, redeals, fresh = state
        fits, empty_slot, freed = king_row(found, captives)
        tops = [col[-1] if col else NO_CARD for col in columns]
        # Home: the column tops, the waste's top, the released captives, each to every slot that takes it (a king
        # is never in ``fits``).
        if not fits.keys().isdisjoint(tops) or (empty_slot is not None and not KINGS.isdisjoint(tops)):
            for i, c in enumerate(tops):
                if c in fits:
                    for slot in fits[c]:
                        yield homed(state, PileKind.COLUMN, i, c, slot), HOME[i][slot]
                elif c != NO_CARD and RANK[c] == KING and empty_slot is not None:
                    yield homed(state, PileKind.COLUMN, i, c, empty_slot), TO_KING_ROW[i]
        if waste:
            c = waste[-1]
            if c in fits:
                for slot in fits[c]:
                    yield homed(state, PileKind.WASTE, 0, c, slot), HOME[WASTE_SOURCE][slot]
            elif RANK[c] == KING and empty_slot is not None:
                yield homed(state, PileKind.WASTE, 0, c, empty_slot), TO_KING_ROW[WASTE_SOURCE]
        for i, c in freed:
            if c in fits:
                for slot in fits[c]:
                    yield homed(state, PileKind.CAPTIVE, i, c, slot), HOME[CAPTIVE_SOURCE + i][slot]
            elif RANK[c] == KING and empty_slot is not None:
                yield homed(state, PileKind.CAPTIVE, i, c, empty_slot), TO_KING_ROW[CAPTIVE_SOURCE + i]
        # Runs between columns: onto a column topped by a card of the run's suit at most the run's length above
        # its free card (the tail that fits), or onto an empty column (every tail); in column order. The positions
        # are built here, as ``run_moved`` would, and by ``tuple.__new__`` (a named tuple's own way), to spare two
        # calls a child.
        empty = NO_CARD in tops
        empties = [d for d, t in enumerate(tops) if t == NO_CARD] if empty else []
        new = tuple.__new__
        for s, col in enumerate(columns):
            if not col:
                continue
            top = col[-1]
            moves = RUN_MOVES[s]
            up = top + 1
            if up not in tops and (len(col) < 2 or col[-2] != up):
                # most columns: a run of one card, and no column topped by the card it goes on: only an empty
                # column takes it
                for d in empties:
                    moved = list(columns)
                    moved[s] = col[:-1]
                    moved[d] = (top,)
                    child = new(State, (tuple(moved), cells, found, stock, waste, captives, fixed, redeals, fresh))
                    yield child, moves[d][1]
                continue
            run = run_length(col)
            last = min(top + run, SUIT_KING[top])
            for d, t in enumerate(tops):
                if top < t <= last:
                    tails: Iterable[int] = (t - top,)
                elif t < 0:
                    tails = range(1, run + 1)
                else:
                    continue
                for n in tails:
                    moved = list(columns)
                    moved[s] = col[:-n]
                    moved[d] = columns[d] + col[-n:]
                    child = new(State, (tuple(moved), cells, found, stock, waste, captives, fixed, redeals, fresh))
                    yield child, moves[d][n]
        if waste:
            w = waste[-1]
            onto = w + 1 if RANK[w] != KING else NO_CARD  # the card ``w`` goes on (``on_column``); a king: none
            for d, t in enumerate(tops):
                if t < 0 or t == onto:
                    yield waste_moved(state, d), WASTE_TO[d]
        if stock:
            yield turn_one(state, STOCK), STOCK
        elif waste and redeals < TURNS:
            yield turn_waste(state, REDEAL, TURNS), REDEAL

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
            return to_column(state, move, src, dst)
        return to_home(state, move, src, dst)


# -- helpers (module level: no self, cheap to call) -----------------------------------
