"""patience-cli's certificate and key commands: ``verify-cert`` (offline, or by the server) and ``keys``."""

from __future__ import annotations

from pathlib import Path

from engine.errors import Reason

from .certificates import (
    CertificateCheck,
    PublicKeys,
    keys_from_json,
    keys_from_proto,
    keys_to_json,
    verify_certificate,
)
from .cli_context import Context, UsageError


def engine_reason(code: str) -> Reason | None:
    try:
        return Reason(code)
    except ValueError:
        return None


def load_keys(ctx: Context) -> PublicKeys:
    a = ctx.args
    keys: dict[str, bytes] = {}
    if a.keys:
        keys.update(keys_from_json(Path(a.keys).read_text()))
    for item in a.public_key or []:
        key_id, sep, hexkey = item.partition(":")
        if not sep:
            raise UsageError(f"--public-key takes KEY_ID:HEX, not {item!r}")
        keys[key_id] = bytes.fromhex(hexkey)
    if not keys:
        keys = dict(keys_from_proto(ctx.client.get_signing_keys()))
        ctx.print(f"(public keys fetched from {ctx.settings.target}: {', '.join(sorted(keys))})")
    return keys


def cmd_verify_cert(ctx: Context) -> int:
    encoded = Path(ctx.args.file).read_bytes()
    if ctx.args.server:
        resp = ctx.client.verify_certificate(encoded, replay=ctx.args.replay)
        ok, reason, message = resp.valid, resp.reason, resp.message
        ctx.print(f"server says: {'valid' if ok else 'NOT valid'}" + (f": {reason}: {message}" if not ok else ""))
        return 0 if ok else 1
    check = verify_certificate(encoded, load_keys(ctx), replay=ctx.args.replay)
    ctx.print(describe_check(check))
    return 0 if check.valid else 1


#: How a certified win was played, in words (the certificate's ``played`` field).
_PLAYED = {"moves": "played move by move", "submitted": "submitted whole"}


def dealt_words(dealt: str, deal_number: int) -> str:
    """How a deal was chosen, in words ("" when not said: a certificate signed before the field existed)."""
    if dealt == "public":
        return f"public deal #{deal_number} (no fairness claim)"
    if dealt == "replay":
        return "a replay of a seed the player chose (no fairness claim)"
    words = {"random": "dealt at random", "ticket": "a minted deal", "winnable": "a deal the server's solver has won",
             "daily": "a daily deal"}  # fmt: skip
    return words.get(dealt, dealt)


def describe_check(check: CertificateCheck) -> str:
    if not check.valid:
        return f"✗ certificate NOT valid: {check.reason}: {check.message}"
    c = check.contents
    assert c is not None
    how = dealt_words(c.dealt, c.deal_number)
    lines = [
        f"✓ certificate valid (key {check.key_id}): game {c.game_id}, {c.variant}, "
        f"{c.move_count} moves, {c.undo_count} undos"
        + (f", {c.hints} hint{'s' if c.hints != 1 else ''}" if c.hints is not None else "")
        + (f", {_PLAYED.get(c.played, c.played)}" if c.played else ""),
        f"  seed {c.seed.hex()}" + (f", {how}" if how else ""),
    ]
    if c.player_id:
        lines.append(f"  won by {c.player_name} ({c.player_id})" + (f", on board {c.board}" if c.board else ""))
    if check.replayed:
        lines.append(f"  replayed with the engine: won, final state {c.final_state_hash[:16]} matches")
    return "\n".join(lines)


def cmd_keys(ctx: Context) -> int:
    text = keys_to_json(keys_from_proto(ctx.client.get_signing_keys()))
    if ctx.args.out:
        Path(ctx.args.out).write_text(text)
        ctx.print(f"keys saved to {ctx.args.out}")
    else:
        ctx.print(text.rstrip())
    return 0
