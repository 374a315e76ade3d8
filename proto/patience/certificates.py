"""Signed certificates of wins: Ed25519 over one canonical byte encoding.

The format (docs/certificates.md) is chosen so that a browser (WebCrypto
Ed25519) or any language verifies it with nothing but a JSON parser, base64
and Ed25519:

- the *payload* is canonical JSON (keys sorted, no whitespace, UTF-8, integers
  only) with ``"type": "patience-certificate/v1"``;
- the *certificate* (``Certificate.encoded`` in the API) is the canonical JSON
  object ``{"key_id": ..., "payload": base64(payload), "signature":
  base64(Ed25519(payload))}``. The payload travels as base64 so that its exact
  signed bytes survive any transport; a verifier checks the signature over
  those bytes first and only then reads the fields.

Ed25519 signatures are deterministic, so the same game signed with the same key
always gives the same certificate: nothing needs storing. The key id is the
first 16 hex digits of SHA-256 of the raw 32-byte public key.

This module is the format's front door, in the pure core that both the service
and the Python client install: verification against public keys
(:func:`verify_certificate`), with the contents and their canonical bytes
(``patience.certificate_contents``) and reading (``patience.certificate_reading``)
re-exported from their modules, so that every name is importable from here.
Signing stays with the service (``service.security.signing.KeyRing``), the only holder
of a private key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine.catalogue import get_game
from engine.errors import PatienceError
from engine.game import Game, format_option
from engine.verify import Outcome, replay
from patience.boards import parse_board
from patience.certificate_contents import (
    CERTIFICATE_TYPE,
    DEAL_ALGORITHM,
    DEALT,
    MAX_DEAL_NUMBER,
    MAX_PLAYER_NAME,
    PLAYED,
    CertificateContents,
    canonical_json,
    key_id_of,
    raw_public_key,
)
from patience.certificate_reading import (
    MAX_CERTIFICATE_BYTES,
    CertificateReason,
    DecodedCertificate,
    DecodeError,
    Envelope,
    decode,
    read_envelope,
    read_payload,
)

__all__ = [
    "CERTIFICATE_TYPE",
    "DEALT",
    "DEAL_ALGORITHM",
    "FORMAT",
    "MAX_CERTIFICATE_BYTES",
    "MAX_DEAL_NUMBER",
    "MAX_PLAYER_NAME",
    "PLAYED",
    "CertificateContents",
    "CertificateReason",
    "DecodeError",
    "DecodedCertificate",
    "Envelope",
    "KeySource",
    "PublicKeys",
    "Verification",
    "canonical_json",
    "decode",
    "key_id_of",
    "raw_public_key",
    "read_envelope",
    "read_payload",
    "verify_certificate",
]

FORMAT = """\
A certificate (``Certificate.encoded``) is UTF-8 canonical JSON -- keys sorted, no whitespace, integers only, no
object naming a member twice -- of the object ``{"key_id": K, "payload": base64(P), "signature": base64(S)}``,
where ``P`` is the signed payload (itself canonical JSON) and ``S`` the 64-byte Ed25519 signature of ``P``'s exact
bytes by the key whose id is ``K`` (the first 16 hex digits of SHA-256 of the raw 32-byte public key). ``P`` holds
exactly: ``type`` ("patience-certificate/v1"), ``key_id`` (= K), ``game_id``, ``variant``, ``options`` (every
option of the variant, its value as text: "true", "false" or decimal), ``deal`` ("deal-v2"), ``seed`` and
``commitment`` (64 lowercase hex digits; commitment = SHA-256(seed)), ``moves`` (the explicit text form),
``move_count`` (= the number of moves), ``undo_count``, ``started_at`` and ``finished_at`` (Unix milliseconds),
``ticket_id``, ``final_state_hash`` (64 lowercase hex digits: SHA-256 of the engine's encoding of the final
position) and ``result`` ("won"), and, in certificates signed since it exists, ``played`` ("moves": won move by
move; "submitted": a whole solution submitted at once), and, in certificates signed since they exist, ``dealt``
("random", "ticket", "winnable", "replay" or "public": how the deal was chosen) with ``deal_number`` (the public
deal's number, 1 to 2**32-1; 0 for any other deal), and ``hints`` (an integer: the hints given during the
game), and, for a signed-in player's win, ``player`` (``{"display_name", "id"}``: the name when it was signed and
the pseudonymous id "p_" + 26 base32 characters) and, for a win that counts on a leaderboard, ``board`` (its name,
docs/competition.md). Check the signature over P's bytes first, then read the fields."""


@dataclass(frozen=True)
class Verification:
    """The verdict on a certificate; :func:`verify_certificate` never raises on bad input.

    ``reason`` is "" when valid, else a :class:`CertificateReason` value. ``contents`` is set whenever the payload
    could be read -- but only a valid verdict means the key's holder signed it. ``replayed`` says the moves were
    replayed through the engine (``details`` then holds the replay's move count and final state hash).
    """

    valid: bool
    reason: str = ""
    message: str = ""
    contents: CertificateContents | None = None  # when the payload could be read (even if invalid)
    key_id: str = ""
    signature: bytes = b""
    payload: bytes = b""
    replayed: bool = False
    details: dict[str, str] = field(default_factory=dict)

    def __iter__(self) -> Any:
        """``valid, reason = verify_certificate(...)`` also works."""
        return iter((self.valid, self.reason))


def _refuse(reason: CertificateReason, message: str, **kw: Any) -> Verification:
    return Verification(False, reason.value, message[:300], **kw)


class KeySource(Protocol):
    """Public keys by key id, as a signer's key ring holds them (``service.security.signing.KeyRing``)."""

    def public_key(self, key_id: str) -> Ed25519PublicKey | None: ...


#: Public keys by key id: raw 32-byte Ed25519 keys (``GetSigningKeys``, a keys file).
PublicKeys: TypeAlias = Mapping[str, bytes]


def _public_key(keys: KeySource | PublicKeys, key_id: str) -> Ed25519PublicKey | None:
    if not isinstance(keys, Mapping):
        return keys.public_key(key_id)
    raw = keys.get(key_id)
    if raw is None:
        return None
    return Ed25519PublicKey.from_public_bytes(raw)  # ValueError unless 32 bytes: no signature matches it


def verify_certificate(encoded: bytes | str, keys: KeySource | PublicKeys, *, replay: bool = False) -> Verification:
    """Check a certificate against ``keys``: the signature over the exact payload bytes, then the fields.

    ``keys`` is a key ring (anything with ``public_key(key_id)``) or a mapping of key ids to raw Ed25519 public
    keys. Order: the envelope, the key, the signature, then the fields (type, canonical form, key id, deal
    algorithm, commitment = SHA-256(seed), move count). Never raises on bad input. With ``replay`` the game is
    dealt from the certified seed and the moves replayed through the engine (``engine.verify``): they must win,
    in the certified number of moves and final position.
    """
    try:
        envelope = read_envelope(encoded)
    except DecodeError as exc:
        return _refuse(CertificateReason.MALFORMED, f"not a certificate: {exc}")
    key_id, payload, signature = envelope.key_id, envelope.payload, envelope.signature
    seen: dict[str, Any] = {"key_id": key_id, "signature": signature, "payload": payload}
    try:
        public = _public_key(keys, key_id)
        if public is None:
            return _refuse(CertificateReason.UNKNOWN_KEY, f"no signing key {key_id[:32]!r} is known here", **seen)
        public.verify(signature, payload)
    except (InvalidSignature, ValueError):
        return _refuse(CertificateReason.BAD_SIGNATURE, "the signature does not match the certificate", **seen)
    try:
        _, contents = read_payload(payload)
    except DecodeError as exc:
        return _refuse(CertificateReason(exc.reason), f"unreadable payload: {exc}", **seen)
    seen["contents"] = contents
    if contents.key_id != key_id:
        return _refuse(CertificateReason.KEY_MISMATCH, "the payload names another key than the certificate", **seen)
    if contents.deal_algorithm != DEAL_ALGORITHM:
        return _refuse(CertificateReason.UNSUPPORTED_DEAL_ALGORITHM, _other_deal(contents.deal_algorithm), **seen)
    if hashlib.sha256(contents.seed).digest() != contents.commitment:
        return _refuse(CertificateReason.COMMITMENT_MISMATCH, "the commitment is not SHA-256 of the seed", **seen)
    if contents.move_count != len(contents.moves):
        return _refuse(CertificateReason.COUNT_MISMATCH, "move_count is not the number of moves", **seen)
    if replay:
        return _replay(contents, seen)
    return Verification(True, "", "valid", **seen)


def _other_deal(algorithm: str) -> str:
    return f"the certificate's deal algorithm is {algorithm[:40]!r}; this verifier deals and checks {DEAL_ALGORITHM}"


def _certified_game(variant: str, options: Mapping[str, str]) -> Game:
    """The certified variant's rules, its options read in their one spelling only: exactly the variant's options,
    each value as the catalogue writes it (``engine.game.format_option``). The engine itself also reads "yes",
    " 3" or a missing option; a certificate reads one way in every verifier."""
    game = get_game(variant)
    specs = {spec.name: spec for spec in game.info.options}
    if set(options) != set(specs):
        raise ValueError(f"the options are not exactly those of {variant}: {', '.join(sorted(specs)) or 'none'}")
    for name, spec in specs.items():
        if options[name] not in {format_option(value) for value in spec.allowed}:
            raise ValueError(f"option {name} is {options[name][:20]!r}, not one of its values as written")
    return get_game(variant, options)


def _replay(contents: CertificateContents, seen: dict[str, Any]) -> Verification:
    """Deal from the certified seed and replay the certified moves, each written in the explicit notation: a win in
    the certified final position."""
    try:
        game = _certified_game(contents.variant, contents.options)
        if contents.board and parse_board(contents.board).game() != game:
            raise ValueError(f"the board {contents.board} is not of the certified variant and options")
        played = replay(game, game.deal(contents.seed), contents.moves)
    except (PatienceError, ValueError) as exc:
        return _refuse(CertificateReason.MALFORMED, f"the deal cannot be made: {exc}", **seen)
    verdict = played.verdict
    replayed: dict[str, Any] = {
        **seen,
        "replayed": True,
        "details": {"move_count": str(verdict.move_count), "final_state_hash": verdict.final_hash},
    }
    for index, (move, text) in enumerate(zip(played.moves, contents.moves, strict=False)):
        if move.text() != text:  # a short form or another spelling: legal, but not what a certificate holds
            message = f"move {index} ({text[:40]!r}) is not in the explicit notation ({move.text()!r})"
            return _refuse(CertificateReason.NOT_WON, message, **replayed)
    if verdict.outcome is not Outcome.WON:
        return _refuse(CertificateReason.NOT_WON, verdict.describe(), **replayed)
    if verdict.move_count != contents.move_count or verdict.final_hash != contents.final_state_hash:
        message = (
            f"the replay ends in position {verdict.final_hash[:16]} after {verdict.move_count} moves; the certificate "
            f"says {contents.final_state_hash[:16]} after {contents.move_count}"
        )
        return _refuse(CertificateReason.REPLAY_MISMATCH, message, **replayed)
    return Verification(True, "", "valid; the replay wins", **replayed)
