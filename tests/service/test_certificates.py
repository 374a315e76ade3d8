"""Certificates: sign, verify, every tampering refused with its reason, key rotation, an independent JS verifier."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from patience.certificates import (
    CERTIFICATE_TYPE,
    CertificateContents,
    CertificateReason,
    canonical_json,
    key_id_of,
    raw_public_key,
    verify_certificate,
)

from engine import get_game
from engine.encoding import state_hash
from engine.verify import replay
from service.security.signing import KeyRing

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(32)
# A cats-tail win for seed 00..00 (Freecell Solver's solution, replayed into explicit moves; 243 moves).
WIN_TEXT = """
8-r1 6-r2 6-r3 6-r4 6-8/1 r2-5 6-r5 6-r6 2-r7 2-r8 2-r2 2-6/1 r8-f1 r1-7 2-8/1 4-r8 4-r1 r3-4 r7-8 4-r3 4-r7
r4-4 9-r4 9-2/2 3-5/1 2-3/3 r7-2 4-7/2 r5-2 5-2/3 5-r7 5-r5 5-8/1 r3-4 9-r3 3-9/4 3-6/1 7-6/4 r8-7 r4-3 7-r8
7-r4 7-f2 6-f2 3-f2 r8-6 3-r8 3-5/1 r3-3 7-r3 7-f3 8-f3 3-4/3 r4-f3 7-r4 r7-7 r8-f3 7-r7 7-r8 7-2/1 8-2/4
5-8/2 4-5/5 7-8/1 6-7/7 6-9/1 6-4/1 r8-9 r7-9 4-r8 4-r7 4-f2 4-f4 7-f4 2-f4 4-9/1 r4-4 7-r4 7-f4 7-f3 r2-f3
r8-f3 5-f3 r4-9 3-r2 3-2/1 3-f1 3-f2 3-r8 3-r4 3-f2 3-f5 3-5/1 r8-7 3-r8 3-f4 3-f6 r4-2 r8-8 3-r4 3-r8 9-3/10
9-f3 9-3/1 9-f7 2-f7 9-4/1 7-4/5 r4-9 r8-9 3-r4 3-f7 9-f7 4-f7 4-f4 r3-7 6-r8 6-r3 6-f1 6-f4 r2-7 4-r2 4-f4
r7-4 8-r7 8-f4 8-f3 r2-4 6-r2 r7-6 2-r7 2-f1 r2-f1 2-r2 2-f7 2-f2 r6-f2 2-r6 2-f2 6-2/2 6-f6 r1-f1 4-f1 5-f1
r3-8 r5-f1 8-f1 7-f1 8-r1 8-r3 8-r5 8-f6 r6-5 r5-6 r1-6 9-r6 9-r5 9-f7 5-f7 4-8/5 8-r1 8-f7 8-f2 8-f3 r3-f1
r8-f2 8-f2 9-f2 4-r3 4-r8 4-8/1 4-2/1 4-f8 r5-4 8-r5 8-f1 r4-f8 6-r4 6-f3 r6-4 5-r6 5-f7 r7-f8 7-r7 7-f3 r3-f8
4-f8 r8-f8 4-r3 4-r8 4-f6 4-f4 5-f4 r7-f4 6-f4 r4-5 r3-2 r8-f8 4-r7 4-r4 4-r3 4-r8 r5-4 3-r5 3-f6 2-f6 r3-f5
r8-4 3-r3 3-f6 3-f8 r1-3 r7-4 2-r8 2-r1 2-f8 4-f8 5-f8 r1-f6 3-r7 3-f6 2-f6 4-f6 4-f8 r4-f5 2-r1 2-f6 2-f8
4-f6 r5-f5 r1-5 r2-f5 r3-f5 r8-f5 r7-f5 r6-f5 3-f5 5-f5 3-f7 5-f7 3-f5 5-f5 3-f7
"""
WIN = WIN_TEXT.split()


def won_contents() -> CertificateContents:
    game = get_game("cats-tail")
    result = replay(game, game.deal(SEED), WIN)
    assert result.verdict.outcome.value == "won"
    return CertificateContents(
        game_id="game-1",
        variant="cats-tail",
        options={"sequence_moves": "true"},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=tuple(m.text() for m in result.moves),
        move_count=len(result.moves),
        undo_count=2,
        started_at=1_764_000_000_000,
        finished_at=1_764_000_900_123,
        ticket_id="",
        final_state_hash=state_hash(game, result.state),
    )


@pytest.fixture(scope="module")
def ring() -> KeyRing:
    return KeyRing(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))


@pytest.fixture(scope="module")
def contents() -> CertificateContents:
    return won_contents()


def envelope(encoded: bytes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(encoded)
    return data


def payload_of(encoded: bytes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(base64.b64decode(envelope(encoded)["payload"]))
    return data


def resign(ring: KeyRing, payload: bytes | dict[str, Any], key_id: str | None = None) -> bytes:
    """A certificate over ``payload`` signed with the ring's own key (contents we choose, signature genuine)."""
    raw = payload if isinstance(payload, bytes) else canonical_json(payload)
    assert ring.signing_key is not None
    return canonical_json(
        {
            "key_id": key_id or ring.active_key_id,
            "payload": base64.b64encode(raw).decode(),
            "signature": base64.b64encode(ring.signing_key.sign(raw)).decode(),
        }
    )


def with_payload(encoded: bytes, payload: dict[str, Any]) -> bytes:
    """``encoded`` with its payload swapped and the original signature kept."""
    env = envelope(encoded)
    env["payload"] = base64.b64encode(canonical_json(payload)).decode()
    return canonical_json(env)


# --------------------------------------------------------------------------- the round trip


def test_sign_and_verify_round_trip(ring: KeyRing, contents: CertificateContents) -> None:
    encoded = ring.sign(contents)
    checked = ring.verify(encoded)
    assert (checked.valid, checked.reason) == (True, "")
    valid, reason = verify_certificate(encoded, ring)
    assert (valid, reason) == (True, "")
    assert checked.contents == replace(contents, key_id=checked.key_id)  # read back, with the key the payload names
    assert checked.key_id == ring.active_key_id == key_id_of(ring.signing_key.public_key())  # type: ignore[union-attr]
    assert len(checked.signature) == 64
    assert ring.verify(encoded, replay=True).valid
    assert ring.verify(encoded.decode()).valid  # text in, same answer


def test_the_encoding_is_canonical_and_deterministic(ring: KeyRing, contents: CertificateContents) -> None:
    encoded = ring.sign(contents)
    assert encoded == ring.sign(contents)  # Ed25519 is deterministic: re-signing gives the same bytes
    assert encoded == canonical_json(envelope(encoded))
    raw = base64.b64decode(envelope(encoded)["payload"])
    assert raw == canonical_json(json.loads(raw)) and b" " not in raw
    payload = payload_of(encoded)
    assert payload["type"] == CERTIFICATE_TYPE
    assert payload["seed"] == SEED.hex() and payload["commitment"] == hashlib.sha256(SEED).hexdigest()
    assert payload["moves"] == list(contents.moves) and payload["move_count"] == 243
    assert payload["key_id"] == envelope(encoded)["key_id"]


def test_key_id_is_the_start_of_sha256_of_the_raw_public_key(ring: KeyRing) -> None:
    assert ring.signing_key is not None
    raw = raw_public_key(ring.signing_key.public_key())
    assert ring.active_key_id == hashlib.sha256(raw).hexdigest()[:16]
    assert key_id_of(raw) == key_id_of(ring.signing_key) == ring.active_key_id


def test_the_signer_refuses_inconsistent_contents(ring: KeyRing, contents: CertificateContents) -> None:
    for bad in (
        replace(contents, commitment=bytes(32)),
        replace(contents, move_count=3),
        replace(contents, seed=b"short"),
        replace(contents, started_at=-1),
    ):
        with pytest.raises(ValueError):
            ring.sign(bad)
    with pytest.raises(ValueError):
        KeyRing(None, [ring.signing_key.public_key()]).sign(contents)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- tampering


TAMPERED_VALUES: dict[str, Any] = {
    "type": "patience-certificate/v2",
    "key_id": "0000000000000000",
    "game_id": "game-2",
    "variant": "royal-retinue",
    "options": {"sequence_moves": "false"},
    "deal": "deal-v1",
    "seed": "11" * 32,
    "commitment": "22" * 32,
    "moves": ["5-f1"],
    "move_count": 242,
    "undo_count": 0,
    "started_at": 1_764_000_000_001,
    "finished_at": 1_764_000_900_124,
    "ticket_id": "t-1",
    "final_state_hash": "33" * 32,
    "result": "lost",
}


def test_the_tampering_table_covers_every_payload_field(ring: KeyRing, contents: CertificateContents) -> None:
    assert set(TAMPERED_VALUES) == set(payload_of(ring.sign(contents)))


@pytest.mark.parametrize("name", sorted(TAMPERED_VALUES))
def test_every_tampered_payload_field_is_a_bad_signature(
    ring: KeyRing, contents: CertificateContents, name: str
) -> None:
    encoded = ring.sign(contents)
    payload = payload_of(encoded)
    assert payload[name] != TAMPERED_VALUES[name]
    payload[name] = TAMPERED_VALUES[name]
    checked = ring.verify(with_payload(encoded, payload))
    assert (checked.valid, checked.reason) == (False, CertificateReason.BAD_SIGNATURE)


def test_a_tampered_move_deep_in_the_list_is_a_bad_signature(ring: KeyRing, contents: CertificateContents) -> None:
    encoded = ring.sign(contents)
    payload = payload_of(encoded)
    payload["moves"][100] = "9-f5"
    assert ring.verify(with_payload(encoded, payload)).reason == "BAD_SIGNATURE"


def test_a_tampered_signature_is_refused(ring: KeyRing, contents: CertificateContents) -> None:
    encoded = ring.sign(contents)
    env = envelope(encoded)
    for i in (0, 31, 63):
        sig = bytearray(base64.b64decode(env["signature"]))
        sig[i] ^= 0x01
        env2 = {**env, "signature": base64.b64encode(bytes(sig)).decode()}
        assert ring.verify(canonical_json(env2)).reason == "BAD_SIGNATURE"
    short = {**env, "signature": base64.b64encode(b"x" * 10).decode()}
    assert ring.verify(canonical_json(short)).reason == "BAD_SIGNATURE"


def test_a_tampered_key_id_is_refused(ring: KeyRing, contents: CertificateContents) -> None:
    other = Ed25519PrivateKey.generate()
    both = KeyRing(ring.signing_key, [other.public_key()])
    encoded = both.sign(contents)
    env = envelope(encoded)
    unknown = canonical_json({**env, "key_id": "ffffffffffffffff"})
    assert both.verify(unknown).reason == "UNKNOWN_KEY"
    swapped = canonical_json({**env, "key_id": key_id_of(other)})  # a known key that did not sign it
    assert both.verify(swapped).reason == "BAD_SIGNATURE"


def test_a_certificate_from_a_foreign_key_is_an_unknown_key(ring: KeyRing, contents: CertificateContents) -> None:
    foreign = KeyRing.generate()
    checked = ring.verify(foreign.sign(contents))
    assert (checked.valid, checked.reason, checked.key_id) == (False, "UNKNOWN_KEY", foreign.active_key_id)


# --------------------------------------------------------------------------- genuine signatures over bad contents


def test_signed_contents_are_still_checked(ring: KeyRing, contents: CertificateContents) -> None:
    """A valid signature is necessary, not sufficient: each inconsistency has its own reason."""
    good = payload_of(ring.sign(contents))
    cases: list[tuple[dict[str, Any] | bytes, str]] = [
        ({**good, "key_id": "0123456789abcdef"}, "KEY_MISMATCH"),
        ({**good, "deal": "deal-v1"}, "UNSUPPORTED_DEAL_ALGORITHM"),  # the withdrawn algorithm
        ({**good, "deal": "deal-v3"}, "UNSUPPORTED_DEAL_ALGORITHM"),
        ({**good, "commitment": "22" * 32}, "COMMITMENT_MISMATCH"),
        ({**good, "move_count": 242}, "COUNT_MISMATCH"),
        ({**good, "type": "patience-certificate/v2"}, "UNSUPPORTED_TYPE"),
        ({**good, "result": "lost"}, "MALFORMED"),
        ({k: v for k, v in good.items() if k != "undo_count"}, "MALFORMED"),
        ({**good, "extra": 1}, "MALFORMED"),
        ({**good, "move_count": True}, "MALFORMED"),
        ({**good, "started_at": "1764000000000"}, "MALFORMED"),
        ({**good, "started_at": 2**60}, "MALFORMED"),
        ({**good, "seed": "AB" * 32}, "MALFORMED"),  # hex is lowercase
        ({**good, "seed": "ab" * 31}, "MALFORMED"),
        ({**good, "moves": [1, 2]}, "MALFORMED"),
        (json.dumps(good, sort_keys=True).encode(), "MALFORMED"),  # signed, but not the canonical bytes
        (b"[1,2,3]", "MALFORMED"),
        (b"\xff\xfe", "MALFORMED"),
    ]
    for payload, reason in cases:
        checked = ring.verify(resign(ring, payload))
        assert (checked.valid, checked.reason) == (False, reason), (payload, checked)


def test_replay_refuses_a_signed_certificate_whose_moves_do_not_win(
    ring: KeyRing, contents: CertificateContents
) -> None:
    short = replace(contents, moves=contents.moves[:-1], move_count=contents.move_count - 1)
    assert ring.verify(ring.sign(short)).valid  # the signature alone does not replay
    checked = ring.verify(ring.sign(short), replay=True)
    assert (checked.valid, checked.reason) == (False, "NOT_WON")
    illegal = replace(contents, moves=("9-9", *contents.moves[1:]))
    assert ring.verify(ring.sign(illegal), replay=True).reason == "NOT_WON"
    wrong_end = replace(contents, final_state_hash="00" * 32)
    assert ring.verify(ring.sign(wrong_end), replay=True).reason == "REPLAY_MISMATCH"
    old_deal = replace(contents, deal_algorithm="deal-v1")
    assert ring.verify(ring.sign(old_deal), replay=True).reason == "UNSUPPORTED_DEAL_ALGORITHM"
    assert ring.verify(ring.sign(contents), replay=True).valid
    other_game = replace(contents, variant="no-such-game")
    assert ring.verify(ring.sign(other_game), replay=True).reason == "MALFORMED"


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"not json",
        b"[]",
        b"null",
        b'{"key_id":"x","payload":"!!!","signature":""}',
        b'{"key_id":1,"payload":"","signature":""}',
        b'{"key_id":"x","payload":"","signature":"","more":1}',
        b'{"payload":"","signature":""}',
        b"\xff" * 10,
        b"{" * 100_000,
        b" " * (5 << 20),
    ],
)
def test_garbage_is_malformed_and_never_raises(ring: KeyRing, garbage: bytes) -> None:
    checked = ring.verify(garbage)
    assert (checked.valid, checked.reason) == (False, "MALFORMED")


# --------------------------------------------------------------------------- rotation


def test_rotation_keeps_old_certificates_verifiable(contents: CertificateContents) -> None:
    old = KeyRing.generate()
    old_cert = old.sign(contents)
    assert old.signing_key is not None
    new = KeyRing(Ed25519PrivateKey.generate(), [old.signing_key.public_key()])
    assert new.active_key_id != old.active_key_id
    new_cert = new.sign(contents)
    assert envelope(new_cert)["key_id"] == new.active_key_id
    assert new.verify(old_cert).valid and new.verify(new_cert).valid
    assert [(kid, active) for kid, _, active in new.public_keys()] == [
        (new.active_key_id, True),
        (old.active_key_id, False),
    ]
    for kid, raw, _ in new.public_keys():
        assert key_id_of(raw) == kid and len(raw) == 32
    # Once the old key is dropped from the ring, its certificates are unknown here.
    assert KeyRing(new.signing_key).verify(old_cert).reason == "UNKNOWN_KEY"
    # A verifier needs only public keys.
    public_only = KeyRing(None, [Ed25519PublicKey.from_public_bytes(raw) for _, raw, _ in new.public_keys()])
    assert public_only.verify(old_cert).valid and public_only.verify(new_cert).valid
    assert public_only.active_key_id is None


# --------------------------------------------------------------------------- an independent verifier


def test_the_javascript_webcrypto_verifier_agrees(ring: KeyRing, contents: CertificateContents, tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node is not None, "node is not installed (deploy/setup.sh installs it): the WebCrypto verifier cannot run"
    encoded = ring.sign(contents)
    payload = payload_of(encoded)
    payload["undo_count"] = 0
    cases = {
        "valid": (encoded, 0, "''"),
        "tampered": (with_payload(encoded, payload), 1, "BAD_SIGNATURE"),
        "foreign": (KeyRing.generate().sign(contents), 1, "UNKNOWN_KEY"),
        "count": (resign(ring, {**payload_of(encoded), "move_count": 1}), 1, "COUNT_MISMATCH"),
        "deal-v1": (resign(ring, {**payload_of(encoded), "deal": "deal-v1"}), 1, "UNSUPPORTED_DEAL_ALGORITHM"),
    }
    assert ring.signing_key is not None
    key_arg = f"{ring.active_key_id}={base64.b64encode(raw_public_key(ring.signing_key.public_key())).decode()}"
    for name, (cert, code, reason) in cases.items():
        path = tmp_path / f"{name}.cert"
        path.write_bytes(cert)
        done = subprocess.run(
            [node, str(ROOT / "clients" / "web" / "certificate.js"), str(path), key_arg],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == code, (name, done.stdout, done.stderr)
        result = json.loads(done.stdout)
        assert result["reason"] == ("" if reason == "''" else reason), name


def test_the_web_clients_verifier_refuses_another_deal_algorithm(ring: KeyRing, contents: CertificateContents) -> None:
    """clients/web/certificate.js (the page's own check, run here under node): a genuine certificate passes, the
    same contents signed as deal-v1 are refused with UNSUPPORTED_DEAL_ALGORITHM, as by the service."""
    node = shutil.which("node")
    assert node is not None, "node is not installed (deploy/setup.sh installs it): the web client's verifier cannot run"
    assert ring.signing_key is not None
    public = base64.b64encode(raw_public_key(ring.signing_key.public_key())).decode()
    keys = [{"keyId": ring.active_key_id, "publicKey": public}]
    genuine = ring.sign(contents)
    old = resign(ring, {**payload_of(genuine), "deal": "deal-v1"})
    script = """
import { verifyCertificate } from MODULE;
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { keys, certs } = JSON.parse(input);
const out = [];
for (const c of certs) out.push((await verifyCertificate(Uint8Array.from(atob(c), (x) => x.charCodeAt(0)), keys)));
console.log(JSON.stringify(out.map((r) => [r.valid, r.reason])));
""".replace("MODULE", json.dumps((ROOT / "clients" / "web" / "certificate.js").as_uri()))
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"keys": keys, "certs": [base64.b64encode(c).decode() for c in (genuine, old)]}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[True, ""], [False, "UNSUPPORTED_DEAL_ALGORITHM"]]
    assert ring.verify(old).reason == "UNSUPPORTED_DEAL_ALGORITHM"


@pytest.mark.parametrize("played", ["moves", "submitted"])
def test_a_certificate_says_how_the_win_was_played(ring: KeyRing, contents: CertificateContents, played: str) -> None:
    from dataclasses import replace

    encoded = ring.sign(replace(contents, played=played))
    checked = verify_certificate(encoded, ring, replay=True)
    assert checked.valid and checked.contents is not None and checked.contents.played == played
    from patience_client.certificates import verify_certificate as client_verify

    public = {ring.active_key_id: ring.public_keys()[0][1]}
    assert client_verify(encoded, public, replay=False).contents.played == played  # type: ignore[union-attr]


def test_a_certificate_without_played_still_verifies_and_a_bad_value_is_malformed(
    ring: KeyRing, contents: CertificateContents
) -> None:
    older = ring.sign(contents)  # signed as before the field existed: no "played" at all
    assert b"played" not in base64.b64decode(envelope(older)["payload"])
    checked = verify_certificate(older, ring)
    assert checked.valid and checked.contents is not None and checked.contents.played == ""
    payload = json.loads(base64.b64decode(envelope(older)["payload"]))
    for bad in ("", "guessed", 1):
        forged = resign(ring, {**payload, "played": bad})
        assert verify_certificate(forged, ring).reason == "MALFORMED"
    with pytest.raises(ValueError):
        ring.sign(replace_played(contents, "guessed"))


def replace_played(contents: CertificateContents, played: str) -> CertificateContents:
    from dataclasses import replace

    return replace(contents, played=played)
