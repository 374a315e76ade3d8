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
first 16 hex digits of SHA-256 of the raw 32-byte public key. A :class:`KeyRing`
signs with one active key and verifies with it and any number of retired
public keys, so keys rotate while old certificates stay verifiable.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine.deal import ALGORITHM
from service.jsonlimits import too_deep

__all__ = [
    "CERTIFICATE_TYPE",
    "CertificateContents",
    "CertificateReason",
    "KeyRing",
    "Verification",
    "canonical_json",
    "key_id_of",
    "raw_public_key",
    "replay_certificate",
    "verify_certificate",
]

CERTIFICATE_TYPE = "patience-certificate/v1"
DEAL_ALGORITHM = ALGORITHM
MAX_CERTIFICATE_BYTES = 4 << 20  # 100,000 moves fit; anything bigger is refused before parsing
_MAX_INT = (1 << 53) - 1  # integers a JavaScript verifier reads exactly


class CertificateReason(StrEnum):
    """Why a certificate is refused. Values are API-stable (``VerifyCertificateResponse.reason``)."""

    MALFORMED = "malformed"  # not a certificate: bad JSON or base64, missing or ill-typed field, not canonical
    UNSUPPORTED_TYPE = "unsupported-type"  # a "type" other than patience-certificate/v1
    UNKNOWN_KEY = "unknown-key"  # no key with this id, active or retired
    BAD_SIGNATURE = "bad-signature"  # the signature does not match the payload bytes
    KEY_MISMATCH = "key-mismatch"  # the payload names another key than the envelope
    COMMITMENT_MISMATCH = "commitment-mismatch"  # commitment != SHA-256(seed)
    COUNT_MISMATCH = "count-mismatch"  # move_count != number of moves
    UNSUPPORTED_DEAL_ALGORITHM = "unsupported-deal-algorithm"  # a deal other than deal-v2 (deal-v1 was withdrawn)
    NOT_WON = "not-won"  # replay: the moves are illegal or do not win
    REPLAY_MISMATCH = "replay-mismatch"  # replay: a win, but not the certified final position


def canonical_json(value: object) -> bytes:
    """The one byte form of a JSON value: sorted keys, no whitespace, UTF-8 (what gets signed)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id_of(key: Ed25519PublicKey | Ed25519PrivateKey | bytes) -> str:
    """First 16 hex digits of SHA-256 of the raw public key."""
    if isinstance(key, Ed25519PrivateKey):
        key = key.public_key()
    raw = key if isinstance(key, bytes) else raw_public_key(key)
    return hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class CertificateContents:
    """What a certificate says: a game of ``variant`` dealt from ``seed`` and won with ``moves``."""

    game_id: str
    variant: str
    options: Mapping[str, str]  # every option of the variant, values in text form ("true", "3")
    seed: bytes  # 32 bytes
    commitment: bytes  # SHA-256(seed), published when the game was dealt
    moves: tuple[str, ...]  # the explicit text form, first to last
    move_count: int
    undo_count: int
    started_at: int  # Unix milliseconds
    finished_at: int
    ticket_id: str = ""  # the deal ticket's id, "" if none
    final_state_hash: str = ""  # engine.encoding.state_hash of the final position
    deal_algorithm: str = DEAL_ALGORITHM
    played: str = ""  # "moves" (move by move) or "submitted" (a whole solution); "" before the field existed
    dealt: str = ""  # how the deal was chosen (DEALT); "" before the field existed
    deal_number: int = 0  # the public deal's number, 0 unless dealt is "public"

    def payload(self, key_id: str) -> bytes:
        """The canonical signed bytes (``played`` and ``dealt`` only when known, so that a certificate signed
        before the fields existed signs to the same bytes again)."""
        fields: dict[str, object] = {"played": self.played} if self.played else {}
        if self.dealt:
            fields.update(dealt=self.dealt, deal_number=self.deal_number)
        return canonical_json(
            {
                **fields,
                "type": CERTIFICATE_TYPE,
                "key_id": key_id,
                "game_id": self.game_id,
                "variant": self.variant,
                "options": {str(k): str(v) for k, v in self.options.items()},
                "deal": self.deal_algorithm,
                "seed": self.seed.hex(),
                "commitment": self.commitment.hex(),
                "moves": list(self.moves),
                "move_count": self.move_count,
                "undo_count": self.undo_count,
                "started_at": self.started_at,
                "finished_at": self.finished_at,
                "ticket_id": self.ticket_id,
                "final_state_hash": self.final_state_hash,
                "result": "won",
            }
        )

    def check(self) -> None:
        """ValueError unless the contents can be certified (a signer's sanity check)."""
        if len(self.seed) != 32 or len(self.commitment) != 32:
            raise ValueError("seed and commitment are 32 bytes")
        if hashlib.sha256(self.seed).digest() != self.commitment:
            raise ValueError("the commitment is not SHA-256 of the seed")
        if self.move_count != len(self.moves):
            raise ValueError("move_count is not the number of moves")
        for name in ("move_count", "undo_count", "started_at", "finished_at"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_INT:
                raise ValueError(f"{name} is a whole number from 0 to 2**53-1")
        if any(not isinstance(m, str) or not m for m in self.moves):
            raise ValueError("moves are non-empty texts")
        if self.played not in PLAYED:
            raise ValueError(f"played is one of {sorted(PLAYED)}")
        problem = _dealt_problem(self.dealt, self.deal_number) if self.dealt or self.deal_number else None
        if problem is not None:
            raise ValueError(problem)


@dataclass(frozen=True)
class Verification:
    """The verdict on a certificate. ``reason`` is "" when valid, else a :class:`CertificateReason` value."""

    valid: bool
    reason: str
    message: str
    contents: CertificateContents | None = None  # when the payload could be read (even if invalid)
    key_id: str = ""
    signature: bytes = b""
    payload: bytes = b""

    def __iter__(self) -> Any:
        """``valid, reason = verify_certificate(...)`` also works."""
        return iter((self.valid, self.reason))


def _refuse(reason: CertificateReason, message: str, **kw: Any) -> Verification:
    return Verification(False, reason.value, message, **kw)


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


def _b64(text: object) -> bytes:
    if not isinstance(text, str):
        raise ValueError("not base64 text")
    return base64.b64decode(text.encode("ascii"), validate=True)


def _read_envelope(encoded: bytes | str) -> tuple[str, bytes, bytes]:
    raw = encoded.encode() if isinstance(encoded, str) else bytes(encoded)
    if len(raw) > MAX_CERTIFICATE_BYTES:
        raise ValueError("too large")
    if too_deep(raw, 4):  # a certificate is one flat object: deeper is not one, and json.loads would recurse
        raise ValueError("nested too deeply")
    envelope = json.loads(raw)
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
#: How a win was played: the optional ``played`` field (absent from certificates signed before it existed).
PLAYED = frozenset({"", "moves", "submitted"})
#: How the deal was chosen: the ``dealt`` field (with ``deal_number``; both absent from older certificates).
DEALT = frozenset({"random", "ticket", "winnable", "replay", "public"})
MAX_DEAL_NUMBER = (1 << 32) - 1


def _dealt_problem(dealt: object, deal_number: object) -> str | None:
    """What is wrong with a ``dealt``/``deal_number`` pair, or None: ``dealt`` is one of DEALT, and
    ``deal_number`` is 1 to 2**32-1 for a public deal and 0 for any other."""
    if not isinstance(dealt, str) or dealt not in DEALT:
        return f"dealt is one of {', '.join(sorted(DEALT))}"
    if isinstance(deal_number, bool) or not isinstance(deal_number, int):
        return "deal_number is an integer"
    if dealt == "public" and not 1 <= deal_number <= MAX_DEAL_NUMBER:
        return "a public deal's deal_number is 1 to 2**32-1"
    if dealt != "public" and deal_number != 0:
        return "deal_number is 0 unless dealt is public"
    return None


def _read_payload(payload: bytes) -> tuple[dict[str, Any], CertificateContents]:
    if too_deep(payload, 4):  # the signer's payload nests two levels
        raise ValueError("nested too deeply")
    data = json.loads(payload.decode("utf-8"))
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
    problem = _dealt_problem(dealt, deal_number) if present else None
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
        if isinstance(value, int) and not 0 <= value <= _MAX_INT:
            raise ValueError(f"{name} is out of range")
    if data["result"] != "won":
        raise ValueError("result is not 'won'")
    options = data["options"]
    moves = data["moves"]
    if not all(isinstance(v, str) for v in options.values()) or not all(isinstance(m, str) for m in moves):
        raise ValueError("options and moves hold text")
    seed, commitment = bytes.fromhex(data["seed"]), bytes.fromhex(data["commitment"])
    if len(seed) != 32 or len(commitment) != 32 or (seed.hex(), commitment.hex()) != (data["seed"], data["commitment"]):
        raise ValueError("seed and commitment are 64 lowercase hex digits")
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
    )
    return data, contents


class _UnsupportedType(ValueError):
    """A payload of another type (a later version, or not a certificate at all)."""


def verify_certificate(encoded: bytes | str, keyring: KeyRing, *, replay: bool = False) -> Verification:
    """Check a certificate against ``keyring``: the signature over the exact payload bytes, then the fields.

    Never raises on bad input. With ``replay`` the moves are also replayed through the engine
    (``engine.verify``) and must win and end in the certified position.
    """
    try:
        key_id, payload, signature = _read_envelope(encoded)
    except (ValueError, UnicodeError, binascii.Error, TypeError) as exc:
        return _refuse(CertificateReason.MALFORMED, f"not a certificate: {exc}"[:200])
    seen: dict[str, Any] = {"key_id": key_id, "signature": signature, "payload": payload}
    public = keyring.public_key(key_id)
    if public is None:
        return _refuse(CertificateReason.UNKNOWN_KEY, f"no signing key {key_id[:32]!r} is known here", **seen)
    try:
        public.verify(signature, payload)
    except InvalidSignature:
        return _refuse(CertificateReason.BAD_SIGNATURE, "the signature does not match the certificate", **seen)
    try:
        data, contents = _read_payload(payload)
    except _UnsupportedType as exc:
        return _refuse(CertificateReason.UNSUPPORTED_TYPE, f"certificate type {exc} is not supported", **seen)
    except (ValueError, UnicodeError, TypeError) as exc:
        return _refuse(CertificateReason.MALFORMED, f"unreadable payload: {exc}"[:200], **seen)
    seen["contents"] = contents
    if data["key_id"] != key_id:
        return _refuse(CertificateReason.KEY_MISMATCH, "the payload names another key than the certificate", **seen)
    if contents.deal_algorithm != DEAL_ALGORITHM:
        return _refuse(CertificateReason.UNSUPPORTED_DEAL_ALGORITHM, _other_deal(contents.deal_algorithm), **seen)
    if hashlib.sha256(contents.seed).digest() != contents.commitment:
        return _refuse(CertificateReason.COMMITMENT_MISMATCH, "the commitment is not SHA-256 of the seed", **seen)
    if contents.move_count != len(contents.moves):
        return _refuse(CertificateReason.COUNT_MISMATCH, "move_count is not the number of moves", **seen)
    if replay:
        problem = replay_certificate(contents)
        if problem is not None:
            return _refuse(problem[0], problem[1], **seen)
    return Verification(True, "", "valid", **seen)


def _other_deal(algorithm: str) -> str:
    return f"the certificate's deal algorithm is {algorithm[:40]!r}; this service deals and checks {DEAL_ALGORITHM}"


def replay_certificate(contents: CertificateContents) -> tuple[CertificateReason, str] | None:
    """Replay the certified moves with the engine: None for the certified win, else (reason, message)."""
    from engine.errors import VariantError
    from engine.verify import Outcome, verify

    if contents.deal_algorithm != DEAL_ALGORITHM:
        return CertificateReason.UNSUPPORTED_DEAL_ALGORITHM, _other_deal(contents.deal_algorithm)
    try:
        verdict = verify(contents.variant, dict(contents.options), contents.seed, contents.moves)
    except (VariantError, ValueError) as exc:
        return CertificateReason.MALFORMED, str(exc)[:200]
    if verdict.outcome is not Outcome.WON:
        return CertificateReason.NOT_WON, verdict.describe()
    if verdict.move_count != contents.move_count or (
        contents.final_state_hash and verdict.final_hash != contents.final_state_hash
    ):
        return CertificateReason.REPLAY_MISMATCH, "the replay does not end in the certified position"
    return None
