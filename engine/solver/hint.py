"""Hints: a move the player can make now, with a short reason for people.

In a game whose cards are all face up the hint comes from the solver on the real position: the first move
of a winning line. In a game with hidden cards (the stock's order, face-down captives) it must not depend
on them, or a hint would leak them: the position is first cut down to the player's view
(``engine.view.player_view``), the hidden places are filled with the cards the view says are still
hidden, shuffled several times by a generator seeded by the caller, and every move is weighed over those
guesses (``engine.solver.guesses``: the move that wins the most guesses, else the one whose look ahead fares
best on average). The same view and seed give the same hint, whatever the real hidden cards are.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Set
from dataclasses import dataclass
from enum import StrEnum

from ..game import Game
from ..moves import Move
from ..state import State
from ..view import HIDDEN, player_view
from .guesses import best, guesses, until_revealed, weigh
from .profiles import profile_for
from .safe import safe_move
from .search import Finding, solve

#: Guesses of the hidden cards, and the positions each may expand (what a hint costs: docs/solver.md).
SAMPLES = 6
SAMPLE_STATES = 800
#: The budget on the real position of a game with every card face up.
FULL_STATES = 4000
NOT_FOUND = "no win found within the hint's budget"
ALL_GO_BACK = "every move goes back to a position already played"


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

    ``line`` is the winning line that ``move`` starts, so that a caller who plays on along it needs no second
    search: the whole line when it was found on the real position (``WINNING_LINE``: every card face up); with
    hidden cards (``WINS_IN_GUESSES``) the line of a guess that won, up to and with its first move that turns a
    hidden card (what comes after depends on the card, and the guess's card is a guess); empty otherwise. For the
    engine's callers, not for players: the service sends only the move."""

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
    path: Set[bytes] = frozenset(),
) -> Hint:
    """The hint for the player of ``state``. With hidden cards only the view (and ``state.fresh``, which the
    player saw happen) is read; ``seed`` seeds the guesses, so the same seed gives the same hint, and no move into
    a position whose key (``engine.solver.path.position_key``) is in ``path`` is weighed.

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
    guessed = list(guesses(game, view, state.fresh, rng, max(samples, 1)))
    deadline = None if max_seconds is None else time.thread_time() + max_seconds
    safe = safe_move(game, state)
    weighed, tried = weigh(game, guessed, path, samples * sample_states, deadline=deadline, look=safe is None)
    if not weighed:
        return Hint(None, ALL_GO_BACK, 0, tried)
    top = best(weighed)
    if top.wins:
        why = f"wins in {top.wins} of {tried} guesses of the hidden cards"
        line = until_revealed(game, guessed[0], top.line)
        return Hint(top.move, why, top.wins, tried, HintCode.WINS_IN_GUESSES, len(top.line), line)
    if safe is not None:
        return Hint(safe, f"{NOT_FOUND}; this card goes home safely", 0, tried, HintCode.SAFE_MOVE)
    why = f"{NOT_FOUND}; this move looks best in {tried} guesses of the hidden cards"
    return Hint(top.move, why, 0, tried, HintCode.BEST_SCORE)


def _fallback(game: Game, state: State, outcome: Finding, wins: int, tried: int) -> Hint:
    """No win found: a safe move home if there is one, else the move the solver's score likes best."""
    why = "no win is left from here" if outcome is Finding.NO_WIN else NOT_FOUND
    move = safe_move(game, state)
    if move is not None:
        return Hint(move, f"{why}; this card goes home safely", wins, tried, HintCode.SAFE_MOVE)
    prof = profile_for(game)
    liked: tuple[int, int, Move] | None = None
    for i, m in enumerate(prof.moves(state)):
        score = prof.score(game.play(state, m)[0])
        if liked is None or (score, i) < liked[:2]:
            liked = (score, i, m)
    if liked is None:
        return Hint(None, "no move is left", wins, tried)
    return Hint(liked[2], f"{why}; this move looks best", wins, tried, HintCode.BEST_SCORE)
