"""Family 1, the king-chain tableau: Royal Retinue, its variants, and Cat's Tail (seed 000, 002 a/b).

All four games share one set of rules and differ only in the deal (RULES.md, Family 1):

- columns build down in alternate colours; a run moves as one move (Cat's Tail may forbid that);
- 8 reserve cells; one to eight free cards go there in one move (``3,5,5-r``), one at a time;
- 8 foundations built up in suit from any ace; the top k cards of a foundation may move onto another
  foundation of the same suit whose top card is one rank below the lowest of them (``f1-f4/3``);
- an emptied column is dead: it never takes a card again.

Decisions for cases RULES.md leaves open (docs/rules-decisions.md, "Family 1", each with a test):

- A reserve card goes only to a column or a foundation; reserve to reserve (``r1-r2``) is refused with
  NOT_IN_THIS_GAME: the cells are interchangeable, so the move would change nothing but a name.
- A foundation card never leaves the foundations except by a foundation run: ``f1-3`` and ``f1-r`` are
  refused with NOT_IN_THIS_GAME.
- A foundation run needs a top card one rank below its lowest card, so it never goes onto an empty
  foundation (DOES_NOT_FIT), not even a whole pile from its ace.
- ``sequence_moves=false`` (an option of all four games) forbids runs of more than one card between columns
  only; foundation runs and multi-card reserve moves (single free cards each) stay legal.
- ``3-k`` (the king-row move of Captives) is NOT_IN_THIS_GAME; any other pile this game lacks (``w``,
  ``c3``, ``k`` after a reserve or foundation, ``9`` in an 8-column game, ``r9``, ``f9``) is NO_SUCH_PILE.
- Checks run in a fixed order so one move always gets one reason: game over, move kind, the piles
  exist, same pile, empty source, dead target, run length (``/n``), sequence moves, rank, colour or suit.
- ``/n`` on a single card's move (reserve to column) may only be ``/1``; ``/n`` beyond the run at the
  column's end is NOT_FREE_CARD, as is a structured move whose count is below 1.

Speed: ``play`` is the replay verifier's inner loop (>= 100,000 moves/s for cats-tail), so it works on
card integers with precomputed tables, builds the new State without the dataclass ``__init__``, returns
pre-built explicit moves, and raises only on the refused path.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..cards import KING, NO_CARD, RANK, RED, SUIT, TEXT, Card, canonical_deck
from ..deal import Pick, pull_one, topmost
from ..errors import Reason
from ..game import Game, OptionSpec, VariantInfo, illegal
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State

_RULES = (
    "All 104 cards face up in columns; build down in alternate colours, runs move as one move; "
    "8 reserve cells, one to eight free cards go there in one move; 8 foundations built up in suit "
    "from any ace; an emptied column is dead."
)

NUM_CELLS = 8
NUM_FOUNDATIONS = 8
ALL_CARDS = 104

_COL = PileKind.COLUMN
_RES = PileKind.RESERVE
_FND = PileKind.FOUNDATION
_KROW = PileKind.KING_ROW
_TRANSFER = MoveKind.TRANSFER
_EMPTY_CELLS = (NO_CARD,) * NUM_CELLS
_NO_FOUNDATIONS: tuple[tuple[Card, ...], ...] = ((),) * NUM_FOUNDATIONS
_FULL_DECK = sorted(canonical_deck(ALL_CARDS))

#: ``_ONTO[lower * 52 + upper]``: ``lower`` may lie on ``upper`` in a column (one rank lower, other colour).
_ONTO = tuple(RANK[lo] == RANK[up] - 1 and RED[lo] != RED[up] for lo in range(52) for up in range(52))

# Explicit moves, built once: ``play`` returns these instead of making new Move objects. A move between
# columns always states its length (``3-7/1``); a reserve card's move names its cell and target (``r1-4``).
_MAX_COLS = 9
_MAX_RUN = 13
_COLS = tuple(Pile(_COL, i) for i in range(_MAX_COLS + 1))
_CELLS = tuple(Pile(_RES, i) for i in range(NUM_CELLS + 1))
_FNDS = tuple(Pile(_FND, i) for i in range(NUM_FOUNDATIONS + 1))


def _mv(src: Pile, dst: Pile, count: int | None = None) -> Move:
    return Move(_TRANSFER, (src,), dst, count)


#: ``_C2C[(s * 10 + t) * 14 + k]``: column s to column t, k cards (1-based piles).
_C2C = tuple(
    _mv(_COLS[s], _COLS[t], k)  # entries with a 0 are never used
    for s in range(10)
    for t in range(10)
    for k in range(_MAX_RUN + 1)
)
_C2R = tuple(tuple(_mv(_COLS[s], c) for c in _CELLS) for s in range(10))
_C2F = tuple(tuple(_mv(_COLS[s], f) for f in _FNDS) for s in range(10))
_R2C = tuple(tuple(_mv(r, _COLS[t]) for t in range(10)) for r in _CELLS)
_R2F = tuple(tuple(_mv(r, f) for f in _FNDS) for r in _CELLS)
#: ``_F2F[(s * 9 + t) * 14 + k]``: foundation run of k cards from f_s onto f_t.
_F2F = tuple(
    _mv(_FNDS[s], _FNDS[t], k)  # entries with a 0 are never used
    for s in range(9)
    for t in range(9)
    for k in range(_MAX_RUN + 1)
)

_tuple_new = tuple.__new__


def _state(
    columns: tuple[tuple[Card, ...], ...], cells: tuple[Card, ...], foundations: tuple[tuple[Card, ...], ...]
) -> State:
    """``State(columns, cells, foundations)`` without the named tuple's Python-level ``__new__`` (every move
    builds one). The field order is ``State``'s; ``tests/engine/test_royal_retinue.py`` checks the two agree."""
    return _tuple_new(State, (columns, cells, foundations, (), (), (), (), 0, False))


def _run_length(col: tuple[Card, ...]) -> int:
    """Length of the run at the end of a non-empty column (alternate colours, one rank apart)."""
    k = 1
    n = len(col)
    while k < n and _ONTO[col[-k] * 52 + col[-k - 1]]:
        k += 1
    return k


def _is_king(c: Card) -> bool:
    return RANK[c] == KING


def _check_deck(deck: list[Card]) -> None:
    if sorted(deck) != _FULL_DECK:
        raise ValueError("a king-chain game is dealt from the whole double deck of 104 cards")


#: RULES.md, Family 1: "sequence_moves=false forbids run moves between columns", in all four games (seed 002 a;
#: seed 002 b: Royal Retinue's "other rules are as in the previous variant").
SEQUENCE_MOVES = OptionSpec(
    name="sequence_moves",
    default=True,
    allowed=(True, False),
    description="Whether a run of several cards may move as one move (some players forbid it).",
)


class RoyalRetinue(Game):
    """Royal Retinue (seed 000; seed 002 b): a king heads column 1, each later king starts the next of 8."""

    info = VariantInfo(
        id="royal-retinue",
        name_en="Royal Retinue",
        name_ru="Королевская свита",
        family="king-chain",
        summary="Any one of the 8 kings is pulled out to head column 1; each king that comes starts the next of "
        "8 columns. " + _RULES,
        deck_size=104,
        options=(SEQUENCE_MOVES,),
    )

    #: Number of columns of the layout.
    num_columns = 8

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        super().__init__(options)
        self._runs = bool(self.options.get("sequence_moves", True))

    # -- the deal -------------------------------------------------------------------

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        _check_deck(deck)
        return _state(self._layout(list(deck), pick), _EMPTY_CELLS, _NO_FOUNDATIONS)

    def _layout(self, deck: list[Card], pick: Pick) -> tuple[tuple[Card, ...], ...]:
        """The king ``pick`` chooses (deal step 7) heads column 1; the rest goes on column 1 until a king starts
        the next column. ``deck`` is consumed."""
        columns = [[pull_one(deck, _is_king, pick)]]
        for c in deck:
            if RANK[c] == KING and len(columns) < self.num_columns:
                columns.append([c])
            else:
                columns[-1].append(c)
        return tuple(tuple(col) for col in columns)

    # -- the end ------------------------------------------------------------------------

    def is_won(self, state: State) -> bool:
        return sum(map(len, state.foundations)) == ALL_CARDS

    # -- legal moves ------------------------------------------------------------------

    def generate_legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move in explicit form; a multi-card reserve move is a sequence of these.

        Order: to the foundations (columns, then cells), column to column, reserve to column, column to
        the first empty cell, foundation runs.
        """
        cols = state.columns
        cells = state.cells
        founds = state.foundations
        if sum(map(len, founds)) == ALL_CARDS:
            return
        # foundation index (1-based) that each card goes on first, for the cards that go anywhere
        home: dict[Card, int] = {}
        for fi in range(NUM_FOUNDATIONS, 0, -1):  # backwards: the first foundation that fits wins
            f = founds[fi - 1]
            if not f:
                for ace in (0, 13, 26, 39):
                    home[ace] = fi
            elif RANK[f[-1]] != KING:
                home[f[-1] + 1] = fi
        live = [(ti, t[-1]) for ti, t in enumerate(cols, 1) if t]

        for si, top in live:
            fi = home.get(top, 0)
            if fi:
                yield _C2F[si][fi]
        for ri, c in enumerate(cells, 1):
            if c != NO_CARD:
                fi = home.get(c, 0)
                if fi:
                    yield _R2F[ri][fi]
        runs = self._runs
        for si, free in live:
            s = cols[si - 1]
            run = _run_length(s) if runs else 1
            r0 = RANK[free]
            for ti, top in live:
                k = RANK[top] - r0
                if 1 <= k <= run and ti != si and RED[s[-k]] != RED[top]:
                    yield _C2C[(si * 10 + ti) * 14 + k]
        for ri, c in enumerate(cells, 1):
            if c != NO_CARD:
                base = c * 52
                for ti, top in live:
                    if _ONTO[base + top]:
                        yield _R2C[ri][ti]
        if NO_CARD in cells:
            first_free = cells.index(NO_CARD) + 1
            for si, _ in live:
                yield _C2R[si][first_free]
        piles = [(fi, f) for fi, f in enumerate(founds, 1) if f]
        for si, a in piles:
            suit = SUIT[a[0]]
            for ti, b in piles:
                if ti != si and SUIT[b[0]] == suit:
                    k = len(a) - RANK[b[-1]]
                    if k >= 1:
                        yield _F2F[(si * 9 + ti) * 14 + k]

    # -- play -----------------------------------------------------------------------------

    def _play(self, state: State, move: Move) -> tuple[State, Move]:
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
        if k == 1 and _ONTO[s[-1] * 52 + top]:  # the common case, settled by one look-up
            new = list(cols)
            new[si - 1] = s[:-1]
            new[ti - 1] = (*t, s[-1])
            return _state(tuple(new), state.cells, state.foundations), move
        explicit = k is not None
        if k is None:
            # the only length that fits: a run's ranks rise by one toward the head of the column
            k = RANK[top] - RANK[s[-1]]
            if k < 1 or k > len(s) or not _is_run(s, k):
                run = s[-_run_length(s) :] if self._runs else s[-1:]
                what = f"{TEXT[run[0]]}" if len(run) == 1 else f"no card of the run {' '.join(TEXT[c] for c in run)}"
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{what} does not go on {TEXT[top]}")
        elif k < 1 or k > len(s) or not _is_run(s, k):
            raise self._refuse(
                state,
                move,
                Reason.NOT_FREE_CARD,
                f"the last {k} cards of column {si} are not a run: its run is {_run_length(s)}",
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
        return _state(tuple(new), state.cells, state.foundations), (move if explicit else _C2C[(si * 10 + ti) * 14 + k])

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
        return _state(tuple(new), state.cells, tuple(founds)), (move if fi is not None else _C2F[si][i + 1])

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
            explicit = _C2R[si][ri]
        elif cells[ri - 1] != NO_CARD:
            raise self._refuse(state, move, Reason.CELL_OCCUPIED, f"r{ri} holds {TEXT[cells[ri - 1]]}")
        else:
            explicit = move
        new = list(cols)
        new[si - 1] = s[:-1]
        new_cells = list(cells)
        new_cells[ri - 1] = s[-1]
        return _state(tuple(new), tuple(new_cells), state.foundations), explicit

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
        if not _ONTO[c * 52 + top]:
            if RANK[c] != RANK[top] - 1:
                raise self._refuse(state, move, Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[top]}")
            raise self._refuse(
                state, move, Reason.WRONG_COLOUR, f"{TEXT[c]} does not go on {TEXT[top]}: the same colour"
            )
        new = list(cols)
        new[ti - 1] = (*t, c)
        cells = list(state.cells)
        cells[ri - 1] = NO_CARD
        return _state(tuple(new), tuple(cells), state.foundations), _R2C[ri][ti]

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
        return _state(state.columns, tuple(cells), tuple(founds)), (move if fi is not None else _R2F[ri][i + 1])

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
        return _state(tuple(cols), tuple(cells), state.foundations), move

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
            explicit = _F2F[(si * 9 + ti) * 14 + k]
        else:
            explicit = (
                move if move.target is not None and move.target.index is not None else _F2F[(si * 9 + ti) * 14 + k]
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
        return _state(state.columns, state.cells, tuple(new)), explicit


def _is_run(s: tuple[Card, ...], k: int) -> bool:
    """Whether the last ``k`` cards of ``s`` (1 <= k <= len(s)) form a run."""
    for i in range(len(s) - k, len(s) - 1):  # noqa: SIM110 - a plain loop beats all(genexpr) on short runs
        if not _ONTO[s[i + 1] * 52 + s[i]]:
            return False
    return True


class RoyalRetinueAces(RoyalRetinue):
    """Royal Retinue with the 8 aces pulled out first to start the foundations (seed 000, variant 1)."""

    info = VariantInfo(
        id="royal-retinue-aces",
        name_en="Royal Retinue (aces out)",
        name_ru="Королевская свита (тузы заранее)",
        family="king-chain",
        summary="Royal Retinue with all 8 aces pulled out first to start the foundations. " + _RULES,
        deck_size=104,
        options=(SEQUENCE_MOVES,),
    )

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        """The aces, in the order they lie in the deck, start f1..f8 (deal step 6); then the king is chosen
        (step 7) and the rest is dealt as Royal Retinue."""
        _check_deck(deck)
        aces = tuple((c,) for c in deck if RANK[c] == 1)
        return _state(self._layout([c for c in deck if RANK[c] != 1], pick), _EMPTY_CELLS, aces)


class RoyalRetinueKingsLast(RoyalRetinue):
    """Each king closes its column and is then moved to its head (seed 000, variant 2)."""

    info = VariantInfo(
        id="royal-retinue-kings-last",
        name_en="Royal Retinue (kings last)",
        name_ru="Королевская свита (короли в конце)",
        family="king-chain",
        summary="No king is pulled out: each king closes its column and is then moved to its head; 8 columns. "
        + _RULES,
        deck_size=104,
        options=(SEQUENCE_MOVES,),
    )

    def _layout(self, deck: list[Card], pick: Pick) -> tuple[tuple[Card, ...], ...]:
        """Kings 1-7 close their columns; the 8th does not: the rest follows on column 8, then it moves up.
        No king is pulled out (``pick`` is unused)."""
        columns: list[list[Card]] = [[]]
        last_king = NO_CARD
        for c in deck:
            if RANK[c] != KING:
                columns[-1].append(c)
            elif len(columns) < self.num_columns:
                columns[-1].insert(0, c)
                columns.append([])
            else:
                last_king = c
        columns[-1].insert(0, last_king)
        return tuple(tuple(col) for col in columns)


class CatsTail(RoyalRetinue):
    """Cat's Tail (seed 002 a; seed 000 variant 3): every king starts the next column, 9 in all."""

    info = VariantInfo(
        id="cats-tail",
        name_en="Cat's Tail",
        name_ru="Кошачий хвост",
        family="king-chain",
        summary="No king is pulled out: every king starts the next column, 9 columns, the first without a king. "
        + _RULES,
        deck_size=104,
        options=(SEQUENCE_MOVES,),
    )

    num_columns = 9

    def _layout(self, deck: list[Card], pick: Pick) -> tuple[tuple[Card, ...], ...]:
        """Column 1 takes the cards before the first king (none if the first card is a king: a dead column).
        No king is pulled out (``pick`` is unused)."""
        columns: list[list[Card]] = [[]]
        for c in deck:
            if RANK[c] == KING:
                columns.append([c])
            else:
                columns[-1].append(c)
        return tuple(tuple(col) for col in columns)
