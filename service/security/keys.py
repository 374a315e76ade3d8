"""The service's secrets: the certificate signing keys and the deal-ticket key.

Where they come from, first match wins, for each key separately (docs/configuration.md, "Keys"):

1. an environment variable holding the key itself (``PATIENCE_SIGNING_KEY``, ``PATIENCE_TICKET_KEY``);
2. an environment variable naming a file (``PATIENCE_SIGNING_KEY_FILE``, ``PATIENCE_TICKET_KEY_FILE``) --
   the usual way to mount a Kubernetes Secret;
3. the keys directory (``--keys-dir`` / ``PATIENCE_KEYS_DIR``; default
   ``$XDG_DATA_HOME/patience/keys``, i.e. ``~/.local/share/patience/keys``)::

       signing-key.pem            the active Ed25519 private key (PKCS#8 PEM), mode 0600
       signing-key.pub.pem        its public key (SubjectPublicKeyInfo PEM), for publishing
       ticket-key                 32 random bytes, base64, mode 0600
       retired/<key id>.pub.pem   retired signing keys: public only, kept so old certificates verify
       retired/<key id>.ticket-key  retired ticket keys, kept until their tickets have expired

4. with ``--generate-keys`` (local runs), missing keys are generated into the directory on first start.

Retired keys add up from the directory and ``PATIENCE_RETIRED_PUBLIC_KEYS`` /
``PATIENCE_RETIRED_TICKET_KEYS`` (comma-separated base64). A signing key is PEM
or the base64 of its raw 32 bytes; a public key PEM or base64 raw 32 bytes.

How a key is read from text or a file and written to one is ``service.security.key_files``' (shared with the
players' keys, ``service.security.identity_keys``); its names callers import from here stay importable here.

Command line::

    python -m service.security.keys generate --out DIR [--force]
    python -m service.security.keys rotate --dir DIR [--ticket]
    python -m service.security.keys show --dir DIR [--json]
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import os
import secrets
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from patience.certificates import key_id_of

from service.security.key_files import (
    ENV_KEYS_DIR,
    RETIRED_DIR,
    KeyConfigError,
    check_outside_repo,
    default_keys_dir,
    exists,
    make_dir,
    parse_public_key,
    parse_signing_key,
    parse_ticket_key,
    pem_private,
    pem_public,
    read_secret,
    split_list,
    write_public,
    write_secret,
)
from service.security.signing import KeyRing
from service.security.tickets import KEY_BYTES, TicketMinter, ticket_key_id

__all__ = [
    "ENV_KEYS_DIR",
    "ENV_RETIRED_PUBLIC_KEYS",
    "ENV_RETIRED_TICKET_KEYS",
    "ENV_SIGNING_KEY",
    "ENV_SIGNING_KEY_FILE",
    "ENV_TICKET_KEY",
    "ENV_TICKET_KEY_FILE",
    "KeyConfigError",
    "ServiceKeys",
    "default_keys_dir",
    "generate_keys",
    "load_keys",
    "load_service_keys",
    "main",
    "parse_public_key",
    "parse_signing_key",
    "parse_ticket_key",
    "rotate_keys",
]

log = logging.getLogger("patience.keys")

ENV_SIGNING_KEY = "PATIENCE_SIGNING_KEY"
ENV_SIGNING_KEY_FILE = "PATIENCE_SIGNING_KEY_FILE"
ENV_RETIRED_PUBLIC_KEYS = "PATIENCE_RETIRED_PUBLIC_KEYS"
ENV_TICKET_KEY = "PATIENCE_TICKET_KEY"
ENV_TICKET_KEY_FILE = "PATIENCE_TICKET_KEY_FILE"
ENV_RETIRED_TICKET_KEYS = "PATIENCE_RETIRED_TICKET_KEYS"

SIGNING_FILE = "signing-key.pem"
SIGNING_PUBLIC_FILE = "signing-key.pub.pem"
TICKET_FILE = "ticket-key"


@dataclass(frozen=True)
class ServiceKeys:
    """What the server needs: the certificate key ring and the ticket minter (None if not configured)."""

    key_ring: KeyRing | None
    tickets: TicketMinter | None


# --------------------------------------------------------------------------- loading


def load_keys(
    directory: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    generate: bool = False,
) -> ServiceKeys:
    """The keys from the environment and ``directory`` (default :func:`default_keys_dir`).

    With ``generate``, missing keys are created in the directory (which must lie outside the repository).
    A key that is configured but unusable raises :class:`KeyConfigError`; an explicitly given directory without
    keys raises it too (unless ``generate``). With nothing configured anywhere, the parts are None.
    """
    env = os.environ if env is None else env
    explicit_dir = directory is not None or bool(env.get(ENV_KEYS_DIR))
    folder = Path(directory).expanduser() if directory is not None else default_keys_dir(env)

    signing = _signing_from_env(env)
    ticket = _ticket_from_env(env)
    need_signing = signing is None and not exists(folder / SIGNING_FILE)
    need_ticket = ticket is None and not exists(folder / TICKET_FILE)
    if generate and (need_signing or need_ticket):
        generate_keys(folder, signing=need_signing, ticket=need_ticket)
    if signing is None and exists(folder / SIGNING_FILE):
        signing = parse_signing_key(read_secret(folder / SIGNING_FILE), str(folder / SIGNING_FILE))
    if ticket is None and exists(folder / TICKET_FILE):
        ticket = parse_ticket_key(read_secret(folder / TICKET_FILE), str(folder / TICKET_FILE))
    if explicit_dir and (signing is None or ticket is None):
        missing = [name for name, key in ((SIGNING_FILE, signing), (TICKET_FILE, ticket)) if key is None]
        raise KeyConfigError(
            f"no {' and no '.join(missing)} in {folder}: run `python -m service.security.keys generate --out {folder}` "
            "or start with --generate-keys (local runs)"
        )

    retired_public = _retired_public(folder, env)
    retired_tickets = _retired_tickets(folder, env)
    if signing is not None:
        retired_public = [k for k in retired_public if key_id_of(k) != key_id_of(signing)]
    ring = KeyRing(signing, retired_public) if signing is not None or retired_public else None
    minter = TicketMinter(ticket, retired_tickets) if ticket is not None else None
    if ring is None or ring.signing_key is None:
        log.warning("no certificate signing key: wins are not certified (see docs/keys.md)")
    if minter is None:
        log.warning("no deal-ticket key: MintDeal and ticket deals are off (see docs/keys.md)")
    return ServiceKeys(ring, minter)


def load_service_keys(settings: Any) -> tuple[KeyRing | None, TicketMinter | None]:
    """What ``service.server`` calls: keys for ``settings.keys_dir`` / ``settings.generate_keys``."""
    keys = load_keys(getattr(settings, "keys_dir", None), generate=bool(getattr(settings, "generate_keys", False)))
    return keys.key_ring, keys.tickets


def _signing_from_env(env: Mapping[str, str]) -> Ed25519PrivateKey | None:
    if env.get(ENV_SIGNING_KEY):
        return parse_signing_key(env[ENV_SIGNING_KEY], ENV_SIGNING_KEY)
    if env.get(ENV_SIGNING_KEY_FILE):
        path = Path(env[ENV_SIGNING_KEY_FILE]).expanduser()
        return parse_signing_key(read_secret(path), f"{ENV_SIGNING_KEY_FILE} ({path})")
    return None


def _ticket_from_env(env: Mapping[str, str]) -> bytes | None:
    if env.get(ENV_TICKET_KEY):
        return parse_ticket_key(env[ENV_TICKET_KEY], ENV_TICKET_KEY)
    if env.get(ENV_TICKET_KEY_FILE):
        path = Path(env[ENV_TICKET_KEY_FILE]).expanduser()
        return parse_ticket_key(read_secret(path), f"{ENV_TICKET_KEY_FILE} ({path})")
    return None


def _retired_public(folder: Path, env: Mapping[str, str]) -> list[Ed25519PublicKey]:
    keys = [parse_public_key(p.read_bytes(), str(p)) for p in sorted((folder / RETIRED_DIR).glob("*.pub.pem"))]
    keys += [parse_public_key(t, ENV_RETIRED_PUBLIC_KEYS) for t in split_list(env.get(ENV_RETIRED_PUBLIC_KEYS, ""))]
    return keys


def _retired_tickets(folder: Path, env: Mapping[str, str]) -> list[bytes]:
    keys = [parse_ticket_key(read_secret(p), str(p)) for p in sorted((folder / RETIRED_DIR).glob("*.ticket-key"))]
    keys += [parse_ticket_key(t, ENV_RETIRED_TICKET_KEYS) for t in split_list(env.get(ENV_RETIRED_TICKET_KEYS, ""))]
    return keys


def generate_keys(folder: Path, *, signing: bool = True, ticket: bool = True, force: bool = False) -> dict[str, str]:
    """Write a new signing key pair and/or ticket key into ``folder`` (outside the repository); their key ids.

    An existing key is an error unless ``force`` (then it is replaced, *not* retired: see :func:`rotate_keys`).
    """
    check_outside_repo(folder)
    make_dir(folder)
    ids: dict[str, str] = {}
    if signing:
        path = folder / SIGNING_FILE
        if path.exists() and not force:
            raise KeyConfigError(f"{path} exists; use `rotate` to replace it (or --force to overwrite)")
        else:
            key = Ed25519PrivateKey.generate()
            write_secret(path, pem_private(key), overwrite=path.exists())
            write_public(folder / SIGNING_PUBLIC_FILE, pem_public(key.public_key()))
            ids["signing_key_id"] = key_id_of(key)
            log.warning("generated a certificate signing key %s in %s", ids["signing_key_id"], folder)
    if ticket:
        path = folder / TICKET_FILE
        if path.exists() and not force:
            raise KeyConfigError(f"{path} exists; use `rotate --ticket` to replace it (or --force)")
        else:
            raw = secrets.token_bytes(KEY_BYTES)
            write_secret(path, base64.b64encode(raw) + b"\n", overwrite=path.exists())
            ids["ticket_key_id"] = ticket_key_id(raw)
            log.warning("generated a deal-ticket key %s in %s", ids["ticket_key_id"], folder)
    return ids


def rotate_keys(folder: Path, *, signing: bool = True, ticket: bool = False) -> dict[str, str]:
    """Retire the current key(s) of ``folder`` and make new active ones; the old and new key ids.

    A retired signing key keeps only its public half (``retired/<id>.pub.pem``): certificates it signed stay
    verifiable, and nothing new can be signed with it. A retired ticket key is kept whole
    (``retired/<id>.ticket-key``): the server still needs it to open its tickets and derive their seeds.
    """
    make_dir(folder)
    ids: dict[str, str] = {}
    if signing:
        path = folder / SIGNING_FILE
        if not path.exists():
            raise KeyConfigError(f"no {path} to rotate; use `generate`")
        old = parse_signing_key(read_secret(path), str(path))
        write_public(folder / RETIRED_DIR / f"{key_id_of(old)}.pub.pem", pem_public(old.public_key()))
        ids["retired_signing_key_id"] = key_id_of(old)
        ids.update(generate_keys(folder, signing=True, ticket=False, force=True))
    if ticket:
        path = folder / TICKET_FILE
        if not path.exists():
            raise KeyConfigError(f"no {path} to rotate; use `generate`")
        old_raw = parse_ticket_key(read_secret(path), str(path))
        retired = folder / RETIRED_DIR / f"{ticket_key_id(old_raw)}.ticket-key"
        write_secret(retired, base64.b64encode(old_raw) + b"\n", overwrite=retired.exists())
        ids["retired_ticket_key_id"] = ticket_key_id(old_raw)
        ids.update(generate_keys(folder, signing=False, ticket=True, force=True))
    return ids


# --------------------------------------------------------------------------- command line


def _describe(folder: Path) -> dict[str, Any]:
    keys = load_keys(folder, env={})
    out: dict[str, Any] = {"directory": str(folder), "signing_keys": [], "ticket_key_ids": []}
    if keys.key_ring is not None:
        out["signing_keys"] = [
            {"key_id": kid, "public_key": base64.b64encode(raw).decode(), "active": active}
            for kid, raw, active in keys.key_ring.public_keys()
        ]
    if keys.tickets is not None:
        out["ticket_key_ids"] = [{"key_id": kid, "active": kid == keys.tickets.key_id} for kid in keys.tickets.key_ids]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.security.keys", description="Manage the service's keys.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write a new signing key pair and ticket key (files mode 0600)")
    gen.add_argument("--out", type=Path, required=True, help="the keys directory (created if missing)")
    gen.add_argument("--force", action="store_true", help="overwrite existing keys (they are NOT retired)")
    rot = sub.add_parser("rotate", help="retire the signing key (and with --ticket the ticket key), make new ones")
    rot.add_argument("--dir", type=Path, required=True)
    rot.add_argument("--ticket", action="store_true", help="also rotate the deal-ticket key")
    rot.add_argument("--no-signing", action="store_true", help="leave the signing key as it is")
    rot.add_argument("--guest", action="store_true", help="also rotate the guest identity key (docs/players.md)")
    show = sub.add_parser("show", help="key ids and public keys (what GetSigningKeys publishes)")
    show.add_argument("--dir", type=Path, required=True)
    show.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    try:
        if args.command == "generate":
            from service.security.identity_keys import generate_missing

            ids = generate_keys(args.out, force=args.force)
            ids.update(generate_missing(args.out))
            print(json.dumps({"directory": str(args.out), **ids}))
        elif args.command == "rotate":
            from service.security.identity_keys import rotate_guest_key

            ids = rotate_keys(args.dir, signing=not args.no_signing, ticket=args.ticket)
            if args.guest:
                ids.update(rotate_guest_key(args.dir))
            print(json.dumps({"directory": str(args.dir), **ids}))
        else:
            described = _describe(args.dir)
            if args.json:
                print(json.dumps(described, indent=2))
            else:
                for k in described["signing_keys"]:
                    print(f"signing {k['key_id']} {'active ' if k['active'] else 'retired'} {k['public_key']}")
                for k in described["ticket_key_ids"]:
                    print(f"ticket  {k['key_id']} {'active' if k['active'] else 'retired'}")
    except KeyConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
