"""Family 1, the king-chain tableau: Royal Retinue, its variants, and Cat's Tail (seed 000, 002 a/b)."""

from __future__ import annotations

from collections.abc import Iterator

from ..cards import Card
from ..game import Game, OptionSpec, VariantInfo
from ..moves import Move
from ..state import State

_RULES = (
    "All 104 cards face up in columns; build down in alternate colours, runs move as one move; "
    "8 reserve cells, one to eight free cards go there in one move; 8 foundations built up in suit "
    "from any ace; an emptied column is dead."
)


class RoyalRetinue(Game):
    info = VariantInfo(
        id="royal-retinue",
        name_en="Royal Retinue",
        name_ru="Королевская свита",
        family="king-chain",
        summary="A king is pulled out to head column 1; each king that comes starts the next of 8 columns. " + _RULES,
        deck_size=104,
    )

    def deal_from(self, deck: list[Card]) -> State:
        raise NotImplementedError

    def legal_moves(self, state: State) -> Iterator[Move]:
        raise NotImplementedError

    def play(self, state: State, move: Move) -> tuple[State, Move]:
        raise NotImplementedError

    def is_won(self, state: State) -> bool:
        raise NotImplementedError


class RoyalRetinueAces(RoyalRetinue):
    info = VariantInfo(
        id="royal-retinue-aces",
        name_en="Royal Retinue (aces out)",
        name_ru="Королевская свита (тузы заранее)",
        family="king-chain",
        summary="Royal Retinue with all 8 aces pulled out first to start the foundations. " + _RULES,
        deck_size=104,
    )


class RoyalRetinueKingsLast(RoyalRetinue):
    info = VariantInfo(
        id="royal-retinue-kings-last",
        name_en="Royal Retinue (kings last)",
        name_ru="Королевская свита (короли в конце)",
        family="king-chain",
        summary="No king is pulled out: each king closes its column and is then moved to its head; 8 columns. "
        + _RULES,
        deck_size=104,
    )


class CatsTail(RoyalRetinue):
    info = VariantInfo(
        id="cats-tail",
        name_en="Cat's Tail",
        name_ru="Кошачий хвост",
        family="king-chain",
        summary="No king is pulled out: every king starts the next column, 9 columns, the first without a king. "
        + _RULES,
        deck_size=104,
        options=(
            OptionSpec(
                name="sequence_moves",
                default=True,
                allowed=(True, False),
                description="Whether a run of several cards may move as one move (some players forbid it).",
            ),
        ),
    )
