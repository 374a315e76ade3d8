"""Simple independent players: yardsticks for the solver on the games with a stock (tribunal, picture-gallery,
captives, the sultans).

Written from docs/rules.md and the engine's public rules API alone (``Game.deal``, ``legal_moves``, ``play``,
``is_won``, the fields of ``State`` and ``Move``), nothing from ``engine.solver``: if they win a deal the solver
misses, the solver lacks something a plain search finds. Both see every card (the stock's order, the captives),
as the solver does, and both stop at a budget of CPU seconds of their own thread.

- ``greedy_dfs``: a depth-first search that tries each position's moves in the order of a plain heuristic
  (cards home first, then moves that free a card for home or empty a pile, then the other moves, then the
  stock), keeps a set of the positions it has seen, and backs up when a position has no move left to a new one.
- ``greedy_playouts``: random-restart greedy playouts: from the deal, play one of the moves of the best kind in
  that order (and, a quarter of the time, of the next kind too), drawn by a seeded generator, until won or stuck,
  never returning to a position of the same playout; then start again from the deal with the next draws.

They are plain on purpose (no transposition of look-alike positions, no safe moves, no scores beyond the order
of moves), so that what they win says something about the solver, not about cleverness shared with it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from engine import Game, Move, MoveKind, Pile, PileKind, State
from engine.cards import KING, RANK

#: Positions between two looks at the clock.
_CLOCK_EVERY = 64


@dataclass(frozen=True)
class Played:
    """A player's answer: ``won`` with the winning line (explicit moves), the positions it expanded and the CPU
    seconds of its thread."""

    won: bool
    moves: tuple[Move, ...]
    positions: int
    seconds: float


def _free_places(state: State) -> int:
    """Columns with nothing on them that a card could be taken from: empty, or a king alone (salic-law's lone
    kings take any card; elsewhere a lone king is one move from empty)."""
    return sum(1 for col in state.columns if not col or (len(col) == 1 and RANK[col[0]] == KING))


def _uncovers_home(game: Game, child: State, move: Move) -> bool:
    """Whether the card ``move`` uncovered in its source column can go home next (``3-f``: any foundation)."""
    source = move.sources[0] if move.sources else None
    if source is None or source.kind is not PileKind.COLUMN:
        return False
    return game.is_legal(child, Move(MoveKind.TRANSFER, (source,), Pile(PileKind.FOUNDATION)))


def ranked(game: Game, state: State) -> list[tuple[int, int, State, Move]]:
    """The children of ``state`` with their rank (lower is tried first) and their place in ``legal_moves``:
    0 a card home; 1 a move that uncovers a card that can go home, or frees a pile; 2 another move between piles;
    3 the stock (deal a card, turn one); 4 a redeal. Within a rank, the order of ``legal_moves``."""
    out = []
    free = _free_places(state)
    for i, move in enumerate(game.legal_moves(state)):
        child, explicit = game.play(state, move)
        if move.kind is MoveKind.REDEAL:
            rank = 4
        elif move.kind is not MoveKind.TRANSFER:
            rank = 3
        elif move.target is not None and move.target.kind in (PileKind.FOUNDATION, PileKind.KING_ROW):
            rank = 0
        elif _free_places(child) > free or _uncovers_home(game, child, explicit):
            rank = 1
        else:
            rank = 2
        out.append((rank, i, child, explicit))
    out.sort(key=lambda r: (r[0], r[1]))
    return out


def greedy_dfs(game: Game, state: State, max_seconds: float) -> Played:
    """Depth-first search in the order of ``ranked``, with a set of positions seen (their hashes: a collision
    could only hide a win, never make one up), backtracking when a position has no unseen child."""
    clock = time.thread_time
    started = clock()
    seen = {hash(state)}
    # each level: the children still to try (reversed, so pop() takes the best); the line to the level's position
    stack: list[list[tuple[State, Move]]] = [[(c, m) for _, _, c, m in reversed(ranked(game, state))]]
    line: list[Move] = []
    positions = 0
    while stack:
        level = stack[-1]
        if not level:
            stack.pop()
            if line:
                line.pop()
            continue
        child, move = level.pop()
        h = hash(child)
        if h in seen:
            continue
        seen.add(h)
        line.append(move)
        if game.is_won(child):
            return Played(True, tuple(line), positions, clock() - started)
        positions += 1
        if positions % _CLOCK_EVERY == 0 and clock() - started >= max_seconds:
            break
        stack.append([(c, m) for _, _, c, m in reversed(ranked(game, child))])
    return Played(False, (), positions, clock() - started)


def _playout(game: Game, state: State, rng: random.Random) -> Iterator[tuple[State, Move] | None]:
    """One greedy playout: yields each move played; a final None when won."""
    seen = {hash(state)}
    while True:
        options = [r for r in ranked(game, state) if hash(r[2]) not in seen]
        if not options:
            return
        best = options[0][0]
        # the best rank, and now and then the next one: greedy, but each playout a little different
        pool = [r for r in options if r[0] == best or (r[0] == best + 1 and rng.random() < 0.25)]
        _, _, state, move = pool[rng.randrange(len(pool))]
        seen.add(hash(state))
        yield state, move
        if game.is_won(state):
            yield None
            return


def greedy_playouts(game: Game, state: State, max_seconds: float, seed: int = 1) -> Played:
    """Random-restart greedy playouts from ``state`` until one wins or the CPU budget is spent."""
    clock = time.thread_time
    started = clock()
    rng = random.Random(seed)
    positions = 0
    while clock() - started < max_seconds:
        line: list[Move] = []
        for step in _playout(game, state, rng):
            if step is None:
                return Played(True, tuple(line), positions, clock() - started)
            line.append(step[1])
            positions += 1
            if positions % _CLOCK_EVERY == 0 and clock() - started >= max_seconds:
                break
    return Played(False, (), positions, clock() - started)


PLAYERS = {"greedy-dfs": greedy_dfs, "playouts": greedy_playouts}
