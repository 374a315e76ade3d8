"""Family 1, the king-chain tableau: Royal Retinue, its variants, and Cat's Tail (seed 000, 002 a/b).

All four games share one set of rules and differ only in the deal (docs/rules.md, Family 1):

- columns build down in alternate colours; a run moves as one move (Cat's Tail may forbid that);
- 8 reserve cells; one to eight free cards go there in one move (``3,5,5-r``), one at a time;
- 8 foundations built up in suit from any ace; the top k cards of a foundation may move onto another
  foundation of the same suit whose top card is one rank below the lowest of them (``f1-f4/3``);
- an emptied column is dead: it never takes a card again.

Decisions for cases docs/rules.md leaves open (docs/rules-decisions.md, "Family 1", each with a test):

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

from ..cards import KING, NO_CARD, RANK, RED, SUIT, Card, canonical_deck
from ..deal import Pick, pull_one, topmost
from ..game import Game, OptionSpec, VariantInfo
from ..moves import Move
from ..state import State
from .king_chain_play import KingChainReferee
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
    new_state,
    run_length,
)

__all__ = [
    "ALL_CARDS",
    "NUM_CELLS",
    "NUM_FOUNDATIONS",
    "SEQUENCE_MOVES",
    "CatsTail",
    "RoyalRetinue",
    "RoyalRetinueAces",
    "RoyalRetinueKingsLast",
]

_RULES = (
    "All 104 cards face up in columns; build down in alternate colours, runs move as one move; "
    "8 reserve cells, one to eight free cards go there in one move; 8 foundations built up in suit "
    "from any ace; an emptied column is dead."
)
_EMPTY_CELLS = (NO_CARD,) * NUM_CELLS
_NO_FOUNDATIONS: tuple[tuple[Card, ...], ...] = ((),) * NUM_FOUNDATIONS
_FULL_DECK = sorted(canonical_deck(ALL_CARDS))


def _is_king(c: Card) -> bool:
    return RANK[c] == KING


def _check_deck(deck: list[Card]) -> None:
    if sorted(deck) != _FULL_DECK:
        raise ValueError("a king-chain game is dealt from the whole double deck of 104 cards")


#: docs/rules.md, Family 1: "sequence_moves=false forbids run moves between columns", in all four games (seed 002 a;
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
        self._referee = KingChainReferee(self.id, self._runs)

    # -- the deal -------------------------------------------------------------------

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        _check_deck(deck)
        return new_state(self._layout(list(deck), pick), _EMPTY_CELLS, _NO_FOUNDATIONS)

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
                yield C2F[si][fi]
        for ri, c in enumerate(cells, 1):
            if c != NO_CARD:
                fi = home.get(c, 0)
                if fi:
                    yield R2F[ri][fi]
        runs = self._runs
        for si, free in live:
            s = cols[si - 1]
            run = run_length(s) if runs else 1
            r0 = RANK[free]
            for ti, top in live:
                k = RANK[top] - r0
                if 1 <= k <= run and ti != si and RED[s[-k]] != RED[top]:
                    yield C2C[(si * 10 + ti) * 14 + k]
        for ri, c in enumerate(cells, 1):
            if c != NO_CARD:
                base = c * 52
                for ti, top in live:
                    if ONTO[base + top]:
                        yield R2C[ri][ti]
        if NO_CARD in cells:
            first_free = cells.index(NO_CARD) + 1
            for si, _ in live:
                yield C2R[si][first_free]
        piles = [(fi, f) for fi, f in enumerate(founds, 1) if f]
        for si, a in piles:
            suit = SUIT[a[0]]
            for ti, b in piles:
                if ti != si and SUIT[b[0]] == suit:
                    k = len(a) - RANK[b[-1]]
                    if k >= 1:
                        yield F2F[(si * 9 + ti) * 14 + k]

    def _play(self, state: State, move: Move) -> tuple[State, Move]:
        """Validate and apply ``move``; the new state and the move in explicit form (king_chain_play.py)."""
        return self._referee.play(state, move)


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
        return new_state(self._layout([c for c in deck if RANK[c] != 1], pick), _EMPTY_CELLS, aces)


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
