"""A solver for the nine games, safe automatic moves, and hints (issue 13, the engine half).

- ``solve(game, state, max_states=..., max_seconds=...)``: a winning line, a proof that none exists, or
  "unknown within the budget", on a position with everything visible (the real State).
- ``safe_move`` / ``autoplay``: the moves to the foundations that can never hurt (what AutoPlay applies).
- ``hint(game, state, seed=...)``: a move with a short reason; in games with hidden cards it is computed
  from the player's view only (every move weighed over guesses of the hidden cards: ``guesses``).

Pure like the rest of the engine: no I/O; the only clock read is the CPU time of the calling thread, for
the budget in seconds (a budget in states gives the same answer on every run).
"""

from .hint import Hint, HintCode, has_hidden_cards, hint
from .safe import autoplay, safe_move
from .search import Finding, Solution, solve

__all__ = ["Finding", "Hint", "HintCode", "Solution", "autoplay", "has_hidden_cards", "hint", "safe_move", "solve"]
