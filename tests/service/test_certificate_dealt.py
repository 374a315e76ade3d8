"""The certificate's ``dealt`` and ``deal_number``: every reader (the service's, the Python client's) accepts the five
values and their absence (older certificates), and refuses anything else as malformed. The JavaScript reader is
checked on the same cases through the shared vectors (tests/service/test_certificate_vectors.py)."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st
from patience.certificates import DEALT, CertificateContents, canonical_json, verify_certificate
from patience_client.certificates import verify_certificate as client_verify
from test_certificates import won_contents

from service.security.signing import KeyRing

RING = KeyRing(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
PUBLIC = {RING.active_key_id: RING.public_keys()[0][1]}
CONTENTS = won_contents()


def payload_of(encoded: bytes) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(encoded)["payload"]))  # type: ignore[no-any-return]


def resign(payload: dict[str, Any]) -> bytes:
    """A certificate over ``payload``, genuinely signed (a forger holding the key: only the fields can refuse it)."""
    raw = canonical_json(payload)
    assert RING.signing_key is not None
    return canonical_json(
        {
            "key_id": RING.active_key_id,
            "payload": base64.b64encode(raw).decode(),
            "signature": base64.b64encode(RING.signing_key.sign(raw)).decode(),
        }
    )


def both(encoded: bytes) -> tuple[tuple[bool, str], tuple[bool, str]]:
    """(valid, reason) from the service's reader and from the client's."""
    ours, theirs = verify_certificate(encoded, RING), client_verify(encoded, PUBLIC)
    return (ours.valid, ours.reason), (theirs.valid, theirs.reason)


@pytest.mark.parametrize(("dealt", "number"), [("random", 0), ("ticket", 0), ("winnable", 0), ("replay", 0),
                                               ("public", 1), ("public", 4_294_967_295)])  # fmt: skip
def test_every_way_of_dealing_is_signed_and_read_back(dealt: str, number: int) -> None:
    encoded = RING.sign(replace(CONTENTS, dealt=dealt, deal_number=number))
    fields = payload_of(encoded)
    assert (fields["dealt"], fields["deal_number"]) == (dealt, number)
    ours = verify_certificate(encoded, RING, replay=True)
    assert ours.valid and ours.contents is not None
    assert (ours.contents.dealt, ours.contents.deal_number) == (dealt, number)
    theirs = client_verify(encoded, PUBLIC)
    assert theirs.valid and theirs.contents is not None
    assert (theirs.contents.dealt, theirs.contents.deal_number) == (dealt, number)


def test_a_certificate_from_before_the_fields_reads_as_empty_and_zero() -> None:
    older = RING.sign(CONTENTS)  # dealt "" signs no field at all: the bytes an older service signed
    assert "dealt" not in payload_of(older) and "deal_number" not in payload_of(older)
    for reader in (verify_certificate(older, RING), client_verify(older, PUBLIC)):
        assert reader.valid and reader.contents is not None
        assert (reader.contents.dealt, reader.contents.deal_number) == ("", 0)


@pytest.mark.parametrize(
    "change",
    [
        {"dealt": "shuffled", "deal_number": 0},
        {"dealt": "", "deal_number": 0},
        {"dealt": "RANDOM", "deal_number": 0},
        {"dealt": 1, "deal_number": 0},
        {"dealt": None, "deal_number": 0},
        {"dealt": "random"},
        {"deal_number": 0},
        {"dealt": "random", "deal_number": 5},
        {"dealt": "replay", "deal_number": 1},
        {"dealt": "public", "deal_number": 0},
        {"dealt": "public", "deal_number": 1 << 32},
        {"dealt": "public", "deal_number": "7"},
        {"dealt": "public", "deal_number": True},
    ],
)
def test_any_other_dealt_is_malformed_for_every_reader(change: dict[str, Any]) -> None:
    fields = {k: v for k, v in payload_of(RING.sign(replace(CONTENTS, dealt="random"))).items()
              if k not in ("dealt", "deal_number")}  # fmt: skip
    forged = resign({**fields, **change})
    assert both(forged) == ((False, "MALFORMED"), (False, "MALFORMED"))


@given(st.text(max_size=12), st.integers(min_value=0, max_value=(1 << 33)))
def test_the_readers_agree_on_any_dealt_and_number(dealt: str, number: int) -> None:
    fields = payload_of(RING.sign(CONTENTS))
    forged = resign({**fields, "dealt": dealt, "deal_number": number})
    ours, theirs = both(forged)
    assert ours == theirs
    good = dealt in DEALT and (1 <= number < 1 << 32 if dealt == "public" else number == 0)
    assert ours == ((True, "") if good else (False, "MALFORMED"))


@pytest.mark.parametrize(("dealt", "number"), [("lucky", 0), ("random", 3), ("public", 0), ("public", 1 << 32)])
def test_the_signer_refuses_what_a_reader_would(dealt: str, number: int) -> None:
    with pytest.raises(ValueError):
        RING.sign(replace(CONTENTS, dealt=dealt, deal_number=number))


def test_contents_default_to_the_older_form() -> None:
    plain = CertificateContents(**{f: getattr(CONTENTS, f) for f in ("game_id", "variant", "options", "seed",
        "commitment", "moves", "move_count", "undo_count", "started_at", "finished_at")})  # fmt: skip
    assert (plain.dealt, plain.deal_number) == ("", 0)
