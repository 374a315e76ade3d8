"""deal-v2 against its published test vectors (docs/deal-v2.md), in the engine and in the web client's
JavaScript module (clients/web/deal.js) under node; the single card pulled out (step 7) and the refusal of the
withdrawn deal-v1."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import get_game
from engine.cards import ACE, HEARTS, KING, QUEEN, RANK, canonical_deck, card, card_text, cards_text, parse_card
from engine.catalogue import VARIANT_IDS
from engine.deal import (
    ALGORITHM,
    MAX_DEAL_NUMBER,
    DealRandom,
    parse_seed,
    public_deal_seed,
    pull_one,
    shuffle,
    shuffled_deck,
    topmost,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deal-v2.md"
DEAL_JS = ROOT / "clients" / "web" / "deal.js"
SHUFFLE_ROW = re.compile(r"^\| `([0-9a-f]{64})` \| `([a-z0-9-]+)` \| (\d+) \| `([^`]+)` \|$", re.M)
PULL_ROW = re.compile(
    r"^\| `([0-9a-f]{64})` \| `([a-z0-9-]+)` \| (\d+) \| (\d+) \| `([2-9TJQKA][CDHS])` \| (\d+) \|$", re.M
)
PUBLIC_ROW = re.compile(r"^\| (\d+) \| `([0-9a-f]{64})` \| `([^`]+)` \|$", re.M)
AH = card(ACE, HEARTS)
#: variant -> (ranks removed whole in step 6, the card pulled out singly in step 7)
SINGLE = {
    "royal-retinue": ((), "K"),
    "royal-retinue-aces": ((ACE,), "K"),
    "tribunal": ((QUEEN,), "K"),
    "picture-gallery": ((QUEEN,), "K"),
    "sultan-36": ((KING,), "AH"),
    "sultan-52": ((KING,), "AH"),
}


def shuffle_vectors() -> list[tuple[str, str, int, str]]:
    return [(s, v, int(n), cards) for s, v, n, cards in SHUFFLE_ROW.findall(DOC.read_text())]


def pull_vectors() -> list[tuple[str, str, int, int, str, int]]:
    return [(s, v, int(m), int(k), c, int(i)) for s, v, m, k, c, i in PULL_ROW.findall(DOC.read_text())]


def public_vectors() -> list[tuple[int, str, str]]:
    return [(int(n), seed, cards) for n, seed, cards in PUBLIC_ROW.findall(DOC.read_text())]


def test_the_algorithm_is_deal_v2() -> None:
    assert ALGORITHM == "deal-v2"


def test_docs_publish_vectors_for_both_deck_sizes_and_every_single_pull_out() -> None:
    shuffled = shuffle_vectors()
    assert len(shuffled) >= 8 and len({s for s, *_ in shuffled}) >= 3
    assert {n for _, _, n, _ in shuffled} == {72, 104}
    pulls = pull_vectors()
    assert {v for _, v, *_ in pulls} == set(SINGLE)
    assert all(len([p for p in pulls if p[1] == v]) >= 3 for v in SINGLE)
    assert {k for _, _, _, k, _, _ in pulls if _ == "royal-retinue"} != {0}  # not always the topmost


@pytest.mark.parametrize(("seed", "variant", "size", "first_ten"), shuffle_vectors())
def test_published_shuffle_vector(seed: str, variant: str, size: int, first_ten: str) -> None:
    assert cards_text(shuffled_deck(bytes.fromhex(seed), variant, size)[:10]) == first_ten


def expected_pull(seed: bytes, variant: str) -> tuple[int, int, int, int]:
    """Steps 6-7 computed here from the stream: (m, k, the card, its index in the shuffled list)."""
    size = get_game(variant).info.deck_size
    cards, rnd = shuffle(seed, variant, size)
    sets, single = SINGLE[variant]
    where = [i for i, c in enumerate(cards) if RANK[c] not in sets and (RANK[c] == KING if single == "K" else c == AH)]
    k = rnd.uniform(len(where))
    return len(where), k, cards[where[k]], where[k]


@pytest.mark.parametrize(("seed", "variant", "m", "k", "pulled", "index"), pull_vectors())
def test_published_pull_out_vector(seed: str, variant: str, m: int, k: int, pulled: str, index: int) -> None:
    """The vector, the stream, and the engine's deal agree on which king (which AH) is pulled out."""
    raw = bytes.fromhex(seed)
    assert expected_pull(raw, variant) == (m, k, parse_card(pulled), index)
    game = get_game(variant)
    state = game.deal(raw)
    cards = shuffled_deck(raw, variant, game.info.deck_size)
    sets, _ = SINGLE[variant]
    rest = [c for i, c in enumerate(cards) if RANK[c] not in sets and i != index]
    if variant.startswith("sultan"):
        # the other AH stays where it lay: side slots, then the stock, in the list's order
        n = len(state.cells)
        assert [*state.cells, *state.stock] == rest and state.foundations[-1] == (AH,)
        assert rest[:n] == list(state.cells)
    elif variant in ("tribunal", "picture-gallery"):
        assert state.columns == ((parse_card(pulled),),) and list(state.stock) == rest
    else:
        assert state.columns[0][0] == parse_card(pulled)
        assert [c for col in state.columns for c in col][1:] == rest


@pytest.mark.parametrize("variant", sorted(SINGLE))
def test_the_stream_not_the_top_chooses_the_single_card(variant: str) -> None:
    """The legal deal takes the k-th candidate; its neighbour, the topmost one (deal-v1's rule), is another deal
    for most seeds where k > 0 (two alike cards side by side give the same deal) -- and over a few seeds every k
    from 0 to m-1 comes up."""
    game = get_game(variant)
    seen = set()
    above_top = differ = 0
    for i in range(40):
        seed = bytes([i]) * 32
        m, k, _, _ = expected_pull(seed, variant)
        seen.add(k)
        cards = shuffled_deck(seed, variant, game.info.deck_size)
        assert game.deal(seed) == game.deal_from(list(cards), lambda n, k=k, m=m: k if n == m else -1)
        if k > 0:
            above_top += 1
            differ += game.deal(seed) != game.deal_from(list(cards), topmost)
    assert differ > above_top // 2
    assert seen == set(range(8 if SINGLE[variant][1] == "K" else 2))


@pytest.mark.parametrize("variant", ["royal-retinue-kings-last", "cats-tail", "captives"])
def test_variants_without_a_single_pull_out_deal_the_shuffled_list_as_it_is(variant: str) -> None:
    game = get_game(variant)
    seed = bytes(range(32))
    cards = shuffled_deck(seed, variant, game.info.deck_size)
    assert game.deal(seed) == game.deal_from(cards)


def test_pull_one_takes_the_chosen_candidate_and_keeps_the_order_of_the_rest() -> None:
    cards = [parse_card(t) for t in ("5C", "KH", "7D", "KS", "2S", "KH", "9C")]
    assert pull_one(cards, lambda c: RANK[c] == KING, lambda m: 2 if m == 3 else -1) == parse_card("KH")
    assert cards_text(cards) == "5C KH 7D KS 2S 9C"
    with pytest.raises(ValueError):
        pull_one(cards, lambda c: RANK[c] == KING, lambda m: m)  # one past the last candidate
    with pytest.raises(ValueError):
        pull_one(cards, lambda c: RANK[c] == KING, lambda m: -1)
    assert cards_text(cards) == "5C KH 7D KS 2S 9C"  # a refused pick removes nothing


def test_canonical_order() -> None:
    deck = canonical_deck(104)
    assert cards_text(deck[:14]) == "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD"
    assert cards_text(deck[52:53]) == "AC"
    short = canonical_deck(72)
    assert cards_text(short[:10]) == "AC 6C 7C 8C 9C TC JC QC KC AD"
    assert len(short) == 72


@given(st.binary(min_size=32, max_size=32), st.sampled_from(VARIANT_IDS))
def test_every_deal_is_a_permutation_and_deterministic(seed: bytes, variant: str) -> None:
    game = get_game(variant)
    size = game.info.deck_size
    deck = shuffled_deck(seed, variant, size)
    assert Counter(deck) == Counter(canonical_deck(size))
    assert deck == shuffled_deck(seed, variant, size)
    state = game.deal(seed)
    assert Counter(state.all_cards()) == Counter(canonical_deck(size))
    assert state == game.deal(seed)


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


# -- the web client's module under node ------------------------------------------------------------------------

NODE_SCRIPT = """
import { dealCards, firstLayout } from %s;
let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const [seedHex, variant, size] of JSON.parse(input)) {
  const seed = Uint8Array.from(Buffer.from(seedHex, 'hex'));
  const dealt = await dealCards(seed, variant, size);
  out.push({ shuffled: dealt.shuffled, pulled: dealt.pulled, layout: firstLayout(variant, dealt) });
}
console.log(JSON.stringify(out));
"""


def run_deal_js(jobs: list[tuple[str, str, int]]) -> list[dict[str, Any]]:
    node = shutil.which("node")
    assert node is not None, "node is not installed (deploy/setup.sh installs nodejs): clients/web/deal.js is untested"
    done = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT % json.dumps(DEAL_JS.as_uri())],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def test_the_web_clients_module_agrees_with_the_published_vectors() -> None:
    shuffles = shuffle_vectors()
    pulls = pull_vectors()
    sizes = {v: get_game(v).info.deck_size for _, v, *_ in pulls}
    jobs = [(s, v, n) for s, v, n, _ in shuffles] + [(s, v, sizes[v]) for s, v, *_ in pulls]
    out = run_deal_js(jobs)
    for (_, _, _, first_ten), got in zip(shuffles, out, strict=False):
        assert " ".join(got["shuffled"][:10]) == first_ten
    for (_, variant, m, k, pulled, index), got in zip(pulls, out[len(shuffles) :], strict=True):
        assert got["pulled"] == {"m": m, "k": k, "card": pulled, "index": index}, variant


def test_the_web_clients_module_deals_every_variant_as_the_engine_does() -> None:
    """The whole shuffled list and the first layout the player sees, for every variant and a few seeds."""
    seeds = [bytes(32), bytes(range(32)), b"\xa5" * 32, bytes([7]) * 32]
    jobs = [(s.hex(), v, get_game(v).info.deck_size) for s in seeds for v in VARIANT_IDS]
    for (seed_hex, variant, size), got in zip(jobs, run_deal_js(jobs), strict=True):
        seed = bytes.fromhex(seed_hex)
        assert " ".join(got["shuffled"]) == cards_text(shuffled_deck(seed, variant, size))
        state = get_game(variant).deal(seed)
        layout = got["layout"]
        if "columns" in layout:
            assert layout["columns"] == [[card_text(c) for c in col] for col in state.columns], variant
        if layout.get("foundations"):
            assert layout["foundations"] == [[card_text(c) for c in f] for f in state.foundations], variant
        if "cells" in layout:
            assert layout["cells"] == [card_text(c) for c in state.cells], variant
        if "fixed" in layout:
            assert layout["fixed"] == [card_text(c) for c in state.fixed], variant
        if variant in SINGLE:
            m, k, pulled, index = expected_pull(seed, variant)
            assert got["pulled"] == {"m": m, "k": k, "card": card_text(pulled), "index": index}
        else:
            assert got["pulled"] is None


# -- numbered public deals -------------------------------------------------------------------------------------


def test_docs_publish_public_deal_seeds_from_one_to_the_largest_number() -> None:
    numbers = [n for n, _, _ in public_vectors()]
    assert len(numbers) >= 5 and numbers[0] == 1 and numbers[-1] == MAX_DEAL_NUMBER == 2**32 - 1


@pytest.mark.parametrize(("number", "seed", "first_ten"), public_vectors())
def test_published_public_deal_vector(number: int, seed: str, first_ten: str) -> None:
    assert public_deal_seed(number).hex() == seed
    assert seed == hashlib.sha256(f"patience-public-deal|{number}".encode()).hexdigest()  # the rule as written
    assert cards_text(shuffled_deck(bytes.fromhex(seed), "cats-tail", 104)[:10]) == first_ten


@pytest.mark.parametrize("number", [0, -1, MAX_DEAL_NUMBER + 1, True, 1.0, "7"])
def test_a_public_deal_number_outside_one_to_the_largest_is_refused(number: Any) -> None:
    with pytest.raises(ValueError, match="public deal"):
        public_deal_seed(number)


@given(st.integers(min_value=1, max_value=MAX_DEAL_NUMBER), st.integers(min_value=1, max_value=MAX_DEAL_NUMBER))
def test_public_deal_seeds_are_distinct_and_thirty_two_bytes(a: int, b: int) -> None:
    assert len(public_deal_seed(a)) == 32
    assert (public_deal_seed(a) == public_deal_seed(b)) == (a == b)


PUBLIC_SCRIPT = """
import { publicDealSeed } from %s;
const out = [];
for (const n of [1, 2, 7, 10, 1000, 65536, 4294967295]) out.push(Buffer.from(await publicDealSeed(n)).toString('hex'));
for (const bad of [0, -1, 4294967296, 1.5, '7', NaN]) {
  try { await publicDealSeed(bad); out.push('accepted ' + bad); } catch (e) { out.push(e.name); }
}
console.log(JSON.stringify(out));
"""


def test_the_web_clients_module_computes_the_published_public_deal_seeds() -> None:
    node = shutil.which("node")
    assert node is not None, "node is not installed (deploy/setup.sh installs nodejs): clients/web/deal.js is untested"
    done = subprocess.run(
        [node, "--input-type=module", "-e", PUBLIC_SCRIPT % json.dumps(DEAL_JS.as_uri())],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    published = {n: seed for n, seed, _ in public_vectors()}
    assert out[:7] == [published[n] for n in (1, 2, 7, 10, 1000, 65536, 4294967295)]
    assert out[7:] == ["RangeError"] * 6
