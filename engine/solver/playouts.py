"""The late scans' moves by kind and their random-restart greedy playouts (``search``'s late phase): a plain
player's order of moves (home, those that free a column or a card for home, other moves between piles, the stock, a
redeal), and playouts that follow it or the profile's score from the deal again and again."""

from __future__ import annotations

import random
from collections.abc import Hashable

from ..cards import KING, RANK
from ..game import Game
from ..games.salic_law import Tribunal, next_rank
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State
from .profiles import Profile
from .safe import autoplay, safe_rule

Line = tuple[Move, ...]

#: A move's target "any foundation that fits" (``3-f``), for ``kind_of``.
_HOME = Pile(PileKind.FOUNDATION)


def kind_of(game: Game, pos: State, child: State, move: Move, free: int | None = None) -> int:
    """0 a card home; 1 a move between piles that leaves more columns free (empty, or down to a lone king) or
    uncovers a card that can go home; 2 another move between piles; 3 the stock (a deal, a card turned); 4 a
    redeal. ``free``: ``pos``'s free columns, when the caller knows them."""
    if move.kind is not MoveKind.TRANSFER:
        return 4 if move.kind is MoveKind.REDEAL else 3
    target, source = move.target, move.sources[0]
    if target is not None and target.kind in (PileKind.FOUNDATION, PileKind.KING_ROW):
        return 0
    if free_columns(child) > (free_columns(pos) if free is None else free):
        return 1
    if source.kind is PileKind.COLUMN and _goes_home(game, child, source):
        return 1
    return 2


def _goes_home(game: Game, child: State, column: Pile) -> bool:
    """Whether the card atop ``column`` can go home in ``child`` (``3-f`` is legal): ``game.is_legal``'s answer,
    found without playing the move in the salic-law games (a foundation wants the card's rank; a king stays), where
    the depth-first scan and the playouts by kind ask it for nearly every child."""
    if isinstance(game, Tribunal):
        s, columns = column.index, child.columns
        if s is None or not 1 <= s <= len(columns) or not columns[s - 1] or game.is_won(child):
            return False
        rank = RANK[columns[s - 1][-1]]
        return rank != KING and any(next_rank(f) == rank for f in child.foundations)
    return game.is_legal(child, Move(MoveKind.TRANSFER, (column,), _HOME))


def free_columns(state: State) -> int:
    """Columns empty or down to a lone king (which takes any card in the salic-law games)."""
    return sum(1 for col in state.columns if not col or (len(col) == 1 and RANK[col[0]] == KING))


class Exhausted(Exception):
    """A search has seen every position reachable from the start (the depth-first scans, compiled or not)."""


class Playouts:
    """Random-restart greedy playouts: from the start, follow a child of the best score (or kind) blurred by noise,
    never back to a position of the same playout, until won or stuck; then start again with the next draw. No
    table across playouts: where the depth-first scans are stuck deep under an early mistake, each playout
    chooses its early moves afresh. It never proves anything (it never runs out of positions)."""

    def __init__(
        self,
        game: Game,
        prof: Profile,
        root: State,
        seed: int,
        noise: int,
        stock_last: float,
        by_kind: bool,
        next_kind: float = 0.0,
    ) -> None:
        self.game, self.prof, self.root, self.noise = game, prof, root, noise
        # stock_last > 0: the stock (a deal, a turn, a redeal) only when no move between piles is left, but for a
        # share ``1 - stock_last`` of the steps
        self.stock_last = stock_last
        # by_kind: no score; a child of the best kind (``kind_of``) drawn at random, now and then one of the next kind
        # (next_kind > 0: each child of the next kind joins the draw with that chance, as the simple player draws)
        self.by_kind = by_kind
        self.next_kind = next_kind
        self.rng = random.Random(seed)
        self.rule = safe_rule(game)
        self.expanded = 0
        self._restart()

    def _restart(self) -> None:
        self.pos = self.root
        self.seen: set[Hashable] = {self.prof.key(self.root)}
        self.line: list[Line] = []

    def run(self, n: int) -> Line | None:
        if self.next_kind:
            return self._run_pool(n)
        game, key_of, score_of, rule, seen = self.game, self.prof.key, self.prof.score, self.rule, self.seen
        randrange, noise, random_, by_kind = self.rng.randrange, self.noise, self.rng.random, self.by_kind
        for _ in range(n):
            self.expanded += 1
            best: tuple[int, State, Line, Hashable] | None = None
            later = 1000 if self.stock_last and random_() < self.stock_last else 0
            pos = self.pos
            free = free_columns(pos) if by_kind else 0
            for child, explicit in self.prof.children(pos):
                kind = kind_of(game, pos, child, explicit, free) if by_kind else 0
                if rule(game, child) is None:
                    moves: Line = (explicit,)
                else:
                    child, settled = autoplay(game, child)
                    moves = (explicit, *settled)
                key = key_of(child)
                if key in seen:
                    continue
                # by kind: the kinds 4 apart and the draw up to 6, so that the next kind now and then comes first
                score = 4 * kind + randrange(6) if by_kind else score_of(child) + randrange(noise)
                if later and explicit.kind is not MoveKind.TRANSFER:
                    score += later
                if best is None or score < best[0]:
                    best = (score, child, moves, key)
            if best is None:
                self._restart()
                seen = self.seen
                continue
            _, self.pos, moves, key = best
            seen.add(key)
            self.line.append(moves)
            if game.is_won(self.pos):
                return tuple(m for part in self.line for m in part)
        return None

    def _run_pool(self, n: int) -> Line | None:
        """The draw of the simple player: every child of the best kind, and each of the next kind with chance
        ``next_kind``, equally likely."""
        game, key_of, rule, seen, chance = self.game, self.prof.key, self.rule, self.seen, self.next_kind
        randrange, random_ = self.rng.randrange, self.rng.random
        for _ in range(n):
            self.expanded += 1
            pos = self.pos
            found: list[tuple[int, State, Line, Hashable]] = []
            free = free_columns(pos)
            for child, explicit in self.prof.children(pos):
                kind = kind_of(game, pos, child, explicit, free)
                if rule(game, child) is None:
                    moves: Line = (explicit,)
                else:
                    child, settled = autoplay(game, child)
                    moves = (explicit, *settled)
                key = key_of(child)
                if key not in seen:
                    found.append((kind, child, moves, key))
            if not found:
                self._restart()
                seen = self.seen
                continue
            best = min(f[0] for f in found)
            pool = [f for f in found if f[0] == best or (f[0] == best + 1 and random_() < chance)]
            _, self.pos, moves, key = pool[randrange(len(pool))]
            seen.add(key)
            self.line.append(moves)
            if game.is_won(self.pos):
                return tuple(m for part in self.line for m in part)
        return None
