"""The canonical byte form of a certificate, read without the service (format ``patience-certificate/v1``).

A re-implementation of the reading half of ``service/certificates.py`` (the
client must not import the service); tests/clients/test_client_certificates.py checks
the two agree on real certificates and on tampered ones.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

CERTIFICATE_TYPE = "patience-certificate/v1"
DEAL_ALGORITHM = "deal-v2"
MAX_CERTIFICATE_BYTES = 4 << 20
_MAX_INT = (1 << 53) - 1

FORMAT = """\
A certificate (``Certificate.encoded``) is UTF-8 canonical JSON -- keys sorted, no whitespace, integers only --
of the object ``{"key_id": K, "payload": base64(P), "signature": base64(S)}``, where ``P`` is the signed payload
(itself canonical JSON) and ``S`` the 64-byte Ed25519 signature of ``P``'s exact bytes by the key whose id is
``K`` (the first 16 hex digits of SHA-256 of the raw 32-byte public key). ``P`` holds exactly: ``type``
("patience-certificate/v1"), ``key_id`` (= K), ``game_id``, ``variant``, ``options`` (text values), ``deal``
("deal-v2"), ``seed`` and ``commitment`` (64 lowercase hex digits; commitment = SHA-256(seed)), ``moves`` (the
explicit text form), ``move_count`` (= the number of moves), ``undo_count``, ``started_at`` and ``finished_at``
(Unix milliseconds), ``ticket_id``, ``final_state_hash`` (hex SHA-256 of the engine's encoding of the final
position) and ``result`` ("won"), and, in certificates signed since it exists, ``played`` ("moves": won move by
move; "submitted": a whole solution submitted at once), and, in certificates signed since they exist, ``dealt``
("random", "ticket", "winnable", "replay" or "public": how the deal was chosen) with ``deal_number`` (the public
deal's number, 1 to 2**32-1; 0 for any other deal). Check the signature over P's bytes first, then read the
fields."""


class DecodeError(ValueError):
    """Bytes that are not a certificate; ``reason`` is ``malformed`` or ``unsupported-type``."""

    def __init__(self, message: str, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class CertificateContents:
    """What a certificate says: a game of ``variant`` dealt from ``seed`` and won with ``moves``."""

    game_id: str
    variant: str
    options: dict[str, str]
    seed: bytes
    commitment: bytes
    moves: tuple[str, ...]
    move_count: int
    undo_count: int
    started_at: int  # Unix milliseconds
    finished_at: int
    ticket_id: str
    final_state_hash: str
    deal_algorithm: str = DEAL_ALGORITHM
    key_id: str = ""  # the key the payload names
    played: str = ""  # "moves" (move by move) or "submitted" (a whole solution); "" in older certificates
    dealt: str = ""  # how the deal was chosen (DEALT); "" in older certificates
    deal_number: int = 0  # the public deal's number; 0 unless dealt is "public"


@dataclass(frozen=True)
class Envelope:
    """The outer object: who signed, the signed bytes, the signature."""

    key_id: str
    payload: bytes
    signature: bytes


@dataclass(frozen=True)
class DecodedCertificate:
    envelope: Envelope
    contents: CertificateContents
    raw: dict[str, Any] = field(default_factory=dict)


def canonical_json(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _b64(text: object) -> bytes:
    if not isinstance(text, str):
        raise DecodeError("payload and signature are base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeError) as exc:
        raise DecodeError(f"bad base64: {exc}") from exc


def read_envelope(encoded: bytes | str) -> Envelope:
    """The outer object; DecodeError if it is not one."""
    raw = encoded.encode() if isinstance(encoded, str) else bytes(encoded)
    if len(raw) > MAX_CERTIFICATE_BYTES:
        raise DecodeError(f"over {MAX_CERTIFICATE_BYTES} bytes")
    try:
        outer = json.loads(raw)
    except (ValueError, UnicodeError, RecursionError) as exc:  # RecursionError: nested a thousand levels deep
        raise DecodeError(f"not JSON: {exc}"[:200]) from exc
    if not isinstance(outer, dict) or set(outer) != {"key_id", "payload", "signature"}:
        raise DecodeError("a certificate is an object with key_id, payload and signature")
    if not isinstance(outer["key_id"], str):
        raise DecodeError("key_id is text")
    return Envelope(outer["key_id"], _b64(outer["payload"]), _b64(outer["signature"]))


_FIELDS: dict[str, type] = {
    "type": str,
    "key_id": str,
    "game_id": str,
    "variant": str,
    "options": dict,
    "deal": str,
    "seed": str,
    "commitment": str,
    "moves": list,
    "move_count": int,
    "undo_count": int,
    "started_at": int,
    "finished_at": int,
    "ticket_id": str,
    "final_state_hash": str,
    "result": str,
}
#: The optional ``played`` field: how the win was played (absent from certificates signed before it existed).
PLAYED = ("moves", "submitted")
#: The ``dealt`` field (with ``deal_number``; both absent from certificates signed before they existed).
DEALT = ("random", "ticket", "winnable", "replay", "public")
_MAX_DEAL_NUMBER = (1 << 32) - 1
_OPTIONAL = frozenset({"played", "dealt", "deal_number"})


def _check_dealt(data: dict[str, Any]) -> tuple[str, int]:
    """``dealt`` and ``deal_number``: both or neither; one of DEALT, and a number only for a public deal."""
    if ("dealt" in data) != ("deal_number" in data):
        raise DecodeError("dealt and deal_number come together")
    if "dealt" not in data:
        return "", 0
    dealt, number = data["dealt"], data["deal_number"]
    if not isinstance(dealt, str) or dealt not in DEALT:
        raise DecodeError(f"dealt is one of {', '.join(DEALT)}")
    if isinstance(number, bool) or not isinstance(number, int):
        raise DecodeError("deal_number is an integer")
    if (dealt == "public" and not 1 <= number <= _MAX_DEAL_NUMBER) or (dealt != "public" and number != 0):
        raise DecodeError("deal_number is 1 to 2**32-1 for a public deal, else 0")
    return dealt, number


def read_payload(payload: bytes) -> tuple[dict[str, Any], CertificateContents]:
    """The signed fields; DecodeError unless they are exactly the v1 fields in canonical form."""
    try:
        data = json.loads(payload.decode("utf-8"))
    except (ValueError, UnicodeError, RecursionError) as exc:
        raise DecodeError(f"the payload is not JSON: {exc}"[:200]) from exc
    if not isinstance(data, dict):
        raise DecodeError("the payload is a JSON object")
    try:
        canonical = canonical_json(data) == payload
    except ValueError:
        canonical = False
    if not canonical:  # before the type, as the service checks (docs/certificates.md, "Verifying")
        raise DecodeError("the payload is not in canonical form")
    if data.get("type") != CERTIFICATE_TYPE:
        raise DecodeError(f"certificate type {str(data.get('type'))[:60]!r} is not supported", "unsupported-type")
    played = data.get("played")
    if played is not None and played not in PLAYED:
        raise DecodeError('played is "moves" or "submitted"')
    dealt, deal_number = _check_dealt(data)
    if set(data) - _OPTIONAL != set(_FIELDS):
        missing, extra = sorted(set(_FIELDS) - set(data)), sorted(set(data) - set(_FIELDS))
        raise DecodeError(f"fields missing {missing}, unknown {extra}")
    for name, kind in _FIELDS.items():
        value = data[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise DecodeError(f"{name} is not a {kind.__name__}")
        if isinstance(value, int) and not 0 <= value <= _MAX_INT:
            raise DecodeError(f"{name} is out of range")
    if data["result"] != "won":
        raise DecodeError("result is not 'won'")
    options, moves = data["options"], data["moves"]
    if not all(isinstance(v, str) for v in options.values()) or not all(isinstance(m, str) for m in moves):
        raise DecodeError("options and moves hold text")
    try:
        seed, commitment = bytes.fromhex(data["seed"]), bytes.fromhex(data["commitment"])
    except ValueError as exc:
        raise DecodeError("seed and commitment are hex") from exc
    if len(seed) != 32 or len(commitment) != 32 or (seed.hex(), commitment.hex()) != (data["seed"], data["commitment"]):
        raise DecodeError("seed and commitment are 64 lowercase hex digits")
    contents = CertificateContents(
        game_id=data["game_id"],
        variant=data["variant"],
        options=dict(options),
        seed=seed,
        commitment=commitment,
        moves=tuple(moves),
        move_count=data["move_count"],
        undo_count=data["undo_count"],
        started_at=data["started_at"],
        finished_at=data["finished_at"],
        ticket_id=data["ticket_id"],
        final_state_hash=data["final_state_hash"],
        deal_algorithm=data["deal"],
        key_id=data["key_id"],
        played=played or "",
        dealt=dealt,
        deal_number=deal_number,
    )
    return data, contents


def decode(encoded: bytes | str) -> DecodedCertificate:
    """Envelope and contents *without checking the signature* (for display; use verify_certificate to trust)."""
    envelope = read_envelope(encoded)
    raw, contents = read_payload(envelope.payload)
    return DecodedCertificate(envelope, contents, raw)
