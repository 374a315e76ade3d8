"""deal-v1 against its published test vectors and an independent JavaScript implementation."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import canonical_deck, cards_text
from engine.deal import DealRandom, parse_seed, shuffled_deck

DOCS = Path(__file__).resolve().parent.parent / "docs"
VECTOR_ROW = re.compile(r"^\| `([0-9a-f]{64})` \| `([a-z0-9-]+)` \| (\d+) \| `([^`]+)` \|$", re.M)


def published_vectors() -> list[tuple[str, str, int, str]]:
    rows = VECTOR_ROW.findall((DOCS / "deal-v1.md").read_text())
    return [(s, v, int(n), cards) for s, v, n, cards in rows]


def test_docs_publish_vectors_for_both_deck_sizes() -> None:
    vectors = published_vectors()
    assert len(vectors) >= 8
    assert {n for _, _, n, _ in vectors} == {72, 104}


@pytest.mark.parametrize(("seed", "variant", "size", "first_ten"), published_vectors())
def test_published_vector(seed: str, variant: str, size: int, first_ten: str) -> None:
    assert cards_text(shuffled_deck(bytes.fromhex(seed), variant, size)[:10]) == first_ten


def test_canonical_order() -> None:
    deck = canonical_deck(104)
    assert cards_text(deck[:14]) == "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD"
    assert cards_text(deck[52:53]) == "AC"
    short = canonical_deck(72)
    assert cards_text(short[:10]) == "AC 6C 7C 8C 9C TC JC QC KC AD"
    assert len(short) == 72


@given(st.binary(min_size=32, max_size=32), st.sampled_from([("cats-tail", 104), ("sultan-36", 72)]))
def test_shuffle_is_a_permutation_and_deterministic(seed: bytes, game: tuple[str, int]) -> None:
    variant, size = game
    deck = shuffled_deck(seed, variant, size)
    assert Counter(deck) == Counter(canonical_deck(size))
    assert deck == shuffled_deck(seed, variant, size)


def test_variant_id_is_part_of_the_key() -> None:
    seed = bytes(32)
    assert shuffled_deck(seed, "cats-tail", 104) != shuffled_deck(seed, "royal-retinue", 104)


def test_uniform_stays_in_range_and_rejects_nothing_for_small_n() -> None:
    rnd = DealRandom(bytes(32), "x")
    values = [rnd.uniform(7) for _ in range(2000)]
    assert set(values) == set(range(7))


def test_uniform_rejects_the_biased_tail() -> None:
    # n = 2^63 + 1: limit = 2^64 - (2^64 mod n) = n, so about half of all words are rejected;
    # every accepted value is x itself (x < n), never a reduced one.
    n = (1 << 63) + 1
    rnd = DealRandom(bytes(32), "cats-tail")
    words = DealRandom(bytes(32), "cats-tail")._words
    raw = [next(words) for _ in range(64)]
    accepted = [x for x in raw if x < n]
    got = [rnd.uniform(n) for _ in range(len(accepted) - 1)]
    assert got == accepted[: len(got)]
    assert len(accepted) < len(raw)


def test_seed_must_be_32_bytes() -> None:
    with pytest.raises(ValueError):
        shuffled_deck(bytes(31), "cats-tail", 104)
    with pytest.raises(ValueError):
        parse_seed("abcd")
    assert parse_seed("00" * 32) == bytes(32)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: JS cross-check not run")
@pytest.mark.parametrize(("variant", "size"), [("captives", 104), ("sultan-36", 72), ("tribunal", 104)])
def test_independent_javascript_implementation_agrees(variant: str, size: int) -> None:
    for seed in (bytes(32), bytes(range(32)), b"\xa5" * 32):
        out = subprocess.run(
            ["node", str(DOCS / "deal-v1.js"), seed.hex(), variant, str(size)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert out == cards_text(shuffled_deck(seed, variant, size))
