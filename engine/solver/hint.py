"""Hints: a move the player can make now, with a short reason for people.

In a game whose cards are all face up the hint comes from the solver on the real position: the first move
of a winning line. In a game with hidden cards (the stock's order, face-down captives) it must not depend
on them, or a hint would leak them: the position is first cut down to the player's view
(``engine.view.player_view``), the hidden places are filled with the cards the view says are still
hidden, shuffled several times by a generator seeded by the caller, each of those guesses is solved with
a small budget, and the move that starts a win in the most guesses is the hint. The same view and seed
give the same hint, whatever the real hidden cards are.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from ..cards import NO_CARD, Card, canonical_deck
from ..game import Game
from ..moves import Move
from ..state import State
from ..view import HIDDEN, View, player_view
from .profiles import profile_for
from .safe import safe_move
from .search import Finding, solve

#: Guesses of the hidden cards, and the positions each may expand (what a hint costs: docs/solver.md).
SAMPLES = 6
SAMPLE_STATES = 800
#: The budget on the real position of a game with every card face up.
FULL_STATES = 4000


class HintCode(StrEnum):
    """How a hint was found, for programs (``reason`` says it for people); the service's ``reason_code``."""

    WINNING_LINE = "WINNING_LINE"  # every card face up: the first move of a winning line on the real position
    WINS_IN_GUESSES = "WINS_IN_GUESSES"  # hidden cards: the move that wins in the most guesses of them
    SAFE_MOVE = "SAFE_MOVE"  # no win found: a card that goes home safely
    BEST_SCORE = "BEST_SCORE"  # no win found: the move whose position the solver's score likes best
    NO_MOVE = "NO_MOVE"  # no move is left


@dataclass(frozen=True)
class Hint:
    """``move`` (None when no move is left), why (``reason`` for people, ``code`` for programs), and how it was
    found: ``wins`` of ``tried`` positions (guesses of the hidden cards, or the real position) were won by a line
    starting with it, the shortest of them ``moves_to_end`` moves long (0 when none was won).

    ``line`` is the whole winning line that ``move`` starts, when it was found on the real position
    (``WINNING_LINE``: every card face up), so that a caller who plays on along it needs no second search; empty
    otherwise (a guess's line says nothing of the real hidden cards). For the engine's callers, not for players:
    the service sends only the move."""

    move: Move | None
    reason: str
    wins: int
    tried: int
    code: HintCode = HintCode.NO_MOVE
    moves_to_end: int = 0
    line: tuple[Move, ...] = ()

    def text(self) -> str:
        return self.move.text() if self.move is not None else ""


def has_hidden_cards(game: Game, state: State) -> bool:
    """Whether the player's view of ``state`` hides any card."""
    view = player_view(game, state)
    return (view.stock is None and view.stock_count > 0) or HIDDEN in view.captives


def hint(
    game: Game,
    state: State,
    *,
    seed: bytes = b"",
    samples: int = SAMPLES,
    sample_states: int = SAMPLE_STATES,
    full_states: int = FULL_STATES,
    max_seconds: float | None = None,
) -> Hint:
    """The hint for the player of ``state``. With hidden cards only the view (and ``state.fresh``, which the
    player saw happen) is read; ``seed`` seeds the guesses, so the same seed gives the same hint.

    ``max_seconds`` caps the CPU time of the whole hint (a guard for a server: the budgets in positions are what
    make a hint the same on every run; the cap only cuts the searches short on a machine far slower than usual,
    and then fewer guesses are tried)."""
    if game.is_won(state) or not game.has_legal_move(state):
        return Hint(None, "no move is left", 0, 0)
    view = player_view(game, state)
    if not ((view.stock is None and view.stock_count > 0) or HIDDEN in view.captives):
        found = solve(game, state, max_states=full_states, max_seconds=max_seconds)
        if found.outcome is Finding.WON and found.moves:
            n = len(found.moves)
            why = f"on a winning line: {n} move{'s' if n > 1 else ''} to the end"
            return Hint(found.moves[0], why, 1, 1, HintCode.WINNING_LINE, n, found.moves)
        return _fallback(game, state, found.outcome, 0, 1)
    rng = random.Random(hashlib.sha256(b"hint|" + seed).digest())
    wins: Counter[Move] = Counter()
    first_seen: dict[Move, int] = {}
    shortest: dict[Move, int] = {}
    no_win = 0
    guesses = list(_guesses(game, view, state.fresh, rng, max(samples, 1)))
    start = time.thread_time()
    tried = 0
    for guess in guesses:
        left = None if max_seconds is None else max_seconds - (time.thread_time() - start)
        if left is not None and left <= 0:
            break
        tried += 1
        found = solve(game, guess, max_states=sample_states, max_seconds=left)
        if found.outcome is Finding.WON and found.moves:
            move = found.moves[0]
            wins[move] += 1
            first_seen.setdefault(move, len(first_seen))
            shortest[move] = min(shortest.get(move, len(found.moves)), len(found.moves))
        elif found.outcome is Finding.NO_WIN:
            no_win += 1
    if wins:
        move = min(wins, key=lambda m: (-wins[m], first_seen[m]))
        why = f"wins in {wins[move]} of {tried} guesses of the hidden cards"
        return Hint(move, why, wins[move], tried, HintCode.WINS_IN_GUESSES, shortest[move])
    outcome = Finding.NO_WIN if no_win == tried == len(guesses) else Finding.UNKNOWN
    return _fallback(game, guesses[0], outcome, 0, tried)


def _fallback(game: Game, state: State, outcome: Finding, wins: int, tried: int) -> Hint:
    """No win found: a safe move home if there is one, else the move the solver's score likes best."""
    why = "no win is left from here" if outcome is Finding.NO_WIN else "no win found within the hint's budget"
    move = safe_move(game, state)
    if move is not None:
        return Hint(move, f"{why}; this card goes home safely", wins, tried, HintCode.SAFE_MOVE)
    prof = profile_for(game)
    best: tuple[int, int, Move] | None = None
    for i, m in enumerate(prof.moves(state)):
        score = prof.score(game.play(state, m)[0])
        if best is None or (score, i) < best[:2]:
            best = (score, i, m)
    if best is None:
        return Hint(None, "no move is left", wins, tried)
    return Hint(best[2], f"{why}; this move looks best", wins, tried, HintCode.BEST_SCORE)


def _hidden_multiset(game: Game, view: View) -> list[Card]:
    """The cards the view does not show: the whole deck less every card it shows."""
    shown: Counter[Card] = Counter()
    for pile in (*view.columns, *view.foundations, view.cells, view.waste, view.fixed, view.captives, view.stock or ()):
        shown.update(c for c in pile if c not in (NO_CARD, HIDDEN))
    rest = Counter(canonical_deck(game.info.deck_size)) - shown
    return sorted(rest.elements())


def _guess_state(game: Game, view: View, fresh: bool, cards: list[Card]) -> State:
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


def _guesses(game: Game, view: View, fresh: bool, rng: random.Random, n: int) -> Iterator[State]:
    hidden = _hidden_multiset(game, view)
    for _ in range(n):
        cards = list(hidden)
        rng.shuffle(cards)
        yield _guess_state(game, view, fresh, cards)
