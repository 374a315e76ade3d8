"""Signing certificates of wins: the service's key ring (the format, reading and verifying live in the core).

A :class:`KeyRing` signs with one active Ed25519 key and verifies with it and
any number of retired public keys, so keys rotate while old certificates stay
verifiable. The certificate format is ``patience.certificates`` (docs/certificates.md),
shared with the Python client; only the service holds a private key, so only
the service signs.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from patience.certificates import (
    CertificateContents,
    Verification,
    canonical_json,
    key_id_of,
    raw_public_key,
    verify_certificate,
)

__all__ = ["KeyRing"]


@dataclass
class KeyRing:
    """One active signing key (or none: verification only) and the retired public keys."""

    signing_key: Ed25519PrivateKey | None = None
    retired: Sequence[Ed25519PublicKey] = ()
    _by_id: dict[str, Ed25519PublicKey] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {key_id_of(k): k for k in self.retired}
        if self.signing_key is not None:
            public = self.signing_key.public_key()
            self._by_id[key_id_of(public)] = public

    @classmethod
    def generate(cls, retired: Iterable[Ed25519PublicKey] = ()) -> KeyRing:
        """A ring with a fresh signing key (tests, local runs)."""
        return cls(Ed25519PrivateKey.generate(), tuple(retired))

    @property
    def active_key_id(self) -> str | None:
        return None if self.signing_key is None else key_id_of(self.signing_key)

    def public_key(self, key_id: str) -> Ed25519PublicKey | None:
        return self._by_id.get(key_id)

    def public_keys(self) -> list[tuple[str, bytes, bool]]:
        """(key id, raw 32-byte public key, active) for every key, the active one first (GetSigningKeys)."""
        active = self.active_key_id
        keys = sorted(self._by_id.items(), key=lambda item: (item[0] != active, item[0]))
        return [(kid, raw_public_key(key), kid == active) for kid, key in keys]

    def sign(self, contents: CertificateContents) -> bytes:
        """The whole certificate in its canonical byte form (``Certificate.encoded``)."""
        if self.signing_key is None:
            raise ValueError("this key ring has no signing key")
        contents.check()
        key_id = key_id_of(self.signing_key)
        payload = contents.payload(key_id)
        signature = self.signing_key.sign(payload)
        return canonical_json(
            {
                "key_id": key_id,
                "payload": base64.b64encode(payload).decode(),
                "signature": base64.b64encode(signature).decode(),
            }
        )

    def verify(self, encoded: bytes | str, *, replay: bool = False) -> Verification:
        """Check a certificate; never raises on bad input. ``replay`` also replays the moves with the engine."""
        return verify_certificate(encoded, self, replay=replay)
