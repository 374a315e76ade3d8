"""Leaderboards checked offline (docs/competition.md): each entry by its certificate, with the published keys.

A board from ``GetLeaderboard`` is the service's word until this checks it: every entry's certificate is genuine
and names this board and this player, its seed is the board's deal's (a public deal's is known to all, a daily
deal's is published when its day is over), the entry says what its certificate says, and the entries come in
the order the certificates rank them. The check is ``patience.leaderboards`` in the core distribution, the same
code the tests hold to the shared vectors; :meth:`PatienceClient.verify_leaderboard` fetches every page and the
keys, then runs it.
"""

from __future__ import annotations

from patience.boards import Board, BoardNameError, parse_board, rank_key
from patience.leaderboards import BoardCheck, BoardReason, EntryCheck, check_leaderboard, check_pages

__all__ = [
    "Board",
    "BoardCheck",
    "BoardNameError",
    "BoardReason",
    "EntryCheck",
    "check_leaderboard",
    "check_pages",
    "parse_board",
    "rank_key",
]
