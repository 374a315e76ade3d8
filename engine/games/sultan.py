"""Family 4, the Sultan's Harem (seed 003), with 36-card and 52-card double decks.

Layout in a :class:`State`: ``fixed`` is the sultan (KH, nothing is built on
it); ``foundations`` f1-f7 are the other kings (KC, KC, KD, KD, KH, KS, KS) and
f8 the AH; ``cells`` the side slots (``NO_CARD`` = empty); ``stock`` (index 0
turned next), ``waste`` (last = top), ``redeals`` the waste turns used.

Every foundation climbs in suit to a queen: K, A, then the deck's next rank
(6 in a 36-card deck, 2 in a 52-card deck) up to Q. The AH pile is the same
climb started at its ace. So one table, ``next card on top of c``, serves all 8.

The Decisions taken here are in docs/rules-decisions.md, "Family 4: Sultan's Harem".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Final

from ..cards import ACE, HEARTS, KING, NO_CARD, QUEEN, RANK, SUIT, TEXT, Card, canonical_deck, card
from ..deal import Pick, pull_one, topmost
from ..errors import Reason
from ..game import VariantInfo, illegal
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State
from .stock_waste import TurnsStock, turn_one, turn_waste

TURNS: Final = 2  # waste turns: three passes in all
FOUNDATION_COUNT: Final = 8

SULTAN: Final = card(KING, HEARTS)
ACE_OF_HEARTS: Final = card(ACE, HEARTS)
#: f1..f7 as docs/rules.md orders them; f8 is the AH.
KING_FOUNDATIONS: Final = tuple(card(KING, s) for s in (0, 0, 1, 1, 2, 3, 3))

_WASTE: Final = Pile(PileKind.WASTE)
_STOCK: Final = Move(MoveKind.STOCK)
_REDEAL: Final = Move(MoveKind.REDEAL)
#: The moves ``successors`` hands out, built once: (side slot or None for the waste, foundation) -> ``r2-f4``,
#: ``w-f4``; side slot -> ``w-r3`` (0-based indices).
_HOME: Final = {
    (src, j): Move(
        MoveKind.TRANSFER,
        (_WASTE if src is None else Pile(PileKind.RESERVE, src + 1),),
        Pile(PileKind.FOUNDATION, j + 1),
    )
    for src in (None, *range(8))
    for j in range(FOUNDATION_COUNT)
}
_TO_SLOT: Final = {j: Move(MoveKind.TRANSFER, (_WASTE,), Pile(PileKind.RESERVE, j + 1)) for j in range(8)}


def _next_table(rank_after_ace: int) -> tuple[Card, ...]:
    """``t[top]``: the card that goes on a foundation topped by ``top`` (``NO_CARD`` on a queen)."""
    out = []
    for c in range(52):
        r = RANK[c]
        if r == KING:
            out.append(c - (KING - ACE))
        elif r == ACE:
            out.append(c + rank_after_ace - ACE)
        elif r == QUEEN:
            out.append(NO_CARD)
        else:
            out.append(c + 1)
    return tuple(out)


class Sultan36(TurnsStock):
    info = VariantInfo(
        id="sultan-36",
        name_en="Sultan's Harem (36 cards)",
        name_ru="Гарем султана (36 карт)",
        family="sultan",
        summary="The sultan (KH) sits amid 7 kings and the AH; build each up in suit (K, A, 6 .. Q; AH: 6 .. Q) "
        "from the stock, the waste and 6 side slots until 8 queens surround him. Three passes.",
        deck_size=72,
    )
    side_slots: ClassVar[int] = 6
    #: ``next_card[top]``: the card that goes on a foundation topped by ``top`` (the safe moves read it too).
    next_card: ClassVar[tuple[Card, ...]] = _next_table(6)

    # -- the deal ---------------------------------------------------------------

    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        """Pull out the 8 kings (deal step 6), then the AH ``pick`` chooses of the two (step 7); fill the side
        slots from the top of the rest."""
        size = self.info.deck_size
        if sorted(deck) != sorted(canonical_deck(size)):
            raise ValueError(f"{self.id} deals from two {size // 2}-card decks, not these {len(deck)} cards")
        rest = [c for c in deck if RANK[c] != KING]
        pull_one(rest, ACE_OF_HEARTS.__eq__, pick)
        n = self.side_slots
        return State(
            cells=tuple(rest[:n]),
            foundations=(*((k,) for k in KING_FOUNDATIONS), (ACE_OF_HEARTS,)),
            stock=tuple(rest[n:]),
            fixed=(SULTAN,),
        )

    def redeals_allowed(self) -> int:
        return TURNS

    def is_won(self, state: State) -> bool:
        """Eight queens around the sultan: every card is on a foundation."""
        if state.stock or state.waste:  # a card still to play is not home (the quick answer after most moves)
            return False
        f = state.foundations
        return len(f) == FOUNDATION_COUNT and all(p and RANK[p[-1]] == QUEEN for p in f)

    # -- legal moves --------------------------------------------------------------

    def generate_legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move in explicit form: to the first foundation that fits, to the first empty slot."""
        if self.is_won(state):
            return
        nxt = self.next_card
        found = state.foundations
        tops = [nxt[p[-1]] for p in found]
        if state.waste:
            w = state.waste[-1]
            if w in tops:
                yield Move(MoveKind.TRANSFER, (_WASTE,), Pile(PileKind.FOUNDATION, tops.index(w) + 1))
        for i, c in enumerate(state.cells):
            if c != NO_CARD and c in tops:
                yield Move(
                    MoveKind.TRANSFER, (Pile(PileKind.RESERVE, i + 1),), Pile(PileKind.FOUNDATION, tops.index(c) + 1)
                )
        if state.waste and NO_CARD in state.cells:
            yield Move(MoveKind.TRANSFER, (_WASTE,), Pile(PileKind.RESERVE, state.cells.index(NO_CARD) + 1))
        if state.stock:
            yield Move(MoveKind.STOCK)
        elif state.waste and state.redeals < TURNS:
            yield Move(MoveKind.REDEAL)

    def successors(self, state: State) -> Iterator[tuple[State, Move]]:
        """``generate_legal_moves`` with each move's position, built without ``play``'s checks (the same order)."""
        if self.is_won(state):
            return
        nxt = self.next_card
        _columns, cells, found, stock, waste, _captives, fixed, redeals, _fresh = state
        tops = [nxt[p[-1]] for p in found]
        if waste:
            w = waste[-1]
            if w in tops:
                j = tops.index(w)
                homed = (*found[:j], (*found[j], w), *found[j + 1 :])
                yield State((), cells, homed, stock, waste[:-1], (), fixed, redeals), _HOME[None, j]
        for i, c in enumerate(cells):
            if c != NO_CARD and c in tops:
                j = tops.index(c)
                homed = (*found[:j], (*found[j], c), *found[j + 1 :])
                emptied = (*cells[:i], NO_CARD, *cells[i + 1 :])
                yield State((), emptied, homed, stock, waste, (), fixed, redeals), _HOME[i, j]
        if waste and NO_CARD in cells:
            j = cells.index(NO_CARD)
            filled = (*cells[:j], waste[-1], *cells[j + 1 :])
            yield State((), filled, found, stock, waste[:-1], (), fixed, redeals), _TO_SLOT[j]
        if stock:
            yield turn_one(state, _STOCK), _STOCK
        elif waste and redeals < TURNS:
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
            raise illegal(Reason.NOT_IN_THIS_GAME, f"{self.id} has no deal move: turn the stock with 's'", move)
        if len(move.sources) > 1:
            raise illegal(Reason.NOT_IN_THIS_GAME, "one card a move in the Sultan's Harem", move)
        src = move.sources[0]
        dst = move.target
        assert dst is not None
        if src.kind is PileKind.FOUNDATION:
            raise illegal(Reason.NOT_IN_THIS_GAME, "cards on the sultan's square never move", move)
        if src.kind is PileKind.COLUMN or dst.kind is PileKind.COLUMN:
            raise illegal(Reason.NOT_IN_THIS_GAME, "the Sultan's Harem has no columns", move)
        if src.kind is PileKind.CAPTIVE or dst.kind is PileKind.KING_ROW:
            raise illegal(Reason.NO_SUCH_PILE, "the Sultan's Harem has no king row and no captives", move)
        if dst.kind is PileKind.RESERVE:
            if src.kind is not PileKind.WASTE:
                raise illegal(Reason.NOT_IN_THIS_GAME, "a side slot takes only the waste's top card", move)
            return self._to_slot(state, move, dst)
        return self._to_foundation(state, move, src, dst)

    def _slot_index(self, pile: Pile, move: Move) -> int:
        i = pile.index
        if i is not None and not 1 <= i <= self.side_slots:
            raise illegal(
                Reason.NO_SUCH_PILE, f"{self.id} has side slots r1 to r{self.side_slots}, not {pile.text()}", move
            )
        return -1 if i is None else i - 1

    def _to_slot(self, state: State, move: Move, dst: Pile) -> tuple[State, Move]:
        """``w-r``/``w-r3``: the waste's top card into an empty side slot."""
        cells = state.cells
        j = self._slot_index(dst, move)
        if not state.waste:
            raise illegal(Reason.EMPTY_PILE, "the waste is empty", move)
        if j < 0:
            if NO_CARD not in cells:
                raise illegal(Reason.RESERVE_FULL, "every side slot holds a card", move)
            j = cells.index(NO_CARD)
        elif cells[j] != NO_CARD:
            raise illegal(Reason.CELL_OCCUPIED, f"side slot r{j + 1} holds {TEXT[cells[j]]}", move)
        w = state.waste[-1]
        return (
            State(
                cells=(*cells[:j], w, *cells[j + 1 :]),
                foundations=state.foundations,
                stock=state.stock,
                waste=state.waste[:-1],
                fixed=state.fixed,
                redeals=state.redeals,
            ),
            Move(MoveKind.TRANSFER, (_WASTE,), Pile(PileKind.RESERVE, j + 1)),
        )

    def _to_foundation(self, state: State, move: Move, src: Pile, dst: Pile) -> tuple[State, Move]:
        """``w-f``, ``r2-f4``: one card onto the first (or the named) foundation it fits."""
        cells = state.cells
        waste = state.waste
        found = state.foundations
        if dst.index is not None and not 1 <= dst.index <= len(found):
            raise illegal(Reason.NO_SUCH_PILE, f"the foundations are f1 to f{len(found)}, not {dst.text()}", move)
        at = self._slot_index(src, move) if src.kind is PileKind.RESERVE else -1
        if at < 0:
            if not waste:
                raise illegal(Reason.EMPTY_PILE, "the waste is empty", move)
            c = waste[-1]
        else:
            c = cells[at]
            if c == NO_CARD:
                raise illegal(Reason.EMPTY_PILE, f"side slot r{at + 1} is empty", move)
        nxt = self.next_card
        if dst.index is None:
            j = next((i for i, p in enumerate(found) if nxt[p[-1]] == c), -1)
            if j < 0:
                raise illegal(Reason.DOES_NOT_FIT, f"no foundation takes {TEXT[c]}", move)
        else:
            j = dst.index - 1
            t = found[j][-1]
            want = nxt[t]
            if want == NO_CARD:
                raise illegal(Reason.DOES_NOT_FIT, f"{dst.text()} is complete: {TEXT[t]} is on top", move)
            if RANK[c] != RANK[want]:
                raise illegal(
                    Reason.DOES_NOT_FIT, f"{TEXT[c]} does not go on {TEXT[t]}: {dst.text()} takes {TEXT[want]}", move
                )
            if SUIT[c] != SUIT[want]:
                raise illegal(Reason.WRONG_SUIT, f"{TEXT[c]} does not go on {TEXT[t]}: foundations build in suit", move)
        new_found = (*found[:j], (*found[j], c), *found[j + 1 :])
        if at < 0:
            waste = waste[:-1]
        else:
            cells = (*cells[:at], NO_CARD, *cells[at + 1 :])
        return (
            State(
                cells=cells,
                foundations=new_found,
                stock=state.stock,
                waste=waste,
                fixed=state.fixed,
                redeals=state.redeals,
            ),
            Move(MoveKind.TRANSFER, (src,), Pile(PileKind.FOUNDATION, j + 1)),
        )


class Sultan52(Sultan36):
    info = VariantInfo(
        id="sultan-52",
        name_en="Sultan's Harem (52 cards)",
        name_ru="Гарем султана (52 карты)",
        family="sultan",
        summary="The Sultan's Harem with two full decks and 8 side slots (K, A, 2 .. Q; AH: 2 .. Q).",
        deck_size=104,
    )
    side_slots: ClassVar[int] = 8
    next_card: ClassVar[tuple[Card, ...]] = _next_table(2)
