"""The solver's core: two searches with transposition tables, taking turns (Freecell Solver's idea of
several "scans" run side by side, each good at different deals).

- Best-first: the frontier is ordered by the profile's score plus a small weight for the moves already
  made (a weighted A*: the weight keeps lines short without giving up the heuristic's speed).
- Depth-first: it follows the best-scored child first and backs up only when a line is exhausted; it
  wins many deals in a few hundred positions where best-first wanders among look-alike positions.
- Late scans, after ``LATE_AFTER`` positions: random-restart greedy playouts (``Playouts``), which choose the
  early moves afresh each time, where the depth-first scans stay stuck under an early mistake, and depth-first
  scans by kind of move with no score; their shares of the turns by family (``LATE_BY_KIND`` for the salic-law
  games, ``LATE_CAPTIVES``, ``LATE_SCORED`` for the sultans; compiled where built, ``_late_scan``). Up to that
  budget the search is what it was before them, position for position (hints depend on it).

Each position is settled by the safe automatic moves (``safe.autoplay``) before its canonical key is
looked up; only a position never seen before by that search is kept. Moves that undo each other (``3-7``
then ``7-3``) need no rule of their own: the position they lead back to is in the table already.

The answer is exact in two cases: a won position was reached (the line to it is the answer), or one
search ran out of positions with no budget hit (every position reachable from the start was seen: no
win exists). Safe moves and the folding of the key never lose a win, so that answer is a proof.
Otherwise the budget ran out: unknown. Ties go to the position generated first and the searches take
turns in fixed slices, so a budget in states gives the same answer on every run.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType
from typing import Protocol

from ..game import Game
from ..games.captives import Captives
from ..games.royal_retinue import RoyalRetinue
from ..games.salic_law import Tribunal
from ..moves import Move
from ..state import State
from . import compiled, compiled_captives, compiled_salic, kingchain
from .playouts import Exhausted, Playouts, free_columns, kind_of
from .profiles import Profile, profile_for
from .safe import autoplay, safe_rule

#: The weight of each move already made, against the profile's score (best-first).
DEPTH_WEIGHT = 1
#: Positions a search expands before the next takes its turn.
SLICE = 128
#: Depth-first searches that blur the score with seeded noise, and by how much.
RANDOM_SCANS = 2
NOISE = 25

#: Positions expanded in all before the late scans (``Playouts``, a ``_DepthFirst`` by kind) join the turns:
#: every search up to this budget (hints, the hint follower, the solvability table's small budgets) is the four
#: scans alone, as before them.
LATE_AFTER = 20_000
#: The late scans and their turns, each taking that many slices per turn of the four's one. ``playout``: seed, the
#: share of steps that leave the stock for last, by kind (else by score blurred by ``PLAYOUT_NOISE``), the chance
#: that a child of the next kind joins the draw (0: the kinds' draws overlap instead, ``Playouts``). ``by-kind``:
#: a depth-first scan that tries the moves by kind (``kind_of``: home, between piles, those that free a column or a
#: card for home first, the stock, a redeal), in the order generated within a kind, as a player who knows no score
#: would; marking positions seen when generated or (``True``) when expanded, as the greedy player does.
LateScan = tuple[str, tuple[int, float, bool, float] | bool, int]
#: The sultans: the scans with scores and the playouts by score win their deals that reach the late phase (in
#: sultan-52 fewer turns for the playouts by score lost deals), so their late phase is the first one, the four scans
#: keeping a third of the turns.
LATE_SCORED: tuple[LateScan, ...] = (
    ("playout", (101, 0.0, False, 0.0), 2),
    ("playout", (102, 0.75, False, 0.0), 2),
    ("playout", (103, 0.0, True, 0.0), 2),
    ("by-kind", False, 1),
)
#: Captives: the sultans' late scans (the three playouts that draw as the simple player does won 2 more of 34 tuning
#: deals but 8 fewer of 188 fresh ones, and beside these at eight times the turns 2 fewer of 145), with ten times
#: their turns: compiled (``compiled_captives``), a late scan's turn costs about a twentieth of a Python scan's, so the
#: four Python scans keep about half the CPU while the late scans expand ten times the positions they did. On 145
#: tuning deals past 20,000 positions, 10 CPU seconds each: 142 won where the same scans at a tenth of the turns won
#: 133 (losing none of those), with about half the CPU in all (docs/solver.md).
LATE_CAPTIVES: tuple[LateScan, ...] = tuple((kind, spec, 10 * slices) for kind, spec, slices in LATE_SCORED)
#: Tribunal and picture-gallery: where the deals the four miss in 20,000 positions are won by playouts by kind and
#: by the greedy player's depth-first order, most of the late turns go to them: three playouts that draw as the
#: simple player does (a quarter of the time each child of the next kind joins) and a depth-first scan by kind that
#: marks on expanding, beside the first late scans. Eight times the turns they had in Python (``compiled_salic``:
#: a turn costs about a fortieth of a Python scan's): on 68 tuning deals past 20,000 positions, 10 CPU seconds each,
#: 62 won where a turn each won 60 (and four times the turns 62, in more CPU).
LATE_BY_KIND: tuple[LateScan, ...] = (
    ("playout", (101, 0.0, False, 0.0), 8),
    ("playout", (102, 0.75, False, 0.0), 8),
    ("playout", (103, 0.0, True, 0.0), 8),
    ("playout", (201, 0.0, True, 0.25), 32),
    ("playout", (202, 0.0, True, 0.25), 32),
    ("playout", (203, 0.0, True, 0.25), 32),
    ("by-kind", True, 48),
    ("by-kind", False, 8),
)
PLAYOUT_NOISE = 13

Line = tuple[Move, ...]


class Finding(StrEnum):
    """What the solver found out."""

    WON = "won"
    NO_WIN = "no-win"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Solution:
    """The solver's answer. ``moves`` is the winning line in explicit form (empty unless ``WON``); ``states``
    counts the positions expanded, ``seconds`` the CPU time the search took in this thread; ``budget_hit`` is
    ``"states"`` or ``"seconds"`` when the answer is unknown for that reason."""

    outcome: Finding
    moves: Line = ()
    states: int = 0
    seconds: float = 0.0
    budget_hit: str = ""
    #: Which search ran: ``"c"`` (the compiled king-chain search, or in the other games compiled late scans once
    #: they joined the Python four), ``"python"``.
    core: str = "python"

    def texts(self) -> list[str]:
        """The winning line in docs/rules.md notation."""
        return [m.text() for m in self.moves]


class _Scan(Protocol):
    """What ``solve`` asks of a late scan (``Playouts``, ``_DepthFirst`` or their compiled twins)."""

    @property
    def expanded(self) -> int: ...

    def run(self, n: int) -> Line | None: ...


class _BestFirst:
    def __init__(self, game: Game, prof: Profile, root: State, depth_weight: int) -> None:
        self.game, self.prof, self.weight = game, prof, depth_weight
        key = prof.key(root)
        # key -> (parent key, the moves from the parent's position to this one); the root has no parent
        self.parents: dict[Hashable, tuple[Hashable, Line] | None] = {key: None}
        self.frontier: list[tuple[int, int, int, State, Hashable]] = [(prof.score(root), 0, 0, root, key)]
        self.counter = 0
        self.expanded = 0

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions; the line to a win if one was reached."""
        game, key_of, score_of, children_of = self.game, self.prof.key, self.prof.score, self.prof.children
        is_won, parents, frontier, weight = game.is_won, self.parents, self.frontier, self.weight
        rule = safe_rule(game)
        for _ in range(n):
            if not frontier:
                raise Exhausted
            _, _, depth, pos, pos_key = heapq.heappop(frontier)
            self.expanded += 1
            depth += 1
            for child, explicit in children_of(pos):
                if rule(game, child) is None:  # most positions: nothing goes home safely
                    moves: Line = (explicit,)
                else:
                    child, settled = autoplay(game, child)
                    moves = (explicit, *settled)
                child_key = key_of(child)
                if child_key in parents:
                    continue
                parents[child_key] = (pos_key, moves)
                if is_won(child):
                    return self._line(child_key)
                self.counter += 1
                heapq.heappush(frontier, (score_of(child) + weight * depth, self.counter, depth, child, child_key))
        return None

    def _line(self, key: Hashable) -> Line:
        parts: list[Line] = []
        link = self.parents[key]
        while link is not None:
            parent, moves = link
            parts.append(moves)
            link = self.parents[parent]
        return tuple(m for part in reversed(parts) for m in part)


class _DepthFirst:
    def __init__(
        self,
        game: Game,
        prof: Profile,
        root: State,
        noise: int = 0,
        seed: int = 0,
        by_kind: bool = False,
        on_visit: bool = False,
    ) -> None:
        self.game, self.prof = game, prof
        # noise > 0: each child's score is blurred by up to ``noise`` points from a seeded generator, so this
        # search tries a different order among near-equals (Freecell Solver's random-dfs scans)
        self.noise = noise
        # by_kind: the moves by kind (``kind_of``), in the order generated within a kind; no score
        self.by_kind = by_kind
        # on_visit: a position is marked seen when it is expanded, not when it is generated, so that a child met
        # again deeper down is played there (the greedy player's order; a position is still expanded once)
        self.on_visit = on_visit
        self.rng = random.Random(seed)
        self.rule = safe_rule(game)
        self.seen: set[Hashable] = {prof.key(root)}
        # each level: the position's children (best first, reversed for pop()) and the line to it
        self.stack: list[list[tuple[int, int, State, Line, Hashable]]] = [self._children(root)]
        self.line: list[Line] = []
        self.expanded = 0

    def _children(self, pos: State) -> list[tuple[int, int, State, Line, Hashable]]:
        game, key_of, score_of, seen = self.game, self.prof.key, self.prof.score, self.seen
        out: list[tuple[int, int, State, Line, Hashable]] = []
        rule = self.rule
        by_kind, on_visit = self.by_kind, self.on_visit
        free = free_columns(pos) if by_kind else 0
        for child, explicit in self.prof.children(pos):
            kind = kind_of(game, pos, child, explicit, free) if by_kind else 0
            if rule(game, child) is None:  # most positions: nothing goes home safely
                moves: Line = (explicit,)
            else:
                child, settled = autoplay(game, child)
                moves = (explicit, *settled)
            key = key_of(child)
            if key in seen:
                continue
            if not on_visit:
                seen.add(key)
            score = kind if by_kind else score_of(child)
            if self.noise:
                score += self.rng.randrange(self.noise)
            out.append((-score, -len(out), child, moves, key))
        out.sort()  # worst first: pop() takes the best, the first generated among equals
        return out

    def run(self, n: int) -> Line | None:
        stack, line, is_won, seen, on_visit = self.stack, self.line, self.game.is_won, self.seen, self.on_visit
        done = 0
        while done < n:
            while stack and not stack[-1]:
                stack.pop()
                if line:
                    line.pop()
            if not stack:
                raise Exhausted
            _, _, child, moves, key = stack[-1].pop()
            if on_visit:
                if key in seen:
                    continue
                seen.add(key)
            done += 1
            self.expanded += 1
            line.append(moves)
            if is_won(child):
                return tuple(m for part in line for m in part)
            stack.append(self._children(child))
        return None


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

    ``max_states`` bounds the positions expanded, all searches together (deterministic); ``max_seconds``
    the CPU time of the calling thread. With neither, the search runs until it wins or proves there is no
    win, which on a whole deal may take more memory than the machine has: give a budget. The king-chain
    games have a search of their own (``kingchain``: compound moves, Freecell Solver's scans), unless
    ``profile`` asks for this one.
    """
    clock = time.thread_time
    started = clock()
    if profile is None and isinstance(game, RoyalRetinue):
        return _solve_king_chain(game, state, max_states, max_seconds, started)
    prof = profile or profile_for(game)
    root, auto = autoplay(game, state)
    if game.is_won(root):
        return Solution(Finding.WON, tuple(auto), 0, clock() - started)
    searches: list[_BestFirst | _DepthFirst] = [
        _BestFirst(game, prof, root, depth_weight),
        _DepthFirst(game, prof, root),
        *(_DepthFirst(game, prof, root, NOISE, seed) for seed in range(1, RANDOM_SCANS + 1)),
    ]
    deadline = None if max_seconds is None else started + max_seconds
    turn = 0
    late: list[_Scan] = []
    core = "python"  # "c" once compiled late scans join
    # which search takes each turn (the playouts several in a row)
    schedule = list(range(len(searches)))
    while True:
        expanded = sum(s.expanded for s in searches) + sum(p.expanded for p in late)
        if max_states is not None and expanded >= max_states:
            return Solution(Finding.UNKNOWN, (), expanded, clock() - started, "states", core=core)
        if deadline is not None and clock() >= deadline:
            return Solution(Finding.UNKNOWN, (), expanded, clock() - started, "seconds", core=core)
        if expanded >= LATE_AFTER and not late:
            for kind, spec, slices in _late_phase(game):
                schedule += [len(searches) + len(late)] * slices
                late.append(_late_scan(game, prof, root, kind, spec))
            if not all(isinstance(scan, Playouts | _DepthFirst) for scan in late):
                core = "c"
            turn = 0
        n = SLICE if max_states is None else min(SLICE, max_states - expanded)
        at = schedule[turn % len(schedule)]
        turn += 1
        search = searches[at] if at < len(searches) else late[at - len(searches)]
        try:
            line = search.run(n)
        except Exhausted:
            total = sum(s.expanded for s in searches) + sum(p.expanded for p in late)
            return Solution(Finding.NO_WIN, (), total, clock() - started, core=core)
        if line is not None:
            total = sum(s.expanded for s in searches) + sum(p.expanded for p in late)
            return Solution(Finding.WON, (*auto, *line), total, clock() - started, core=core)


def _late_phase(game: Game) -> tuple[LateScan, ...]:
    """The late scans of ``game``'s family, with their shares of the turns."""
    if isinstance(game, Tribunal):
        return LATE_BY_KIND
    return LATE_CAPTIVES if isinstance(game, Captives) else LATE_SCORED


def _late_scan(game: Game, prof: Profile, root: State, kind: str, spec: tuple[int, float, bool, float] | bool) -> _Scan:
    """One of ``_late_phase``'s scans, compiled where built (the same answers): in tribunal and picture-gallery
    (``compiled_salic``), in captives (``compiled_captives``, for the positions it takes)."""
    core: ModuleType | None = None
    if isinstance(game, Tribunal) and compiled_salic.active():
        core = compiled_salic
    elif isinstance(game, Captives) and compiled_captives.active() and compiled_captives.takes(game, root):
        core = compiled_captives
    if kind == "playout":
        assert isinstance(spec, tuple)
        seed, stock_last, by_kind, next_kind = spec
        playouts = Playouts if core is None else core.Playouts
        scan: _Scan = playouts(game, prof, root, seed, PLAYOUT_NOISE, stock_last, by_kind, next_kind)
        return scan
    depth_first = _DepthFirst if core is None else core.DepthFirst
    scan = depth_first(game, prof, root, by_kind=True, on_visit=bool(spec))
    return scan


def _solve_king_chain(
    game: RoyalRetinue, state: State, max_states: int | None, max_seconds: float | None, started: float
) -> Solution:
    """The king-chain games' scans (``kingchain``), taking turns like the searches above: compiled when the
    core is built (``compiled``: the same answers), else in Python."""
    clock = time.thread_time
    root, auto = kingchain.settle(kingchain.from_state(state))
    runs = bool(game.options.get("sequence_moves", True))
    core = "c" if compiled.active() else "python"
    if root[2] == kingchain.WON:
        moves = tuple(kingchain.explicit(game, state, (auto,)))
        return Solution(Finding.WON, moves, 0, clock() - started, core=core)
    deadline = None if max_seconds is None else started + max_seconds
    search = compiled.run if core == "c" else kingchain.run
    answer, expanded, line = search(root, runs, max_states, SLICE, deadline)
    if answer == kingchain.RUN_WON:
        moves = tuple(kingchain.explicit(game, state, (auto, *line)))
        return Solution(Finding.WON, moves, expanded, clock() - started, core=core)
    if answer == kingchain.RUN_NO_WIN:
        return Solution(Finding.NO_WIN, (), expanded, clock() - started, core=core)
    return Solution(Finding.UNKNOWN, (), expanded, clock() - started, answer, core=core)
