"""Hints that never lead back: a hint on a game's path, and the line a follower keeps.

A player who asks for a hint, plays it and asks again must not go in circles. A fresh search at every step
does not promise that: the line found after a move may start by taking that move back (both lines win, and
the two searches need not agree). Two rules make it so:

- the winning line a hint came from is kept, and while the player follows it (the moves played since are its
  first moves) the next hint is its next move, with no search (:func:`continued`);
- no hint proposes a move into a position already on the game's path (:func:`hint_on_path`): the path is
  kept as a set of short keys of the positions met (:func:`position_key`), and a line kept is cut before any
  position on it.

A key is of the player's view (``engine.solver.path``), never of the hidden cards. In a game with hidden cards
the hint weighs no move into a position on the path, and a move is tried on a guess of the hidden cards (drawn
from the view and the hint's seed), never on the real position, so that whether a hint "goes back" cannot depend
on a hidden card either. There a line is kept too: the line of a guess that won, up to its first move that turns
a hidden card (the player can follow it that far whatever the real cards are; after it the guess says nothing).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence, Set
from dataclasses import dataclass

from ..game import Game
from ..moves import Move
from ..state import State
from ..view import player_view
from .guesses import guesses
from .hint import ALL_GO_BACK, FULL_STATES, SAMPLE_STATES, SAMPLES, Hint, HintCode, has_hidden_cards, hint
from .path import KEY_BYTES, position_key, split_keys, walk
from .profiles import profile_for
from .safe import safe_move

__all__ = [
    "ALL_GO_BACK",
    "GOES_BACK",
    "KEY_BYTES",
    "Followed",
    "continued",
    "hint_on_path",
    "position_key",
    "split_keys",
    "walk",
]

GOES_BACK = "the winning line found goes back to a position already played"


@dataclass(frozen=True)
class Followed:
    """A hint on the path, and the line to keep for the next ones: ``line`` starts with ``hint.move``, ``keys``
    are the keys of the positions after each of its moves, ``to_end`` how many moves it takes to the end (the
    line may be cut shorter, before a position already on the path); negative for a line that won in a guess of
    the hidden cards (minus its moves to the end there; the line is cut after its first move that turns a hidden
    card). Empty when no line is kept."""

    hint: Hint
    line: tuple[Move, ...] = ()
    keys: tuple[bytes, ...] = ()
    to_end: int = 0


def continued(
    line: Sequence[Move], keys: Sequence[bytes], to_end: int, played: Sequence[Move], here: bytes
) -> Followed | None:
    """The next hint of a kept line, once ``played`` (the moves made since it was kept) were its first moves and
    ``here``, the key of the position now, is the one the line expects; None when the player left the line, or
    it ends here."""
    j = len(played)
    if j >= len(line) or tuple(line[:j]) != tuple(played) or (j and keys[j - 1] != here):
        return None
    n = abs(to_end) - j
    moves = f"{n} move{'s' if n > 1 else ''}"
    if to_end < 0:
        why, code = f"on a line that won in a guess of the hidden cards: {moves} to its end", HintCode.WINS_IN_GUESSES
    else:
        why, code = f"on a winning line: {moves} to the end", HintCode.WINNING_LINE
    given = Hint(line[j], why, 1, 1, code, n, tuple(line[j:]))
    return Followed(given, tuple(line[j:]), tuple(keys[j:]), -n if to_end < 0 else n)


def hint_on_path(
    game: Game,
    state: State,
    path: Set[bytes],
    *,
    seed: bytes = b"",
    samples: int = SAMPLES,
    sample_states: int = SAMPLE_STATES,
    full_states: int = FULL_STATES,
    max_seconds: float | None = None,
) -> Followed:
    """The engine's hint (``engine.solver.hint``) for ``state``, unless its move goes back to a position whose
    key is in ``path`` (the positions met so far): then the best move that does not. A winning line found on the
    real position (every card face up) is kept up to its first position on the path; so is the line of a guess
    that won (hidden cards), which ends with its first move that turns a hidden card."""
    seen = set(path)
    seen.add(position_key(game, state))
    given = hint(
        game,
        state,
        seed=seed,
        samples=samples,
        sample_states=sample_states,
        full_states=full_states,
        max_seconds=max_seconds,
        path=seen,
    )
    if given.move is None:
        return Followed(given)
    trial = _stand_in(game, state, seed)
    if position_key(game, game.play(trial, given.move)[0]) not in seen:
        lined = given.code in (HintCode.WINNING_LINE, HintCode.WINS_IN_GUESSES)
        if not lined or not given.line or given.line[0] != given.move:
            return Followed(given)
        return _kept(game, trial, given, seen)
    return Followed(_elsewhere(game, trial, seen, given))


def _stand_in(game: Game, state: State, seed: bytes) -> State:
    """The position a move is tried on: the real one when every card is face up, else a guess of the hidden cards
    from the view and the seed (so that nothing here reads a hidden card)."""
    if not has_hidden_cards(game, state):
        return state
    rng = random.Random(hashlib.sha256(b"follow|" + seed).digest())
    return next(guesses(game, player_view(game, state), state.fresh, rng, 1))


def _kept(game: Game, state: State, given: Hint, seen: set[bytes]) -> Followed:
    """The winning line up to its first position already met (on the path, or earlier on the line), played on
    ``state`` (the real position, or a guess of its hidden cards: the line turns none before its last move)."""
    keys: list[bytes] = []
    for move in given.line:
        state = game.play(state, move)[0]
        key = position_key(game, state)
        if key in seen:
            break
        seen.add(key)
        keys.append(key)
    to_end = -given.moves_to_end if given.code is HintCode.WINS_IN_GUESSES else given.moves_to_end
    return Followed(given, given.line[: len(keys)], tuple(keys), to_end)


def _elsewhere(game: Game, state: State, seen: set[bytes], given: Hint) -> Hint:
    """The hint's move goes back: a safe move home that does not, else the move the solver's score likes best
    among those that do not; none when every move goes back."""
    why = GOES_BACK if given.code in (HintCode.WINNING_LINE, HintCode.WINS_IN_GUESSES) else given.reason.split(";")[0]
    ahead = {m: after for after, m in game.successors(state) if position_key(game, after) not in seen}
    safe = safe_move(game, state)
    if safe is not None and position_key(game, game.play(state, safe)[0]) not in seen:
        return Hint(safe, f"{why}; this card goes home safely", given.wins, given.tried, HintCode.SAFE_MOVE)
    if not ahead:
        return Hint(None, ALL_GO_BACK, given.wins, given.tried, HintCode.NO_MOVE)
    score = profile_for(game).score
    best = min(ahead, key=lambda m: score(ahead[m]))  # the first of the best, in the engine's order
    return Hint(best, f"{why}; this move looks best", given.wins, given.tried, HintCode.BEST_SCORE)
