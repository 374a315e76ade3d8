"""Ids, bearer tokens and seeds: the random values a game is born with, and how they are checked."""

from __future__ import annotations

import hashlib
import secrets

from patience.seeds import MIX_LABEL, mix_seed

__all__ = ["MIX_LABEL", "mix_seed", "new_game_id", "new_token", "token_hash"]


def new_game_id() -> str:
    """24 hex digits (96 random bits): safe in URLs, Redis keys and on a command line (never starts with '-')."""
    return secrets.token_hex(12)


def new_token() -> str:
    """A game's bearer token: a recognisable prefix (secret scanners, logs) and 256 random bits."""
    return "pgt_" + secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What the store keeps of a token (never the token itself)."""
    return hashlib.sha256(token.encode()).digest()
