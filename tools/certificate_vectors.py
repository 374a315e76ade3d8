"""Write the shared certificate test vectors of docs/certificate-vectors/ (deterministic: same bytes every run).

    .venv/bin/python tools/certificate_vectors.py            # rewrite the files
    .venv/bin/python tools/certificate_vectors.py --check    # exit 1 if a file is not what this tool writes

The certificate is a real win (a Freecell Solver solution of cats-tail, tests/data/fcs) signed with a test key
derived from a published text: its private half is in the vectors on purpose, so that anyone can re-sign tampered
payloads. No service ever signs with it. tests/service/test_certificate_vectors.py checks every verifier in the
repository against these files, and that they are fresh. The parts are written by the modules beside it:
vector_keys.py (the test keys), certificate_faults.py and certificate_readings.py (tampered.json),
position_vectors.py (the positions) and leaderboard_vectors.py (leaderboard.json).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from patience.certificates import CertificateContents, canonical_json, key_id_of, raw_public_key
from patience.seeds import mix_seed
from patience.v1 import patience_pb2 as pb

from engine import get_game
from engine.encoding import encode_state, state_hash
from engine.game import Game, format_option
from engine.moves import split_moves
from engine.state import State
from engine.verify import replay
from service.security.signing import KeyRing

sys.path.insert(0, str(Path(__file__).resolve().parent))
from certificate_faults import ranked, tampered
from certificate_readings import one_reading
from leaderboard_vectors import leaderboards
from position_vectors import layout, played_positions, positions
from vector_keys import FOREIGN_KEY_TEXT, TEST_KEY_TEXT, b64, envelope, test_key

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "certificate-vectors"
FIXTURE = ROOT / "tests/data/fcs/cats-tail-257c14e06afb0502d3246a7228c26c637cd570a3e4a0b73ab45b7714b074c0be.txt"
VARIANT = "cats-tail"
SEED = bytes.fromhex(FIXTURE.stem.removeprefix(VARIANT + "-"))


def the_win() -> tuple[Game, State, CertificateContents]:
    game = get_game(VARIANT)
    result = replay(game, game.deal(SEED), split_moves(FIXTURE.read_text()))
    assert result.verdict.outcome.value == "won", result.verdict.describe()
    contents = CertificateContents(
        game_id="vector-game-1",
        variant=VARIANT,
        options={name: format_option(value) for name, value in game.options.items()},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=tuple(m.text() for m in result.moves),
        move_count=len(result.moves),
        undo_count=0,
        started_at=1_767_225_600_000,  # 2026-01-01T00:00:00Z
        finished_at=1_767_226_512_345,
        ticket_id="",
        final_state_hash=state_hash(game, result.state),
        played="moves",
        dealt="random",
        deal_number=0,
        hints=2,
    )
    return game, result.state, contents


#: Strings and their canonical JSON (what canonical_json writes): the escaping a verifier must reproduce.
ESCAPES = [
    "plain",
    'quote " and backslash \\',
    "slash / stays",
    "\b\f\n\r\t",
    "\x00\x01\x1f",
    "\x7f",
    "é",
    "Пасьянс",
    "€",
    "\u2028\u2029",
    "🂡",
]


def build() -> dict[str, bytes]:
    """Every vector file by name, as bytes."""
    signer, foreign = test_key(TEST_KEY_TEXT), test_key(FOREIGN_KEY_TEXT)
    game, final, contents = the_win()
    ring = KeyRing(signer)
    genuine = ring.sign(contents)
    payload = contents.payload(key_id_of(signer))
    kid = key_id_of(signer)
    ranked_payload = canonical_json(ranked(json.loads(payload)))
    ranked_certificate = envelope(signer, ranked_payload)

    def text(value: object) -> bytes:
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()

    rest = json_format.MessageToDict(pb.Certificate(encoded=genuine, key_id=kid), preserving_proto_field_name=False)
    files = {
        "certificate.json": genuine,
        "certificate.rest.json": text(rest),
        "payload.json": payload,
        "decoded.json": text(json.loads(payload)),
        "signing-keys.json": text(
            {
                "keys": [
                    {
                        "keyId": kid,
                        "algorithm": "Ed25519",
                        "publicKey": b64(raw_public_key(signer.public_key())),
                        "active": True,
                    }
                ]
            }
        ),
        "TEST-ONLY-private-keys.json": text(
            {
                "warning": "published test keys: never trust anything signed with them",
                "keys": [
                    {
                        "derived_from": "SHA-256 of this text: " + source,
                        "key_id": key_id_of(key),
                        "private_key_hex": hashlib.sha256(source.encode()).hexdigest(),
                        "public_key_base64": b64(raw_public_key(key.public_key())),
                    }
                    for source, key in ((TEST_KEY_TEXT, signer), (FOREIGN_KEY_TEXT, foreign))
                ],
            }
        ),
        "final-state.json": text(
            {
                "variant": game.id,
                "encoding_hex": encode_state(game, final).hex(),
                "state_hash": state_hash(game, final),
                "layout": layout(game, final),
            }
        ),
        "positions.json": text(positions()),
        "played-positions.json": text(played_positions()),
        "canonical-json.json": text([{"text": s, "canonical_hex": canonical_json(s).hex()} for s in ESCAPES]),
        "tampered.json": text(tampered(signer, foreign, genuine) + one_reading(signer, genuine)),
        "certificate-ranked.json": ranked_certificate,
        "leaderboard.json": text(leaderboards(ring, contents)),
        "decoded-ranked.json": text(json.loads(ranked_payload)),
        "seed-mix.json": text(seed_mixes()),
    }
    return files


def seed_mixes() -> list[dict[str, Any]]:
    """The client-seed mix (patience.seeds, docs/fairness.md) on seeds of every length a client may send (1 to
    64 bytes), and its neighbours that must not check: another client seed, a server seed not committed to."""
    out: list[dict[str, Any]] = []
    for i, client_seed in enumerate([b"\x00", b"my own luck", "удача".encode(), bytes(range(64))]):
        server_seed = hashlib.sha256(b"seed-mix vector %d" % i).digest()
        out.append({
            "name": f"mix {i}",
            "server_seed_base64": b64(server_seed),
            "client_seed_base64": b64(client_seed),
            "server_commitment_base64": b64(hashlib.sha256(server_seed).digest()),
            "seed_base64": b64(mix_seed(server_seed, client_seed)),
            "mixed": True,
        })  # fmt: skip
    first = out[0]
    out.append(first | {"name": "another client seed", "client_seed_base64": b64(b"\x01"), "mixed": False})
    other = b64(hashlib.sha256(b"other").digest())
    out.append(first | {"name": "a server seed not committed to", "server_commitment_base64": other, "mixed": False})
    return out


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [
            name for name, data in files.items() if not (OUT / name).is_file() or (OUT / name).read_bytes() != data
        ]
        for name in stale:
            print(f"stale: docs/certificate-vectors/{name}", file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
