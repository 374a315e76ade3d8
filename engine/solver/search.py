"""Best-first search with a transposition table: the solver's core.

Each position popped from the frontier is expanded by every move the family's profile offers; each
child is first settled by the safe automatic moves (``safe.autoplay``), then looked up by its canonical
key, and only a position never seen before enters the frontier, ordered by the profile's score plus a
small weight for the moves already made (a weighted A*: the weight keeps lines short without giving up
the heuristic's speed). Moves that undo each other (``3-7`` then ``7-3``) need no rule of their own: the
position they lead back to is in the table already.

The answer is exact in two cases: a won position was reached (the line to it is the answer), or the
frontier ran dry with no budget hit (every position reachable from the start was seen: no win exists).
Safe moves and the folding of the key never lose a win, so that second answer is a proof. Otherwise the
budget ran out: unknown. Ties in the frontier go to the position generated first, so a budget in states
gives the same answer on every run.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import StrEnum

from ..game import Game
from ..moves import Move
from ..state import State
from .profiles import Profile, profile_for
from .safe import autoplay

#: The weight of each move already made, against the profile's score.
DEPTH_WEIGHT = 1
#: How many expansions between two looks at the clock.
CLOCK_EVERY = 64


class Outcome(StrEnum):
    """What the solver found out."""

    WON = "won"
    NO_WIN = "no-win"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Solution:
    """The solver's answer. ``moves`` is the winning line in explicit form (empty unless ``WON``); ``states``
    counts the positions expanded, ``seconds`` the CPU time the search took in this thread."""

    outcome: Outcome
    moves: tuple[Move, ...] = ()
    states: int = 0
    seconds: float = 0.0
    budget_hit: str = field(default="")

    def texts(self) -> list[str]:
        """The winning line in RULES.md notation."""
        return [m.text() for m in self.moves]


def solve(
    game: Game,
    state: State,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    depth_weight: int = DEPTH_WEIGHT,
    profile: Profile | None = None,
) -> Solution:
    """Search for a win from ``state`` with everything visible (the stock's order, the captives).

    ``max_states`` bounds the positions expanded (deterministic); ``max_seconds`` the CPU time of the
    calling thread. With neither, the search runs until it wins or proves there is no win, which on a
    whole deal may take more memory than the machine has: give a budget.
    """
    clock = time.thread_time
    started = clock()
    prof = profile or profile_for(game)
    key_of, score_of, moves_of = prof.key, prof.score, prof.moves
    play, is_won = game.play, game.is_won
    root, auto = autoplay(game, state)
    if is_won(root):
        return Solution(Outcome.WON, tuple(auto), 0, clock() - started)
    root_key = key_of(root)
    # key -> (parent key, the moves from the parent's position to this one); the root has no parent
    parents: dict[Hashable, tuple[Hashable, tuple[Move, ...]] | None] = {root_key: None}
    frontier: list[tuple[int, int, int, State, Hashable]] = [(score_of(root), 0, 0, root, root_key)]
    counter = 0
    expanded = 0
    deadline = None if max_seconds is None else started + max_seconds
    budget_hit = ""
    while frontier:
        if max_states is not None and expanded >= max_states:
            budget_hit = "states"
            break
        if deadline is not None and expanded % CLOCK_EVERY == 0 and clock() >= deadline:
            budget_hit = "seconds"
            break
        _, _, depth, pos, pos_key = heapq.heappop(frontier)
        expanded += 1
        child_depth = depth + 1
        for move in moves_of(pos):
            child, explicit = play(pos, move)
            child, settled = autoplay(game, child)
            child_key = key_of(child)
            if child_key in parents:
                continue
            parents[child_key] = (pos_key, (explicit, *settled))
            if is_won(child):
                line = _line(parents, child_key)
                return Solution(Outcome.WON, (*auto, *line), expanded, clock() - started)
            counter += 1
            heapq.heappush(
                frontier, (score_of(child) + depth_weight * child_depth, counter, child_depth, child, child_key)
            )
    outcome = Outcome.UNKNOWN if budget_hit else Outcome.NO_WIN
    return Solution(outcome, (), expanded, clock() - started, budget_hit)


def _line(parents: dict[Hashable, tuple[Hashable, tuple[Move, ...]] | None], key: Hashable) -> list[Move]:
    """The moves from the root to ``key``, following the parents back."""
    parts: list[tuple[Move, ...]] = []
    link = parents[key]
    while link is not None:
        parent, moves = link
        parts.append(moves)
        link = parents[parent]
    return [m for part in reversed(parts) for m in part]
