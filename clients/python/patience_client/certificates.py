"""Offline certificate verification: the canonical encoding, the Ed25519 signature, and a replay.

A certificate (``Certificate.encoded``) is self-contained: the payload, the
key id and the signature in one canonical byte form. Anyone holding the
service's public key (``GetSigningKeys``, or ``patience-cli keys --out``) checks
it here without asking the service; ``replay=True`` also deals the game from
the certified seed and replays the certified moves through the engine, which
must end in a win whose state hash is the certified one.

The format is read and checked by ``patience.certificates`` in the core
distribution (patience-core), the very code the service verifies with; this
module gives it the client's names and adds the keys files of ``patience-cli``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from patience.certificates import FORMAT, CertificateContents, DecodeError, PublicKeys, decode, verify_certificate
from patience.certificates import CertificateReason as CheckReason
from patience.certificates import Verification as CertificateCheck
from patience.v1 import patience_pb2 as pb

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
