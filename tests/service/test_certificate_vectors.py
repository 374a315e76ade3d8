"""The shared certificate vectors (docs/certificate-vectors/): fresh, and every verifier here agrees with them.

The verifiers: patience.certificates with the service's key ring, and with raw public keys through the Python
client (patience_client), the reference JavaScript verifier clients/web/certificate.js (under node), and the
engine, which replays the certified moves and recomputes final_state_hash from the documented encoding.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from patience.certificates import canonical_json, key_id_of, verify_certificate
from patience.seeds import mixed_from
from patience_client.certificates import verify_certificate as client_verify

from engine import get_game
from engine.catalogue import VARIANT_IDS
from engine.deal import shuffled_deck
from engine.encoding import decode_state, encode_state, state_hash
from engine.verify import replay
from service.security.signing import KeyRing
from service.security.tokens import mix_seed as service_mix

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "docs" / "certificate-vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@cache
def tampered() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = load("tampered.json")
    return cases


def cert_bytes(case: dict[str, Any]) -> bytes:
    text: str = case["certificate"]
    return base64.b64decode(text) if case["certificate_is_base64"] else text.encode()


def public_keys() -> dict[str, bytes]:
    return {k["keyId"]: base64.b64decode(k["publicKey"]) for k in load("signing-keys.json")["keys"]}


def ring() -> KeyRing:
    return KeyRing(None, [Ed25519PublicKey.from_public_bytes(raw) for raw in public_keys().values()])


def node() -> str:
    path = shutil.which("node")
    assert path is not None, "node is not installed (deploy/setup.sh installs it): the JavaScript verifiers cannot run"
    return path


# --------------------------------------------------------------------------- the files themselves


def test_the_vectors_are_what_the_tool_writes() -> None:
    done = subprocess.run(
        [sys.executable, "tools/certificate_vectors.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"regenerate with tools/certificate_vectors.py: {done.stderr}"


def test_the_published_test_keys_are_the_signing_keys() -> None:
    keys = load("TEST-ONLY-private-keys.json")["keys"]
    published = public_keys()
    for i, k in enumerate(keys):
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(k["private_key_hex"]))
        assert key_id_of(private) == k["key_id"]
        public = base64.b64decode(k["public_key_base64"])
        assert published.get(k["key_id"], public) == public == private.public_key().public_bytes_raw()
        assert (k["key_id"] in published) == (i == 0)  # the second key is the foreign one
        assert (
            hashlib.sha256(k["derived_from"].removeprefix("SHA-256 of this text: ").encode()).hexdigest()
            == k["private_key_hex"]
        )


def test_the_layers_peel_off_as_documented() -> None:
    """REST JSON: base64 of the certificate's text; the certificate's payload: base64 of the payload bytes."""
    certificate = (VECTORS / "certificate.json").read_bytes()
    assert base64.b64decode(load("certificate.rest.json")["encoded"]) == certificate
    envelope = json.loads(certificate)
    payload = base64.b64decode(envelope["payload"], validate=True)
    assert payload == (VECTORS / "payload.json").read_bytes()
    assert json.loads(payload) == load("decoded.json")
    assert canonical_json(json.loads(payload)) == payload
    assert canonical_json(envelope) == certificate
    raw = public_keys()[envelope["key_id"]]
    Ed25519PublicKey.from_public_bytes(raw).verify(base64.b64decode(envelope["signature"]), payload)
    assert hashlib.sha256(raw).hexdigest()[:16] == envelope["key_id"]


def test_the_canonical_json_escapes() -> None:
    for case in load("canonical-json.json"):
        assert canonical_json(case["text"]).hex() == case["canonical_hex"]
        assert json.loads(bytes.fromhex(case["canonical_hex"])) == case["text"]


# --------------------------------------------------------------------------- the position behind final_state_hash


def test_the_engine_recomputes_the_final_state_hash_from_a_replay() -> None:
    fields = load("decoded.json")
    final = load("final-state.json")
    game = get_game(fields["variant"], fields["options"])
    result = replay(game, game.deal(bytes.fromhex(fields["seed"])), fields["moves"])
    assert result.verdict.outcome.value == "won"
    assert [m.text() for m in result.moves] == fields["moves"]  # the certified moves are already explicit
    encoded = encode_state(game, result.state)
    assert encoded.hex() == final["encoding_hex"] == "".join(row.split()[0] for row in final["layout"])
    assert hashlib.sha256(encoded).hexdigest() == final["state_hash"] == fields["final_state_hash"]
    assert decode_state(encoded) == (game, result.state)


def test_the_opening_positions_of_every_variant() -> None:
    positions = load("positions.json")
    assert [p["variant"] for p in positions] == list(VARIANT_IDS)
    for index, p in enumerate(positions):
        game = get_game(p["variant"])
        state = game.deal(bytes.fromhex(p["seed"]))
        encoded = encode_state(game, state)
        assert encoded.hex() == p["encoding_hex"] and p["variant_index"] == index == encoded[2]
        assert hashlib.sha256(encoded).hexdigest() == p["state_hash"] == state_hash(game, state)
        assert decode_state(encoded) == (game, state)


def test_the_queen_row_is_the_queens_in_shuffled_order() -> None:
    """Salic law's fixed row: the 8 queens in the order they lie in the shuffled deck (deal-v2 steps 1-5), top
    first; they are never dealt (docs/certificates.md, "Layout")."""
    for p in load("positions.json"):
        if p["variant"] not in ("tribunal", "picture-gallery"):
            continue
        game = get_game(p["variant"])
        deck = shuffled_deck(bytes.fromhex(p["seed"]), game.id, game.info.deck_size)
        queens = [card for card in deck if card % 13 == 11]  # byte = suit * 13 + rank - 1: a queen's is 11 mod 13
        assert len(queens) == 8
        assert bytes.fromhex(p["encoding_hex"]).endswith(bytes([8, *queens]))  # the fixed row closes the encoding


@pytest.mark.parametrize("p", load("played-positions.json"), ids=lambda p: f"{p['variant']}-{len(p['moves'])}")
def test_the_redeals_and_fresh_bytes_mean_what_the_layout_says(p: dict[str, Any]) -> None:
    """``redeals`` is the number of rd moves; picture-gallery's ``fresh`` says the newest column has had no card from
    the stock since its king came out (the deal, an rd, or a d that dealt a king), whatever was moved onto it."""
    game = get_game(p["variant"])
    start = game.deal(bytes.fromhex(p["seed"]))
    result = replay(game, start, p["moves"])
    assert result.verdict.error_index is None
    encoded = encode_state(game, result.state)
    assert encoded.hex() == p["encoding_hex"] and hashlib.sha256(encoded).hexdigest() == p["state_hash"]
    at = 4 + encoded[3]
    assert encoded[at] == p["redeals"] == p["moves"].count("rd")
    deals = [i for i, m in enumerate(p["moves"]) if m in ("d", "rd")]
    if p["variant"] != "picture-gallery":
        fresh = 0
    elif not deals or p["moves"][deals[-1]] == "rd":
        fresh = 1
    else:  # the last d: did it start a column (a king), or put a card from the stock on the newest one?
        before = replay(game, start, p["moves"][: deals[-1]]).state
        fresh = int(len(replay(game, before, ["d"]).state.columns) > len(before.columns))
    assert encoded[at + 1] == p["fresh"] == fresh, p["why"]


def test_the_played_positions_show_fresh_is_not_lone_king() -> None:
    """The file holds a fresh newest column that is no lone king, and a lone king that is not fresh."""
    shown = set()
    for p in load("played-positions.json"):
        game = get_game(p["variant"])
        newest = replay(game, game.deal(bytes.fromhex(p["seed"])), p["moves"]).state.columns
        if p["variant"] == "picture-gallery":
            shown.add((p["fresh"], len(newest[-1]) == 1))
    assert {(1, False), (0, True), (1, True), (0, False)} <= shown


# --------------------------------------------------------------------------- every verifier, every vector


def test_the_tampered_set_covers_every_reason_code() -> None:
    reasons = {c["reason"] for c in tampered()} | {c["reason_with_replay"] for c in tampered()}
    assert reasons == {
        "",
        "MALFORMED",
        "UNSUPPORTED_TYPE",
        "UNKNOWN_KEY",
        "BAD_SIGNATURE",
        "KEY_MISMATCH",
        "COMMITMENT_MISMATCH",
        "COUNT_MISMATCH",
        "UNSUPPORTED_DEAL_ALGORITHM",
        "NOT_WON",
        "REPLAY_MISMATCH",
    }


@pytest.mark.parametrize("case", tampered(), ids=lambda c: str(c["name"]))
def test_the_service_agrees(case: dict[str, Any]) -> None:
    keys = ring()
    assert verify_certificate(cert_bytes(case), keys).reason == case["reason"]
    assert verify_certificate(cert_bytes(case), keys, replay=True).reason == case["reason_with_replay"]


@pytest.mark.parametrize("case", tampered(), ids=lambda c: str(c["name"]))
def test_the_python_client_agrees(case: dict[str, Any]) -> None:
    keys = public_keys()
    assert client_verify(cert_bytes(case), keys).reason == case["reason"]
    assert client_verify(cert_bytes(case), keys, replay=True).reason == case["reason_with_replay"]


def run_js(module: Path, call: str) -> list[list[Any]]:
    """Every vector through ``module``'s verifyCertificate under node: [[valid, reason], ...]."""
    script = f"""
import {{ verifyCertificate }} from {json.dumps(module.as_uri())};
import {{ readFileSync }} from "node:fs";
const dir = {json.dumps(str(VECTORS))};
const cases = JSON.parse(readFileSync(dir + "/tampered.json", "utf8"));
const keyList = JSON.parse(readFileSync(dir + "/signing-keys.json", "utf8")).keys;
const bytes = (c) => c.certificate_is_base64 ? Uint8Array.from(atob(c.certificate), (x) => x.charCodeAt(0))
                                             : new TextEncoder().encode(c.certificate);
const out = [];
for (const c of cases) {{ const r = await {call}; out.push([r.valid, r.reason]); }}
console.log(JSON.stringify(out));
"""
    done = subprocess.run(
        [node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    verdicts: list[list[Any]] = json.loads(done.stdout)
    return verdicts


@pytest.mark.parametrize("keys", ["published-list", "raw-map"])
def test_the_javascript_verifier_agrees(keys: str) -> None:
    """clients/web/certificate.js, the project's one JavaScript verifier (the page's, and the docs'), with the
    keys as GetSigningKeys lists them and as a map of raw keys."""
    if keys == "published-list":
        call = "verifyCertificate(bytes(c), keyList)"
    else:
        call = (
            "verifyCertificate(bytes(c), Object.fromEntries(keyList.map((k) => "
            "[k.keyId, Uint8Array.from(atob(k.publicKey), (x) => x.charCodeAt(0))])))"
        )
    verdicts = run_js(ROOT / "clients" / "web" / "certificate.js", call)
    names = [c["name"] for c in tampered()]
    expected = [[c["reason"] == "", c["reason"]] for c in tampered()]
    assert dict(zip(names, verdicts, strict=True)) == dict(zip(names, expected, strict=True))


def test_javascript_writes_strings_as_canonical_json_does() -> None:
    """The reference verifier re-serialises with JSON.stringify: it must escape exactly as the signer does."""
    script = f"""
import {{ readFileSync }} from "node:fs";
const cases = JSON.parse(readFileSync({json.dumps(str(VECTORS / "canonical-json.json"))}, "utf8"));
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
console.log(JSON.stringify(cases.map((c) => hex(new TextEncoder().encode(JSON.stringify(c.text))))));
"""
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [c["canonical_hex"] for c in load("canonical-json.json")]


# --------------------------------------------------------------------------- the client-seed mix


def test_the_seed_mix_vectors_hold_in_python() -> None:
    """patience.seeds (the service mixes with it, the Python client checks with it) on the shared vectors."""
    for case in load("seed-mix.json"):
        server, client, seed, committed = (
            base64.b64decode(case[k])
            for k in ("server_seed_base64", "client_seed_base64", "seed_base64", "server_commitment_base64")
        )
        assert mixed_from(seed, server, client, committed) is case["mixed"], case["name"]
        if case["mixed"]:
            assert service_mix(server, client) == seed, case["name"]


def test_the_seed_mix_vectors_hold_in_javascript() -> None:
    """clients/web/certificate.js's checkMix (the page checks a client-seeded deal with it) on the same vectors."""
    module = ROOT / "clients" / "web" / "certificate.js"
    script = f"""
import {{ checkMix }} from {json.dumps(module.as_uri())};
import {{ readFileSync }} from "node:fs";
const cases = JSON.parse(readFileSync({json.dumps(str(VECTORS / "seed-mix.json"))}, "utf8"));
const out = [];
for (const c of cases) {{
  const r = await checkMix(c.server_seed_base64, c.client_seed_base64, c.seed_base64, c.server_commitment_base64);
  out.push(r.ok);
}}
console.log(JSON.stringify(out));
"""
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [c["mixed"] for c in load("seed-mix.json")]


# --------------------------------------------------------------------------- a ranked win, and whole boards


def test_the_ranked_certificate_names_its_player_and_board_to_every_verifier() -> None:
    """certificate-ranked.json: the vectors' win re-signed as a signed-in player's ranked win of a daily deal; the
    anonymous certificate.json keeps the bytes it had before player and board existed."""
    ranked = (VECTORS / "certificate-ranked.json").read_bytes()
    decoded = load("decoded-ranked.json")
    assert decoded["player"] == {"display_name": "Ада", "id": "p_" + "a2" * 13}
    assert decoded["board"] == "daily-cats-tail-2026-01-01" and decoded["dealt"] == "daily"
    anonymous = load("decoded.json")
    assert "player" not in anonymous and "board" not in anonymous
    assert {k: v for k, v in decoded.items() if k not in ("player", "board", "dealt")} == {
        k: v for k, v in anonymous.items() if k != "dealt"
    }
    for checked in (verify_certificate(ranked, ring(), replay=True), client_verify(ranked, public_keys(), replay=True)):
        assert checked.valid and checked.contents is not None
        assert (checked.contents.player_id, checked.contents.player_name) == ("p_" + "a2" * 13, "Ада")
        assert checked.contents.board == "daily-cats-tail-2026-01-01"
    script = f"""
import {{ verifyCertificate }} from {json.dumps((ROOT / "clients" / "web" / "certificate.js").as_uri())};
import {{ readFileSync }} from "node:fs";
const keys = JSON.parse(readFileSync({json.dumps(str(VECTORS / "signing-keys.json"))}, "utf8")).keys;
const r = await verifyCertificate(readFileSync({json.dumps(str(VECTORS / "certificate-ranked.json"))}), keys);
console.log(JSON.stringify([r.valid, r.contents.player, r.contents.board]));
"""
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, decoded["player"], decoded["board"]]


def board_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = load("leaderboard.json")["cases"]
    return cases


@pytest.mark.parametrize("case", board_cases(), ids=lambda c: str(c["name"]))
def test_the_python_board_check_agrees(case: dict[str, Any]) -> None:
    from google.protobuf import json_format
    from patience.leaderboards import check_leaderboard
    from patience.v1 import patience_pb2 as pb

    board = json_format.ParseDict(case["board"], pb.GetLeaderboardResponse())
    checked = check_leaderboard(board, public_keys())
    assert (checked.reason, [e.reason for e in checked.entries]) == (case["reason"], case["entries"])
    assert checked.valid is (case["reason"] == "" and not any(case["entries"]))


def test_the_javascript_board_check_agrees() -> None:
    """clients/web/leaderboard.js under node, on every board of leaderboard.json (the browser test runs it in
    Chromium too)."""
    module = ROOT / "clients" / "web" / "leaderboard.js"
    script = f"""
import {{ checkLeaderboard }} from {json.dumps(module.as_uri())};
import {{ readFileSync }} from "node:fs";
const cases = JSON.parse(readFileSync({json.dumps(str(VECTORS / "leaderboard.json"))}, "utf8")).cases;
const keys = JSON.parse(readFileSync({json.dumps(str(VECTORS / "signing-keys.json"))}, "utf8")).keys;
const out = [];
for (const c of cases) {{
  const r = await checkLeaderboard(c.board, keys);
  out.push([r.reason, r.entries.map((e) => e.reason)]);
}}
console.log(JSON.stringify(out));
"""
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[c["reason"], c["entries"]] for c in board_cases()]


def test_the_board_vectors_cover_every_board_reason() -> None:
    from patience.leaderboards import BoardReason

    seen = {c["reason"] for c in board_cases()} | {r for c in board_cases() for r in c["entries"]}
    assert {r.value for r in BoardReason} <= seen
