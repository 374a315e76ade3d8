"""Family 3, Captives (seed 001): kings free the cards held face down beneath them."""

from __future__ import annotations

from collections.abc import Iterator

from ..cards import Card
from ..game import Game, VariantInfo
from ..moves import Move
from ..state import State


class Captives(Game):
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

    def deal_from(self, deck: list[Card]) -> State:
        raise NotImplementedError

    def legal_moves(self, state: State) -> Iterator[Move]:
        raise NotImplementedError

    def play(self, state: State, move: Move) -> tuple[State, Move]:
        raise NotImplementedError

    def is_won(self, state: State) -> bool:
        raise NotImplementedError
