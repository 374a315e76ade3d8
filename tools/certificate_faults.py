"""The certificate vectors' faults (docs/certificate-vectors/tampered.json, with ``certificate_readings``): one
fault each -- the signature, the key, the envelope, each field of the payload, the player and the board -- and
the reason code every verifier must give, with and without a replay. Written by tools/certificate_vectors.py."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from patience.certificates import canonical_json, key_id_of
from vector_keys import b64, envelope


def tampered(signer: Ed25519PrivateKey, foreign: Ed25519PrivateKey, genuine: bytes) -> list[dict[str, Any]]:
    """Certificates that must be refused, one fault each, with the reason code every verifier must give (and the
    ``player`` and ``board`` fields' cases); those that could be read two ways are ``certificate_readings``'."""
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


def _swap_first_keys(payload: bytes) -> bytes:
    """The payload with its first two members swapped (still valid JSON, no longer sorted)."""
    data = json.loads(payload)
    keys = list(data)
    order = [keys[1], keys[0], *keys[2:]]
    return b"{" + b",".join(canonical_json(k) + b":" + canonical_json(data[k]) for k in order) + b"}"
