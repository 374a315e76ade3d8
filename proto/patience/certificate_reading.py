"""Reading a certificate: the envelope (key id, payload, signature) and the payload's fields, strictly -- UTF-8
canonical JSON with no member named twice, canonical base64, exactly the v1 fields -- so that one certificate
reads one way in every verifier; and the reasons a certificate is refused (``CertificateReason``).

Apart from verifying (``patience.certificates``, which re-exports these names) because it trusts nothing and
checks no signature: ``decode`` reads a certificate for display.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from patience.certificate_contents import (
    CERTIFICATE_TYPE,
    HASH,
    MAX_INT,
    OPTION_VALUE,
    PLAYED,
    CertificateContents,
    board_problem,
    canonical_json,
    dealt_problem,
    player_problem,
)
from patience.jsonlimits import MAX_JSON_DEPTH, too_deep

MAX_CERTIFICATE_BYTES = 4 << 20  # 100,000 moves fit; anything bigger is refused before parsing


class CertificateReason(StrEnum):
    """Why a certificate is refused. Values are API-stable (``VerifyCertificateResponse.reason``)."""

    MALFORMED = "MALFORMED"  # not a certificate: bad JSON or base64, missing or ill-typed field, not canonical
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"  # a "type" other than patience-certificate/v1
    UNKNOWN_KEY = "UNKNOWN_KEY"  # no key with this id, active or retired
    BAD_SIGNATURE = "BAD_SIGNATURE"  # the signature does not match the payload bytes
    KEY_MISMATCH = "KEY_MISMATCH"  # the payload names another key than the envelope
    COMMITMENT_MISMATCH = "COMMITMENT_MISMATCH"  # commitment != SHA-256(seed)
    COUNT_MISMATCH = "COUNT_MISMATCH"  # move_count != number of moves
    UNSUPPORTED_DEAL_ALGORITHM = "UNSUPPORTED_DEAL_ALGORITHM"  # a deal other than deal-v2 (deal-v1 was withdrawn)
    NOT_WON = "NOT_WON"  # replay: the moves are illegal or do not win
    REPLAY_MISMATCH = "REPLAY_MISMATCH"  # replay: a win, but not the certified final position


class DecodeError(ValueError):
    """Bytes that are not a certificate; ``reason`` is ``MALFORMED`` or ``UNSUPPORTED_TYPE``."""

    def __init__(self, message: str, reason: str = CertificateReason.MALFORMED.value) -> None:
        super().__init__(message)
        self.reason = reason


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


def _b64(text: object) -> bytes:
    """Strict standard base64: the one text that encodes its bytes (padding required, its spare bits zero), so
    that one certificate has one spelling."""
    if not isinstance(text, str):
        raise ValueError("not base64 text")
    data = base64.b64decode(text.encode("ascii"), validate=True)
    if base64.b64encode(data).decode("ascii") != text:
        raise ValueError("not the canonical base64 of its bytes (padding missing, or its spare bits not zero)")
    return data


class _DuplicateMember(ValueError):
    """An object names a member twice: JSON parsers disagree on which copy counts, so a certificate never does."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object, or _DuplicateMember (the json module keeps the last
    copy silently, a viewer may show the first: one certificate would read two ways)."""
    members: dict[str, Any] = {}
    for name, value in pairs:
        if name in members:
            raise _DuplicateMember(f"the member {name[:40]!r} appears twice in one object")
        members[name] = value
    return members


def _loads(text: str) -> Any:
    """One JSON value with no duplicate member at any depth (docs/certificates.md, "Verifying")."""
    return json.loads(text, object_pairs_hook=_unique_members)


def _read_envelope(encoded: bytes | str) -> tuple[str, bytes, bytes]:
    raw = encoded.encode() if isinstance(encoded, str) else bytes(encoded)
    if len(raw) > MAX_CERTIFICATE_BYTES:
        raise ValueError("too large")
    if too_deep(raw, MAX_JSON_DEPTH):  # json.loads would recurse (and a certificate is one flat object)
        raise ValueError("nested too deeply")
    # UTF-8 only, no byte order mark: json.loads would guess UTF-16 or UTF-32 from bytes, which no other reader does.
    envelope = _loads(raw.decode("utf-8"))  # RecursionError cannot happen (too_deep), and is caught anyway
    if not isinstance(envelope, dict) or set(envelope) != {"key_id", "payload", "signature"}:
        raise ValueError("a certificate is an object with key_id, payload and signature")
    key_id = envelope["key_id"]
    if not isinstance(key_id, str):
        raise ValueError("key_id is text")
    return key_id, _b64(envelope["payload"]), _b64(envelope["signature"])


_PAYLOAD_FIELDS: dict[str, type] = {
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


class _UnsupportedType(ValueError):
    """A payload of another type (a later version, or not a certificate at all)."""


_UNREADABLE = (ValueError, UnicodeError, binascii.Error, TypeError, RecursionError)


def _read_payload(payload: bytes) -> tuple[dict[str, Any], CertificateContents]:
    if too_deep(payload, MAX_JSON_DEPTH):  # the same limit in every verifier, before the type is read
        raise ValueError("nested too deeply")
    data = _loads(payload.decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("the payload is a JSON object")
    if canonical_json(data) != payload:
        raise ValueError("the payload is not in canonical form")
    if data.get("type") != CERTIFICATE_TYPE:
        raise _UnsupportedType(str(data.get("type"))[:60])
    played = data.pop("played", None)  # optional: certificates signed before it existed have none
    if played is not None and (played == "" or played not in PLAYED):
        raise ValueError('played is "moves" or "submitted"')
    if ("dealt" in data) != ("deal_number" in data):  # both, or neither (certificates signed before they existed)
        raise ValueError("dealt and deal_number come together")
    present = "dealt" in data
    dealt, deal_number = data.pop("dealt", ""), data.pop("deal_number", 0)
    problem = dealt_problem(dealt, deal_number) if present else None
    if problem is not None:
        raise ValueError(problem)
    hints = data.pop("hints", None)  # optional: certificates signed before it existed have none
    if hints is not None and (not isinstance(hints, int) or isinstance(hints, bool) or not 0 <= hints <= MAX_INT):
        raise ValueError("hints is a whole number")
    player, board = data.pop("player", None), data.pop("board", None)  # optional: anonymous wins have neither
    problem = player_problem(player) if player is not None else None
    if problem is not None:
        raise ValueError(problem)
    if set(data) != set(_PAYLOAD_FIELDS):
        missing = sorted(set(_PAYLOAD_FIELDS) - set(data))
        extra = sorted(set(data) - set(_PAYLOAD_FIELDS))
        raise ValueError(f"fields missing {missing}, unknown {extra}")
    for name, kind in _PAYLOAD_FIELDS.items():
        value = data[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{name} is not a {kind.__name__}")
        if isinstance(value, int) and not 0 <= value <= MAX_INT:
            raise ValueError(f"{name} is out of range")
    if data["result"] != "won":
        raise ValueError("result is not 'won'")
    options = data["options"]
    moves = data["moves"]
    if not all(isinstance(v, str) for v in options.values()) or not all(isinstance(m, str) for m in moves):
        raise ValueError("options and moves hold text")
    if not all(OPTION_VALUE.fullmatch(v) for v in options.values()):
        raise ValueError("an option value is true, false or a decimal integer with no sign or leading zero")
    if not all(HASH.fullmatch(data[name]) for name in ("seed", "commitment", "final_state_hash")):
        raise ValueError("seed, commitment and final_state_hash are 64 lowercase hex digits")
    seed, commitment = bytes.fromhex(data["seed"]), bytes.fromhex(data["commitment"])
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
        played=played or "",
        dealt=dealt or "",
        deal_number=deal_number,
        key_id=data["key_id"],
        hints=hints,
        player_id=player["id"] if player is not None else "",
        player_name=player["display_name"] if player is not None else "",
        board=board if isinstance(board, str) else "",
    )
    problem = board_problem(board, contents) if board is not None else None
    if problem is not None:
        raise ValueError(problem)
    return data, contents


def read_envelope(encoded: bytes | str) -> Envelope:
    """The outer object, its signature not checked; DecodeError if it is not one."""
    try:
        return Envelope(*_read_envelope(encoded))
    except _UNREADABLE as exc:
        raise DecodeError(str(exc)[:200]) from exc


def read_payload(payload: bytes) -> tuple[dict[str, Any], CertificateContents]:
    """The signed fields; DecodeError unless they are exactly the v1 fields in canonical form."""
    try:
        return _read_payload(payload)
    except _UnsupportedType as exc:
        raise DecodeError(f"certificate type {exc} is not supported", CertificateReason.UNSUPPORTED_TYPE.value) from exc
    except _UNREADABLE as exc:
        raise DecodeError(str(exc)[:200]) from exc


def decode(encoded: bytes | str) -> DecodedCertificate:
    """Envelope and contents *without checking the signature* (for display; use verify_certificate to trust)."""
    envelope = read_envelope(encoded)
    raw, contents = read_payload(envelope.payload)
    return DecodedCertificate(envelope, contents, raw)
