"""Ids, bearer tokens and seeds: the random values a game is born with, and how they are checked."""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: The client-seed mixing scheme (docs/fairness.md): seed = HMAC-SHA256(server_seed, MIX_LABEL + client_seed).
MIX_LABEL = b"patience-mix-v1|"


def new_game_id() -> str:
    """24 hex digits (96 random bits): safe in URLs, Redis keys and on a command line (never starts with '-')."""
    return secrets.token_hex(12)


def new_token() -> str:
    """A game's bearer token: a recognisable prefix (secret scanners, logs) and 256 random bits."""
    return "pgt_" + secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What the store keeps of a token (never the token itself)."""
    return hashlib.sha256(token.encode()).digest()


def mix_seed(server_seed: bytes, client_seed: bytes) -> bytes:
    """The deal seed from the server's 32 random bytes and the player's client seed."""
    return hmac.new(server_seed, MIX_LABEL + client_seed, hashlib.sha256).digest()
