"""The certificate vectors' published test keys (docs/certificate-vectors/): private halves derived from public
texts, so that anyone can re-sign a tampered payload, and the envelope a key signs. No service ever signs with
them."""

from __future__ import annotations

import base64
import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from patience.certificates import canonical_json, key_id_of

#: The published test keys: private halves derived from these texts (SHA-256), never used by any service.
TEST_KEY_TEXT = "patience certificate test vectors: PUBLISHED TEST KEY, never sign a real game with it"


FOREIGN_KEY_TEXT = "patience certificate test vectors: a second published test key, not in signing-keys.json"


def test_key(text: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(text.encode()).digest())


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def envelope(key: Ed25519PrivateKey, payload: bytes, *, key_id: str | None = None) -> bytes:
    """A certificate over exactly ``payload``, genuinely signed by ``key``."""
    return canonical_json(
        {"key_id": key_id or key_id_of(key), "payload": b64(payload), "signature": b64(key.sign(payload))}
    )
