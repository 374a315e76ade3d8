"""Measure what step 7 of deal-v2 is for, over many deals: the figures in docs/deal-v2.md.

    .venv/bin/python tools/deal_stats.py [--deals 100000]

For each seed sha256(b"deal-stats-<i>") it deals the same shuffled list twice: with deal-v2's choice
(``k = uniform(m)`` from the stream) and with the topmost candidate (what the withdrawn deal-v1 did), and
prints, as Markdown:

- royal-retinue: the mean number of non-king cards in column 1 and in columns 2-8 (each column holds one king);
- sultan-36 and sultan-52: where the AH left in the deal lands (0-based in side slots then stock, top first):
  how often in a side slot, against the share every card has (slots / cards dealt), and its mean position.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from statistics import fmean

from engine import get_game
from engine.cards import ACE, HEARTS, card
from engine.deal import shuffle, topmost

AH = card(ACE, HEARTS)


def seed_of(i: int) -> bytes:
    return hashlib.sha256(b"deal-stats-%d" % i).digest()


def royal_retinue(n: int) -> dict[str, tuple[float, float]]:
    """{rule: (mean non-kings in column 1, mean non-kings in each of columns 2-8)}."""
    game = get_game("royal-retinue")
    sums = {"deal-v2": [0, 0], "topmost": [0, 0]}
    for i in range(n):
        cards, rnd = shuffle(seed_of(i), game.id, 104)
        for rule, pick in (("deal-v2", rnd.uniform), ("topmost", topmost)):
            columns = game.deal_from(cards, pick).columns
            sums[rule][0] += len(columns[0]) - 1
            sums[rule][1] += sum(len(c) - 1 for c in columns[1:])
    return {rule: (first / n, rest / (7 * n)) for rule, (first, rest) in sums.items()}


def sultan(variant: str, n: int) -> dict[str, tuple[float, float]]:
    """{rule: (share of deals with the dealt AH in a side slot, its mean position)}."""
    game = get_game(variant)
    where: dict[str, list[int]] = {"deal-v2": [], "topmost": []}
    for i in range(n):
        cards, rnd = shuffle(seed_of(i), variant, game.info.deck_size)
        for rule, pick in (("deal-v2", rnd.uniform), ("topmost", topmost)):
            state = game.deal_from(cards, pick)
            where[rule].append([*state.cells, *state.stock].index(AH))
    slots = len(get_game(variant).deal(seed_of(0)).cells)
    return {rule: (sum(p < slots for p in ps) / n, fmean(ps)) for rule, ps in where.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    n = parser.parse_args().deals
    started = time.process_time()
    rr = royal_retinue(n)
    print(f"royal-retinue, {n:,} deals: mean non-king cards in a column\n")
    print("| rule | column 1 | columns 2-8 (each) |\n|---|---|---|")
    for rule, (first, rest) in rr.items():
        print(f"| {rule} | {first:.2f} | {rest:.2f} |")
    for variant in ("sultan-36", "sultan-52"):
        game = get_game(variant)
        slots = len(game.deal(seed_of(0)).cells)
        dealt = game.info.deck_size - 9
        print(f"\n{variant}, {n:,} deals: the AH left in the deal, among {dealt} cards (0 = first side slot)\n")
        print(f"| rule | in a side slot | mean position |\n|---|---|---|\n| any card | {slots / dealt:.2%} | "
              f"{(dealt - 1) / 2:.1f} |")
        for rule, (share, mean) in sultan(variant, n).items():
            print(f"| {rule} | {share:.2%} | {mean:.1f} |")
    print(f"\n({time.process_time() - started:.0f} s CPU)")


if __name__ == "__main__":
    main()
