"""Deal tickets: minted, opened, their seeds derived server-side; every tampering, expiry and foreign key refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from typing import Any

import pytest

from service.security.tickets import TICKET_TYPE, Ticket, TicketError, TicketMinter, ticket_key_id

KEY = bytes(range(32))
NOW = 1_764_000_000
DAY = 86400


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.fixture
def minter() -> TicketMinter:
    return TicketMinter(KEY)


def mint(minter: TicketMinter, **kw: Any) -> tuple[str, Ticket]:
    args: dict[str, Any] = {"expires_at": NOW + DAY, "label": "daily 2025-11-24", "issued_at": NOW}
    args.update(kw)
    return minter.mint("cats-tail", {"sequence_moves": "false"}, **args)


def parts(text: str) -> tuple[dict[str, Any], str]:
    _, payload, tag = text.split(".")
    data: dict[str, Any] = json.loads(unb64u(payload))
    return data, tag


def test_mint_and_open_round_trip(minter: TicketMinter) -> None:
    text, ticket = mint(minter)
    opened = minter.open(text, now=NOW + 10)
    assert opened == ticket
    assert (opened.variant, dict(opened.options), opened.label) == (
        "cats-tail",
        {"sequence_moves": "false"},
        "daily 2025-11-24",
    )
    assert (opened.issued_at, opened.expires_at, opened.key_id) == (NOW, NOW + DAY, ticket_key_id(KEY))
    assert re.fullmatch(r"pt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}", text) and len(text) < 400  # fits in a link
    assert parts(text)[0]["type"] == TICKET_TYPE


def test_ticket_ids_are_random_and_seeds_differ(minter: TicketMinter) -> None:
    tickets = [mint(minter)[1] for _ in range(50)]
    assert len({t.ticket_id for t in tickets}) == 50
    assert len({minter.seed(t) for t in tickets}) == 50


def test_the_seed_is_derived_server_side_and_never_in_the_ticket(minter: TicketMinter) -> None:
    text, ticket = mint(minter)
    seed = minter.seed(ticket)
    assert seed == hmac.new(KEY, b"ticket-seed|" + ticket.ticket_id.encode(), hashlib.sha256).digest()
    assert len(seed) == 32
    assert minter.seed(minter.open(text, now=NOW)) == seed  # every player of the ticket gets the same deal
    data, tag = parts(text)
    decoded = unb64u(text.split(".")[1]) + unb64u(tag)
    for form in (seed, seed.hex().encode(), b64u(seed).encode(), base64.b64encode(seed)):
        assert form not in decoded and form not in text.encode()
    assert set(data) == {"type", "kid", "id", "variant", "options", "issued_at", "expires_at", "label", "deal"}


TAMPERED: dict[str, Any] = {
    "type": "patience-ticket/v2",
    "id": "another-id",
    "variant": "royal-retinue",
    "options": {"sequence_moves": "true"},
    "issued_at": NOW - 1,
    "expires_at": NOW + 2 * DAY,
    "label": "daily 2025-11-25",
    "deal": "deal-v3",
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_every_tampered_field_is_refused(minter: TicketMinter, name: str) -> None:
    text, _ = mint(minter)
    data, tag = parts(text)
    assert data[name] != TAMPERED[name]
    data[name] = TAMPERED[name]
    forged = f"pt1.{b64u(canonical(data))}.{tag}"
    with pytest.raises(TicketError) as err:
        minter.open(forged, now=NOW)
    assert err.value.reason == "BAD_SIGNATURE"


def test_a_tampered_tag_or_key_id_is_refused(minter: TicketMinter) -> None:
    text, _ = mint(minter)
    data, tag = parts(text)
    raw = bytearray(unb64u(tag))
    raw[0] ^= 1
    with pytest.raises(TicketError) as err:
        minter.open(f"pt1.{text.split('.')[1]}.{b64u(bytes(raw))}", now=NOW)
    assert err.value.reason == "BAD_SIGNATURE"
    with pytest.raises(TicketError) as err:
        minter.open(f"pt1.{text.split('.')[1]}.{b64u(bytes(raw[:16]))}", now=NOW)
    assert err.value.reason == "BAD_SIGNATURE"
    data["kid"] = "0" * 16
    with pytest.raises(TicketError) as err:
        minter.open(f"pt1.{b64u(canonical(data))}.{tag}", now=NOW)
    assert err.value.reason == "UNKNOWN_KEY"


def test_a_foreign_servers_ticket_is_refused(minter: TicketMinter) -> None:
    foreign = TicketMinter(bytes(32))
    text, ticket = mint(foreign)
    with pytest.raises(TicketError) as err:
        minter.open(text, now=NOW)
    assert err.value.reason == "UNKNOWN_KEY"
    with pytest.raises(TicketError):
        minter.seed(ticket)  # no seed for a ticket minted under another key


def test_a_forged_ticket_with_our_key_id_is_refused(minter: TicketMinter) -> None:
    data = {**TAMPERED, "type": TICKET_TYPE, "kid": minter.key_id}
    payload = canonical(data)
    forged_tag = hmac.new(bytes(32), b"ticket-auth|" + payload, hashlib.sha256).digest()
    with pytest.raises(TicketError) as err:
        minter.open(f"pt1.{b64u(payload)}.{b64u(forged_tag)}", now=NOW)
    assert err.value.reason == "BAD_SIGNATURE"


def test_expiry_and_not_yet_valid(minter: TicketMinter) -> None:
    text, _ = mint(minter)
    assert minter.open(text, now=NOW + DAY - 1)
    for now in (NOW + DAY, NOW + 10 * DAY):
        with pytest.raises(TicketError) as err:
            minter.open(text, now=now)
        assert err.value.reason == "EXPIRED"
    assert minter.authenticate(text).expires_at == NOW + DAY  # authentic, whatever the time
    assert minter.open(text, now=NOW - 60)  # a replica's clock a little behind
    with pytest.raises(TicketError) as err:
        minter.open(text, now=NOW - 3600)
    assert err.value.reason == "NOT_YET_VALID"


def test_a_genuine_tag_over_bad_contents_is_still_refused(minter: TicketMinter) -> None:
    def signed(payload: bytes) -> str:
        return f"pt1.{b64u(payload)}.{b64u(hmac.new(KEY, b'ticket-auth|' + payload, hashlib.sha256).digest())}"

    good, _ = parts(mint(minter)[0])
    cases = [
        ({**good, "type": "patience-ticket/v2"}, "UNSUPPORTED_TYPE"),
        ({**good, "extra": 1}, "MALFORMED"),
        ({k: v for k, v in good.items() if k != "label"}, "MALFORMED"),
        ({**good, "expires_at": "tomorrow"}, "MALFORMED"),
        ({**good, "issued_at": True}, "MALFORMED"),
        ({**good, "options": {"sequence_moves": False}}, "MALFORMED"),
        ({**good, "id": ""}, "MALFORMED"),
    ]
    for data, reason in cases:
        with pytest.raises(TicketError) as err:
            minter.open(signed(canonical(data)), now=NOW)
        assert err.value.reason == reason, data
    with pytest.raises(TicketError) as err:
        minter.open(signed(json.dumps(good).encode()), now=NOW)  # authentic but not canonical
    assert err.value.reason == "MALFORMED"


def test_a_ticket_names_its_deal_algorithm_and_only_deal_v2_is_opened(minter: TicketMinter) -> None:
    """The old id deal-v1, and a ticket minted before tickets named their algorithm (deal-v1 too), are refused
    with their own reason: the same ticket would now deal another layout."""

    def signed(payload: bytes) -> str:
        return f"pt1.{b64u(payload)}.{b64u(hmac.new(KEY, b'ticket-auth|' + payload, hashlib.sha256).digest())}"

    text, ticket = mint(minter)
    good, _ = parts(text)
    assert good["deal"] == "deal-v2" and ticket.deal_algorithm == "deal-v2"
    assert minter.open(signed(canonical(good)), now=NOW) == ticket
    for data in ({**good, "deal": "deal-v1"}, {k: v for k, v in good.items() if k != "deal"}, {**good, "deal": "v3"}):
        with pytest.raises(TicketError) as err:
            minter.open(signed(canonical(data)), now=NOW)
        assert err.value.reason == "UNSUPPORTED_DEAL_ALGORITHM", data
        assert "deal-v2" in err.value.message
    with pytest.raises(TicketError) as err:
        minter.open(signed(canonical({**good, "deal": 2})), now=NOW)
    assert err.value.reason == "UNSUPPORTED_DEAL_ALGORITHM"


@pytest.mark.parametrize(
    "text",
    ["", "pt1", "pt1..", "pt1.!!.!!", "pt1.e30.AAAA", "x.y.z", "pt1.a.b.c", "pt1." + "A" * 5000, "pt1.e30=.AA"],
)
def test_garbage_is_malformed(minter: TicketMinter, text: str) -> None:
    with pytest.raises(TicketError) as err:
        minter.open(text, now=NOW)
    assert err.value.reason == "MALFORMED"


def test_another_version_is_unsupported(minter: TicketMinter) -> None:
    text, _ = mint(minter)
    with pytest.raises(TicketError) as err:
        minter.open("pt2" + text[3:], now=NOW)
    assert err.value.reason == "UNSUPPORTED_TYPE"


def test_rotation_keeps_old_tickets_and_their_deals(minter: TicketMinter) -> None:
    old_text, old_ticket = mint(minter)
    old_seed = minter.seed(old_ticket)
    rotated = TicketMinter(bytes(range(1, 33)), retired=[KEY])
    assert rotated.key_id != minter.key_id and rotated.key_ids == sorted([rotated.key_id, minter.key_id])
    reopened = rotated.open(old_text, now=NOW)
    assert rotated.seed(reopened) == old_seed  # the same deal as before the rotation
    new_text, _ = mint(rotated)
    assert parts(new_text)[0]["kid"] == rotated.key_id
    with pytest.raises(TicketError) as err:
        minter.open(new_text, now=NOW)
    assert err.value.reason == "UNKNOWN_KEY"


def test_minting_refuses_bad_arguments(minter: TicketMinter) -> None:
    with pytest.raises(ValueError):
        mint(minter, expires_at=NOW)
    with pytest.raises(ValueError):
        mint(minter, label="x" * 201)
    with pytest.raises(ValueError):
        TicketMinter(b"short")
    with pytest.raises(ValueError):
        TicketMinter(KEY, retired=[b"short"])
