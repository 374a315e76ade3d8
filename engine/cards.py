"""Cards as small integers.

A card is ``suit * 13 + (rank - 1)``: 0..51, one byte, cheap to compare and to
store. The two copies of a card in a double deck are interchangeable for every
rule, so a card value names a (rank, suit) pair, not a physical copy.
"""

from __future__ import annotations

from typing import Final

from .errors import NotationError

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
NO_CARD: Final = -1

#: Ranks of a 36-card deck in canonical order (A, 6, 7, ..., K).
RANKS_36: Final = (1, 6, 7, 8, 9, 10, 11, 12, 13)
RANKS_52: Final = tuple(range(1, 14))

Card = int


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1 = ace .. 13 = king) and ``suit`` (0..3, CDHS)."""
    return suit * 13 + rank - 1


def rank_of(c: Card) -> int:
    return c % 13 + 1


def suit_of(c: Card) -> int:
    return c // 13


def is_red(c: Card) -> bool:
    """Diamonds and hearts are red."""
    return 13 <= c < 39


def card_text(c: Card) -> str:
    """``TH`` for the ten of hearts."""
    return RANKS[c % 13] + SUITS[c // 13]


def cards_text(cards: tuple[int, ...] | list[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def parse_card(text: str) -> Card:
    """Parse ``TH``, ``10h``, ``as``; raise NotationError otherwise."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise NotationError(f"not a card: {text!r}", text=text)
    return card(RANKS.index(t[0]) + 1, SUITS.index(t[1]))


def canonical_deck(size: int) -> list[Card]:
    """Deck copy 0 then copy 1; suits C, D, H, S; ranks A..K (or A, 6..K)."""
    if size == 104:
        ranks: tuple[int, ...] = RANKS_52
    elif size == 72:
        ranks = RANKS_36
    else:
        raise ValueError(f"no double deck has {size} cards")
    one = [card(r, s) for s in range(4) for r in ranks]
    return one + one


#: Pre-computed lookups used on hot paths.
RANK: Final = tuple(rank_of(c) for c in range(52))
SUIT: Final = tuple(suit_of(c) for c in range(52))
RED: Final = tuple(is_red(c) for c in range(52))
TEXT: Final = tuple(card_text(c) for c in range(52))
