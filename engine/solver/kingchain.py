"""The king-chain games' own search (royal-retinue, its variants, cats-tail): Freecell Solver's way.

Freecell Solver wins most of these deals in a few thousand positions with depth-first "scans" that try
the moves in a fixed order of kinds ("tests") and put cards in the reserve only for a purpose. This
module does the same on a compact position of its own, many times cheaper to copy, settle and key than
``State`` through ``Game.play``:

- ``cols``: the columns as ``bytes`` (head first, the free card last; an emptied column is ``b""``);
- ``cells``: the reserve's cards as sorted ``bytes`` (the cells are interchangeable);
- ``fnd``: 8 ranks, two per suit (clubs, diamonds, hearts, spades), each pair sorted: the foundations by
  their top cards only, as the key folds them anyway (a pile holds its suit from the ace).

A move is a tuple of atomic steps, each one legal on its own: ``(F_COL, column)`` and ``(F_CELL, card)``
home, ``(COL_COL, source, target, count)``, ``(CELL_COL, card, target)``, ``(COL_CELL, column)``. Compound
moves (dig a wanted card out to its foundation, uncover a card that fits another column) are sequences
of these, like Freecell Solver's "move non-top stack cards to founds". Every atomic move of the game is
also tried (foundation runs excepted: they only rename two piles of a suit), so a scan that runs out of
positions has still seen every reachable one, and "no win exists" stays a proof. The line found is turned
into the game's explicit moves by replaying it through ``Game.play``, which checks each one.
"""

from __future__ import annotations

import random
import time

from ..games.royal_retinue import RoyalRetinue
from ..moves import Move
from ..state import State
from .kingchain_bestfirst import BestFirst
from .kingchain_position import (
    ALL_KINDS,
    CELL_COL,
    CELL_OUT,
    COL_CELL,
    COL_COL,
    DIG_HOME,
    F_CELL,
    F_COL,
    HEAD_RUN,
    HOME,
    PARENT,
    RUN,
    TO_CELL,
    WEIGHTS,
    WON,
    Exhausted,
    Line,
    Pos,
    Step,
    Steps,
    apply,
    from_state,
    key,
    moves,
    score,
    settle,
)

__all__ = [
    "ALL_KINDS", "CELL_COL", "CELL_OUT", "COL_CELL", "COL_COL", "DIG_HOME", "F_CELL", "F_COL", "HEAD_RUN", "HOME",
    "LATE_AFTER", "LATE_SCANS", "PARENT", "PROOF_SLICES", "RUN", "RUN_NO_WIN", "RUN_SECONDS", "RUN_STATES", "RUN_WON",
    "SCANS", "TO_CELL", "WEIGHTS", "WON", "BestFirst", "Exhausted", "LateScan", "Line", "Pos", "Scan", "ScanConfig",
    "Step", "Steps", "apply", "explicit", "from_state", "key", "moves", "run", "scan", "scans", "score", "settle",
]  # fmt: skip


class Scan:
    """A depth-first scan with its own table: the moves of each position by kind in a fixed order of groups
    of kinds, shuffled within each group by a seeded generator if ``seed`` is given (Freecell Solver's
    soft-dfs and random-dfs scans). A scan that tries every kind can prove that no win exists; one that
    leaves kinds out (as Freecell Solver leaves out the reserve but for a purpose) only goes idle."""

    def __init__(
        self,
        root: Pos,
        runs: bool,
        order: tuple[tuple[int, ...], ...],
        seed: int = 0,
        scored: int = 0,
        weights: tuple[int, int, int, int] = WEIGHTS,
        on_visit: bool = False,
    ) -> None:
        self.weights = weights
        # on_visit: a position is marked seen when the scan gets to it, not when it is generated, so a deeper
        # path may pass through a position a shallower level generated and has not tried yet (Freecell
        # Solver's way); children seen on the way there are passed over, not counted
        self.on_visit = on_visit
        self.runs = runs
        # scored > 0: the children are tried best-scored first (ties and noise up to ``scored - 1`` points
        # from the generator), whatever their kind
        self.scored = scored
        self.order = order
        self.complete = frozenset(k for g in order for k in g) == ALL_KINDS
        self.rng = random.Random(seed) if seed else None
        self.seen: set[int] = {key(root)}
        self.stack: list[list[tuple[Pos, Steps, int]]] = [self._children(root)]
        self.line: list[Steps] = []
        self.expanded = 0
        self.idle = False

    def _children(self, pos: Pos) -> list[tuple[Pos, Steps, int]]:
        by_kind = moves(pos, self.runs)
        seen = self.seen
        mark = not self.on_visit
        rng = self.rng
        out: list[tuple[Pos, Steps, int]] = []
        if self.scored:
            ranked: list[tuple[int, int, Pos, Steps, int]] = []
            for kind in sorted({k for g in self.order for k in g}):
                for move in by_kind[kind]:
                    child = pos
                    for step in move:
                        child = apply(child, step)
                    child, auto = settle(child)
                    k = key(child)
                    if k in seen:
                        continue
                    if mark:
                        seen.add(k)
                    noise = rng.randrange(self.scored) if rng is not None else 0
                    ranked.append((-(score(child, self.weights) + noise), -len(ranked), child, move + auto, k))
            ranked.sort()  # worst first: pop() takes the best
            return [(c, m, k) for _, _, c, m, k in ranked]
        for group in self.order:
            batch = [m for k in group for m in by_kind[k]]
            if rng is not None and len(batch) > 1:
                rng.shuffle(batch)
            for move in batch:
                child = pos
                for step in move:
                    child = apply(child, step)
                child, auto = settle(child)
                k = key(child)
                if k in seen:
                    continue
                if mark:
                    seen.add(k)
                out.append((child, move + auto, k))
        out.reverse()  # pop() takes the first
        return out

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions: the line of moves to a win, or None. Raises ``Exhausted`` when a
        complete scan has seen every reachable position; an incomplete one goes idle instead."""
        stack, line = self.stack, self.line
        done = 0
        while done < n:
            while stack and not stack[-1]:
                stack.pop()
                if line:
                    line.pop()
            if not stack:
                if self.complete:
                    raise Exhausted
                self.idle = True
                return None
            child, steps, k = stack[-1].pop()
            if self.on_visit:
                if k in self.seen:  # reached again since it was generated: passed over, not counted
                    continue
                self.seen.add(k)
            done += 1
            self.expanded += 1
            line.append(steps)
            if child[2] == WON:
                return tuple(line)
            stack.append(self._children(child))
        return None


def explicit(game: RoyalRetinue, state: State, line: Line) -> list[Move]:
    """The line as the game's explicit moves, each checked by ``Game.play`` on the real position."""
    out: list[Move] = []
    for steps in line:
        for step in steps:
            kind = step[0]
            if kind == F_COL:
                text = f"{step[1] + 1}-f"
            elif kind == F_CELL:
                text = f"r{state.cells.index(step[1]) + 1}-f"
            elif kind == COL_COL:
                text = f"{step[1] + 1}-{step[2] + 1}/{step[3]}"
            elif kind == CELL_COL:
                text = f"r{state.cells.index(step[1]) + 1}-{step[2] + 1}"
            else:
                text = f"{step[1] + 1}-r"
            state, move = game.play(state, text)
            out.append(move)
    return out


#: A scan's settings: its groups of kinds of moves in order, the seed of its shuffles (0: none), its noise
#: (``scored``), its score's weights, whether it marks positions seen when it visits them (``Scan``), and
#: whether it is a best-first scan instead and of which evaluation and tie-break (0: no; ``BestFirst``).
ScanConfig = tuple[tuple[tuple[int, ...], ...], int, int, tuple[int, int, int, int], bool, int]

_EVERY = ((HOME,), (CELL_OUT,), (DIG_HOME,), (RUN,), (PARENT,), (TO_CELL,), (HEAD_RUN,))
_PURPOSEFUL = _EVERY[:-2]
_SHUFFLED = ((HOME,), (CELL_OUT, DIG_HOME, RUN))
#: The scans that take turns on one deal (after Freecell Solver's "cool jives" preset: many depth-first
#: scans with different orders of moves, each winning deals the others miss). The last tries every kind
#: of move, so it alone can prove that no win exists; the others leave out the moves that only fill the
#: reserve or kill a column. The compiled core (``compiled``) runs the same ones.
SCANS: tuple[ScanConfig, ...] = (
    (_PURPOSEFUL, 0, 1, WEIGHTS, False, 0),
    (_SHUFFLED, 1, 0, WEIGHTS, False, 0),
    (_PURPOSEFUL, 0, 1, (8, 3, 1, 4), False, 0),
    (_SHUFFLED, 3, 0, WEIGHTS, False, 0),
    (_EVERY[:4], 0, 0, WEIGHTS, False, 0),
    (_PURPOSEFUL, 0, 1, (8, 2, 1, 2), False, 0),
    (_SHUFFLED, 5, 0, WEIGHTS, False, 0),
    (_PURPOSEFUL, 6, 25, WEIGHTS, False, 0),
    (_EVERY, 0, 1, WEIGHTS, False, 0),
)


#: Positions expanded in all before ``LATE_SCANS`` join the turns. Hints (4,800), the winnable filler (20,000)
#: and the solvability table (10,000) work within this many positions, and their answers (outcome, line, count)
#: must not change: up to this count the search is exactly the scans of ``SCANS``.
LATE_AFTER = 20_000

#: A late scan: its settings and the length of its turns, in slices (the first scans' turns are one slice).
LateScan = tuple[ScanConfig, int]

_ONE_GROUP = ((HOME, CELL_OUT, DIG_HOME, RUN),)
_RUNS_LAST = ((HOME,), (CELL_OUT, DIG_HOME), (RUN,))
_CELLS_FIRST = ((HOME, CELL_OUT), (DIG_HOME, RUN))
_DEPTH_FIRST_LATE: tuple[ScanConfig, ...] = (
    (_EVERY[:4], 0, 0, WEIGHTS, True, 0),
    (((HOME,), (CELL_OUT,), (RUN,), (DIG_HOME,)), 0, 0, WEIGHTS, True, 0),
    (((HOME,), (DIG_HOME,), (RUN,), (CELL_OUT,)), 0, 0, WEIGHTS, True, 0),
    (_ONE_GROUP, 8, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 1, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 2, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 3, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 4, 0, WEIGHTS, True, 0),
    (_RUNS_LAST, 1, 0, WEIGHTS, True, 0),
    (_RUNS_LAST, 2, 0, WEIGHTS, True, 0),
    (_RUNS_LAST, 3, 0, WEIGHTS, True, 0),
    (_CELLS_FIRST, 1, 0, WEIGHTS, True, 0),
    (_CELLS_FIRST, 2, 0, WEIGHTS, True, 0),
    (_CELLS_FIRST, 3, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 5, 0, WEIGHTS, True, 0),
    (_SHUFFLED, 6, 0, WEIGHTS, True, 0),
)
#: The scans that join the turns after ``LATE_AFTER`` positions, for the deals the first ones miss:
#:
#: - sixteen depth-first scans that mark a position seen when they visit it (``Scan``'s ``on_visit``, Freecell
#:   Solver's way), three in fixed orders of kinds and thirteen shuffling within groups of kinds (four ways of
#:   grouping them, several seeds), two slices a turn each. Such a scan goes deep through positions its shallower
#:   levels generated and have not tried yet, where one that marks them when generated must turn aside;
#: - four best-first scans (``BestFirst``, Freecell Solver's ``a-star`` soft threads), one slice a turn each: by
#:   the score, and by cards home and cards under the columns' top runs, each with ties to the oldest and to the
#:   newest position. A depth-first scan that took a wrong turn near the root rarely comes back up; these switch
#:   lines at any depth. Alone, each won 27 to 34 of 47 tuning deals (within 500,000 positions) that the
#:   depth-first scans won only after 150,000 positions or lost, and the three that Freecell Solver won and the
#:   search before them lost within 60 s fell to them in 547 to 55,481 positions.
LATE_SCANS: tuple[LateScan, ...] = (
    *((config, 2) for config in _DEPTH_FIRST_LATE),
    *(((_EVERY[:4], 0, 0, WEIGHTS, False, mode), 1) for mode in range(1, 5)),
)
#: Once the late scans join, a first scan that tries every kind of move (the one that can prove that no win
#: exists) takes turns of this many slices, so that proofs keep their pace among the longer turns of the others.
PROOF_SLICES = 6


def scan(root: Pos, runs: bool, config: ScanConfig) -> Scan | BestFirst:
    """The scan of ``config`` on ``root``: depth-first, or best-first if its last setting says so."""
    if config[5]:
        return BestFirst(root, runs, config[0], config[3], config[5])
    return Scan(root, runs, *config[:5])


def scans(root: Pos, runs: bool) -> list[Scan | BestFirst]:
    """The scans of ``SCANS`` on ``root``, in their turn order."""
    return [scan(root, runs, config) for config in SCANS]


#: The answers of ``run`` (and of ``compiled.run``): a win, no win exists, the budget in positions or in
#: seconds ran out.
RUN_WON, RUN_NO_WIN, RUN_STATES, RUN_SECONDS = "won", "no-win", "states", "seconds"


def run(
    root: Pos,
    runs: bool,
    max_states: int | None,
    slice_: int,
    deadline: float | None,
    configs: tuple[ScanConfig, ...] = SCANS,
    late: tuple[LateScan, ...] = LATE_SCANS,
    late_after: int = LATE_AFTER,
    proof_slices: int = PROOF_SLICES,
) -> tuple[str, int, Line]:
    """The scans of ``configs`` taking turns on ``root`` (settled, not won) in slices of ``slice_`` positions
    until a win, the complete scan's exhaustion, ``max_states`` positions, or the thread's CPU clock
    (``time.thread_time``) reaching ``deadline``: (answer, positions expanded, the line of a win). The scans
    of ``late`` join the turns (after the others, each with its own length of turns in slices) once
    ``late_after`` positions are expanded in all; from then on, a first scan that tries every kind of move takes
    turns of ``proof_slices`` slices."""
    if proof_slices < 1:
        raise ValueError("a turn is at least one slice")
    searches = [scan(root, runs, config) for config in configs]
    waiting = late
    turns = [slice_] * len(searches)
    turn = 0
    while True:
        expanded = sum(s.expanded for s in searches)
        if max_states is not None and expanded >= max_states:
            return RUN_STATES, expanded, ()
        if deadline is not None and time.thread_time() >= deadline:
            return RUN_SECONDS, expanded, ()
        if waiting and expanded >= late_after:
            turns = [slice_ * proof_slices if s.complete else n for s, n in zip(searches, turns, strict=True)]
            searches += [scan(root, runs, config) for config, _ in waiting]
            turns += [slice_ * slices for _, slices in waiting]
            waiting = ()
        search = searches[turn % len(searches)]
        n = turns[turn % len(searches)]
        if max_states is not None:
            n = min(n, max_states - expanded)
        turn += 1
        if search.idle:
            if all(s.idle for s in searches):  # no complete scan among them: cannot happen, but never loop
                return RUN_STATES, expanded, ()
            continue
        try:
            line = search.run(n)
        except Exhausted:
            return RUN_NO_WIN, sum(s.expanded for s in searches), ()
        if line is not None:
            return RUN_WON, sum(s.expanded for s in searches), line
