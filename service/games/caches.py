"""What one replica remembers between calls, so that the common call costs less. Neither cache is an
authority: the store is, and each entry is checked against what the store says before it is used.

- :class:`RecentGames`: the last position this replica wrote for a game, so that the next ApplyMove on it
  costs one Redis call (the compare-and-set) instead of two. The CAS refuses a write to any version but the one
  remembered, so a game moved on by another replica is ABORTED as before.
- :class:`Templates`: what a game's messages share from deal to end (ids, options, commitment, creation
  time), built once per game and merged into each response.
- :class:`Certificates`: a won game's kept certificate as a message, so that it is checked (its signature, its
  contents read) once per replica and not on every GetGame, whatever the number of its moves.
"""

from __future__ import annotations

import hmac
from collections import OrderedDict
from collections.abc import Hashable

from patience.v1 import patience_pb2 as pb

from engine.game import Game
from engine.state import State
from service.security.players import looks_like_jwt
from service.security.tokens import token_hash
from service.store import GameRecord


class RecentGames:
    """The last record, game and position written per game id, least recently used dropped first."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[GameRecord, Game, State, str | None]] = OrderedDict()

    def remember(self, record: GameRecord, game: Game, state: State, token: str | None = None) -> None:
        """With the position goes the token last checked against the game's token hash: the next call with the
        same token is checked by comparing the two (in constant time), without hashing it again. A player's
        identity token is never kept: it is verified on every call (it expires, and its player may be erased)."""
        if token is not None and looks_like_jwt(token):
            token = None
        self._entries[record.game_id] = (record, game, state, token)
        self._entries.move_to_end(record.game_id)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, game_id: str) -> None:
        self._entries.pop(game_id, None)

    def at_version(self, game_id: str, version: int, token: str | None) -> tuple[GameRecord, Game, State] | None:
        """The game as written at ``version``, if it is open there and ``token`` is its token; else None (the
        caller then reads the store, which gives the precise refusal)."""
        entry = self._entries.get(game_id)
        if entry is None or entry[0].version != version or not entry[0].open:
            return None
        record, game, state, checked = entry
        if not token:
            return None
        if checked is not None and token.isascii() and hmac.compare_digest(token, checked):
            return record, game, state
        if not hmac.compare_digest(record.token_hash, token_hash(token)):
            return None
        return record, game, state

    def decoded(self, record: GameRecord) -> tuple[Game, State] | None:
        """The game and position of ``record`` when its stored bytes are the very bytes this replica last wrote
        for the game (that position is their decoding already)."""
        entry = self._entries.get(record.game_id)
        if entry is not None and entry[0].state == record.state:
            return entry[1], entry[2]
        return None


class Templates:
    """One template message per game id, rebuilt when what it depends on (``key``) changes."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: dict[str, tuple[Hashable, pb.Game]] = {}

    def get(self, game_id: str, key: Hashable) -> pb.Game | None:
        """The template kept for ``game_id`` if it was built for ``key``."""
        entry = self._entries.get(game_id)
        return entry[1] if entry is not None and entry[0] == key else None

    def put(self, game_id: str, key: Hashable, template: pb.Game) -> None:
        self._entries[game_id] = (key, template)
        while len(self._entries) > self.size:
            del self._entries[next(iter(self._entries))]  # the oldest entry: dicts keep insertion order


class Certificates:
    """The kept certificate of a won game as a serialized ``pb.Certificate``, keyed by game id and checked against
    the kept bytes (a certificate is kept once and never changes, so an equal envelope is the same certificate).
    Bounded by entries and by bytes: a certificate grows with its moves (about 40 KB at the longest game)."""

    def __init__(self, size: int = 1024, max_bytes: int = 16 << 20) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()

    def get(self, game_id: str, encoded: bytes) -> bytes | None:
        entry = self._entries.get(game_id)
        if entry is None or entry[0] != encoded:
            return None
        self._entries.move_to_end(game_id)
        return entry[1]

    def put(self, game_id: str, encoded: bytes, message: bytes) -> None:
        old = self._entries.pop(game_id, None)
        if old is not None:
            self._bytes -= len(old[0]) + len(old[1])
        self._entries[game_id] = (encoded, message)
        self._bytes += len(encoded) + len(message)
        while self._entries and (len(self._entries) > self.size or self._bytes > self.max_bytes):
            _, (e, m) = self._entries.popitem(last=False)
            self._bytes -= len(e) + len(m)
