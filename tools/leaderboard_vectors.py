"""The shared leaderboard vectors (docs/certificate-vectors/leaderboard.json), written by tools/certificate_vectors.py.

Boards as GetLeaderboard answers them over REST, each entry signed with the published test key, and tampered copies,
each with the reason every board checker must give the board and each entry (docs/competition.md, "Checking a
board"): patience.leaderboards in Python, clients/web/leaderboard.js in a browser and under node. Checked without
replay: the public board's certificates are signed for the test, their moves are not a win of its deal.
"""

from __future__ import annotations

import base64
import copy
import hashlib
from dataclasses import replace
from typing import Any

from google.protobuf import json_format
from patience.boards import rank_key
from patience.certificates import CertificateContents
from patience.v1 import patience_pb2 as pb

from engine.deal import public_deal_seed
from service.security.signing import KeyRing

DAILY = "daily-cats-tail-2026-01-01"
PUBLIC = "public-cats-tail-7"
#: (display name, player id, undo count, milliseconds from the deal to the win): three players of one deal.
PLAYERS = [
    ("Ада", "p_" + "a2" * 13, 0, 912_345),
    ("Bob", "p_" + "b3" * 13, 0, 1_000_000),
    ("Карл", "p_" + "c4" * 13, 2, 500_000),
]


def _entry(ring: KeyRing, contents: CertificateContents, rank: int) -> pb.LeaderboardEntry:
    encoded = ring.sign(contents)
    entry = pb.LeaderboardEntry(
        rank=rank,
        player=pb.Player(id=contents.player_id, display_name=contents.player_name, kind="guest"),
        move_count=contents.move_count,
        undo_count=contents.undo_count,
        hint_count=contents.hints or 0,
        game_id=contents.game_id,
        played=contents.played,
        certificate=pb.Certificate(encoded=encoded, key_id=ring.active_key_id or ""),
    )
    entry.finished_at.FromMilliseconds(contents.finished_at)
    entry.play_time.FromMilliseconds(contents.finished_at - contents.started_at)
    return entry


def _board(
    ring: KeyRing, win: CertificateContents, name: str, seed: bytes, number: int = 0
) -> pb.GetLeaderboardResponse:
    board = pb.GetLeaderboardResponse(
        board=name,
        kind="public" if number else "daily",
        variant=win.variant,
        options=dict(win.options),
        date="" if number else name[-10:],
        deal_number=number,
        commitment=hashlib.sha256(seed).digest(),
        seed=seed,
        frozen=not number,
    )
    if not number:
        board.closes_at.FromMilliseconds(1_767_312_000_000)  # 2026-01-02T00:00:00Z
    contents = []
    for i, (who, pid, undos, took) in enumerate(PLAYERS[: 1 if number else 3]):
        contents.append(replace(
            win, game_id=f"vector-game-{i + 1}", seed=seed, commitment=hashlib.sha256(seed).digest(), undo_count=undos,
            finished_at=win.started_at + took, player_id=pid, player_name=who, board=name,
            dealt="public" if number else "daily", deal_number=number,
        ))  # fmt: skip
    contents.sort(key=lambda c: rank_key(c.undo_count, c.move_count, c.started_at, c.finished_at))
    board.entries.extend(_entry(ring, c, rank) for rank, c in enumerate(contents, 1))
    board.total = len(contents)
    return board


def _json(board: pb.GetLeaderboardResponse) -> dict[str, Any]:
    out: dict[str, Any] = json_format.MessageToDict(board, always_print_fields_with_no_presence=True)
    return out


def leaderboards(ring: KeyRing, win: CertificateContents) -> dict[str, Any]:
    """Every board case: name, what, the board (REST JSON), its reason and each entry's."""
    daily = _board(ring, win, DAILY, win.seed)
    public = _board(ring, win, PUBLIC, public_deal_seed(7), 7)
    cases: list[dict[str, Any]] = []

    def add(name: str, what: str, board: pb.GetLeaderboardResponse, reason: str, entries: list[str]) -> None:
        assert len(entries) == len(board.entries)
        cases.append({"name": name, "what": what, "board": _json(board), "reason": reason, "entries": entries})

    def changed(board: pb.GetLeaderboardResponse = daily) -> pb.GetLeaderboardResponse:
        return copy.deepcopy(board)

    add("daily", "a frozen daily board of three players, as GetLeaderboard answers it", daily, "", ["", "", ""])
    add("public", "a public board of one player", public, "", [""])
    swapped = changed()
    first, second = copy.deepcopy(swapped.entries[0]), copy.deepcopy(swapped.entries[1])
    swapped.entries[0].CopyFrom(second)
    swapped.entries[1].CopyFrom(first)
    swapped.entries[0].rank, swapped.entries[1].rank = 1, 2
    add("swapped", "the first two entries swapped, ranks renumbered", swapped, "", ["", "OUT_OF_ORDER", ""])
    gap = changed()
    gap.entries[2].rank = 4
    add("rank-gap", "ranks 1, 2, 4", gap, "", ["", "", "OUT_OF_ORDER"])
    renamed = changed()
    renamed.entries[1].player.display_name = "Mallory"
    add("other-name", "an entry shows another name than its certificate", renamed, "", ["", "OTHER_PLAYER", ""])
    other_id = changed()
    other_id.entries[0].player.id = "p_" + "d5" * 13
    add("other-id", "an entry shows another player id", other_id, "", ["OTHER_PLAYER", "", ""])
    elsewhere = changed()
    who, pid, _, took = PLAYERS[1]
    c = replace(win, player_id=pid, player_name=who, board="daily-cats-tail-2026-01-02", dealt="daily", deal_number=0,
                finished_at=win.started_at + took, game_id="vector-game-2")  # fmt: skip
    elsewhere.entries[1].certificate.encoded = ring.sign(c)
    add("other-board", "an entry's certificate is of the next day's board", elsewhere, "", ["", "OTHER_BOARD", ""])
    counted = changed()
    counted.entries[0].move_count -= 1
    add("other-count", "an entry shows one move fewer than its certificate", counted, "", ["ENTRY_MISMATCH", "", ""])
    timed = changed()
    timed.entries[2].play_time.FromMilliseconds(1000)
    add("other-time", "an entry shows a shorter play time than its certificate", timed, "", ["", "", "ENTRY_MISMATCH"])
    bare = changed()
    bare.entries[1].ClearField("certificate")
    add("no-certificate", "an entry without its certificate", bare, "", ["", "NO_CERTIFICATE", ""])
    forged = changed()
    envelope = forged.entries[0].certificate.encoded
    signature = envelope.index(b'"signature":"') + len(b'"signature":"')
    flipped = b"A" if envelope[signature : signature + 1] != b"A" else b"B"
    forged.entries[0].certificate.encoded = envelope[:signature] + flipped + envelope[signature + 1 :]
    add("bad-signature", "an entry's signature changed", forged, "", ["BAD_SIGNATURE", "", ""])
    wrong_seed = changed()
    wrong_seed.seed = hashlib.sha256(b"another deal").digest()
    add("seed-not-committed", "the board's seed is not its commitment's", wrong_seed, "SEED_MISMATCH",
        ["OTHER_DEAL"] * 3)  # fmt: skip
    other_deal = changed()
    other_deal.seed = hashlib.sha256(b"another deal").digest()
    other_deal.commitment = hashlib.sha256(other_deal.seed).digest()
    add("other-deal", "the board's seed and commitment of another deal", other_deal, "", ["OTHER_DEAL"] * 3)
    sealed = changed()
    sealed.frozen = False
    sealed.ClearField("seed")
    for entry in sealed.entries:
        entry.ClearField("certificate")
    add("sealed", "a daily board whose day is not over: no seed, no certificates", sealed, "SEALED", ["SEALED"] * 3)
    misnamed = changed()
    misnamed.board = "daily-cats-tail-2026-1-01"
    add("bad-name", "a board whose name is not a board's", misnamed, "BAD_BOARD", ["BAD_BOARD"] * 3)
    other_number = changed(public)
    other_number.seed = public_deal_seed(8)
    other_number.commitment = hashlib.sha256(other_number.seed).digest()
    add(
        "public-other-seed",
        "a public board of deal 7 with deal 8's seed",
        other_number,
        "SEED_MISMATCH",
        ["OTHER_DEAL"],
    )
    return {
        "what": "boards as GetLeaderboard answers them over REST, checked without replay (docs/competition.md)",
        "public_deal_7_seed_base64": base64.b64encode(public_deal_seed(7)).decode(),
        "cases": cases,
    }
