"""Algorithm ``deal-v1``: a deal as a pure function of (variant, seed).

Every step is spelled out in RULES.md so that a client in any language can
reproduce a deal: an HMAC-SHA256 counter stream, unbiased ``uniform(n)`` by
rejection sampling, and a Fisher-Yates shuffle from the end of the canonical
deck. Index 0 of the result is the top of the stock (dealt first).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator

from .cards import Card, canonical_deck

ALGORITHM = "deal-v1"
SEED_BYTES = 32
_TWO64 = 1 << 64


def _stream(key: bytes) -> Iterator[int]:
    """Successive 64-bit words of block_0 || block_1 || ... (big-endian)."""
    i = 0
    while True:
        block = hmac.new(key, struct.pack(">Q", i), hashlib.sha256).digest()
        yield from struct.unpack(">4Q", block)
        i += 1


class DealRandom:
    """The ``deal-v1`` random source for one (seed, variant)."""

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


def shuffled_deck(seed: bytes, variant_id: str, size: int) -> list[Card]:
    """The whole shuffled double deck, index 0 on top."""
    deck = canonical_deck(size)
    rnd = DealRandom(seed, variant_id)
    for i in range(len(deck) - 1, 0, -1):
        j = rnd.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def parse_seed(text: str) -> bytes:
    """A seed from 64 hex digits."""
    try:
        seed = bytes.fromhex(text.strip())
    except ValueError as exc:
        raise ValueError(f"a seed is {SEED_BYTES * 2} hex digits") from exc
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed is {SEED_BYTES * 2} hex digits, got {len(seed) * 2}")
    return seed
