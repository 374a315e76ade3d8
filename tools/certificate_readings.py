"""The certificate vectors that two readers could read two ways (docs/certificates.md, "One reading"): a member
written twice, base64's spare bits, a byte order mark or UTF-16, nesting, the spellings of options and moves.
Each must be refused alike by every verifier (the rest of tampered.json is ``certificate_faults``')."""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from patience.certificates import canonical_json
from vector_keys import b64, envelope


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


def one_reading(signer: Ed25519PrivateKey, genuine: bytes) -> list[dict[str, Any]]:
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
