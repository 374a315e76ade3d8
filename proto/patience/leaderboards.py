"""Checking a leaderboard offline (docs/competition.md, "Checking a board"): every entry by its certificate.

A board (``GetLeaderboardResponse``) is the service's word until each of its entries is checked against the
published keys: the certificate is genuine (``patience.certificates``), it names this board and this player, it is
a win of this board's deal (the board's seed: a public deal's is known to all, a daily deal's is published when
its day is over), the entry says what the certificate says, and the entries come in the order the certificates
rank them (``patience.boards.rank_key``). clients/web/leaderboard.js is the same check in JavaScript; both are held
to the shared vectors of docs/certificate-vectors/leaderboard.json.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from engine.deal import public_deal_seed
from patience.boards import DAILY, PUBLIC, RankKey, daily_date, rank_key, well_formed
from patience.certificates import KeySource, PublicKeys, verify_certificate
from patience.v1 import patience_pb2 as pb

__all__ = ["BoardCheck", "BoardReason", "EntryCheck", "check_leaderboard", "check_pages"]


class BoardReason(StrEnum):
    """Why a board or an entry does not check (besides a certificate's own reasons). API-stable, as those are."""

    BAD_BOARD = "BAD_BOARD"  # not a board's name, or its kind, day or number not the name's
    SEED_MISMATCH = "SEED_MISMATCH"  # the board's seed is not its deal's (public: from N), or not its commitment
    SEALED = "SEALED"  # a daily board whose day is not over: its certificates are not out yet
    NO_CERTIFICATE = "NO_CERTIFICATE"  # an entry without its certificate
    OTHER_BOARD = "OTHER_BOARD"  # the certificate names another board
    OTHER_PLAYER = "OTHER_PLAYER"  # the certificate names another player (id or name)
    OTHER_DEAL = "OTHER_DEAL"  # the certificate's seed is not the board's
    ENTRY_MISMATCH = "ENTRY_MISMATCH"  # the entry's counts, times, game or way of play differ from the certificate's
    OUT_OF_ORDER = "OUT_OF_ORDER"  # ranks not consecutive, or a better-ranked certificate listed after a worse one


@dataclass(frozen=True)
class EntryCheck:
    rank: int
    player_id: str
    reason: str  # "" when the entry checks
    message: str = ""

    @property
    def valid(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class BoardCheck:
    """The board's own verdict (``reason``, "" when its name, seed and commitment agree) and each entry's."""

    board: str
    reason: str
    entries: list[EntryCheck] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """The board and every entry check."""
        return not self.reason and all(e.valid for e in self.entries)


def _board_reason(board: pb.GetLeaderboardResponse) -> str:
    name = board.board
    if not well_formed(name) or board.kind not in (DAILY, PUBLIC) or not name.startswith(board.kind + "-"):
        return BoardReason.BAD_BOARD
    if board.kind == DAILY and (board.date != daily_date(name) or board.deal_number):
        return BoardReason.BAD_BOARD
    if board.kind == PUBLIC and (board.date or not name.split(":")[0].endswith(f"-{board.deal_number}")):
        return BoardReason.BAD_BOARD
    if board.kind == PUBLIC and bytes(board.seed) != public_deal_seed(board.deal_number):
        return BoardReason.SEED_MISMATCH
    if board.seed and hashlib.sha256(board.seed).digest() != board.commitment:
        return BoardReason.SEED_MISMATCH
    if board.kind == DAILY and not board.seed:
        return BoardReason.SEALED
    return ""


def _entry_reason(
    board: pb.GetLeaderboardResponse, entry: pb.LeaderboardEntry, keys: KeySource | PublicKeys, replay: bool
) -> tuple[str, str, RankKey | None]:
    if not entry.certificate.encoded:
        return BoardReason.NO_CERTIFICATE, "the entry has no certificate", None
    checked = verify_certificate(entry.certificate.encoded, keys, replay=replay)
    if not checked.valid or checked.contents is None:
        return checked.reason, checked.message, None
    c = checked.contents
    key = rank_key(c.undo_count, c.move_count, c.started_at, c.finished_at)
    if c.board != board.board:
        return BoardReason.OTHER_BOARD, f"the certificate is of board {c.board[:80]!r}", key
    if (c.player_id, c.player_name) != (entry.player.id, entry.player.display_name):
        return BoardReason.OTHER_PLAYER, "the certificate names another player", key
    if c.seed != board.seed:
        return BoardReason.OTHER_DEAL, "the certificate's seed is not the board's", key
    said = (entry.move_count, entry.undo_count, entry.hint_count, entry.played, entry.game_id,
            entry.finished_at.ToMilliseconds(), entry.play_time.ToMilliseconds())  # fmt: skip
    signed = (c.move_count, c.undo_count, c.hints or 0, c.played, c.game_id, c.finished_at, key.play_ms)
    if said != signed:
        return BoardReason.ENTRY_MISMATCH, "the entry says other counts or times than its certificate", key
    return "", "", key


def check_leaderboard(
    board: pb.GetLeaderboardResponse,
    keys: KeySource | PublicKeys,
    *,
    replay: bool = False,
    previous: tuple[int, RankKey] | None = None,
) -> BoardCheck:
    """Check a page of a board against ``keys``: the board, then each entry (``previous``: the rank and rank key of
    the entry before the page, to check the order across pages; None: the page's first rank is not checked).
    Never raises on bad input; ``replay`` also replays every certificate's moves."""
    return _check(board, keys, replay, previous)[0]


def check_pages(
    pages: Sequence[pb.GetLeaderboardResponse], keys: KeySource | PublicKeys, *, replay: bool = False
) -> BoardCheck:
    """A whole board, its pages in order from the first: ranks from 1, the order checked across pages."""
    entries: list[EntryCheck] = []
    reason = ""
    previous: tuple[int, RankKey] | None = (0, RankKey(False, 0, 0, 0))
    for page in pages:
        check, previous = _check(page, keys, replay, previous)
        reason = reason or check.reason
        entries += check.entries
    return BoardCheck(pages[0].board if pages else "", reason, entries)


def _check(
    board: pb.GetLeaderboardResponse,
    keys: KeySource | PublicKeys,
    replay: bool,
    previous: tuple[int, RankKey] | None,
) -> tuple[BoardCheck, tuple[int, RankKey] | None]:
    reason = str(_board_reason(board))
    if reason in (BoardReason.BAD_BOARD, BoardReason.SEALED):
        return BoardCheck(board.board, reason, [EntryCheck(e.rank, e.player.id, reason) for e in board.entries]), None
    checks: list[EntryCheck] = []
    last = previous
    for entry in board.entries:
        why, message, key = _entry_reason(board, entry, keys, replay)
        if key is not None and not why and last is not None and (entry.rank != last[0] + 1 or key < last[1]):
            why, message = BoardReason.OUT_OF_ORDER, f"rank {entry.rank} after rank {last[0]}, or ranked better"
        last = (entry.rank, key if key is not None else last[1] if last is not None else RankKey(False, 0, 0, 0))
        checks.append(EntryCheck(entry.rank, entry.player.id, str(why), message))
    return BoardCheck(board.board, reason, checks), last
