"""Offline certificate verification: the canonical encoding, the Ed25519 signature, and a replay.

A certificate (``Certificate.encoded``) is self-contained: the payload, the
key id and the signature in one canonical byte form. Anyone holding the
service's public key (``GetSigningKeys``, or ``patience-cli keys --out``) checks
it here without asking the service; ``replay=True`` also deals the game from
the certified seed and replays the certified moves through the engine, which
must end in a win whose state hash is the certified one.

This module re-implements the small decoding and checking part of the
service's ``service/certificates.py`` (it must not import the service); the
format is described in :data:`FORMAT`, and tests/test_client_certificates.py
checks both sides agree on real certificates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError
from engine.verify import Outcome, verify

from ._certformat import FORMAT, CertificateContents, DecodeError, decode

__all__ = [
    "FORMAT",
    "CertificateCheck",
    "CertificateContents",
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


@dataclass(frozen=True)
class CertificateCheck:
    """The result of :func:`verify_certificate`; it never raises on bad input.

    ``reason`` is "" when valid, else a stable code as the service uses: ``malformed``, ``unknown-key``,
    ``bad-signature``, ``bad-commitment``, and with a replay ``replay-illegal``, ``replay-unfinished``,
    ``replay-mismatch`` (the replay's final state or move count differs from the certified one).
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


def verify_certificate(encoded: bytes, keys: PublicKeys, *, replay: bool = False) -> CertificateCheck:
    """Check ``encoded`` against ``keys``: structure, key id, Ed25519 signature, commitment; then maybe replay."""
    try:
        cert = decode(encoded)
    except DecodeError as exc:
        return CertificateCheck(False, "malformed", str(exc))
    contents = cert.contents
    key = keys.get(cert.key_id)
    if key is None:
        known = ", ".join(sorted(keys)) or "none"
        return CertificateCheck(
            False, "unknown-key", f"signed by key {cert.key_id!r}, not one of {known}", contents, cert.key_id
        )
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(cert.signature, cert.signed)
    except (InvalidSignature, ValueError):
        return CertificateCheck(
            False, "bad-signature", "the signature does not match the contents", contents, cert.key_id
        )
    if hashlib.sha256(contents.seed).digest() != contents.commitment:
        return CertificateCheck(False, "bad-commitment", "SHA-256(seed) is not the commitment", contents, cert.key_id)
    if not replay:
        return CertificateCheck(True, "", "", contents, cert.key_id)
    return _replay(contents, cert.key_id)


def _replay(contents: CertificateContents, key_id: str) -> CertificateCheck:
    """Deal from the certified seed and replay the certified moves: a win with the certified final state."""
    try:
        verdict = verify(contents.variant, contents.options, contents.seed, contents.moves)
    except (PatienceError, ValueError) as exc:
        return CertificateCheck(False, "replay-illegal", f"the deal cannot be made: {exc}", contents, key_id, True)
    details = {"move_count": str(verdict.move_count), "final_state_hash": verdict.final_hash}
    if verdict.outcome is Outcome.ILLEGAL:
        return CertificateCheck(False, "replay-illegal", verdict.describe(), contents, key_id, True, details)
    if verdict.outcome is not Outcome.WON:
        return CertificateCheck(False, "replay-unfinished", verdict.describe(), contents, key_id, True, details)
    if verdict.final_hash != contents.final_state_hash or verdict.move_count != contents.move_count:
        return CertificateCheck(
            False,
            "replay-mismatch",
            f"the replay ends in state {verdict.final_hash[:16]} after {verdict.move_count} moves, the certificate "
            f"says {contents.final_state_hash[:16]} after {contents.move_count}",
            contents,
            key_id,
            True,
            details,
        )
    return CertificateCheck(True, "", "", contents, key_id, True, details)
