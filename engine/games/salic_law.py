"""Family 2, Salic Law: Tribunal and Picture Gallery (seed 002 c/d), dealt interactively.

The layout grows while the game is played: each ``d`` deals the top stock card
onto the newest column, and a king starts a new column. Free cards go to 8
foundations built A..J regardless of suit, or onto a column cut back to its
lone king. Picture Gallery adds the lone-king filler and redeals without
shuffling. The rules are in docs/rules.md, the choices it left open in
docs/rules-decisions.md ("Family 2: Salic Law").
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import ClassVar, Final

from ..cards import ACE, JACK, KING, QUEEN, RANK, RANKS, TEXT, Card, canonical_deck, cards_text
from ..deal import Pick, pull_one, topmost
from ..errors import Reason
from ..game import Game, OptionSpec, VariantInfo, illegal
from ..moves import DEAL, REDEAL, Move, MoveKind, Pile, PileKind
from ..state import State

MAX_COLUMNS: Final = 8
FOUNDATIONS: Final = 8
#: Cards that must reach the foundations: eight of each rank A..J.
HOME_CARDS: Final = 8 * JACK
_EMPTY_FOUNDATIONS: Final = ((),) * FOUNDATIONS
_SORTED_DECK: Final = sorted(canonical_deck(104))

#: The explicit moves, built once: ``play`` and ``legal_moves`` hand out these values.
_TO_FOUNDATION: Final = {
    (s, f): Move(MoveKind.TRANSFER, (Pile(PileKind.COLUMN, s),), Pile(PileKind.FOUNDATION, f))
    for s in range(1, 10)
    for f in range(1, FOUNDATIONS + 1)
}
_TO_COLUMN: Final = {
    (s, t): Move(MoveKind.TRANSFER, (Pile(PileKind.COLUMN, s),), Pile(PileKind.COLUMN, t), 1)
    for s in range(1, 10)
    for t in range(1, 10)
}


def next_rank(pile: tuple[Card, ...]) -> int:
    """The rank a foundation takes next (any suit); above J nothing fits."""
    return RANK[pile[-1]] + 1 if pile else ACE


def _pile_text(pile: tuple[Card, ...]) -> str:
    return cards_text(pile) if pile else "empty"


class Tribunal(Game):
    info = VariantInfo(
        id="tribunal",
        name_en="Tribunal (Salic Law)",
        name_ru="Трибунал (Салический закон)",
        family="salic-law",
        summary="Queens are set aside and a king heads column 1; the player deals the stock one card at a "
        "time onto the newest column, each king starting a new one, and moves free cards to 8 foundations "
        "built A to J regardless of suit, or onto a lone king. Kings never move.",
        deck_size=104,
    )

    #: Picture Gallery: a lone king gets one stock card before the next king starts a column.
    lone_king_rule: ClassVar[bool] = False

    # -- the deal -----------------------------------------------------------------

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        """Queens to the queen row (deal step 6), the king ``pick`` chooses (step 7) heads column 1, the rest
        (in order) is the stock."""
        if sorted(deck) != _SORTED_DECK:
            raise ValueError(f"{self.id} is dealt from a whole double deck of 104 cards")
        queens = tuple(c for c in deck if RANK[c] == QUEEN)
        rest = [c for c in deck if RANK[c] != QUEEN]
        head = pull_one(rest, lambda c: RANK[c] == KING, pick)
        return State(
            columns=((head,),),
            foundations=_EMPTY_FOUNDATIONS,
            stock=tuple(rest),
            fixed=queens,
            fresh=self.lone_king_rule,
        )

    # -- moves --------------------------------------------------------------------

    def is_won(self, state: State) -> bool:
        """Stock dealt out and all 88 aces to jacks home (the kings then stand alone)."""
        return not state.stock and sum(map(len, state.foundations)) == HOME_CARDS

    def generate_legal_moves(self, state: State) -> Iterator[Move]:
        """Foundation moves (first foundation that fits), moves onto lone kings (``3-7/1``), ``d``, ``rd``."""
        if self.is_won(state):
            return
        columns = state.columns
        needs = [next_rank(f) for f in state.foundations]
        lone = [t for t, col in enumerate(columns, 1) if len(col) == 1]
        for s, col in enumerate(columns, 1):
            if len(col) < 2:
                continue
            rank = RANK[col[-1]]
            if rank == KING:
                continue
            if rank in needs:
                yield _TO_FOUNDATION[s, needs.index(rank) + 1]
            for t in lone:
                yield _TO_COLUMN[s, t]
        if state.stock:
            yield DEAL
        elif state.redeals < self.redeals_allowed():
            yield REDEAL

    def successors(self, state: State) -> Iterator[tuple[State, Move]]:
        """``generate_legal_moves`` with each move's position, built without ``play``'s checks."""
        if self.is_won(state):
            return
        columns, cells, foundations, stock, waste, captives, fixed, redeals, fresh = state
        needs = [next_rank(f) for f in foundations]
        lone = [t for t, col in enumerate(columns, 1) if len(col) == 1]
        for s, col in enumerate(columns, 1):
            if len(col) < 2:
                continue
            card = col[-1]
            rank = RANK[card]
            if rank == KING:
                continue
            rest = col[:-1]
            if rank in needs:
                t = needs.index(rank)
                homed = (*foundations[:t], (*foundations[t], card), *foundations[t + 1 :])
                cut = (*columns[: s - 1], rest, *columns[s:])
                yield State(cut, cells, homed, stock, waste, captives, fixed, redeals, fresh), _TO_FOUNDATION[s, t + 1]
            for t in lone:
                moved = list(columns)
                moved[s - 1] = rest
                moved[t - 1] = (*columns[t - 1], card)
                onto = State(tuple(moved), cells, foundations, stock, waste, captives, fixed, redeals, fresh)
                yield onto, _TO_COLUMN[s, t]
        if stock:
            yield self._deal(state, DEAL), DEAL
        elif redeals < self.redeals_allowed():
            yield self._redeal(state, REDEAL), REDEAL

    def _play(self, state: State, move: Move) -> tuple[State, Move]:
        if self.is_won(state):
            raise illegal(Reason.GAME_OVER, "the game is won: no move is left to play", move)
        kind = move.kind
        if kind is MoveKind.TRANSFER:
            return self._transfer(state, move)
        if kind is MoveKind.DEAL:
            return self._deal(state, move), DEAL
        if kind is MoveKind.REDEAL:
            return self._redeal(state, move), REDEAL
        raise illegal(Reason.NOT_IN_THIS_GAME, f"{self.id} has no waste: the stock is dealt with 'd'", move)

    def _deal(self, state: State, move: Move) -> State:
        """``d``: the top stock card onto the newest column; a king starts a new one."""
        stock = state.stock
        if not stock:
            raise illegal(Reason.STOCK_EMPTY, "the stock is empty: every card has been dealt", move)
        card = stock[0]
        columns = state.columns
        rest = stock[1:]
        if RANK[card] != KING or len(columns) >= MAX_COLUMNS:
            # With a double deck the 8th column is the last king's, so a king never comes
            # out here; a hand-built position gets the card on the newest column.
            columns = (*columns[:-1], (*columns[-1], card))
            return self._with(state, columns, rest, fresh=False)
        if self.lone_king_rule and state.fresh:
            # The newest column has had no stock card since its king: it gets the next
            # non-king card first; kings passed over keep their places in the stock.
            for i, filler in enumerate(rest):
                if RANK[filler] != KING:
                    columns = (*columns[:-1], (*columns[-1], filler))
                    rest = rest[:i] + rest[i + 1 :]
                    break
        return self._with(state, (*columns, (card,)), rest, fresh=self.lone_king_rule)

    def _redeal(self, state: State, move: Move) -> State:
        """``rd``: gather the columns (1 first, each king to free card) and put column 1's king out."""
        allowed = self.redeals_allowed()
        if allowed == 0:
            raise illegal(Reason.NOT_IN_THIS_GAME, f"{self.id} is dealt once: it has no redeal", move)
        if state.redeals >= allowed:
            raise illegal(Reason.NO_REDEALS_LEFT, f"all {allowed + 1} deals have been used", move)
        if state.stock:
            raise illegal(Reason.STOCK_NOT_EMPTY, f"{len(state.stock)} cards are still to be dealt", move)
        gathered = tuple(chain.from_iterable(state.columns))
        return State(
            columns=(gathered[:1],),
            cells=state.cells,
            foundations=state.foundations,
            stock=gathered[1:],
            waste=state.waste,
            captives=state.captives,
            fixed=state.fixed,
            redeals=state.redeals + 1,
            fresh=self.lone_king_rule,
        )

    def _transfer(self, state: State, move: Move) -> tuple[State, Move]:
        """A column's free card to a foundation or onto a lone king."""
        if len(move.sources) != 1:
            raise illegal(Reason.NOT_IN_THIS_GAME, f"{self.id} has no reserve: one card moves at a time", move)
        src = move.sources[0]
        dst = move.target
        assert dst is not None
        if dst.kind is PileKind.KING_ROW:
            raise illegal(Reason.NOT_IN_THIS_GAME, f"{self.id} has no king row: kings never move", move)
        if src.kind is PileKind.FOUNDATION:
            raise illegal(Reason.NOT_IN_THIS_GAME, "cards on a foundation stay there", move)
        if src.kind is not PileKind.COLUMN:
            raise illegal(Reason.NO_SUCH_PILE, f"{self.id} has no {src.text()}: only columns and foundations", move)
        if dst.kind is not PileKind.COLUMN and dst.kind is not PileKind.FOUNDATION:
            raise illegal(Reason.NO_SUCH_PILE, f"{self.id} has no {dst.text()}: only columns and foundations", move)
        columns = state.columns
        s = src.index
        assert s is not None
        if not 1 <= s <= len(columns):
            raise illegal(Reason.NO_SUCH_PILE, f"there is no column {s}: {len(columns)} are out", move)
        to_column = dst.kind is PileKind.COLUMN
        t = dst.index
        if to_column:
            assert t is not None
            if not 1 <= t <= len(columns):
                raise illegal(Reason.NO_SUCH_PILE, f"there is no column {t}: {len(columns)} are out", move)
            if t == s:
                raise illegal(Reason.SAME_PILE, f"column {s} is both the source and the target", move)
        elif t is not None and not 1 <= t <= FOUNDATIONS:
            raise illegal(Reason.NO_SUCH_PILE, f"there is no foundation f{t}: they are f1..f{FOUNDATIONS}", move)
        column = columns[s - 1]
        if not column:
            raise illegal(Reason.EMPTY_PILE, f"column {s} is empty", move)
        card = column[-1]
        if move.count is not None and move.count > 1:
            why = f"only the free card {TEXT[card]} of column {s} moves, not {move.count} cards"
            raise illegal(Reason.NOT_FREE_CARD, why, move)
        if RANK[card] == KING:
            raise illegal(Reason.KING_CANNOT_MOVE, f"{TEXT[card]} heads column {s}: kings never move", move)
        rest = column[:-1]
        if to_column:
            assert t is not None
            target = columns[t - 1]
            if len(target) != 1:
                raise illegal(
                    Reason.DOES_NOT_FIT,
                    f"{TEXT[card]} cannot go on column {t} ({_pile_text(target)}): "
                    "only a column cut back to its lone king takes a card",
                    move,
                )
            new_columns = list(columns)
            new_columns[s - 1] = rest
            new_columns[t - 1] = (*target, card)
            return self._with(state, tuple(new_columns), state.stock, state.fresh), _TO_COLUMN[s, t]
        foundations = state.foundations
        rank = RANK[card]
        if t is None:
            for f, pile in enumerate(foundations, 1):
                if next_rank(pile) == rank:
                    t = f
                    break
            else:
                want = "an empty foundation" if rank == ACE else f"a foundation topped by a {RANKS[rank - 2]}"
                raise illegal(Reason.DOES_NOT_FIT, f"no foundation takes {TEXT[card]}: it needs {want}", move)
        else:
            pile = foundations[t - 1]
            if next_rank(pile) != rank:
                if pile:
                    why = f"f{t} ({TEXT[pile[-1]]} on top) takes " + (
                        "nothing more" if RANK[pile[-1]] >= JACK else f"a {RANKS[RANK[pile[-1]]]}"
                    )
                else:
                    why = f"f{t} is empty and takes only an ace"
                raise illegal(Reason.DOES_NOT_FIT, f"{TEXT[card]} does not fit: {why}", move)
        new_foundations = list(foundations)
        new_foundations[t - 1] = (*foundations[t - 1], card)
        new_state = State(
            columns=(*columns[: s - 1], rest, *columns[s:]),
            cells=state.cells,
            foundations=tuple(new_foundations),
            stock=state.stock,
            waste=state.waste,
            captives=state.captives,
            fixed=state.fixed,
            redeals=state.redeals,
            fresh=state.fresh,
        )
        return new_state, _TO_FOUNDATION[s, t]

    @staticmethod
    def _with(state: State, columns: tuple[tuple[Card, ...], ...], stock: tuple[Card, ...], fresh: bool) -> State:
        return State(
            columns=columns,
            cells=state.cells,
            foundations=state.foundations,
            stock=stock,
            waste=state.waste,
            captives=state.captives,
            fixed=state.fixed,
            redeals=state.redeals,
            fresh=fresh,
        )


class PictureGallery(Tribunal):
    info = VariantInfo(
        id="picture-gallery",
        name_en="Picture Gallery",
        name_ru="Картинная галерея",
        family="salic-law",
        summary="Tribunal where a lone king gets one card before the next king comes, and the columns may be "
        "gathered without shuffling and dealt again.",
        deck_size=104,
        options=(
            OptionSpec(
                name="deals",
                default=2,
                allowed=(2, 3),
                description="Deals in all, the first included (some players allow a third).",
            ),
        ),
    )

    lone_king_rule = True

    def redeals_allowed(self) -> int:
        return int(self.options["deals"]) - 1

    def stock_visible(self, state: State) -> bool:
        """A gathered stock's order is no secret: the player saw the columns it came from."""
        return state.redeals > 0
