"""Play in the king-chain games: a move checked and applied (royal_retinue.py's docstring lists the decisions).

Checks run in a fixed order so that one move always gets one reason: game over, move kind, the piles exist, same
pile, empty source, dead target, run length (``/n``), sequence moves, rank, colour or suit. Cards are integers and
every table is built once (king_chain_tables.py): this is the replay verifier's inner loop.
"""

from __future__ import annotations

from ..cards import NO_CARD, RANK, RED, SUIT, TEXT, Card
from ..errors import Reason
from ..game import illegal
from ..moves import Move, MoveKind, PileKind
from ..state import State
from .king_chain_tables import (
    ALL_CARDS,
    C2C,
    C2F,
    C2R,
    F2F,
    NUM_CELLS,
    NUM_FOUNDATIONS,
    ONTO,
    R2C,
    R2F,
    is_run,
    new_state,
    run_length,
)

_COL = PileKind.COLUMN
_RES = PileKind.RESERVE
_FND = PileKind.FOUNDATION
_KROW = PileKind.KING_ROW
_TRANSFER = MoveKind.TRANSFER


class KingChainReferee:
    """The moves of one king-chain game (its id for messages; whether runs move as one move)."""

    def __init__(self, game_id: str, runs: bool) -> None:
        self.id = game_id
        self._runs = runs

    @staticmethod
    def is_won(state: State) -> bool:
        return sum(map(len, state.foundations)) == ALL_CARDS

    def play(self, state: State, move: Move) -> tuple[State, Move]:
        """Validate and apply ``move``; the new state and the move in explicit form."""
        if move.kind is not _TRANSFER:
            raise self._refuse(state, move, Reason.NOT_IN_THIS_GAME, f"{self.id} has no '{move.kind.value}' move")
        sources = move.sources
        target = move.target
        if len(sources) != 1 or target is None:
            return self._to_reserve_many(state, move)
        src = sources[0]
        sk = src.kind
        tk = target.kind
        if sk is _COL:
            cols = state.columns
            si = src.index
            if si is None or not 0 < si <= len(cols):
                raise self._refuse(state, move, Reason.NO_SUCH_PILE, f"{self.id} has columns 1 to {len(cols)}")
            if tk is _COL:
                return self._column_to_column(state, move, cols, si, target.index)
            if tk is _FND:
                return self._column_to_foundation(state, move, cols, si, target.index)
            if tk is _RES:
                return self._column_to_reserve(state, move, cols, si, target.index)
            if tk is _KROW:
                raise self._refuse(state, move, Reason.NOT_IN_THIS_GAME, f"{self.id} has no king row")
        elif sk is _RES:
            cells = state.cells
            ri = src.index
            if ri is None or not 0 < ri <= NUM_CELLS:
                raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the reserve cells are r1 to r8")
            c = cells[ri - 1]
            if tk is _COL:
                return self._reserve_to_column(state, move, ri, c, target.index)
            if tk is _FND:
                return self._reserve_to_foundation(state, move, ri, c, target.index)
            if tk is _RES:
                raise self._refuse(
                    state, move, Reason.NOT_IN_THIS_GAME, "a reserve card goes to a column or a foundation, not a cell"
                )
        elif sk is _FND:
            if tk is _FND:
                return self._foundation_run(state, move, src.index, target.index)
            if tk is _COL or tk is _RES:
                raise self._refuse(
                    state, move, Reason.NOT_IN_THIS_GAME, "cards on a foundation never come back to the tableau"
                )
        raise self._refuse(
            state,
            move,
            Reason.NO_SUCH_PILE,
            f"{self.id} has no pile {target.text() if sk in (_COL, _RES, _FND) else src.text()!r}",
        )

    def _refuse(self, state: State, move: Move, reason: Reason, message: str) -> Exception:
        """The error to raise; after a win every move is GAME_OVER, whatever else is wrong with it."""
        if self.is_won(state):
            return illegal(Reason.GAME_OVER, "the game is won: no move is legal after a win", move)
        return illegal(reason, message, move)

    # -- column to column -----------------------------------------------------------------

    def _column_to_column(
        self, state: State, move: Move, cols: tuple[tuple[Card, ...], ...], si: int, ti: int | None
    ) -> tuple[State, Move]:
        if ti is None or not 0 < ti <= len(cols):
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, f"{self.id} has columns 1 to {len(cols)}")
        if si == ti:
            raise self._refuse(state, move, Reason.SAME_PILE, f"column {si} onto itself")
        s = cols[si - 1]
        if not s:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"column {si} is empty")
        t = cols[ti - 1]
        if not t:
            raise self._refuse(state, move, Reason.DEAD_COLUMN, f"column {ti} is empty, and an emptied column is dead")
        top = t[-1]
        k = move.count
        if k == 1 and ONTO[s[-1] * 52 + top]:  # the common case, settled by one look-up
            new = list(cols)
            new[si - 1] = s[:-1]
            new[ti - 1] = (*t, s[-1])
            return new_state(tuple(new), state.cells, state.foundations), move
        explicit = k is not None
        if k is None:
            # the only length that fits: a run's ranks rise by one toward the head of the column
            k = RANK[top] - RANK[s[-1]]
            if k < 1 or k > len(s) or not is_run(s, k):
                run = s[-run_length(s) :] if self._runs else s[-1:]
                what = f"{TEXT[run[0]]}" if len(run) == 1 else f"no card of the run {' '.join(TEXT[c] for c in run)}"
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{what} does not go on {TEXT[top]}")
        elif k < 1 or k > len(s) or not is_run(s, k):
            raise self._refuse(
                state,
                move,
                Reason.NOT_FREE_CARD,
                f"the last {k} cards of column {si} are not a run: its run is {run_length(s)}",
            )
        if k > 1 and not self._runs:
            raise self._refuse(
                state, move, Reason.SEQUENCE_MOVES_OFF, f"a run of {k} cards does not move as one move in this game"
            )
        c = s[-k]
        if RANK[c] != RANK[top] - 1:
            raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[top]}")
        if RED[c] == RED[top]:
            raise self._refuse(
                state, move, Reason.WRONG_COLOUR, f"{TEXT[c]} does not go on {TEXT[top]}: the same colour"
            )
        new = list(cols)
        new[si - 1] = s[:-k]
        new[ti - 1] = t + s[-k:]
        explicit_move = move if explicit else C2C[(si * 10 + ti) * 14 + k]
        return new_state(tuple(new), state.cells, state.foundations), explicit_move

    # -- to a foundation ----------------------------------------------------------------------

    def _foundation_for(self, state: State, move: Move, c: Card, fi: int | None) -> int:
        """The 0-based foundation that ``c`` goes on: ``fi`` (1-based) or, if None, the first that fits."""
        founds = state.foundations
        if fi is None:
            if RANK[c] == 1:
                if () in founds:
                    return founds.index(())
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} finds no empty foundation")
            below = c - 1  # the same suit, one rank lower (c is no ace)
            for i in range(NUM_FOUNDATIONS):
                f = founds[i]
                if f and f[-1] == below:
                    return i
            if any(f and RANK[f[-1]] == RANK[c] - 1 for f in founds):
                raise self._refuse(
                    state, move, Reason.WRONG_SUIT, f"{TEXT[c]} fits no foundation: none of its suit is one below"
                )
            raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} fits no foundation")
        if not 0 < fi <= NUM_FOUNDATIONS:
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the foundations are f1 to f8")
        f = founds[fi - 1]
        if not f:
            if RANK[c] == 1:
                return fi - 1
            raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"f{fi} is empty: it takes an ace, not {TEXT[c]}")
        top = f[-1]
        if RANK[top] != RANK[c] - 1:
            raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[top]} (f{fi})")
        if SUIT[top] != SUIT[c]:
            raise self._refuse(
                state, move, Reason.WRONG_SUIT, f"{TEXT[c]} does not go on {TEXT[top]} (f{fi}): another suit"
            )
        return fi - 1

    def _column_to_foundation(
        self, state: State, move: Move, cols: tuple[tuple[Card, ...], ...], si: int, fi: int | None
    ) -> tuple[State, Move]:
        s = cols[si - 1]
        if fi is not None and not 0 < fi <= NUM_FOUNDATIONS:
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the foundations are f1 to f8")
        if not s:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"column {si} is empty")
        c = s[-1]
        i = self._foundation_for(state, move, c, fi)
        new = list(cols)
        new[si - 1] = s[:-1]
        founds = list(state.foundations)
        founds[i] = (*founds[i], c)
        return new_state(tuple(new), state.cells, tuple(founds)), (move if fi is not None else C2F[si][i + 1])

    # -- the reserve ------------------------------------------------------------------------------

    def _column_to_reserve(
        self, state: State, move: Move, cols: tuple[tuple[Card, ...], ...], si: int, ri: int | None
    ) -> tuple[State, Move]:
        cells = state.cells
        if ri is not None and not 0 < ri <= NUM_CELLS:
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the reserve cells are r1 to r8")
        s = cols[si - 1]
        if not s:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"column {si} is empty")
        if move.count is not None and move.count != 1:
            raise self._refuse(state, move, Reason.NOT_FREE_CARD, "a reserve cell holds one card")
        if ri is None:
            if NO_CARD not in cells:
                raise self._refuse(state, move, Reason.RESERVE_FULL, "all 8 reserve cells are taken")
            ri = cells.index(NO_CARD) + 1
            explicit = C2R[si][ri]
        elif cells[ri - 1] != NO_CARD:
            raise self._refuse(state, move, Reason.CELL_OCCUPIED, f"r{ri} holds {TEXT[cells[ri - 1]]}")
        else:
            explicit = move
        new = list(cols)
        new[si - 1] = s[:-1]
        new_cells = list(cells)
        new_cells[ri - 1] = s[-1]
        return new_state(tuple(new), tuple(new_cells), state.foundations), explicit

    def _reserve_to_column(self, state: State, move: Move, ri: int, c: Card, ti: int | None) -> tuple[State, Move]:
        cols = state.columns
        if ti is None or not 0 < ti <= len(cols):
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, f"{self.id} has columns 1 to {len(cols)}")
        if c == NO_CARD:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"r{ri} is empty")
        t = cols[ti - 1]
        if not t:
            raise self._refuse(state, move, Reason.DEAD_COLUMN, f"column {ti} is empty, and an emptied column is dead")
        if move.count is not None and move.count != 1:
            raise self._refuse(state, move, Reason.NOT_FREE_CARD, f"r{ri} holds one card, not {move.count}")
        top = t[-1]
        if not ONTO[c * 52 + top]:
            if RANK[c] != RANK[top] - 1:
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[top]}")
            raise self._refuse(
                state, move, Reason.WRONG_COLOUR, f"{TEXT[c]} does not go on {TEXT[top]}: the same colour"
            )
        new = list(cols)
        new[ti - 1] = (*t, c)
        cells = list(state.cells)
        cells[ri - 1] = NO_CARD
        return new_state(tuple(new), tuple(cells), state.foundations), R2C[ri][ti]

    def _reserve_to_foundation(self, state: State, move: Move, ri: int, c: Card, fi: int | None) -> tuple[State, Move]:
        if fi is not None and not 0 < fi <= NUM_FOUNDATIONS:
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the foundations are f1 to f8")
        if c == NO_CARD:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"r{ri} is empty")
        i = self._foundation_for(state, move, c, fi)
        cells = list(state.cells)
        cells[ri - 1] = NO_CARD
        founds = list(state.foundations)
        founds[i] = (*founds[i], c)
        return new_state(state.columns, tuple(cells), tuple(founds)), (move if fi is not None else R2F[ri][i + 1])

    def _to_reserve_many(self, state: State, move: Move) -> tuple[State, Move]:
        """``3,5,5-r``: free cards taken one at a time, each into the next empty cell, as one move."""
        sources = move.sources
        target = move.target
        if (
            not sources
            or target is None
            or target.kind is not _RES
            or target.index is not None
            or move.count is not None
            or any(p.kind is not _COL for p in sources)
        ):
            raise self._refuse(
                state, move, Reason.NOT_IN_THIS_GAME, "several cards move together only from columns to 'r'"
            )
        cols = list(state.columns)
        for p in sources:
            if p.index is None or not 0 < p.index <= len(cols):
                raise self._refuse(state, move, Reason.NO_SUCH_PILE, f"{self.id} has columns 1 to {len(cols)}")
        cells = list(state.cells)
        free = [i for i, c in enumerate(cells) if c == NO_CARD]
        if len(free) < len(sources):
            raise self._refuse(
                state, move, Reason.RESERVE_FULL, f"{len(sources)} cards, but {len(free)} empty reserve cells"
            )
        for p, cell in zip(sources, free, strict=False):
            col = cols[p.index - 1]  # type: ignore[operator]
            if not col:
                raise self._refuse(state, move, Reason.EMPTY_PILE, f"column {p.index} is empty when its turn comes")
            cells[cell] = col[-1]
            cols[p.index - 1] = col[:-1]  # type: ignore[operator]
        return new_state(tuple(cols), tuple(cells), state.foundations), move

    # -- foundation runs ----------------------------------------------------------------------------

    def _foundation_run(self, state: State, move: Move, si: int | None, ti: int | None) -> tuple[State, Move]:
        """``f1-f4/3``: the top k cards of f1 onto f4, whose top is one rank below the lowest of them."""
        founds = state.foundations
        if si is None or not 0 < si <= NUM_FOUNDATIONS or (ti is not None and not 0 < ti <= NUM_FOUNDATIONS):
            raise self._refuse(state, move, Reason.NO_SUCH_PILE, "the foundations are f1 to f8")
        if si == ti:
            raise self._refuse(state, move, Reason.SAME_PILE, f"f{si} onto itself")
        a = founds[si - 1]
        if not a:
            raise self._refuse(state, move, Reason.EMPTY_PILE, f"f{si} is empty")
        k = move.count
        if k is not None and not 0 < k <= len(a):
            raise self._refuse(state, move, Reason.NOT_FREE_CARD, f"f{si} holds {len(a)} cards, not {k}")
        if ti is None:
            # the first other foundation that takes a run of f_si (of k cards if k is given)
            for j in range(NUM_FOUNDATIONS):
                b = founds[j]
                if (
                    j != si - 1
                    and b
                    and SUIT[b[-1]] == SUIT[a[0]]
                    and len(a) > RANK[b[-1]]
                    and (k is None or k == len(a) - RANK[b[-1]])
                ):
                    ti = j + 1
                    break
            else:
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"no run of f{si} goes onto another foundation")
        b = founds[ti - 1]
        if not b:
            raise self._refuse(
                state, move, Reason.DOES_NOT_FIT, f"f{ti} is empty: a foundation run goes onto a card one rank below it"
            )
        top = b[-1]
        if k is None:
            k = len(a) - RANK[top]  # a foundation holds its suit from the ace up: a[i] has rank i + 1
            if k < 1:
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"no run of f{si} goes on {TEXT[top]}")
            explicit = F2F[(si * 9 + ti) * 14 + k]
        else:
            explicit = (
                move if move.target is not None and move.target.index is not None else F2F[(si * 9 + ti) * 14 + k]
            )
        low = a[-k]
        if RANK[low] != RANK[top] + 1:
            raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[low]} does not go on {TEXT[top]} (f{ti})")
        if SUIT[low] != SUIT[top]:
            raise self._refuse(
                state, move, Reason.WRONG_SUIT, f"{TEXT[low]} does not go on {TEXT[top]} (f{ti}): another suit"
            )
        new = list(founds)
        new[si - 1] = a[:-k]
        new[ti - 1] = b + a[-k:]
        return new_state(state.columns, state.cells, tuple(new)), explicit
