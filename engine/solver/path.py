"""The positions a game has met, as the player sees them: short keys, so that a hint never leads back to one.

A key is of the player's view (and ``state.fresh``, which the player saw happen), never of the hidden cards:
along one game the view decides the position, and a key tells nothing the player does not see.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ..game import Game
from ..moves import Move
from ..state import State
from ..view import player_view

#: Bytes of a position's key: 64 bits, so a game of 2,000 positions meets a false match about once in 10^15.
KEY_BYTES = 8


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
