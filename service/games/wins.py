"""A won game's certificate: signed, kept with the game, checked once per replica, entered on its board.

A win by moves or by a submitted solution is signed *before* its write and kept by that same write (the store's
``SignedWin``: one compare-and-set closes the game, stamps its finish time and keeps the certificate), so a win
costs one write, as any move does. The certificate names the finish time of the read it was signed from (the Redis
server's clock, a round trip before the write); the write keeps it only while the game is as it was signed, and
otherwise closes the game at its own time and keeps nothing, and the certificate is signed again from what the
write returned and kept by a write of its own (``keep``): so a certificate always says what the game's record says.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace

from patience.boards import board_of
from patience.certificates import CertificateContents
from patience.v1 import patience_pb2 as pb

from engine.encoding import state_hash
from engine.game import Game
from engine.moves import Move
from engine.state import State
from service import errors
from service.games import convert, messages
from service.games.caches import Certificates
from service.games.competition import Competition
from service.games.ports import KeyRing
from service.store import GameRecord, GameStore, Played, SignedWin, StoreError, StoreStatus

log = logging.getLogger("service.games")

#: Replays and signings of logs longer than this run in a worker thread so that the event loop keeps serving.
THREAD_REPLAY = 500


def won_by_moves(read: GameRecord, moves: Sequence[Move]) -> GameRecord:
    """The record a winning write of ``moves`` leaves, from the game as read with its log just before it: what the
    certificate is signed from (its finish time the read's clock)."""
    return replace(
        read,
        moves=(*(read.moves or ()), *moves),
        move_count=read.move_count + len(moves),
        version=read.version + len(moves),
        status=StoreStatus.WON,
        played=Played.MOVES,
        finished_at=read.now,
        certificate=b"",
    )


def won_by_solution(read: GameRecord, moves: Sequence[Move], undos: int) -> GameRecord:
    """The record a winning write of a submitted solution (``moves``, dropping ``undos`` moves played) leaves, from
    the game as read before its replay: what its certificate is signed from (its finish time the read's clock)."""
    return replace(
        read,
        moves=tuple(moves),
        move_count=len(moves),
        undo_count=read.undo_count + undos,
        version=read.version + 1,
        status=StoreStatus.WON,
        played=Played.SUBMITTED,
        finished_at=read.now,
        certificate=b"",
    )


class Wins:
    """The certificates of won games, over the store, the key ring (None: nothing is signed), this replica's cache
    of checked certificates and the leaderboards."""

    def __init__(
        self, store: GameStore, key_ring: KeyRing | None, certificates: Certificates, competition: Competition
    ) -> None:
        self.store = store
        self.key_ring = key_ring
        self.certificates = certificates
        self.competition = competition

    def kept(self, record: GameRecord) -> bytes | None:
        """The certificate the store keeps for a won game, as a serialized message: read and checked once per
        replica (``Certificates``), so that GetGame of a won game costs the same at any length. None when none is
        kept (it is signed from the log then) or the key ring cannot check it."""
        if not record.certificate or self.key_ring is None:
            return None
        known = self.certificates.get(record.game_id, record.certificate)
        if known is not None:
            return known
        checked = self.key_ring.verify(record.certificate)
        if checked.contents is None:
            return None
        message = messages.certificate_message(record.certificate, checked.contents, checked).SerializeToString()
        self.certificates.put(record.game_id, record.certificate, message)
        return message

    async def signed(self, record: GameRecord, game: Game, final: State) -> pb.Certificate | None:
        """The won game's certificate (``certificate``), signed in a worker thread when its log is long (a few
        milliseconds at the longest game: other calls go on meanwhile); None without a key ring."""
        if self.key_ring is None:
            return None
        if len(record.moves or ()) > THREAD_REPLAY:
            return await asyncio.to_thread(self.certificate, record, game, final)
        return self.certificate(record, game, final)

    def certificate(self, record: GameRecord, game: Game, final: State) -> pb.Certificate:
        """Sign the won game (Ed25519 signatures are deterministic: the same game signs to the same bytes)."""
        if self.key_ring is None:
            raise errors.signing_unavailable()
        contents = CertificateContents(
            game_id=record.game_id,
            variant=game.id,
            options=convert.options_map(game),
            seed=record.seed,
            commitment=record.commitment,
            moves=tuple(m.text() for m in record.moves or ()),
            move_count=record.move_count,
            undo_count=record.undo_count,
            started_at=record.created_at,
            finished_at=record.finished_at,
            ticket_id=messages.ticket_id(record.ticket_id),
            final_state_hash=state_hash(game, final),
            played=record.played,
            dealt=record.dealt,
            deal_number=record.deal_number,
            hints=record.hint_count,
            player_id=record.owner,
            player_name=record.owner_name,
            board=record.board if record.owner else "",
        )
        # The certificate as first issued, when the store keeps one: a key rotated since must not change its bytes.
        encoded = record.certificate or self.key_ring.sign(contents)
        checked = self.key_ring.verify(encoded)
        # The message repeats what the certificate says (a kept one may predate fields the game has now).
        return messages.certificate_message(encoded, checked.contents or contents, checked)

    async def before_write(self, won: GameRecord, game: Game, final: State) -> tuple[pb.Certificate, SignedWin] | None:
        """The certificate of ``won`` (the record as the winning write will leave it, its log whole) and what the
        write needs to keep it (``SignedWin``); None without a key ring."""
        certificate = await self.signed(won, game, final)
        if certificate is None:
            return None
        return certificate, SignedWin(certificate.encoded, won.finished_at, won.hint_count, won.owner)

    async def after_write(
        self, written: GameRecord, game: Game, final: State, certificate: pb.Certificate
    ) -> pb.Certificate:
        """The win's certificate once its write is done (``written``: the record it returned, its log whole): the one
        signed before when the write kept it, else one signed now from ``written`` and kept; then the win goes on its
        leaderboard if it counts on one."""
        if written.certificate != certificate.encoded:  # the game changed since the read (a hint, an erasure)
            certificate = await self.signed(written, game, final) or certificate
            await self.keep(written, certificate)
        await self.enter(written, certificate)
        return certificate

    async def keep(self, record: GameRecord, certificate: pb.Certificate) -> None:
        """Keep the first certificate issued for a win (in the game's record), so that it keeps its bytes whatever
        keys rotate later; when another replica kept one first, answer with that one."""
        if record.certificate or not certificate.encoded:
            return
        try:
            kept = await self.store.keep_certificate(record.game_id, certificate.encoded)
        except StoreError as exc:  # the answer stands: until a key rotates, signing again gives the same bytes
            log.warning("a certificate was not kept: %s", exc, extra={"game_id": record.game_id})
            return
        if kept != certificate.encoded and self.key_ring is not None:
            checked = self.key_ring.verify(kept)
            if checked.contents is not None:
                certificate.CopyFrom(messages.certificate_message(kept, checked.contents, checked))

    async def enter(self, record: GameRecord, certificate: pb.Certificate) -> None:
        """The win on its leaderboard, if it counts on one (docs/competition.md): a write of its own, on the board's
        keys (another cluster slot than the game's)."""
        if record.board and record.owner:
            await self.competition.enter(record, certificate, board_of(record.board))
