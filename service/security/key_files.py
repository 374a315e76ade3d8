"""Key files: how a key is read from its text (PEM or base64) and from a file, and written to one (mode 0600 from
the first byte, replaced atomically), and where the keys directory is.

Shared by the service's keys (``service.security.keys``: signing and ticket keys) and the players' keys
(``service.security.identity_keys``), which differ in which keys they hold, not in how a key is kept.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from service.security.tickets import KEY_BYTES

log = logging.getLogger("patience.keys")

ENV_KEYS_DIR = "PATIENCE_KEYS_DIR"
RETIRED_DIR = "retired"
REPO_ROOT = Path(__file__).resolve().parents[2]


class KeyConfigError(ValueError):
    """A key that is configured but unusable (unreadable, wrong format), or missing where it is required."""


def default_keys_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$PATIENCE_KEYS_DIR``, else ``$XDG_DATA_HOME/patience/keys``, else ``~/.local/share/patience/keys``."""
    env = os.environ if env is None else env
    if env.get(ENV_KEYS_DIR):
        return Path(env[ENV_KEYS_DIR]).expanduser()
    data = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "patience" / "keys"


def b64(text: str, what: str) -> bytes:
    """Base64 (whitespace ignored), or KeyConfigError naming ``what``."""
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
    raw = b64(data.decode("ascii", errors="replace"), what)
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
    raw = b64(data.decode("ascii", errors="replace"), what)
    if len(raw) != 32:
        raise KeyConfigError(f"{what}: a raw Ed25519 public key is 32 bytes, not {len(raw)}")
    return Ed25519PublicKey.from_public_bytes(raw)


def parse_ticket_key(text: str | bytes, what: str) -> bytes:
    """A ticket key: base64 of 32 bytes."""
    raw = b64(text.decode("ascii", errors="replace") if isinstance(text, bytes) else text, what)
    if len(raw) != KEY_BYTES:
        raise KeyConfigError(f"{what}: a ticket key is {KEY_BYTES} bytes, not {len(raw)}")
    return raw


def read_secret(path: Path) -> bytes:
    """A secret file's bytes (a warning when other users may read it)."""
    try:
        data = path.read_bytes()
        mode = path.stat().st_mode
    except OSError as exc:
        raise KeyConfigError(f"cannot read {path}: {exc.strerror}") from exc
    # Group bits are allowed: Kubernetes mounts Secrets 0440 for the pod's fsGroup. "Other" bits never are.
    if os.name == "posix" and mode & 0o007:
        log.warning("%s is readable by other users: chmod 600 it", path)
    return data


def exists(path: Path) -> bool:
    """Whether a key file is there; a directory this process may not read is a configuration error, not a crash
    (a container's keys mounted for another user)."""
    try:
        return path.exists()
    except OSError as exc:
        raise KeyConfigError(
            f"cannot read {path}: {exc.strerror} (this process runs as uid {os.getuid()}: the keys directory and"
            " files must be readable by it, docs/keys.md)"
        ) from exc


def split_list(text: str) -> list[str]:
    """The items of a comma- or space-separated list of keys."""
    return [item for item in text.replace(",", " ").split() if item]


def check_outside_repo(folder: Path) -> None:
    """Generated secrets never land in the source tree (where a `git add` would publish them)."""
    resolved = folder.expanduser().resolve()
    if resolved == REPO_ROOT or REPO_ROOT in resolved.parents:
        raise KeyConfigError(
            f"refusing to generate keys inside the repository ({resolved}); use a directory outside it"
        )


def write_secret(path: Path, data: bytes, *, overwrite: bool = False) -> None:
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


def write_public(path: Path, data: bytes) -> None:
    """A public key's file, mode 0644, replaced atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def pem_private(key: Ed25519PrivateKey) -> bytes:
    """PKCS#8 PEM, unencrypted (the file's mode protects it)."""
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def pem_public(key: Ed25519PublicKey) -> bytes:
    """SubjectPublicKeyInfo PEM."""
    return key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def make_dir(folder: Path) -> None:
    """The keys directory and its ``retired/``, mode 0700."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / RETIRED_DIR).mkdir(mode=0o700, exist_ok=True)
