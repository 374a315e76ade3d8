"""Write the solver's regression vectors (tests/data/solver-vectors.json) from the engine as it is.

    .venv/bin/python tools/solver_vectors.py > tests/data/solver-vectors.json

For the games that the generic search plays (engine/solver/search.py: tribunal, picture-gallery, captives, the
sultans, and a king-chain game with the generic profile passed in), on a few deals and mid-game positions
reached by a seeded random walk: ``solve`` at several budgets in positions (the outcome, the positions
expanded, the winning line's texts) and ``hint`` with a few seeds (the move, its code, reason and counts).
``tests/engine/test_solver_vectors.py`` recomputes every answer and compares: a change that makes the search
cheaper must leave every answer as it was, down to the count of positions expanded.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

from engine import State, get_game
from engine.game import Game
from engine.solver import hint, solve
from engine.solver.profiles import profile_for

#: (variant, options, deals, walk lengths, budgets in positions)
CASES: tuple[tuple[str, dict[str, object], int, tuple[int, ...], tuple[int, ...]], ...] = (
    ("tribunal", {}, 3, (0, 25, 120), (40, 300, 1500)),
    ("picture-gallery", {}, 3, (0, 25, 160), (40, 300, 1500)),
    ("picture-gallery", {"deals": 3}, 2, (0, 220), (40, 600)),
    ("captives", {}, 3, (0, 25, 120), (40, 300, 1500)),
    ("sultan-36", {}, 3, (0, 25, 120), (40, 300, 3000)),
    ("sultan-52", {}, 3, (0, 25, 160), (40, 300, 3000)),
    ("royal-retinue", {}, 2, (0, 30), (40, 300)),
)
#: Hints: (seed, samples, positions per guess, positions with every card face up).
HINTS = ((b"a", 3, 600, 2000), (b"b", 2, 150, 600))
#: The games whose hints come from the generic search (the king-chain games' come from kingchain.py).
HINT_GAMES = {"tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52"}


def deal_seed(variant: str, i: int) -> bytes:
    return hashlib.sha256(b"solver-vectors|%s|%d" % (variant.encode(), i)).digest()


def walk(game: Game, seed: bytes, steps: int) -> tuple[State, list[str]]:
    """A mid-game position: ``steps`` legal moves picked by a seeded random walk (fewer if the game ends)."""
    state = game.deal(seed)
    rng = random.Random(seed + bytes([steps % 256]))
    texts: list[str] = []
    for _ in range(steps):
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state, explicit = game.play(state, rng.choice(moves))
        texts.append(explicit.text())
    return state, texts


def vectors() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for variant, options, deals, walks, budgets in CASES:
        game = get_game(variant, options)
        generic = profile_for(game) if variant == "royal-retinue" else None
        for i in range(deals):
            seed = deal_seed(variant, i)
            for steps in walks:
                state, texts = walk(game, seed, steps)
                solves = []
                for budget in budgets:
                    found = solve(game, state, max_states=budget, profile=generic)
                    solves.append(
                        {
                            "max_states": budget,
                            "outcome": found.outcome.value,
                            "states": found.states,
                            "budget_hit": found.budget_hit,
                            "line": " ".join(found.texts()),
                        }
                    )
                hints = []
                if variant in HINT_GAMES:
                    for hint_seed, samples, sample_states, full_states in HINTS:
                        given = hint(
                            game,
                            state,
                            seed=hint_seed,
                            samples=samples,
                            sample_states=sample_states,
                            full_states=full_states,
                        )
                        hints.append(
                            {
                                "seed": hint_seed.hex(),
                                "samples": samples,
                                "sample_states": sample_states,
                                "full_states": full_states,
                                "move": given.text(),
                                "code": given.code.value,
                                "reason": given.reason,
                                "wins": given.wins,
                                "tried": given.tried,
                                "moves_to_end": given.moves_to_end,
                            }
                        )
                out.append(
                    {
                        "variant": variant,
                        "options": options,
                        "seed": seed.hex(),
                        "moves": " ".join(texts),
                        "generic_profile": generic is not None,
                        "solves": solves,
                        "hints": hints,
                    }
                )
                print(f"{variant} {options} deal {i} +{len(texts)}: {[s['outcome'] for s in solves]}", file=sys.stderr)
    return out


def main() -> None:
    print(json.dumps({"format": 1, "positions": vectors()}, indent=1))


if __name__ == "__main__":
    main()
