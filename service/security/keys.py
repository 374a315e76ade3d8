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

Command line::

    python -m service.security.keys generate --out DIR [--force]
    python -m service.security.keys rotate --dir DIR [--ticket]
    python -m service.security.keys show --dir DIR [--json]
"""

from __future__ import annotations

import argparse
import base64
import binascii
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
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)
from patience.certificates import key_id_of

from service.security.signing import KeyRing
from service.security.tickets import KEY_BYTES, TicketMinter, ticket_key_id

__all__ = [
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
    "rotate_keys",
]

log = logging.getLogger("patience.keys")

ENV_SIGNING_KEY = "PATIENCE_SIGNING_KEY"
ENV_SIGNING_KEY_FILE = "PATIENCE_SIGNING_KEY_FILE"
ENV_RETIRED_PUBLIC_KEYS = "PATIENCE_RETIRED_PUBLIC_KEYS"
ENV_TICKET_KEY = "PATIENCE_TICKET_KEY"
ENV_TICKET_KEY_FILE = "PATIENCE_TICKET_KEY_FILE"
ENV_RETIRED_TICKET_KEYS = "PATIENCE_RETIRED_TICKET_KEYS"
ENV_KEYS_DIR = "PATIENCE_KEYS_DIR"

SIGNING_FILE = "signing-key.pem"
SIGNING_PUBLIC_FILE = "signing-key.pub.pem"
TICKET_FILE = "ticket-key"
RETIRED_DIR = "retired"
REPO_ROOT = Path(__file__).resolve().parents[2]


class KeyConfigError(ValueError):
    """A key that is configured but unusable (unreadable, wrong format), or missing where it is required."""


@dataclass(frozen=True)
class ServiceKeys:
    """What the server needs: the certificate key ring and the ticket minter (None if not configured)."""

    key_ring: KeyRing | None
    tickets: TicketMinter | None


def default_keys_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$PATIENCE_KEYS_DIR``, else ``$XDG_DATA_HOME/patience/keys``, else ``~/.local/share/patience/keys``."""
    env = os.environ if env is None else env
    if env.get(ENV_KEYS_DIR):
        return Path(env[ENV_KEYS_DIR]).expanduser()
    data = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "patience" / "keys"


# --------------------------------------------------------------------------- parsing


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise KeyConfigError(f"{what}: neither PEM nor base64") from exc


def parse_signing_key(text: str | bytes, what: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from PKCS#8 PEM or base64 of its raw 32 bytes."""
    data = text.encode() if isinstance(text, str) else text
    if b"-----BEGIN" in data:
        try:
            key = load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise KeyConfigError(f"{what}: not an unencrypted PEM private key ({exc})") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyConfigError(f"{what}: not an Ed25519 key")
        return key
    raw = _b64(data.decode("ascii", errors="replace"), what)
    if len(raw) != 32:
        raise KeyConfigError(f"{what}: a raw Ed25519 private key is 32 bytes, not {len(raw)}")
    return Ed25519PrivateKey.from_private_bytes(raw)


def parse_public_key(text: str | bytes, what: str) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM or base64 of its raw 32 bytes."""
    data = text.encode() if isinstance(text, str) else text
    if b"-----BEGIN" in data:
        try:
            key = load_pem_public_key(data)
        except (ValueError, TypeError) as exc:
            raise KeyConfigError(f"{what}: not a PEM public key ({exc})") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise KeyConfigError(f"{what}: not an Ed25519 key")
        return key
    raw = _b64(data.decode("ascii", errors="replace"), what)
    if len(raw) != 32:
        raise KeyConfigError(f"{what}: a raw Ed25519 public key is 32 bytes, not {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def parse_ticket_key(text: str | bytes, what: str) -> bytes:
    """A ticket key: base64 of 32 bytes."""
    raw = _b64(text.decode("ascii", errors="replace") if isinstance(text, bytes) else text, what)
    if len(raw) != KEY_BYTES:
        raise KeyConfigError(f"{what}: a ticket key is {KEY_BYTES} bytes, not {len(raw)}")
    return raw


def _read_secret(path: Path) -> bytes:
    try:
        data = path.read_bytes()
        mode = path.stat().st_mode
    except OSError as exc:
        raise KeyConfigError(f"cannot read {path}: {exc.strerror}") from exc
    # Group bits are allowed: Kubernetes mounts Secrets 0440 for the pod's fsGroup. "Other" bits never are.
    if os.name == "posix" and mode & 0o007:
        log.warning("%s is readable by other users: chmod 600 it", path)
    return data


def _exists(path: Path) -> bool:
    """Whether a key file is there; a directory this process may not read is a configuration error, not a crash
    (a container's keys mounted for another user)."""
    try:
        return path.exists()
    except OSError as exc:
        raise KeyConfigError(
            f"cannot read {path}: {exc.strerror} (this process runs as uid {os.getuid()}: the keys directory and"
            " files must be readable by it, docs/keys.md)"
        ) from exc


def _split_list(text: str) -> list[str]:
    return [item for item in text.replace(",", " ").split() if item]


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
    need_signing = signing is None and not _exists(folder / SIGNING_FILE)
    need_ticket = ticket is None and not _exists(folder / TICKET_FILE)
    if generate and (need_signing or need_ticket):
        generate_keys(folder, signing=need_signing, ticket=need_ticket)
    if signing is None and _exists(folder / SIGNING_FILE):
        signing = parse_signing_key(_read_secret(folder / SIGNING_FILE), str(folder / SIGNING_FILE))
    if ticket is None and _exists(folder / TICKET_FILE):
        ticket = parse_ticket_key(_read_secret(folder / TICKET_FILE), str(folder / TICKET_FILE))
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
        return parse_signing_key(_read_secret(path), f"{ENV_SIGNING_KEY_FILE} ({path})")
    return None


def _ticket_from_env(env: Mapping[str, str]) -> bytes | None:
    if env.get(ENV_TICKET_KEY):
        return parse_ticket_key(env[ENV_TICKET_KEY], ENV_TICKET_KEY)
    if env.get(ENV_TICKET_KEY_FILE):
        path = Path(env[ENV_TICKET_KEY_FILE]).expanduser()
        return parse_ticket_key(_read_secret(path), f"{ENV_TICKET_KEY_FILE} ({path})")
    return None


def _retired_public(folder: Path, env: Mapping[str, str]) -> list[Ed25519PublicKey]:
    keys = [parse_public_key(p.read_bytes(), str(p)) for p in sorted((folder / RETIRED_DIR).glob("*.pub.pem"))]
    keys += [parse_public_key(t, ENV_RETIRED_PUBLIC_KEYS) for t in _split_list(env.get(ENV_RETIRED_PUBLIC_KEYS, ""))]
    return keys


def _retired_tickets(folder: Path, env: Mapping[str, str]) -> list[bytes]:
    keys = [parse_ticket_key(_read_secret(p), str(p)) for p in sorted((folder / RETIRED_DIR).glob("*.ticket-key"))]
    keys += [parse_ticket_key(t, ENV_RETIRED_TICKET_KEYS) for t in _split_list(env.get(ENV_RETIRED_TICKET_KEYS, ""))]
    return keys


def _check_outside_repo(folder: Path) -> None:
    """Generated secrets never land in the source tree (where a `git add` would publish them)."""
    resolved = folder.expanduser().resolve()
    if resolved == REPO_ROOT or REPO_ROOT in resolved.parents:
        raise KeyConfigError(
            f"refusing to generate keys inside the repository ({resolved}); use a directory outside it"
        )


# --------------------------------------------------------------------------- writing


def _write_secret(path: Path, data: bytes, *, overwrite: bool = False) -> None:
    """Write ``data`` with mode 0600 from the first byte (never readable by others, even briefly).

    A new file is created exclusively; an overwrite goes through a temporary file and an atomic rename, so a
    crash never leaves half a key behind.
    """
    target = path.with_name(path.name + ".tmp") if overwrite else path
    if overwrite:
        target.unlink(missing_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(target, 0o600)  # whatever the umask
    if overwrite:
        os.replace(target, path)


def _write_public(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _pem_private(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def _pem_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def _make_dir(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / RETIRED_DIR).mkdir(mode=0o700, exist_ok=True)


def generate_keys(folder: Path, *, signing: bool = True, ticket: bool = True, force: bool = False) -> dict[str, str]:
    """Write a new signing key pair and/or ticket key into ``folder`` (outside the repository); their key ids.

    An existing key is an error unless ``force`` (then it is replaced, *not* retired: see :func:`rotate_keys`).
    """
    _check_outside_repo(folder)
    _make_dir(folder)
    ids: dict[str, str] = {}
    if signing:
        path = folder / SIGNING_FILE
        if path.exists() and not force:
            raise KeyConfigError(f"{path} exists; use `rotate` to replace it (or --force to overwrite)")
        else:
            key = Ed25519PrivateKey.generate()
            _write_secret(path, _pem_private(key), overwrite=path.exists())
            _write_public(folder / SIGNING_PUBLIC_FILE, _pem_public(key.public_key()))
            ids["signing_key_id"] = key_id_of(key)
            log.warning("generated a certificate signing key %s in %s", ids["signing_key_id"], folder)
    if ticket:
        path = folder / TICKET_FILE
        if path.exists() and not force:
            raise KeyConfigError(f"{path} exists; use `rotate --ticket` to replace it (or --force)")
        else:
            raw = secrets.token_bytes(KEY_BYTES)
            _write_secret(path, base64.b64encode(raw) + b"\n", overwrite=path.exists())
            ids["ticket_key_id"] = ticket_key_id(raw)
            log.warning("generated a deal-ticket key %s in %s", ids["ticket_key_id"], folder)
    return ids


def rotate_keys(folder: Path, *, signing: bool = True, ticket: bool = False) -> dict[str, str]:
    """Retire the current key(s) of ``folder`` and make new active ones; the old and new key ids.

    A retired signing key keeps only its public half (``retired/<id>.pub.pem``): certificates it signed stay
    verifiable, and nothing new can be signed with it. A retired ticket key is kept whole
    (``retired/<id>.ticket-key``): the server still needs it to open its tickets and derive their seeds.
    """
    _make_dir(folder)
    ids: dict[str, str] = {}
    if signing:
        path = folder / SIGNING_FILE
        if not path.exists():
            raise KeyConfigError(f"no {path} to rotate; use `generate`")
        old = parse_signing_key(_read_secret(path), str(path))
        _write_public(folder / RETIRED_DIR / f"{key_id_of(old)}.pub.pem", _pem_public(old.public_key()))
        ids["retired_signing_key_id"] = key_id_of(old)
        ids.update(generate_keys(folder, signing=True, ticket=False, force=True))
    if ticket:
        path = folder / TICKET_FILE
        if not path.exists():
            raise KeyConfigError(f"no {path} to rotate; use `generate`")
        old_raw = parse_ticket_key(_read_secret(path), str(path))
        retired = folder / RETIRED_DIR / f"{ticket_key_id(old_raw)}.ticket-key"
        _write_secret(retired, base64.b64encode(old_raw) + b"\n", overwrite=retired.exists())
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
