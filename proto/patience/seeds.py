"""How a client seed is mixed into a deal (docs/fairness.md): one definition for the service that mixes and for
every client that checks, with shared vectors (docs/certificate-vectors/seed-mix.json) that the JavaScript
verifier reads too.

    seed = HMAC-SHA256(key = server_seed, message = MIX_LABEL || client_seed)

The server commits to ``server_seed`` (its SHA-256, from PrepareGame) before it sees the client seed, so neither
side alone chooses the deal.
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = ["MIX_LABEL", "mix_seed", "mixed_from"]

#: The label that names the scheme (its version) in every mixed seed.
MIX_LABEL = b"patience-mix-v1|"


def mix_seed(server_seed: bytes, client_seed: bytes) -> bytes:
    """The 32-byte deal seed from the server's seed and the player's client seed."""
    return hmac.new(server_seed, MIX_LABEL + client_seed, hashlib.sha256).digest()


def mixed_from(seed: bytes, server_seed: bytes, client_seed: bytes, server_commitment: bytes = b"") -> bool:
    """Whether ``seed`` is the mix of ``server_seed`` and ``client_seed`` (and, with a ``server_commitment``, that
    the server seed is the one committed to: SHA-256(server_seed) == server_commitment). Constant-time compares."""
    if server_commitment and not hmac.compare_digest(hashlib.sha256(server_seed).digest(), server_commitment):
        return False
    return hmac.compare_digest(mix_seed(server_seed, client_seed), seed)
