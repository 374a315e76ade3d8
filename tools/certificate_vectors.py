"""Write the shared certificate test vectors of docs/certificate-vectors/ (deterministic: same bytes every run).

    .venv/bin/python tools/certificate_vectors.py            # rewrite the files
    .venv/bin/python tools/certificate_vectors.py --check    # exit 1 if a file is not what this tool writes

The certificate is a real win (a Freecell Solver solution of cats-tail, tests/data/fcs) signed with a test key
derived from a published text: its private half is in the vectors on purpose, so that anyone can re-sign tampered
payloads. No service ever signs with it. tests/service/test_certificate_vectors.py checks every verifier in the
repository against these files, and that they are fresh.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf import json_format
from patience.certificates import CertificateContents, canonical_json, key_id_of, raw_public_key
from patience.seeds import mix_seed
from patience.v1 import patience_pb2 as pb

from engine import get_game
from engine.catalogue import GAME_CLASSES, variant_index
from engine.encoding import encode_state, state_hash
from engine.game import Game, format_option
from engine.moves import PileKind, split_moves
from engine.state import State
from engine.verify import replay
from service.security.signing import KeyRing

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_vectors import leaderboards

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "certificate-vectors"
FIXTURE = ROOT / "tests/data/fcs/cats-tail-257c14e06afb0502d3246a7228c26c637cd570a3e4a0b73ab45b7714b074c0be.txt"
VARIANT = "cats-tail"
SEED = bytes.fromhex(FIXTURE.stem.removeprefix(VARIANT + "-"))

#: The published test keys: private halves derived from these texts (SHA-256), never used by any service.
TEST_KEY_TEXT = "patience certificate test vectors: PUBLISHED TEST KEY, never sign a real game with it"
FOREIGN_KEY_TEXT = "patience certificate test vectors: a second published test key, not in signing-keys.json"


def test_key(text: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(text.encode()).digest())


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def envelope(key: Ed25519PrivateKey, payload: bytes, *, key_id: str | None = None) -> bytes:
    """A certificate over exactly ``payload``, genuinely signed by ``key``."""
    return canonical_json(
        {"key_id": key_id or key_id_of(key), "payload": b64(payload), "signature": b64(key.sign(payload))}
    )


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


def layout(game: Game, state: State) -> list[str]:
    """The encoding cut into its fields: "hex  meaning" rows, in order (docs/certificates.md, "The position")."""
    opts = game.options_text().encode("ascii")
    rows = [
        ["5031", "magic 'P1'"],
        [f"{variant_index(game.id):02x}", f"variant index {variant_index(game.id)} ({game.id})"],
        [f"{len(opts):02x}" + opts.hex(), f"options text {game.options_text()!r} (length byte, ASCII)"],
        [f"{state.redeals:02x}", "redeals used"],
        [f"{int(state.fresh):02x}", "fresh flag"],
    ]

    def pile(cards: tuple[int, ...]) -> str:
        return f"{len(cards):02x}" + bytes(255 if c < 0 else c for c in cards).hex()

    for name, group in (("columns", state.columns), ("foundations", state.foundations)):
        rows.append([f"{len(group):02x}", f"{name}: {len(group)} piles"])
        rows += [[pile(p), f"{name}[{i}]: {len(p)} cards"] for i, p in enumerate(group)]
    for name, flat in (
        ("cells", state.cells),
        ("stock", state.stock),
        ("waste", state.waste),
        ("captives", state.captives),
        ("fixed", state.fixed),
    ):
        rows.append([pile(flat), f"{name}: {len(flat)} entries"])
    assert "".join(r[0] for r in rows) == encode_state(game, state).hex()
    return [f"{h}  {meaning}" for h, meaning in rows]


def tampered(signer: Ed25519PrivateKey, foreign: Ed25519PrivateKey, genuine: bytes) -> list[dict[str, Any]]:
    """Certificates that must be refused, one fault each, with the reason code every verifier must give."""
    env = json.loads(genuine)
    payload = base64.b64decode(env["payload"])
    fields = json.loads(payload)
    kid = key_id_of(signer)
    out: list[dict[str, Any]] = []

    def add(name: str, what: str, cert: bytes, reason: str, replay_reason: str | None = None) -> None:
        out.append(
            {
                "name": name,
                "what": what,
                "certificate": cert.decode("utf-8", errors="surrogateescape") if cert.isascii() else b64(cert),
                "certificate_is_base64": not cert.isascii(),
                "reason": reason,
                "reason_with_replay": reason if replay_reason is None else replay_reason,
            }
        )

    def signed(what: dict[str, Any]) -> bytes:
        return envelope(signer, canonical_json(what))

    def without(name: str) -> dict[str, Any]:
        return {k: v for k, v in fields.items() if k != name}

    add("genuine", "the certificate as issued", genuine, "")
    add(
        "no-played",
        "signed without the optional played field (certificates from before it existed)",
        signed(without("played")),
        "",
    )
    add(
        "no-hints",
        "signed without the optional hints field (certificates from before it existed)",
        signed(without("hints")),
        "",
    )
    add(
        "no-dealt",
        "signed without the optional dealt and deal_number fields (certificates from before they existed)",
        signed({k: v for k, v in fields.items() if k not in ("dealt", "deal_number")}),
        "",
    )
    for dealt, number in (("ticket", 0), ("winnable", 0), ("replay", 0), ("public", 1), ("public", (1 << 32) - 1)):
        add(
            f"dealt-{dealt}-{number}",
            f"dealt {dealt!r}, deal_number {number} (re-signed)",
            signed({**fields, "dealt": dealt, "deal_number": number}),
            "",
        )
    out += _players_and_boards(signed, fields)
    flipped = bytearray(payload)
    flipped[payload.index(b'"undo_count":0') + len('"undo_count":')] = ord("1")
    add(
        "payload-changed",
        "undo_count 0 -> 1 in the payload, the original signature kept",
        canonical_json({**env, "payload": b64(bytes(flipped))}),
        "BAD_SIGNATURE",
    )
    sig = bytearray(base64.b64decode(env["signature"]))
    sig[0] ^= 1
    add(
        "signature-changed",
        "one bit of the signature flipped",
        canonical_json({**env, "signature": b64(bytes(sig))}),
        "BAD_SIGNATURE",
    )
    add(
        "foreign-key",
        "genuinely signed by a key that is not published",
        envelope(foreign, payload, key_id=key_id_of(foreign)),
        "UNKNOWN_KEY",
    )
    add(
        "key-id-changed",
        "the envelope's key_id replaced by an unknown id",
        canonical_json({**env, "key_id": "0" * 16}),
        "UNKNOWN_KEY",
    )
    add(
        "key-mismatch",
        "the payload names another key than the envelope (re-signed)",
        signed({**fields, "key_id": key_id_of(foreign)}),
        "KEY_MISMATCH",
    )
    add("not-json", "not JSON", b"{key_id:", "MALFORMED")
    add("envelope-extra-field", "the envelope has a fourth field", canonical_json({**env, "note": "x"}), "MALFORMED")
    add(
        "envelope-missing-field",
        "the envelope lacks its signature",
        canonical_json({"key_id": env["key_id"], "payload": env["payload"]}),
        "MALFORMED",
    )
    add(
        "payload-not-base64",
        "the payload is not base64",
        canonical_json({**env, "payload": "*" + env["payload"]}),
        "MALFORMED",
    )
    add(
        "signature-base64-unpadded",
        "the signature's base64 without its '==' padding",
        canonical_json({**env, "signature": env["signature"].rstrip("=")}),
        "MALFORMED",
    )
    url = env["signature"].replace("+", "-").replace("/", "_")
    assert url != env["signature"], "the signature has no '+' or '/' to turn URL-safe"
    add(
        "signature-base64url",
        "the signature in the URL-safe base64 alphabet ('-' and '_' for '+' and '/')",
        canonical_json({**env, "signature": url}),
        "MALFORMED",
    )
    add(
        "payload-not-canonical",
        "the payload with a space after a colon (re-signed)",
        envelope(signer, payload.replace(b'"result":"won"', b'"result": "won"')),
        "MALFORMED",
    )
    add(
        "payload-escaped",
        "a string written with a needless \\u escape (re-signed)",
        envelope(signer, payload.replace(b'"result":"won"', b'"result":"\\u0077on"')),
        "MALFORMED",
    )
    add(
        "payload-lone-surrogate",
        "game_id as the escape of a lone surrogate, which has no UTF-8 form (re-signed)",
        envelope(signer, payload.replace(b'"game_id":"vector-game-1"', b'"game_id":"\\ud800"')),
        "MALFORMED",
    )
    add(
        "payload-key-order",
        "the payload's first two keys swapped (re-signed)",
        envelope(signer, _swap_first_keys(payload)),
        "MALFORMED",
    )
    add(
        "unknown-field",
        "the payload has a field v1 does not define (re-signed)",
        signed({**fields, "extra": "x"}),
        "MALFORMED",
    )
    add("missing-field", "the payload lacks ticket_id (re-signed)", signed(without("ticket_id")), "MALFORMED")
    add(
        "field-type",
        "move_count as text (re-signed)",
        signed({**fields, "move_count": str(fields["move_count"])}),
        "MALFORMED",
    )
    add(
        "integer-as-float",
        "undo_count written 0.0 (re-signed)",
        envelope(signer, payload.replace(b'"undo_count":0', b'"undo_count":0.0')),
        "MALFORMED",
    )
    add(
        "integer-too-large",
        "started_at beyond 2**53-1 (re-signed)",
        signed({**fields, "started_at": 1 << 53}),
        "MALFORMED",
    )
    add("result-not-won", "result 'lost' (re-signed)", signed({**fields, "result": "lost"}), "MALFORMED")
    add("played-unknown", "played 'solved' (re-signed)", signed({**fields, "played": "solved"}), "MALFORMED")
    add("dealt-unknown", "dealt 'shuffled' (re-signed)", signed({**fields, "dealt": "shuffled"}), "MALFORMED")
    add("dealt-empty", "dealt '' (re-signed)", signed({**fields, "dealt": ""}), "MALFORMED")
    add("dealt-not-text", "dealt as a number (re-signed)", signed({**fields, "dealt": 1}), "MALFORMED")
    add("dealt-alone", "dealt without deal_number (re-signed)", signed(without("deal_number")), "MALFORMED")
    add("deal-number-alone", "deal_number without dealt (re-signed)", signed(without("dealt")), "MALFORMED")
    add(
        "deal-number-not-public",
        "dealt 'random' with deal_number 5 (re-signed)",
        signed({**fields, "deal_number": 5}),
        "MALFORMED",
    )
    add(
        "public-number-zero",
        "dealt 'public' with deal_number 0 (re-signed)",
        signed({**fields, "dealt": "public", "deal_number": 0}),
        "MALFORMED",
    )
    add(
        "public-number-too-large",
        "dealt 'public' with deal_number 2**32 (re-signed)",
        signed({**fields, "dealt": "public", "deal_number": 1 << 32}),
        "MALFORMED",
    )
    add(
        "deal-number-as-text",
        "dealt 'public' with deal_number '7' (re-signed)",
        signed({**fields, "dealt": "public", "deal_number": "7"}),
        "MALFORMED",
    )
    add("hints-negative", "hints -1 (re-signed)", signed({**fields, "hints": -1}), "MALFORMED")
    add("hints-text", "hints written as text '2' (re-signed)", signed({**fields, "hints": "2"}), "MALFORMED")
    add(
        "seed-uppercase",
        "the seed in upper-case hex (re-signed)",
        signed({**fields, "seed": fields["seed"].upper(), "commitment": fields["commitment"]}),
        "MALFORMED",
    )
    add("seed-short", "a 31-byte seed (re-signed)", signed({**fields, "seed": fields["seed"][:62]}), "MALFORMED")
    add(
        "unknown-type",
        "type patience-certificate/v2 (re-signed)",
        signed({**fields, "type": "patience-certificate/v2"}),
        "UNSUPPORTED_TYPE",
    )
    add(
        "unknown-type-not-canonical",
        "type patience-certificate/v2 in a payload not in canonical form (re-signed): the form is checked first",
        envelope(signer, payload.replace(b'"type":"patience-certificate/v1"', b'"type": "patience-certificate/v2"')),
        "MALFORMED",
    )
    add(
        "deal-v1",
        "the withdrawn deal-v1 (re-signed)",
        signed({**fields, "deal": "deal-v1"}),
        "UNSUPPORTED_DEAL_ALGORITHM",
    )
    add(
        "deal-unknown",
        "a deal algorithm nobody knows (re-signed)",
        signed({**fields, "deal": "deal-v9"}),
        "UNSUPPORTED_DEAL_ALGORITHM",
    )
    add(
        "commitment-mismatch",
        "the commitment of another seed (re-signed)",
        signed({**fields, "commitment": hashlib.sha256(bytes(32)).hexdigest()}),
        "COMMITMENT_MISMATCH",
    )
    add(
        "count-mismatch",
        "move_count one more than the moves (re-signed)",
        signed({**fields, "move_count": fields["move_count"] + 1}),
        "COUNT_MISMATCH",
    )
    short = fields["moves"][:-1]
    add(
        "not-won",
        "the last move dropped, move_count to match (re-signed): valid unless replayed",
        signed({**fields, "moves": short, "move_count": len(short)}),
        "",
        "NOT_WON",
    )
    add(
        "final-hash-mismatch",
        "final_state_hash of another position (re-signed): valid unless replayed",
        signed({**fields, "final_state_hash": hashlib.sha256(b"another position").hexdigest()}),
        "",
        "REPLAY_MISMATCH",
    )
    out += _one_reading(signer, genuine)
    assert kid == fields["key_id"]
    return out


#: The signed-in player and the board of the vectors' ranked win (docs/competition.md).
PLAYER = {"display_name": "Ада", "id": "p_" + "a2" * 13}
DAILY_BOARD = "daily-cats-tail-2026-01-01"


def ranked(fields: dict[str, Any]) -> dict[str, Any]:
    """The vectors' win as a signed-in player's ranked win of the daily deal of 2026-01-01."""
    return {**fields, "dealt": "daily", "deal_number": 0, "player": PLAYER, "board": DAILY_BOARD}


def _players_and_boards(signed: Any, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``player`` and ``board`` fields (docs/certificates.md): certificates that carry them, and their faults."""
    out: list[dict[str, Any]] = []

    def add(name: str, what: str, payload: dict[str, Any], reason: str, replay_reason: str | None = None) -> None:
        cert = signed(payload)
        again = reason if replay_reason is None else replay_reason
        out.append({"name": name, "what": what, "certificate": cert.decode(), "certificate_is_base64": False,
                    "reason": reason, "reason_with_replay": again})  # fmt: skip

    win = ranked(fields)
    public = {**win, "dealt": "public", "deal_number": 7, "board": "public-cats-tail-7"}
    lenient = {**win, "options": {"sequence_moves": "false"}, "board": DAILY_BOARD + ":sequence_moves=false"}
    add("dealt-daily-0", "dealt 'daily', deal_number 0 (re-signed)", {**fields, "dealt": "daily", "deal_number": 0}, "")
    add("player", "a signed-in player's win: player, no board (re-signed)", {**fields, "player": PLAYER}, "")
    add("player-and-daily-board", "a ranked win of the daily deal: player and board (re-signed)", win, "")
    add("public-board", "a win on the board of public deal 7 (re-signed)", public, "")
    add("board-with-options", "a daily board of other options, named after them (re-signed): the moves need the "
        "default rules, so the replay is not a win", lenient, "", "NOT_WON")  # fmt: skip
    add("player-name-32", "a display name of 32 characters (re-signed)",
        {**win, "player": {**PLAYER, "display_name": "Я" * 32}}, "")  # fmt: skip
    for name, what, player in (
        ("player-name-33", "a display name of 33 characters", {**PLAYER, "display_name": "Я" * 33}),
        ("player-name-empty", "an empty display name", {**PLAYER, "display_name": ""}),
        ("player-id-uppercase", "a player id in upper case", {**PLAYER, "id": PLAYER["id"].upper()}),
        ("player-id-short", "a player id of 25 characters after p_", {**PLAYER, "id": PLAYER["id"][:-1]}),
        ("player-extra-member", "the player with a third member, kind", {**PLAYER, "kind": "guest"}),
        ("player-not-object", "the player as text", PLAYER["id"]),
    ):
        add(name, f"{what} (re-signed)", {**win, "player": player}, "MALFORMED")
    for name, what, board in (
        ("board-not-a-name", "a board that is no board's name", "the-daily"),
        ("board-other-variant", "the daily board of another variant", "daily-royal-retinue-2026-01-01"),
        ("board-bad-month", "a board of month 13", "daily-cats-tail-2026-13-01"),
        ("board-option-unsorted", "board options out of order", "daily-cats-tail-2026-01-01:z=1:a=1"),
        ("board-option-other-value", "a board option the certificate's options do not have",
         DAILY_BOARD + ":sequence_moves=false"),
        ("board-public-for-daily", "a public board for a daily deal", "public-cats-tail-7"),
        ("board-not-text", "the board as a number", 7),
    ):  # fmt: skip
        add(name, f"{what} (re-signed)", {**win, "board": board}, "MALFORMED")
    add("board-daily-for-public", "a daily board for public deal 7 (re-signed)", {**public, "board": DAILY_BOARD},
        "MALFORMED")  # fmt: skip
    add("board-public-other-number", "the board of public deal 8 for deal 7 (re-signed)",
        {**public, "board": "public-cats-tail-8"}, "MALFORMED")  # fmt: skip
    add("board-without-player", "a board without a player (re-signed): only signed-in players rank",
        {k: v for k, v in win.items() if k != "player"}, "MALFORMED")  # fmt: skip
    add("board-default-written", "a board naming the default option (re-signed): not its one spelling, seen on "
        "replay", {**win, "board": DAILY_BOARD + ":sequence_moves=true"}, "", "MALFORMED")  # fmt: skip
    add("board-impossible-day", "the board of 2026-02-30 (re-signed): no such day, seen on replay",
        {**win, "board": "daily-cats-tail-2026-02-30"}, "", "MALFORMED")  # fmt: skip
    return out


def _members(*pairs: tuple[str, object]) -> bytes:
    """An object written member by member, in the order given, duplicates kept (canonical_json cannot write one)."""
    return b"{" + b",".join(canonical_json(k) + b":" + canonical_json(v) for k, v in pairs) + b"}"


def _spare_bits_set(text: str) -> str:
    """``text`` (padded base64) with the bits its padding leaves over set to 1: the same bytes to a lenient reader."""
    pad = len(text) - len(text.rstrip("="))
    assert pad, "no padding, no spare bits"
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(text[-pad - 1])
    spare = 15 if pad == 2 else 3
    assert last & spare == 0
    return text[: -pad - 1] + alphabet[last | spare] + text[-pad:]


def _one_reading(signer: Ed25519PrivateKey, genuine: bytes) -> list[dict[str, Any]]:
    """Certificates that two readers could read two ways (docs/certificates.md, "One reading"), each with its reason:
    duplicate members, base64's spare bits, encodings other than UTF-8, nesting, option spellings, the final
    position's hash and the moves' notation."""
    env = json.loads(genuine)
    payload = base64.b64decode(env["payload"])
    fields = json.loads(payload)
    out: list[dict[str, Any]] = []

    def add(name: str, what: str, cert: bytes, reason: str, replay_reason: str | None = None) -> None:
        out.append(
            {
                "name": name,
                "what": what,
                "certificate": cert.decode() if cert.isascii() else b64(cert),
                "certificate_is_base64": not cert.isascii(),
                "reason": reason,
                "reason_with_replay": reason if replay_reason is None else replay_reason,
            }
        )

    def signed(what: dict[str, Any]) -> bytes:
        return envelope(signer, canonical_json(what))

    # The finding of issue 23: with the genuine payload last, a reader keeping the last copy found it valid, and a
    # viewer reading the first showed a payload the service never signed.
    forged = dict(fields, undo_count=7)
    other = b64(canonical_json(forged))
    for order, copies in (("genuine-last", (other, env["payload"])), ("genuine-first", (env["payload"], other))):
        add(
            f"envelope-duplicate-payload-{order}",
            f"the envelope holds payload twice, the genuine one {order.split('-')[1]} (another payload the other)",
            _members(("key_id", env["key_id"]), *(("payload", c) for c in copies), ("signature", env["signature"])),
            "MALFORMED",
        )
    add(
        "envelope-duplicate-identical",
        "the envelope holds key_id twice, both copies the same",
        _members(*env.items(), ("key_id", env["key_id"])),
        "MALFORMED",
    )

    def twice(name: str, first: object, last: object) -> bytes:
        """The payload with member ``name`` written twice, in the place of the one (re-signed)."""
        return envelope(signer, _members(*((k, v) for k, v in sorted(fields.items()) if k < name),
                                         (name, first), (name, last),
                                         *((k, v) for k, v in sorted(fields.items()) if k > name)))  # fmt: skip

    for order, copies in (("genuine-last", (7, 0)), ("genuine-first", (0, 7))):
        add(
            f"payload-duplicate-member-{order}",
            f"undo_count twice in the payload, {copies[0]} then {copies[1]} (re-signed)",
            twice("undo_count", *copies),
            "MALFORMED",
        )
    genuine_options = fields["options"]
    flipped = {"sequence_moves": "false" if genuine_options["sequence_moves"] == "true" else "true"}
    for order, copies in (("genuine-last", (flipped, genuine_options)), ("genuine-first", (genuine_options, flipped))):
        value = copies[0]["sequence_moves"], copies[1]["sequence_moves"]
        add(
            f"payload-duplicate-nested-{order}",
            f"sequence_moves twice inside options, {value[0]} then {value[1]} (re-signed)",
            envelope(
                signer,
                canonical_json(fields).replace(
                    canonical_json(genuine_options),
                    _members(("sequence_moves", value[0]), ("sequence_moves", value[1])),
                ),
            ),
            "MALFORMED",
        )
    add(
        "payload-duplicate-escaped-name",
        "result twice in the payload, once written with an escape (\\u0072esult) (re-signed)",
        envelope(signer, payload.replace(b'"result":"won"', b'"\\u0072esult":"won","result":"won"')),
        "MALFORMED",
    )

    add(
        "signature-base64-spare-bits",
        "the signature's base64 with the 4 bits its '==' padding leaves over set: the same bytes to atob",
        canonical_json({**env, "signature": _spare_bits_set(env["signature"])}),
        "MALFORMED",
    )
    padded = dict(fields, game_id="vector-game-1-")
    while len(canonical_json(padded)) % 3 != 2:
        padded["game_id"] += "-"
    one_pad = signed(padded)
    assert json.loads(one_pad)["payload"].endswith("=") and not json.loads(one_pad)["payload"].endswith("==")
    add("payload-one-pad", "a payload whose base64 ends in one '=' (re-signed)", one_pad, "")
    add(
        "payload-base64-spare-bits",
        "that payload's base64 with the 2 bits its '=' padding leaves over set: the same bytes to atob",
        canonical_json({**json.loads(one_pad), "payload": _spare_bits_set(json.loads(one_pad)["payload"])}),
        "MALFORMED",
    )

    add("envelope-bom", "the certificate after a UTF-8 byte order mark", b"\xef\xbb\xbf" + genuine, "MALFORMED")
    add("envelope-utf16", "the certificate in UTF-16 (with its byte order mark)", genuine.decode().encode("utf-16"),
        "MALFORMED")  # fmt: skip

    def nested(depth: int) -> bytes:
        """A payload of another type with a member nested ``depth`` levels deep, the object itself counted."""
        return signed(
            {**fields, "type": "patience-certificate/v2", "z": json.loads("[" * (depth - 1) + "]" * (depth - 1))}
        )

    add("payload-nested-32", "a v2 payload nested 32 levels deep (re-signed): read, and refused as v2", nested(32),
        "UNSUPPORTED_TYPE")  # fmt: skip
    add("payload-nested-33", "a v2 payload nested 33 levels deep (re-signed): too deep to read", nested(33),
        "MALFORMED")  # fmt: skip

    add(
        "option-value-capitalised",
        "sequence_moves 'True' (re-signed): not an option value's text",
        signed({**fields, "options": {"sequence_moves": "True"}}),
        "MALFORMED",
    )
    add(
        "option-value-spaced",
        "sequence_moves ' true' (re-signed): not an option value's text",
        signed({**fields, "options": {"sequence_moves": " true"}}),
        "MALFORMED",
    )
    add(
        "option-value-number-for-yes-no",
        "sequence_moves '1' (re-signed): a well-formed value, but not one of the option's (seen on replay)",
        signed({**fields, "options": {"sequence_moves": "1"}}),
        "",
        "MALFORMED",
    )
    add(
        "options-default-left-out",
        "options {} for cats-tail, its default left out (re-signed): seen on replay",
        signed({**fields, "options": {}}),
        "",
        "MALFORMED",
    )
    add(
        "option-unknown",
        "an option cats-tail does not have (re-signed): seen on replay",
        signed({**fields, "options": {**genuine_options, "deals": "2"}}),
        "",
        "MALFORMED",
    )

    add("final-hash-empty", "final_state_hash '' (re-signed)", signed({**fields, "final_state_hash": ""}), "MALFORMED")
    add(
        "final-hash-uppercase",
        "final_state_hash in upper-case hex (re-signed)",
        signed({**fields, "final_state_hash": fields["final_state_hash"].upper()}),
        "MALFORMED",
    )

    first = fields["moves"][0]
    assert first == "4-f1", "the vectors' first move changed: pick another short form"
    for name, text, why in (
        ("move-short-form", "4-f", "the short form of the first move, 4-f1"),
        ("move-uppercase", "4-F1", "the first move in upper case"),
        ("move-spaced", " 4-f1", "the first move after a space"),
    ):
        add(
            name,
            f"{why} (re-signed): legal to the engine, but not the explicit notation; valid unless replayed",
            signed({**fields, "moves": [text, *fields["moves"][1:]]}),
            "",
            "NOT_WON",
        )
    return out


def _swap_first_keys(payload: bytes) -> bytes:
    """The payload with its first two members swapped (still valid JSON, no longer sorted)."""
    data = json.loads(payload)
    keys = list(data)
    order = [keys[1], keys[0], *keys[2:]]
    return b"{" + b",".join(canonical_json(k) + b":" + canonical_json(data[k]) for k in order) + b"}"


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


def positions() -> list[dict[str, Any]]:
    """Every variant's opening position for one seed: its encoding and hash."""
    seed = bytes(range(32))
    out = []
    for cls in GAME_CLASSES:
        game = get_game(cls.info.id)
        state = game.deal(seed)
        out.append(
            {
                "variant": game.id,
                "variant_index": variant_index(game.id),
                "options": game.options_text(),
                "seed": seed.hex(),
                "encoding_hex": encode_state(game, state).hex(),
                "state_hash": state_hash(game, state),
            }
        )
    return out


def _played(game: Game, seed: bytes, moves: list[str], why: str) -> dict[str, Any]:
    """A position reached by ``moves`` from ``seed``'s deal, with its encoding and the two bytes it shows."""
    result = replay(game, game.deal(seed), moves)
    assert result.verdict.error_index is None and [m.text() for m in result.moves] == moves
    encoded = encode_state(game, result.state)
    at = 4 + encoded[3]  # after the magic, the variant and the options text
    return {
        "variant": game.id,
        "seed": seed.hex(),
        "moves": moves,
        "why": why,
        "redeals": encoded[at],
        "fresh": encoded[at + 1],
        "encoding_hex": encoded.hex(),
        "state_hash": state_hash(game, result.state),
    }


def played_positions() -> list[dict[str, Any]]:
    """Positions whose ``redeals`` and ``fresh`` bytes show what the two mean (docs/certificates.md, "Layout"):
    picture-gallery's ``fresh`` is "no card from the stock yet", not "a lone king"; ``redeals`` counts ``rd`` moves."""
    seed = bytes(range(32))
    gallery = get_game("picture-gallery")
    out: list[dict[str, Any]] = []
    wanted = {
        "first-card": "the first d put a card from the stock on the lone king: fresh 0",
        "next-king": "a d dealt a king, which starts a column of its own: fresh 1 again",
        "moved-onto-fresh-king": "a card moved from another column onto the newest king, which has had no card from "
        "the stock yet: fresh stays 1 although the king is no longer alone",
        "cut-back-to-lone-king": "the newest column's card from the stock moved away: a lone king again, fresh stays 0",
    }
    found: dict[str, dict[str, Any]] = {}
    moves: list[str] = []
    state = gallery.deal(seed)
    while state.stock:
        before = len(state.columns)
        state, _ = gallery.play(state, "d")
        moves.append("d")
        if "first-card" not in found and len(state.columns) == before:
            found["first-card"] = _played(gallery, seed, list(moves), wanted["first-card"])
        if "next-king" not in found and len(state.columns) > before:
            found["next-king"] = _played(gallery, seed, list(moves), wanted["next-king"])
        newest = len(state.columns)
        for move in gallery.legal_moves(state):
            target, sources = move.target, move.sources
            if target is None or len(sources) != 1:
                continue
            onto = state.fresh and target.kind is PileKind.COLUMN and target.index == newest
            away = not state.fresh and len(state.columns[-1]) == 2 and sources[0].index == newest
            name = "moved-onto-fresh-king" if onto else "cut-back-to-lone-king" if away else ""
            if name and name not in found:
                found[name] = _played(gallery, seed, [*moves, move.text()], wanted[name])
    assert set(found) == set(wanted), sorted(set(wanted) - set(found))
    out += [found[name] for name in wanted]
    gathered = "rd gathered the columns: redeals 1, fresh 1 (column 1's king alone again, no card from the stock yet)"
    out.append(_played(gallery, seed, [*moves, "rd"], gathered))
    for variant in ("captives", "sultan-36"):
        game = get_game(variant)
        state, turned = game.deal(seed), []
        while state.stock:
            state, _ = game.play(state, "s")
            turned.append("s")
        once = "the stock turned out card by card, the waste not yet turned over: redeals 0 (no rd yet)"
        out.append(_played(game, seed, turned, once))
        out.append(_played(game, seed, [*turned, "rd"], "the waste turned over once (one rd): redeals 1"))
    return out


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
        "tampered.json": text(tampered(signer, foreign, genuine)),
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
