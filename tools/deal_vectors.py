"""Print the deal-v2 test vectors of docs/deal-v2.md (Markdown tables) from the engine, and the seeds of a few
numbered public deals.

    .venv/bin/python tools/deal_vectors.py > /tmp/vectors.md

The tests read the tables back from docs/deal-v2.md and check the engine and the web client's
``clients/web/deal.js`` against them, so a changed deal fails there, not here.
"""

from __future__ import annotations

import hashlib
import hmac
import struct

from engine.cards import ACE, HEARTS, KING, QUEEN, RANK, card, cards_text
from engine.deal import MAX_DEAL_NUMBER, public_deal_seed, shuffle

SEEDS = (
    bytes(32),
    bytes.fromhex("ff00" * 16),
    bytes.fromhex("96d61fe343ddf5e0d8d68b1d0b08b9af50973a0ebdd38021fae327bbea1b4c13"),
    bytes(range(1, 33)),
)
#: Public deal numbers whose seeds are published (docs/deal-v2.md, "Numbered public deals").
DEAL_NUMBERS = (1, 2, 7, 10, 1000, 65_536, MAX_DEAL_NUMBER)
SHUFFLED = (("royal-retinue", 104), ("cats-tail", 104), ("sultan-52", 104), ("sultan-36", 72))
AH = card(ACE, HEARTS)
#: variant -> (deck size, ranks removed whole in step 6, the single card's test in step 7)
SINGLE = {
    "royal-retinue": (104, (), lambda c: RANK[c] == KING),
    "royal-retinue-aces": (104, (ACE,), lambda c: RANK[c] == KING),
    "tribunal": (104, (QUEEN,), lambda c: RANK[c] == KING),
    "picture-gallery": (104, (QUEEN,), lambda c: RANK[c] == KING),
    "sultan-36": (72, (KING,), lambda c: c == AH),
    "sultan-52": (104, (KING,), lambda c: c == AH),
}


def main() -> None:
    key = hmac.new(bytes(32), b"deal-v2|cats-tail", hashlib.sha256).digest()
    block0 = hmac.new(key, struct.pack(">Q", 0), hashlib.sha256).digest()
    x = int.from_bytes(block0[:8], "big")
    print(f"- `key` = `{key.hex()}`\n- `block_0` = `{block0.hex()}`\n- first `uniform(104)`: x = {x}, j = {x % 104}")
    print("\n| seed (hex) | variant | deck | first ten cards, top first |\n|---|---|---|---|")
    for seed in SEEDS:
        for variant, size in SHUFFLED:
            first = cards_text(shuffle(seed, variant, size).cards[:10])
            print(f"| `{seed.hex()}` | `{variant}` | {size} | `{first}` |")
    print("\n| seed (hex) | variant | m | k | card | index |\n|---|---|---|---|---|---|")
    for seed in SEEDS:
        for variant, (size, sets, single) in SINGLE.items():
            cards, rnd = shuffle(seed, variant, size)
            left = [i for i, c in enumerate(cards) if RANK[c] not in sets]
            where = [i for i in left if single(cards[i])]
            k = rnd.uniform(len(where))
            index = where[k]
            pulled = cards_text([cards[index]])
            print(f"| `{seed.hex()}` | `{variant}` | {len(where)} | {k} | `{pulled}` | {index} |")
    print("\n| deal number | seed (hex) | `cats-tail`, first ten cards |\n|---|---|---|")
    for number in DEAL_NUMBERS:
        seed = public_deal_seed(number)
        first = cards_text(shuffle(seed, "cats-tail", 104).cards[:10])
        print(f"| {number} | `{seed.hex()}` | `{first}` |")


if __name__ == "__main__":
    main()
