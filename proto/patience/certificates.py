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

This module is the format's one implementation, in the pure core that both the
service and the Python client install: the contents and their canonical bytes,
reading, and verification against public keys (:func:`verify_certificate`).
Signing stays with the service (``service.security.signing.KeyRing``), the only holder
of a private key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeAlias

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine.catalogue import get_game
from engine.deal import ALGORITHM
from engine.errors import PatienceError
from engine.game import Game, format_option
from engine.verify import Outcome, replay
from patience.boards import DAILY, PUBLIC, parse_board, well_formed
from patience.jsonlimits import MAX_JSON_DEPTH, too_deep

__all__ = [
    "CERTIFICATE_TYPE",
    "DEAL_ALGORITHM",
    "FORMAT",
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

CERTIFICATE_TYPE = "patience-certificate/v1"
DEAL_ALGORITHM = ALGORITHM
MAX_CERTIFICATE_BYTES = 4 << 20  # 100,000 moves fit; anything bigger is refused before parsing
_MAX_INT = (1 << 53) - 1  # integers a JavaScript verifier reads exactly

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
    key_id: str = ""  # the key the payload names, when read from a certificate (signing takes the signer's)
    hints: int | None = None  # hints given during the game (Hint); None in certificates signed before the field
    player_id: str = ""  # the signed-in player who won ("" = anonymous: no ``player`` in the payload)
    player_name: str = ""  # their display name when it was signed
    board: str = ""  # the leaderboard the win counts for ("" = none: no ``board`` in the payload)

    def payload(self, key_id: str) -> bytes:
        """The canonical signed bytes (``played``, ``dealt``, ``hints``, ``player`` and ``board`` only when known, so
        that a certificate signed before the fields existed, or of an anonymous game, signs to the same bytes
        again)."""
        fields: dict[str, object] = {"played": self.played} if self.played else {}
        if self.dealt:
            fields.update(dealt=self.dealt, deal_number=self.deal_number)
        if self.hints is not None:
            fields["hints"] = self.hints
        if self.player_id:
            fields["player"] = {"display_name": self.player_name, "id": self.player_id}
        if self.board:
            fields["board"] = self.board
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
        if not _HASH.fullmatch(self.final_state_hash):
            raise ValueError("final_state_hash is 64 lowercase hex digits")
        if not all(isinstance(v, str) and _OPTION_VALUE.fullmatch(v) for v in self.options.values()):
            raise ValueError("option values are in their text form: true, false or a decimal integer")
        if self.played not in PLAYED:
            raise ValueError(f"played is one of {sorted(PLAYED)}")
        problem = _dealt_problem(self.dealt, self.deal_number) if self.dealt or self.deal_number else None
        if problem is not None:
            raise ValueError(problem)
        if self.hints is not None and (isinstance(self.hints, bool) or not 0 <= self.hints <= _MAX_INT):
            raise ValueError("hints is a whole number from 0 to 2**53-1")
        named = self.player_id or self.player_name
        player = {"display_name": self.player_name, "id": self.player_id} if named else None
        problem = _player_problem(player) if player is not None else None
        if problem is None and self.board:
            problem = _board_problem(self.board, self)
        if problem is not None:
            raise ValueError(problem)


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
#: How a win was played: the optional ``played`` field (absent from certificates signed before it existed).
PLAYED = frozenset({"", "moves", "submitted"})
#: How the deal was chosen: the ``dealt`` field (with ``deal_number``; both absent from older certificates).
DEALT = frozenset({"random", "ticket", "winnable", "replay", "public", "daily"})
MAX_DEAL_NUMBER = (1 << 32) - 1
#: A player's pseudonymous id (docs/players.md) and the longest display name, in characters.
_PLAYER_ID = re.compile(r"p_[a-z2-7]{26}")
MAX_PLAYER_NAME = 32


def _player_problem(player: object) -> str | None:
    """What is wrong with a ``player`` member, or None: exactly ``display_name`` (1 to 32 characters) and ``id``."""
    if not isinstance(player, dict) or set(player) != {"display_name", "id"}:
        return "player is an object with exactly display_name and id"
    pid, name = player["id"], player["display_name"]
    if not isinstance(pid, str) or not _PLAYER_ID.fullmatch(pid):
        return 'player.id is "p_" and 26 base32 characters'
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_PLAYER_NAME:
        return f"player.display_name is text of 1 to {MAX_PLAYER_NAME} characters"
    return None


def _board_problem(board: object, contents: CertificateContents) -> str | None:
    """What is wrong with a ``board`` member, or None: a board name (patience.boards' grammar) that names this
    certificate's deal -- its variant, how it was dealt (a daily deal, or public deal N), every option it lists with
    the value the certificate's options give -- and only beside a ``player`` (only signed-in players' wins rank)."""
    if not isinstance(board, str) or not well_formed(board):
        return "board is a board name (daily-VARIANT-YYYY-MM-DD or public-VARIANT-N, options after ':')"
    if not contents.player_id:
        return "board comes with player: only a signed-in player's win ranks"
    kind, rest = board.split("-", 1)
    head, *options = rest.split(":")
    if not head.startswith(contents.variant + "-") or any(
        contents.options.get(k) != v for k, v in (o.split("=", 1) for o in options)
    ):
        return "board names another variant or other options than the certificate's"
    tail = head[len(contents.variant) + 1 :]
    if kind == PUBLIC and (contents.dealt != PUBLIC or tail != str(contents.deal_number)):
        return "a public board's certificate is dealt public with the board's deal number"
    if kind == DAILY and (contents.dealt != DAILY or "-" not in tail):
        return "a daily board's certificate is dealt daily"
    return None


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
    problem = _dealt_problem(dealt, deal_number) if present else None
    if problem is not None:
        raise ValueError(problem)
    hints = data.pop("hints", None)  # optional: certificates signed before it existed have none
    if hints is not None and (not isinstance(hints, int) or isinstance(hints, bool) or not 0 <= hints <= _MAX_INT):
        raise ValueError("hints is a whole number")
    player, board = data.pop("player", None), data.pop("board", None)  # optional: anonymous wins have neither
    problem = _player_problem(player) if player is not None else None
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
    if not all(_OPTION_VALUE.fullmatch(v) for v in options.values()):
        raise ValueError("an option value is true, false or a decimal integer with no sign or leading zero")
    if not all(_HASH.fullmatch(data[name]) for name in ("seed", "commitment", "final_state_hash")):
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
    problem = _board_problem(board, contents) if board is not None else None
    if problem is not None:
        raise ValueError(problem)
    return data, contents


#: SHA-256 as the payload writes it (``seed``, ``commitment``, ``final_state_hash``).
_HASH = re.compile(r"[0-9a-f]{64}")
#: An option value's one spelling (``engine.game.format_option``): no "True", "yes", "1" for true, " 3" or "03".
_OPTION_VALUE = re.compile(r"true|false|0|[1-9][0-9]*")


class _UnsupportedType(ValueError):
    """A payload of another type (a later version, or not a certificate at all)."""


_UNREADABLE = (ValueError, UnicodeError, binascii.Error, TypeError, RecursionError)


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
