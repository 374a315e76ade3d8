"""The canonical byte encoding of a certificate (placeholder until service/certificates.py lands)."""

from __future__ import annotations

from dataclasses import dataclass

FORMAT = "(pending)"


class DecodeError(ValueError):
    """Bytes that are not a certificate."""


@dataclass(frozen=True)
class CertificateContents:
    game_id: str
    variant: str
    options: dict[str, str]
    seed: bytes
    commitment: bytes
    moves: tuple[str, ...]
    move_count: int
    undo_count: int
    started_at: int
    finished_at: int
    ticket_id: str
    final_state_hash: str


@dataclass(frozen=True)
class DecodedCertificate:
    contents: CertificateContents
    key_id: str
    signature: bytes
    signed: bytes


def decode(encoded: bytes) -> DecodedCertificate:
    raise DecodeError("the certificate format is not known yet")
