"""A best-first king-chain scan (Freecell Solver's ``a-star`` soft threads): the position evaluated best is
expanded next, wherever it lies, instead of the next child of the deepest one.

A depth-first scan commits to the moves of its first levels and rarely comes back up; a deal that needs
another start there is found late or not at all, whatever the order of the moves below. A best-first scan
keeps every position generated in a queue ordered by an evaluation and can switch lines at any depth.
Freecell Solver's ``-l cj`` has two of them among its eleven scans; on tuning deals that all our
depth-first scans lost within 10 s, one of ours alone won each in 547 to 55,481 positions.

``kingchain.run`` takes turns with it like with any scan (``run(n)``, ``expanded``, ``idle``); the compiled
core (``_kingchain.c``, ``bf_*``) has the same one: the same evaluation, ties, order of generation and count.
"""

from __future__ import annotations

import heapq

from .kingchain_position import _ONTO, ALL_KINDS, WON, Exhausted, Line, Pos, Steps, apply, key, moves, score, settle

#: ``best_first`` of a scan's settings: the score (``kingchain_position.score``) or ``cards home and cards
#: under the columns' top runs``, ties to the oldest or the newest position generated.
SCORE_OLDEST, SCORE_NEWEST, UNDER_OLDEST, UNDER_NEWEST = 1, 2, 3, 4
#: The weight of k cards under the run at the top of a column: 100 * k ** 1.3 (more than linear, so that one
#: deep column weighs more than the same cards spread over several).
UNDER = tuple(round(100 * k**1.3) for k in range(105))


def under(pos: Pos) -> int:
    """The cards lying under the run at the top of each column, weighed by ``UNDER``."""
    total = 0
    for col in pos[0]:
        c = len(col) - 2
        if c < 0:
            continue
        while c >= 0 and _ONTO[col[c + 1] * 52 + col[c]]:
            c -= 1
        total += UNDER[c + 1]
    return total


class BestFirst:
    """A best-first scan with its own table: the moves of each position in the kinds' order (no shuffle),
    each new position into a queue by its evaluation (lower first) and the order it was generated in
    (``mode``: ``SCORE_OLDEST`` .. ``UNDER_NEWEST``). It marks positions seen when it generates them, so one
    that tries every kind has seen every reachable position when its queue runs dry."""

    def __init__(
        self, root: Pos, runs: bool, order: tuple[tuple[int, ...], ...], weights: tuple[int, int, int, int], mode: int
    ) -> None:
        if mode not in (SCORE_OLDEST, SCORE_NEWEST, UNDER_OLDEST, UNDER_NEWEST):
            raise ValueError(f"not a best-first scan: {mode}")
        self.runs = runs
        self.kinds = [k for group in order for k in group]
        self.complete = frozenset(self.kinds) == ALL_KINDS
        self.weights = weights
        self.mode = mode
        self.under0 = under(root) or 1
        self.seen: set[int] = {key(root)}
        # (evaluation, order of generation (negated: the newest first), the parent's entry in ``kept``, the move
        # with its settling steps, the position)
        self.queue: list[tuple[int, int, int, Steps, Pos]] = []
        # the expanded positions' parent and move, for the line of a win
        self.kept: list[tuple[int, Steps]] = [(-1, ())]
        self.generated = 0
        self.expanded = 0
        self.idle = False
        self._children(root, 0)

    def _value(self, pos: Pos) -> int:
        if self.mode <= SCORE_NEWEST:
            return score(pos, self.weights)
        return 5 * (104 - sum(pos[2])) * self.under0 + 3 * 104 * under(pos)

    def _children(self, pos: Pos, parent: int) -> None:
        by_kind = moves(pos, self.runs)
        seen = self.seen
        sign = 1 if self.mode % 2 else -1
        for kind in self.kinds:
            for move in by_kind[kind]:
                child = pos
                for step in move:
                    child = apply(child, step)
                child, auto = settle(child)
                k = key(child)
                if k in seen:
                    continue
                seen.add(k)
                heapq.heappush(self.queue, (self._value(child), sign * self.generated, parent, move + auto, child))
                self.generated += 1

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions: the line of moves to a win, or None. Raises ``Exhausted`` when a
        complete scan has seen every reachable position; an incomplete one goes idle instead."""
        for _ in range(n):
            if not self.queue:
                if self.complete:
                    raise Exhausted
                self.idle = True
                return None
            _, _, parent, steps, pos = heapq.heappop(self.queue)
            self.expanded += 1
            if pos[2] == WON:
                line = [steps]
                while parent > 0:
                    parent, steps = self.kept[parent]
                    line.append(steps)
                return tuple(reversed(line))
            self.kept.append((parent, steps))
            self._children(pos, len(self.kept) - 1)
        return None
