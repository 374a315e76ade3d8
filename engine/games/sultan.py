"""Family 4, the Sultan's Harem (seed 003), with 36-card and 52-card double decks."""

from __future__ import annotations

from collections.abc import Iterator

from ..cards import Card
from ..game import Game, VariantInfo
from ..moves import Move
from ..state import State


class Sultan36(Game):
    info = VariantInfo(
        id="sultan-36",
        name_en="Sultan's Harem (36 cards)",
        name_ru="Гарем султана (36 карт)",
        family="sultan",
        summary="The sultan (KH) sits amid 7 kings and the AH; build each up in suit (K, A, 6 .. Q; AH: 6 .. Q) "
        "from the stock, the waste and 6 side slots until 8 queens surround him. Three passes.",
        deck_size=72,
    )

    def deal_from(self, deck: list[Card]) -> State:
        raise NotImplementedError

    def legal_moves(self, state: State) -> Iterator[Move]:
        raise NotImplementedError

    def play(self, state: State, move: Move) -> tuple[State, Move]:
        raise NotImplementedError

    def is_won(self, state: State) -> bool:
        raise NotImplementedError


class Sultan52(Sultan36):
    info = VariantInfo(
        id="sultan-52",
        name_en="Sultan's Harem (52 cards)",
        name_ru="Гарем султана (52 карты)",
        family="sultan",
        summary="The Sultan's Harem with two full decks and 8 side slots (K, A, 2 .. Q; AH: 2 .. Q).",
        deck_size=104,
    )
