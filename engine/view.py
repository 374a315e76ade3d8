"""The player's view: the position with every hidden card taken out.

Hidden cards are the stock's order and face-down captives. The view says how
many there are, never which. It is the only projection of a State that may
leave the server before the game ends (boardgame.io's lesson: secrets leak
through whatever payload carries the whole state).
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import NO_CARD, Card
from .game import Game, Status
from .state import Pile, State

#: A face-down card in the view (its place is known, not its face).
HIDDEN: Card = -2


class View(NamedTuple):
    """What a player may see. ``captives`` holds HIDDEN, NO_CARD (gone) or the released card.

    A named tuple rather than a frozen dataclass: as immutable, and built five times faster (a frozen dataclass
    sets each field through ``object.__setattr__``), which counts when every move returns a view.
    """

    variant: str
    columns: tuple[Pile, ...]
    cells: tuple[Card, ...]
    foundations: tuple[Pile, ...]
    stock_count: int
    stock: Pile | None  # only when its order is no secret
    waste: Pile
    captives: tuple[Card, ...]
    fixed: Pile
    redeals_used: int
    redeals_left: int
    status: Status


def player_view(game: Game, state: State, status: Status | None = None) -> View:
    """Project ``state`` for the player: no stock order, no face-down captive. ``status`` is
    ``game.status(state)`` when the caller has it already."""
    captives = tuple(
        c if c == NO_CARD or game.captive_released(state, i) else HIDDEN for i, c in enumerate(state.captives)
    )
    allowed = game.redeals_allowed()
    return View(
        variant=game.id,
        columns=state.columns,
        cells=state.cells,
        foundations=state.foundations,
        stock_count=len(state.stock),
        stock=state.stock if game.stock_visible(state) else None,
        waste=state.waste,
        captives=captives,
        fixed=state.fixed,
        redeals_used=state.redeals,
        redeals_left=max(allowed - state.redeals, 0),
        status=game.status(state) if status is None else status,
    )


def hidden_cards(game: Game, state: State) -> list[Card]:
    """The cards a player may not see yet (the multiset the view must not contain)."""
    hidden = [] if game.stock_visible(state) else list(state.stock)
    hidden += [c for i, c in enumerate(state.captives) if c != NO_CARD and not game.captive_released(state, i)]
    return hidden
