"""Hints that never lead back: a hint on a game's path, and the line a follower keeps.

A player who asks for a hint, plays it and asks again must not go in circles. A fresh search at every step
does not promise that: the line found after a move may start by taking that move back (both lines win, and
the two searches need not agree). Two rules make it so:

- the winning line a hint came from is kept, and while the player follows it (the moves played since are its
  first moves) the next hint is its next move, with no search (:func:`continued`);
- no hint proposes a move into a position already on the game's path (:func:`hint_on_path`): the path is
  kept as a set of short keys of the positions met (:func:`position_key`), and a line kept is cut before any
  position on it.

A key is of the player's view (and ``state.fresh``, which the player saw happen), never of the hidden cards:
along one game the view decides the position, and a key tells nothing the player does not see. In a game with
hidden cards a move is tried on a guess of them (drawn from the view and the hint's seed), never on the real
position, so that whether a hint "goes back" cannot depend on a hidden card either.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass

from ..game import Game
from ..moves import Move
from ..state import State
from ..view import player_view
from .hint import FULL_STATES, SAMPLE_STATES, SAMPLES, Hint, HintCode, _guesses, has_hidden_cards, hint
from .profiles import profile_for
from .safe import safe_move

#: Bytes of a position's key: 64 bits, so a game of 2,000 positions meets a false match about once in 10^15.
KEY_BYTES = 8
GOES_BACK = "the winning line found goes back to a position already played"
ALL_GO_BACK = "every move goes back to a position already played"


def position_key(game: Game, state: State) -> bytes:
    """A short key of the position as the player sees it (equal positions of one game, equal keys)."""
    v = player_view(game, state)
    seen = (v.columns, v.cells, v.foundations, v.stock_count, v.stock, v.waste, v.captives, v.fixed, v.redeals_used)
    return hashlib.blake2b(repr((seen, state.fresh)).encode(), digest_size=KEY_BYTES).digest()


def split_keys(packed: bytes) -> list[bytes]:
    """Keys stored one after the other."""
    return [packed[i : i + KEY_BYTES] for i in range(0, len(packed) - KEY_BYTES + 1, KEY_BYTES)]


def walk(game: Game, start: State, moves: Iterable[Move]) -> tuple[State, list[bytes]]:
    """The position after ``moves`` from ``start`` and the keys of the positions after each."""
    keys: list[bytes] = []
    state = start
    for move in moves:
        state = game.play(state, move)[0]
        keys.append(position_key(game, state))
    return state, keys


@dataclass(frozen=True)
class Followed:
    """A hint on the path, and the line to keep for the next ones: ``line`` starts with ``hint.move``, ``keys``
    are the keys of the positions after each of its moves, ``to_end`` how many moves it takes to the end (the
    line may be cut shorter, before a position already on the path). Empty when no line is kept."""

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
    n = to_end - j
    given = Hint(line[j], f"on a winning line: {n} move{'s' if n > 1 else ''} to the end", 1, 1,
                 HintCode.WINNING_LINE, n, tuple(line[j:]))  # fmt: skip
    return Followed(given, tuple(line[j:]), tuple(keys[j:]), n)


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
    real position (every card face up) is kept up to its first position on the path."""
    given = hint(
        game,
        state,
        seed=seed,
        samples=samples,
        sample_states=sample_states,
        full_states=full_states,
        max_seconds=max_seconds,
    )
    if given.move is None:
        return Followed(given)
    seen = set(path)
    seen.add(position_key(game, state))
    trial = _stand_in(game, state, seed)
    if position_key(game, game.play(trial, given.move)[0]) not in seen:
        if given.code is not HintCode.WINNING_LINE or not given.line or given.line[0] != given.move:
            return Followed(given)
        return _kept(game, state, given, seen)
    return Followed(_elsewhere(game, trial, seen, given))


def _stand_in(game: Game, state: State, seed: bytes) -> State:
    """The position a move is tried on: the real one when every card is face up, else a guess of the hidden cards
    from the view and the seed (so that nothing here reads a hidden card)."""
    if not has_hidden_cards(game, state):
        return state
    rng = random.Random(hashlib.sha256(b"follow|" + seed).digest())
    return next(_guesses(game, player_view(game, state), state.fresh, rng, 1))


def _kept(game: Game, state: State, given: Hint, seen: set[bytes]) -> Followed:
    """The winning line up to its first position already met (on the path, or earlier on the line)."""
    keys: list[bytes] = []
    for move in given.line:
        state = game.play(state, move)[0]
        key = position_key(game, state)
        if key in seen:
            break
        seen.add(key)
        keys.append(key)
    return Followed(given, given.line[: len(keys)], tuple(keys), given.moves_to_end)


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
