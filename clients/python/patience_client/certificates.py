"""Offline certificate verification: the canonical encoding, the Ed25519 signature, and a replay.

A certificate (``Certificate.encoded``) is self-contained: the payload, the
key id and the signature in one canonical byte form. Anyone holding the
service's public key (``GetSigningKeys``, or ``patience-cli keys --out``) checks
it here without asking the service; ``replay=True`` also deals the game from
the certified seed and replays the certified moves through the engine, which
must end in a win whose state hash is the certified one.

This module re-implements the small decoding and checking part of the
service's ``service/certificates.py`` (it must not import the service); the
format is described in :data:`FORMAT`, and tests/clients/test_client_certificates.py
checks both sides agree on real certificates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError
from engine.verify import Outcome, verify

from ._certformat import DEAL_ALGORITHM, FORMAT, CertificateContents, DecodeError, decode, read_envelope, read_payload

__all__ = [
    "FORMAT",
    "CertificateCheck",
    "CertificateContents",
    "CheckReason",
    "DecodeError",
    "PublicKeys",
    "decode",
    "keys_from_json",
    "keys_from_proto",
    "keys_to_json",
    "verify_certificate",
]

#: Public keys by key id: raw 32-byte Ed25519 keys.
PublicKeys = Mapping[str, bytes]


class CheckReason(StrEnum):
    """Why a certificate is refused: the same stable codes as the service's ``VerifyCertificateResponse.reason``."""

    MALFORMED = "MALFORMED"  # not a certificate (bad JSON or base64, a missing or ill-typed field, not canonical)
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"  # a payload type other than patience-certificate/v1
    UNKNOWN_KEY = "UNKNOWN_KEY"  # no public key with this id was given
    BAD_SIGNATURE = "BAD_SIGNATURE"  # the signature does not match the payload bytes
    KEY_MISMATCH = "KEY_MISMATCH"  # the payload names another key than the envelope
    COMMITMENT_MISMATCH = "COMMITMENT_MISMATCH"  # commitment != SHA-256(seed)
    COUNT_MISMATCH = "COUNT_MISMATCH"  # move_count != the number of moves
    UNSUPPORTED_DEAL_ALGORITHM = "UNSUPPORTED_DEAL_ALGORITHM"  # a deal other than deal-v2 (deal-v1 was withdrawn)
    NOT_WON = "NOT_WON"  # replay: the moves are illegal or do not win
    REPLAY_MISMATCH = "REPLAY_MISMATCH"  # replay: a win, but not the certified final position or move count


@dataclass(frozen=True)
class CertificateCheck:
    """The result of :func:`verify_certificate`; it never raises on bad input.

    ``reason`` is "" when valid, else a :class:`CheckReason` value. ``contents`` is set whenever the payload
    could be read -- but only a valid check means the service signed it. ``replayed`` says the moves were
    replayed through the engine (and, when valid, won in the certified final position).
    """

    valid: bool
    reason: str = ""
    message: str = ""
    contents: CertificateContents | None = None
    key_id: str = ""
    replayed: bool = False
    details: dict[str, str] = field(default_factory=dict)


def keys_from_proto(keys: Iterable[pb.SigningKey]) -> dict[str, bytes]:
    """The ``GetSigningKeys`` answer as a :data:`PublicKeys` mapping (Ed25519 keys only)."""
    return {k.key_id: bytes(k.public_key) for k in keys if k.algorithm in ("", "Ed25519")}


def keys_to_json(keys: PublicKeys) -> str:
    """A keys file for offline checks: ``{"keys": [{"key_id", "algorithm", "public_key" (hex)}]}``."""
    doc = {
        "keys": [{"key_id": kid, "algorithm": "Ed25519", "public_key": key.hex()} for kid, key in sorted(keys.items())]
    }
    return json.dumps(doc, indent=2) + "\n"


def keys_from_json(text: str) -> dict[str, bytes]:
    """Read :func:`keys_to_json`'s output (ValueError if it is not that)."""
    try:
        doc = json.loads(text)
        return {str(k["key_id"]): bytes.fromhex(str(k["public_key"])) for k in doc["keys"]}
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a keys file: {exc}") from exc


def verify_certificate(encoded: bytes | str, keys: PublicKeys, *, replay: bool = False) -> CertificateCheck:
    """Check ``encoded`` with ``keys`` (key id -> raw Ed25519 public key), as the service does, offline.

    Order: the envelope, the key, the Ed25519 signature over the payload's exact bytes, then the fields
    (type, canonical form, key id, deal algorithm, commitment = SHA-256(seed), move count); with ``replay`` the game is
    dealt from the certified seed and the moves replayed through the engine (``engine.verify``): they
    must win, in the certified number of moves and final state.
    """
    try:
        envelope = read_envelope(encoded)
    except DecodeError as exc:
        return _refuse(CheckReason.MALFORMED, f"not a certificate: {exc}")
    key = keys.get(envelope.key_id)
    if key is None:
        known = ", ".join(sorted(keys)) or "none"
        return _refuse(
            CheckReason.UNKNOWN_KEY, f"signed by key {envelope.key_id[:32]!r}, not one of {known}", envelope.key_id
        )
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(envelope.signature, envelope.payload)
    except (InvalidSignature, ValueError):
        return _refuse(CheckReason.BAD_SIGNATURE, "the signature does not match the certificate", envelope.key_id)
    try:
        _, contents = read_payload(envelope.payload)
    except DecodeError as exc:
        return _refuse(CheckReason(exc.reason), f"unreadable payload: {exc}", envelope.key_id)
    kid = envelope.key_id
    if contents.key_id != kid:
        return _refuse(CheckReason.KEY_MISMATCH, "the payload names another key than the certificate", kid, contents)
    if contents.deal_algorithm != DEAL_ALGORITHM:
        return _refuse(CheckReason.UNSUPPORTED_DEAL_ALGORITHM, _other_deal(contents.deal_algorithm), kid, contents)
    if hashlib.sha256(contents.seed).digest() != contents.commitment:
        return _refuse(CheckReason.COMMITMENT_MISMATCH, "the commitment is not SHA-256 of the seed", kid, contents)
    if contents.move_count != len(contents.moves):
        return _refuse(CheckReason.COUNT_MISMATCH, "move_count is not the number of moves", kid, contents)
    if not replay:
        return CertificateCheck(True, "", "valid", contents, kid)
    return _replay(contents, kid)


def _refuse(
    reason: CheckReason, message: str, key_id: str = "", contents: CertificateContents | None = None
) -> CertificateCheck:
    return CertificateCheck(False, reason.value, message[:300], contents, key_id)


def _other_deal(algorithm: str) -> str:
    return f"the certificate's deal algorithm is {algorithm[:40]!r}; this client deals and checks {DEAL_ALGORITHM}"


def _replay(contents: CertificateContents, key_id: str) -> CertificateCheck:
    """Deal from the certified seed and replay the certified moves: a win in the certified final state."""
    if contents.deal_algorithm != DEAL_ALGORITHM:
        return _refuse(CheckReason.UNSUPPORTED_DEAL_ALGORITHM, _other_deal(contents.deal_algorithm), key_id, contents)
    try:
        verdict = verify(contents.variant, contents.options, contents.seed, contents.moves)
    except (PatienceError, ValueError) as exc:
        return _refuse(CheckReason.MALFORMED, f"the deal cannot be made: {exc}", key_id, contents)
    details = {"move_count": str(verdict.move_count), "final_state_hash": verdict.final_hash}
    if verdict.outcome is not Outcome.WON:
        return CertificateCheck(False, CheckReason.NOT_WON.value, verdict.describe(), contents, key_id, True, details)
    if verdict.move_count != contents.move_count or (
        contents.final_state_hash and verdict.final_hash != contents.final_state_hash
    ):
        message = (
            f"the replay ends in state {verdict.final_hash[:16]} after {verdict.move_count} moves; the certificate "
            f"says {contents.final_state_hash[:16]} after {contents.move_count}"
        )
        return CertificateCheck(False, CheckReason.REPLAY_MISMATCH.value, message, contents, key_id, True, details)
    return CertificateCheck(True, "", "valid; the replay wins", contents, key_id, True, details)
