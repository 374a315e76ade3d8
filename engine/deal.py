"""Algorithm ``deal-v2``: a deal as a pure function of (variant, seed).

Every step is spelled out in docs/rules.md so that a client in any language can
reproduce a deal: an HMAC-SHA256 counter stream, unbiased ``uniform(n)`` by
rejection sampling, and a Fisher-Yates shuffle from the end of the canonical
deck. Index 0 of the result is the top of the stock (dealt first).

A variant that pulls out one card of several alike (one of 8 kings, one of 2
AH) asks the same stream, where the shuffle stopped, which one (step 7): pulling
"any" card this way is the same as pulling it out before the shuffle, where
pulling the topmost one (the withdrawn deal-v1) skewed the layout.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .cards import Card, canonical_deck

ALGORITHM = "deal-v2"
SEED_BYTES = 32
_TWO64 = 1 << 64

#: Step 7's choice: given m candidates, the 0-based index of the one pulled out, counted from the top.
Pick = Callable[[int], int]


def topmost(m: int) -> int:
    """The ``Pick`` for a hand-built deck: the topmost candidate (what a test that lays out a deck expects)."""
    return 0


def _stream(key: bytes) -> Iterator[int]:
    """Successive 64-bit words of block_0 || block_1 || ... (big-endian)."""
    i = 0
    while True:
        block = hmac.new(key, struct.pack(">Q", i), hashlib.sha256).digest()
        yield from struct.unpack(">4Q", block)
        i += 1


class DealRandom:
    """The ``deal-v2`` random source for one (seed, variant)."""

    def __init__(self, seed: bytes, variant_id: str) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(seed)}")
        key = hmac.new(seed, f"{ALGORITHM}|{variant_id}".encode(), hashlib.sha256).digest()
        self._words = _stream(key)

    def uniform(self, n: int) -> int:
        """A uniform integer in [0, n) with no modulo bias."""
        limit = _TWO64 - (_TWO64 % n)
        while True:
            x = next(self._words)
            if x < limit:
                return x % n


class Shuffled(NamedTuple):
    """The shuffled list (step 6's stock, index 0 on top) and the stream where the shuffle stopped (step 7)."""

    cards: list[Card]
    random: DealRandom


def shuffle(seed: bytes, variant_id: str, size: int) -> Shuffled:
    """Steps 1-5: the whole double deck shuffled, and the stream left ready for step 7."""
    deck = canonical_deck(size)
    rnd = DealRandom(seed, variant_id)
    for i in range(len(deck) - 1, 0, -1):
        j = rnd.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return Shuffled(deck, rnd)


def shuffled_deck(seed: bytes, variant_id: str, size: int) -> list[Card]:
    """The whole shuffled double deck, index 0 on top."""
    return shuffle(seed, variant_id, size).cards


def pull_one(cards: list[Card], candidate: Callable[[Card], bool], pick: Pick) -> Card:
    """Step 7: remove from ``cards`` (in place) the ``pick(m)``-th of its m candidates from the top; return it.

    The other cards keep their order.
    """
    where = [i for i, c in enumerate(cards) if candidate(c)]
    k = pick(len(where))
    if not 0 <= k < len(where):
        raise ValueError(f"pick {k} is not one of the {len(where)} candidates")
    return cards.pop(where[k])


#: Numbered public deals ("deal #N", docs/deal-v2.md): seed = SHA-256(PUBLIC_DEAL_LABEL + decimal N).
PUBLIC_DEAL_LABEL = "patience-public-deal|"
MAX_DEAL_NUMBER = (1 << 32) - 1


def public_deal_seed(number: int) -> bytes:
    """The seed of public deal ``number`` (1 to 2**32-1): the same for every variant, so "deal #N" names one deal
    of each game, and anyone can compute it (no fairness claim: everyone knows the deal in advance)."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_DEAL_NUMBER:
        raise ValueError(f"a public deal's number is 1 to {MAX_DEAL_NUMBER}, not {number!r}")
    return hashlib.sha256(f"{PUBLIC_DEAL_LABEL}{number}".encode("ascii")).digest()


def parse_seed(text: str) -> bytes:
    """A seed from 64 hex digits."""
    try:
        seed = bytes.fromhex(text.strip())
    except ValueError as exc:
        raise ValueError(f"a seed is {SEED_BYTES * 2} hex digits") from exc
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES * 2} hex digits, got {len(seed) * 2}")
    return seed
