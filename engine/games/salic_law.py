"""Family 2, Salic Law: Tribunal and Picture Gallery (seed 002 c/d), dealt interactively."""

from __future__ import annotations

from collections.abc import Iterator

from ..cards import Card
from ..game import Game, OptionSpec, VariantInfo
from ..moves import Move
from ..state import State


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

    def deal_from(self, deck: list[Card]) -> State:
        raise NotImplementedError

    def legal_moves(self, state: State) -> Iterator[Move]:
        raise NotImplementedError

    def play(self, state: State, move: Move) -> tuple[State, Move]:
        raise NotImplementedError

    def is_won(self, state: State) -> bool:
        raise NotImplementedError


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
