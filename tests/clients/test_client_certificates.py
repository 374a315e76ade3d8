"""Offline certificate checks in patience_client, on real and tampered certificates.

The client verifies with the core's reader (``patience.certificates``) and raw public keys from a keys file or
``GetSigningKeys``; the service verifies with its key ring. Here each tampering is judged both ways and must get
the same reason code. Certificates from a running server are checked in
tests/clients/test_client_api.py and through the CLI in tests/clients/test_client_cli.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace

import pytest
from client_harness import seed_for, solution_for
from patience import certificates as core
from patience_client.certificates import (
    CheckReason,
    decode,
    keys_from_json,
    keys_to_json,
    verify_certificate,
)

from engine.verify import verify
from service.security.signing import KeyRing

SEED = seed_for(100)


@pytest.fixture(scope="module")
def win() -> core.CertificateContents:
    moves = tuple(solution_for("sultan-36", SEED))
    verdict = verify("sultan-36", {}, SEED, moves)
    return core.CertificateContents(
        game_id="g-offline",
        variant="sultan-36",
        options={},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=moves,
        move_count=len(moves),
        undo_count=2,
        started_at=1_700_000_000_000,
        finished_at=1_700_000_060_000,
        final_state_hash=verdict.final_hash,
    )


@pytest.fixture(scope="module")
def ring() -> KeyRing:
    return KeyRing.generate()


def public(ring: KeyRing) -> dict[str, bytes]:
    return {kid: raw for kid, raw, _ in ring.public_keys()}


def envelope(ring: KeyRing, payload: bytes, *, key_id: str | None = None, sign: bool = True) -> bytes:
    """A certificate around ``payload``, signed by ``ring``'s key (tests forge with it, as only a key holder can)."""
    assert ring.signing_key is not None
    kid = key_id or core.key_id_of(ring.signing_key)
    signature = ring.signing_key.sign(payload) if sign else bytes(64)
    return core.canonical_json(
        {
            "key_id": kid,
            "payload": base64.b64encode(payload).decode(),
            "signature": base64.b64encode(signature).decode(),
        }
    )


def edited(contents: core.CertificateContents, kid: str, change: Callable[[dict[str, object]], None]) -> bytes:
    data = json.loads(contents.payload(kid))
    change(data)
    return core.canonical_json(data)


def test_a_real_certificate_verifies_offline_and_replays_to_the_win(
    win: core.CertificateContents, ring: KeyRing
) -> None:
    encoded = ring.sign(win)
    check = verify_certificate(encoded, public(ring))
    assert check.valid and check.reason == "" and not check.replayed
    assert check.key_id == ring.active_key_id
    c = check.contents
    assert c is not None and c.seed == SEED and c.moves == win.moves and c.undo_count == 2
    full = verify_certificate(encoded, public(ring), replay=True)
    assert full.valid and full.replayed and full.details["final_state_hash"] == win.final_state_hash
    assert decode(encoded).contents.game_id == "g-offline"


def test_keys_round_trip_through_the_keys_file(ring: KeyRing) -> None:
    keys = public(ring)
    assert keys_from_json(keys_to_json(keys)) == keys
    with pytest.raises(ValueError):
        keys_from_json('{"nope": 1}')


def cases(win: core.CertificateContents, ring: KeyRing) -> dict[str, tuple[bytes, str]]:
    """Tampered or forged certificates, each with the reason both verifiers must give."""
    kid = core.key_id_of(ring.signing_key)  # type: ignore[arg-type]
    good = ring.sign(win)
    outer = json.loads(good)
    flipped_sig = bytearray(base64.b64decode(outer["signature"]))
    flipped_sig[0] ^= 1
    other_moves = edited(win, kid, lambda d: d.__setitem__("undo_count", 0))
    short = win.moves[:-1]
    return {
        "not json": (b"certificate?", "MALFORMED"),
        "missing field": (core.canonical_json({"key_id": kid, "payload": "", "x": ""}), "MALFORMED"),
        "bad base64": (core.canonical_json({"key_id": kid, "payload": "!!", "signature": "!!"}), "MALFORMED"),
        "unknown key": (envelope(ring, win.payload(kid), key_id="0123456789abcdef"), "UNKNOWN_KEY"),
        "flipped signature": (
            core.canonical_json({**outer, "signature": base64.b64encode(bytes(flipped_sig)).decode()}),
            "BAD_SIGNATURE",
        ),
        "payload edited after signing": (
            core.canonical_json({**outer, "payload": base64.b64encode(other_moves).decode()}),
            "BAD_SIGNATURE",
        ),
        "zero signature": (envelope(ring, win.payload(kid), sign=False), "BAD_SIGNATURE"),
        "other type": (envelope(ring, edited(win, kid, lambda d: d.__setitem__("type", "x/v9"))), "UNSUPPORTED_TYPE"),
        "not canonical": (envelope(ring, win.payload(kid).replace(b",", b", ", 1)), "MALFORMED"),
        "extra field": (envelope(ring, edited(win, kid, lambda d: d.__setitem__("extra", 1))), "MALFORMED"),
        "key mismatch": (envelope(ring, win.payload("feedfacefeedface")), "KEY_MISMATCH"),
        "deal-v1": (
            envelope(ring, edited(win, kid, lambda d: d.__setitem__("deal", "deal-v1"))),
            "UNSUPPORTED_DEAL_ALGORITHM",
        ),
        "commitment": (
            envelope(ring, edited(win, kid, lambda d: d.__setitem__("commitment", "00" * 32))),
            "COMMITMENT_MISMATCH",
        ),
        "count": (envelope(ring, edited(win, kid, lambda d: d.__setitem__("move_count", 3))), "COUNT_MISMATCH"),
        "not won": (
            envelope(ring, replace(win, moves=short, move_count=len(short)).payload(kid)),
            "NOT_WON",
        ),
        "final state": (
            envelope(ring, replace(win, final_state_hash="ab" * 32).payload(kid)),
            "REPLAY_MISMATCH",
        ),
    }


def test_every_tampering_is_refused_with_the_services_reason(win: core.CertificateContents, ring: KeyRing) -> None:
    keys = public(ring)
    for name, (encoded, reason) in cases(win, ring).items():
        mine = verify_certificate(encoded, keys, replay=True)
        theirs = core.verify_certificate(encoded, ring, replay=True)
        assert not mine.valid, name
        assert mine.reason == reason == theirs.reason, (name, mine, theirs.reason)
        assert CheckReason(mine.reason)
    # without a replay the last two are (correctly) signed certificates of what the service claimed
    for name in ("not won", "final state"):
        encoded, _ = cases(win, ring)[name]
        assert verify_certificate(encoded, keys).valid


def test_a_rotated_key_still_verifies_old_certificates(win: core.CertificateContents) -> None:
    old = KeyRing.generate()
    encoded = old.sign(win)
    assert old.signing_key is not None
    new = KeyRing.generate(retired=[old.signing_key.public_key()])
    check = verify_certificate(encoded, public(new))
    assert check.valid and check.key_id == old.active_key_id
    assert verify_certificate(encoded, {new.active_key_id or "": public(new)[new.active_key_id or ""]}).reason == (
        "UNKNOWN_KEY"
    )
