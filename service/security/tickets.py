"""Deal tickets: many players, one deal, and the seed never in the ticket.

An operator mints a ticket (MintDeal) for a daily deal, a tournament or a
challenge link. The ticket carries a random ticket id, the variant, the options,
its issue and expiry times, an optional label and the deal algorithm, authenticated with
HMAC-SHA256 under the server's ticket key. The seed is not in it, not even
encrypted: the server derives it whenever it needs it::

    seed = HMAC-SHA256(ticket_key, "ticket-seed|" + ticket_id)

so a player who holds a ticket learns nothing of the deal before playing it,
and a forged or altered ticket derives no seed at all.

Text form (URL-safe, about 250 characters)::

    pt1.<base64url(payload)>.<base64url(HMAC-SHA256(key, "ticket-auth|" + payload))>

where the payload is canonical JSON (sorted keys, no whitespace, UTF-8) with
``"type": "patience-ticket/v1"`` and ``kid``, the key id (16 hex digits of
HMAC-SHA256(key, "ticket-key-id")), so a server that rotated its ticket key
still opens tickets of the retired keys (and derives their seeds with them).
The three HMAC inputs have distinct prefixes, so no value of one use can stand
in for another.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.deal import ALGORITHM as DEAL_ALGORITHM

__all__ = [
    "TICKET_TYPE",
    "Ticket",
    "TicketError",
    "TicketMinter",
    "TicketReason",
    "ticket_key_id",
]

TICKET_TYPE = "patience-ticket/v1"
PREFIX = "pt1"
KEY_BYTES = 32
MAX_TICKET_TEXT = 4096
MAX_LABEL = 200
CLOCK_SKEW = 300  # seconds a ticket may look issued in the future (another replica's clock)
_MAX_INT = (1 << 53) - 1


class TicketReason(StrEnum):
    """Why a ticket is refused. Values are API-stable."""

    MALFORMED = "MALFORMED"  # not a ticket: bad shape, base64 or JSON, missing or ill-typed field
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"  # a later version, or another kind of token
    UNKNOWN_KEY = "UNKNOWN_KEY"  # minted under a key this server does not hold (another server, or dropped)
    BAD_SIGNATURE = "BAD_SIGNATURE"  # altered, or forged
    UNSUPPORTED_DEAL_ALGORITHM = "UNSUPPORTED_DEAL_ALGORITHM"  # minted for another deal algorithm (deal-v1)
    EXPIRED = "EXPIRED"
    NOT_YET_VALID = "NOT_YET_VALID"  # issued in the future (beyond the clock skew allowance)


class TicketError(ValueError):
    """A refused ticket; ``reason`` is a :class:`TicketReason` value."""

    def __init__(self, reason: TicketReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason.value
        self.message = message


@dataclass(frozen=True)
class Ticket:
    """An opened (authenticated) ticket. Times are Unix seconds."""

    ticket_id: str
    variant: str
    options: Mapping[str, str]
    issued_at: int
    expires_at: int
    label: str = ""
    key_id: str = ""
    deal_algorithm: str = DEAL_ALGORITHM


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64u(text: str) -> bytes:
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64u(data) != text:  # one text per value: no padding, no stray bits
        raise ValueError("not canonical base64url")
    return data


def ticket_key_id(key: bytes) -> str:
    """The public name of a ticket key (it reveals nothing of the key)."""
    return hmac.new(key, b"ticket-key-id", hashlib.sha256).hexdigest()[:16]


def _tag(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, b"ticket-auth|" + payload, hashlib.sha256).digest()


def _check_key(key: bytes) -> bytes:
    if not isinstance(key, bytes) or len(key) != KEY_BYTES:
        raise ValueError(f"a ticket key is {KEY_BYTES} bytes")
    return key


_FIELDS: dict[str, type] = {
    "type": str,
    "kid": str,
    "id": str,
    "variant": str,
    "options": dict,
    "issued_at": int,
    "expires_at": int,
    "label": str,
    "deal": str,
}
#: The deal algorithm of a ticket minted before tickets named theirs.
_UNNAMED_DEAL = "deal-v1"


@dataclass
class TicketMinter:
    """Mints tickets with the active key; opens tickets of the active and the retired keys."""

    key: bytes
    retired: Iterable[bytes] = ()
    _keys: dict[str, bytes] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _check_key(self.key)
        self._keys = {ticket_key_id(_check_key(k)): k for k in self.retired}
        self._keys[ticket_key_id(self.key)] = self.key

    @classmethod
    def generate(cls) -> TicketMinter:
        return cls(secrets.token_bytes(KEY_BYTES))

    @property
    def key_id(self) -> str:
        return ticket_key_id(self.key)

    @property
    def key_ids(self) -> list[str]:
        return sorted(self._keys)

    def mint(
        self,
        variant: str,
        options: Mapping[str, str],
        *,
        expires_at: int,
        label: str = "",
        issued_at: int | None = None,
        ticket_id: str | None = None,
    ) -> tuple[str, Ticket]:
        """A new ticket (its text and its contents). The caller has checked variant and options."""
        issued = int(time.time()) if issued_at is None else issued_at
        if not isinstance(expires_at, int) or not issued < expires_at <= _MAX_INT:
            raise ValueError("a ticket expires after it is issued")
        if len(label) > MAX_LABEL:
            raise ValueError(f"a label is at most {MAX_LABEL} characters")
        ticket = Ticket(
            ticket_id=ticket_id or secrets.token_urlsafe(12),
            variant=variant,
            options={str(k): str(v) for k, v in options.items()},
            issued_at=issued,
            expires_at=expires_at,
            label=label,
            key_id=self.key_id,
        )
        payload = _canonical(
            {
                "type": TICKET_TYPE,
                "kid": ticket.key_id,
                "id": ticket.ticket_id,
                "variant": ticket.variant,
                "options": dict(ticket.options),
                "issued_at": ticket.issued_at,
                "expires_at": ticket.expires_at,
                "label": ticket.label,
                "deal": ticket.deal_algorithm,
            }
        )
        text = f"{PREFIX}.{_b64u(payload)}.{_b64u(_tag(self.key, payload))}"
        return text, ticket

    def open(self, text: str, *, now: int) -> Ticket:
        """The ticket in ``text`` if it is authentic and valid at ``now`` (Unix seconds); TicketError otherwise."""
        ticket = self.authenticate(text)
        if now >= ticket.expires_at:
            raise TicketError(TicketReason.EXPIRED, "the deal ticket has expired")
        if now + CLOCK_SKEW < ticket.issued_at:
            raise TicketError(TicketReason.NOT_YET_VALID, "the deal ticket is not valid yet")
        return ticket

    def authenticate(self, text: str) -> Ticket:
        """The ticket in ``text`` if it is authentic, whatever its times (TicketError otherwise)."""
        if not isinstance(text, str) or len(text) > MAX_TICKET_TEXT:
            raise TicketError(TicketReason.MALFORMED, "not a deal ticket")
        parts = text.strip().split(".")
        if len(parts) != 3 or parts[0] != PREFIX:
            if parts and parts[0].startswith("pt") and parts[0] != PREFIX:
                raise TicketError(TicketReason.UNSUPPORTED_TYPE, "a deal ticket of another version")
            raise TicketError(TicketReason.MALFORMED, "not a deal ticket")
        try:
            payload, tag = _unb64u(parts[1]), _unb64u(parts[2])
            data = json.loads(payload.decode("utf-8"))
        except (ValueError, UnicodeError, binascii.Error) as exc:
            raise TicketError(TicketReason.MALFORMED, "not a deal ticket") from exc
        if not isinstance(data, dict) or not isinstance(data.get("kid"), str):
            raise TicketError(TicketReason.MALFORMED, "not a deal ticket")
        key = self._keys.get(data["kid"])
        if key is None:
            raise TicketError(TicketReason.UNKNOWN_KEY, "the deal ticket was not minted here")
        if not hmac.compare_digest(tag, _tag(key, payload)):
            raise TicketError(TicketReason.BAD_SIGNATURE, "the deal ticket was altered")
        return _read(data, payload)

    def seed(self, ticket: Ticket) -> bytes:
        """The ticket's 32-byte deal seed, derived with the key that minted it."""
        key = self._keys.get(ticket.key_id or self.key_id)
        if key is None:
            raise TicketError(TicketReason.UNKNOWN_KEY, "the deal ticket was not minted here")
        return hmac.new(key, b"ticket-seed|" + ticket.ticket_id.encode(), hashlib.sha256).digest()


def _read(data: dict[str, Any], payload: bytes) -> Ticket:
    """The fields of an authentic payload (the server wrote it, but check it as if it had not)."""
    if data.get("type") != TICKET_TYPE:
        raise TicketError(TicketReason.UNSUPPORTED_TYPE, "a token of another kind or version")
    deal = data.get("deal", _UNNAMED_DEAL)
    if deal != DEAL_ALGORITHM:
        raise TicketError(
            TicketReason.UNSUPPORTED_DEAL_ALGORITHM,
            f"the deal ticket is for deal algorithm {str(deal)[:40]!r}; this server deals {DEAL_ALGORITHM}",
        )
    if set(data) != set(_FIELDS) or _canonical(data) != payload:
        raise TicketError(TicketReason.MALFORMED, "a deal ticket with unexpected fields")
    for name, kind in _FIELDS.items():
        value = data[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise TicketError(TicketReason.MALFORMED, f"the ticket's {name} is not a {kind.__name__}")
    if not all(isinstance(v, str) for v in data["options"].values()) or not data["id"]:
        raise TicketError(TicketReason.MALFORMED, "a deal ticket with bad options or id")
    return Ticket(
        ticket_id=data["id"],
        variant=data["variant"],
        options=dict(data["options"]),
        issued_at=data["issued_at"],
        expires_at=data["expires_at"],
        label=data["label"],
        key_id=data["kid"],
        deal_algorithm=data["deal"],
    )
