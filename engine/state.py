"""The position of a game: plain immutable data, shared by every family.

Each family uses the fields it needs and leaves the rest empty; that keeps one
encoding, one hash and one view for all nine games. Applying a move builds a
new State (tuples are shared where unchanged), so a refused move can never
leave a half-changed position behind.
"""

from __future__ import annotations

from itertools import chain
from typing import NamedTuple

from .cards import NO_CARD, Card

Pile = tuple[Card, ...]


class State(NamedTuple):
    """One position (a named tuple: immutable, and built five times faster than a frozen dataclass, which sets
    each field through ``object.__setattr__``; every move builds one).

    - ``columns``: tableau piles, index 0 at the head (dealt first); last = free card.
    - ``cells``: reserve cells or the sultan's side slots (``NO_CARD`` = empty).
    - ``foundations``: piles, last = top (the captives' king-row slots too).
    - ``stock``: face down, index 0 on top (dealt next).
    - ``waste``: face up, last = top.
    - ``captives``: the face-down card under king-row slot i (``NO_CARD`` once played).
    - ``fixed``: cards that never move (tribunal's queens, the sultan).
    - ``redeals``: redeals (or waste turns) used so far.
    - ``fresh``: picture-gallery: the newest column has had no card from the stock yet.
    """

    columns: tuple[Pile, ...] = ()
    cells: tuple[Card, ...] = ()
    foundations: tuple[Pile, ...] = ()
    stock: Pile = ()
    waste: Pile = ()
    captives: tuple[Card, ...] = ()
    fixed: Pile = ()
    redeals: int = 0
    fresh: bool = False

    def all_cards(self) -> list[Card]:
        """Every card in the position (for conservation checks)."""
        return [
            c
            for c in chain(
                chain.from_iterable(self.columns),
                self.cells,
                chain.from_iterable(self.foundations),
                self.stock,
                self.waste,
                self.captives,
                self.fixed,
            )
            if c != NO_CARD
        ]
