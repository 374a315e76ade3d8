"""Hints with hidden cards: every move weighed over guesses of the hidden cards (determinized search).

A player who cannot see the stock's order (or the captives) cannot know which line wins. What a hint can do is
guess the hidden cards several times from the view alone and see how each move fares across the guesses, the
way programs play Klondike (Yan et al., "Solitaire: Man versus Machine", 2005; Bjarnason, Fern and Tadepalli,
"Lower bounding Klondike solitaire with Monte-Carlo planning", 2009):

- **Wins first.** The first ``SOLVED`` guesses are solved (``search.solve``) with ``SOLVE_SHARE`` of the budget:
  few guesses, so that each search goes deep enough to win (a captives game in its second pass, with the stock
  known, wants several hundred positions; a dozen shallow searches would find nothing). A winning line votes for
  its first move, and the move with the most votes is the hint ("hindsight optimisation").
- **Else, a look along every move.** When no solve won, every move is played on every guess and looked at a
  little further, with the rest of the budget shared out: a depth-first search from there, the best-scored child
  first, finds the best position it can reach, valued by the solver's score plus one per move it takes to get
  there. The move with the lowest mean over the guesses is the hint (more and cheaper samples: every guess
  counts here). The cost of the moves matters: without it a move that only shuffles a card between two places
  ties with the move that makes the same progress at once, and a follower wanders.
- Moves that give the same position are weighed once; moves into a position already met (``path``) not at all.
- The winning line a hint came from can be followed up to its first move that turns a hidden card
  (``until_revealed``): the moves before it are legal whatever the real cards are.

Only the view (and ``state.fresh``, which the player saw happen) is read: the guesses are drawn from the cards
the view does not show, so a hint cannot depend on the real hidden cards.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Hashable, Iterator, Sequence, Set
from dataclasses import dataclass

from ..cards import NO_CARD, Card, canonical_deck
from ..game import Game
from ..moves import Move
from ..state import State
from ..view import HIDDEN, View, hidden_cards
from .path import position_key
from .profiles import Profile, profile_for
from .safe import autoplay, safe_rule
from .search import Finding, solve

Line = tuple[Move, ...]
#: The share of a hint's positions that solves guesses, and how many guesses it solves (few, so that each search
#: goes deep enough to win); the rest looks along each move in every guess (only when no solve won).
SOLVE_SHARE = 0.5
SOLVED = 2
#: Positions a look along one move expands at least.
MIN_LOOK = 8
#: What each move made on the way to a position adds to its score in a look.
STEP = 1


@dataclass(frozen=True)
class Weighed:
    """How a move fared over the guesses: won in ``wins`` of them (``line``: the shortest winning line it starts,
    in the guess that won it), else ``value``, the mean of the best values its looks reached (lower is better)."""

    move: Move
    wins: int = 0
    value: float = 0.0
    line: Line = ()


def hidden_multiset(game: Game, view: View) -> list[Card]:
    """The cards the view does not show: the whole deck less every card it shows."""
    shown: Counter[Card] = Counter()
    for pile in (*view.columns, *view.foundations, view.cells, view.waste, view.fixed, view.captives, view.stock or ()):
        shown.update(c for c in pile if c not in (NO_CARD, HIDDEN))
    rest = Counter(canonical_deck(game.info.deck_size)) - shown
    return sorted(rest.elements())


def guess_state(game: Game, view: View, fresh: bool, cards: list[Card]) -> State:
    """The view with its hidden places filled by ``cards`` (stock first, then the captives held)."""
    it = iter(cards)
    stock = view.stock if view.stock is not None else tuple(next(it) for _ in range(view.stock_count))
    captives = tuple(next(it) if c == HIDDEN else c for c in view.captives)
    return State(
        columns=view.columns,
        cells=view.cells,
        foundations=view.foundations,
        stock=stock,
        waste=view.waste,
        captives=captives,
        fixed=view.fixed,
        redeals=view.redeals_used,
        fresh=fresh,
    )


def guesses(game: Game, view: View, fresh: bool, rng: random.Random, n: int) -> Iterator[State]:
    """``n`` guesses of the hidden cards: the cards the view does not show, shuffled by ``rng``."""
    hidden = hidden_multiset(game, view)
    for _ in range(n):
        cards = list(hidden)
        rng.shuffle(cards)
        yield guess_state(game, view, fresh, cards)


def until_revealed(game: Game, state: State, line: Line) -> Line:
    """``line`` up to and with its first move that turns a hidden card face up: the moves a player can follow
    before the real cards may differ from the guess the line was found on."""
    hidden = len(hidden_cards(game, state))
    for i, move in enumerate(line):
        state = game.play(state, move)[0]
        if len(hidden_cards(game, state)) < hidden:
            return line[: i + 1]
    return line


def weigh(
    game: Game,
    guessed: Sequence[State],
    path: Set[bytes],
    budget: int,
    *,
    deadline: float | None = None,
    look: bool = True,
) -> tuple[list[Weighed], int]:
    """Every move of the position the guesses share, weighed over them (the module's docstring says how), in the
    engine's order, and how many guesses that counts (solved, or looked along). ``budget`` positions in all:
    ``SOLVE_SHARE`` of it solves the first ``SOLVED`` guesses, the rest looks along every move in every guess (only
    when no solve won, and ``look``); fewer once the thread's CPU clock passes ``deadline``. Moves into a position
    whose key is in ``path`` are left out."""
    prof = profile_for(game)
    same: dict[Move, Move] = {}  # every move -> the first move that gives the same position
    after: dict[Hashable, Move] = {}
    for child, move in prof.children(guessed[0]):
        if position_key(game, child) not in path:
            same[move] = after.setdefault(prof.key(_settled(game, child)), move)
    moves = list(dict.fromkeys(same.values()))
    if not moves:
        return [], 0
    solved = guessed[:SOLVED]
    solve_states = max(1, int(budget * SOLVE_SHARE) // len(solved))
    wins: Counter[Move] = Counter()
    lines: dict[Move, Line] = {}
    tried = 0
    for guess in solved:
        left = None if deadline is None else deadline - time.thread_time()
        if left is not None and left <= 0:
            break
        tried += 1
        found = solve(game, guess, max_states=solve_states, max_seconds=left)
        if found.outcome is Finding.WON and found.moves and found.moves[0] in same:
            move = same[found.moves[0]]
            wins[move] += 1
            if move not in lines or len(found.moves) < len(lines[move]):
                lines[move] = found.moves
    if wins or not tried or not look:
        return [Weighed(m, wins[m], float(len(lines.get(m, ()))), lines.get(m, ())) for m in moves], tried
    each = max(MIN_LOOK, (budget - solve_states * tried) // (len(guessed) * len(moves)))
    return _looked(game, prof, guessed, moves, each, deadline)


def best(weighed: Sequence[Weighed]) -> Weighed:
    """The move to hint: the most wins, then the lowest value (among wins: the shortest line), then the first in
    the engine's order."""
    return min(weighed, key=lambda w: (-w.wins, w.value))


def _looked(
    game: Game, prof: Profile, guessed: Sequence[State], moves: list[Move], look: int, deadline: float | None
) -> tuple[list[Weighed], int]:
    """Every move played on every guess and looked along (``look`` positions each): its wins and mean value, and
    how many guesses were looked along."""
    totals = dict.fromkeys(moves, 0)
    wins: Counter[Move] = Counter()
    lines: dict[Move, Line] = {}
    looked = 0
    for guess in guessed:
        if looked and deadline is not None and time.thread_time() >= deadline:
            break
        looked += 1
        for move in moves:
            child, explicit = game.play(guess, move)
            child, settled = autoplay(game, child)
            value, line = _look(game, prof, child, look)
            totals[move] += value
            if line is not None:
                wins[move] += 1
                whole = (explicit, *settled, *line)
                if move not in lines or len(whole) < len(lines[move]):
                    lines[move] = whole
    return [Weighed(m, wins[m], totals[m] / looked, lines.get(m, ())) for m in moves], looked


def _look(game: Game, prof: Profile, root: State, budget: int) -> tuple[int, Line | None]:
    """A depth-first search of ``budget`` positions from ``root`` (one move made to reach it), the best-scored
    child first: the best value it reached (score + ``STEP`` per move), and the line to a win if it found one."""
    rule = safe_rule(game)
    key_of, score_of, is_won = prof.key, prof.score, game.is_won
    if is_won(root):
        return score_of(root) + STEP, ()
    seen: set[Hashable] = {key_of(root)}
    low = score_of(root) + STEP

    def children(pos: State, depth: int) -> list[tuple[int, int, State, Line]]:
        nonlocal low
        out: list[tuple[int, int, State, Line]] = []
        for child, explicit in prof.children(pos):
            moves: Line = (explicit,)
            if rule(game, child) is not None:
                child, settled = autoplay(game, child)
                moves = (explicit, *settled)
            key = key_of(child)
            if key in seen:
                continue
            seen.add(key)
            score = score_of(child)
            low = min(low, score + STEP * depth)
            out.append((-score, -len(out), child, moves))
        out.sort()  # worst first: pop() takes the best, the first generated among equals
        return out

    stack = [children(root, 2)]
    line: list[Line] = []
    for _ in range(budget):
        while stack and not stack[-1]:
            stack.pop()
            if line:
                line.pop()
        if not stack:
            break
        _, _, child, moves = stack[-1].pop()
        line.append(moves)
        if is_won(child):
            return low, tuple(m for part in line for m in part)
        stack.append(children(child, len(stack) + 2))
    return low, None


def _settled(game: Game, state: State) -> State:
    return autoplay(game, state)[0] if safe_rule(game)(game, state) is not None else state
