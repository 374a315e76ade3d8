"""The players' two keys: the guest key (Ed25519, signs guest identities) and the player-id key (32 bytes, derives
the pseudonymous player ids). Found like the other keys (service.security.keys, docs/keys.md), first match wins:

1. ``PATIENCE_GUEST_KEY`` / ``PATIENCE_PLAYER_ID_KEY`` (the key itself: PEM or base64);
2. ``PATIENCE_GUEST_KEY_FILE`` / ``PATIENCE_PLAYER_ID_KEY_FILE`` (a file holding it);
3. the keys directory: ``guest-key.pem`` (mode 0600), ``player-id-key`` (base64, mode 0600), and
   ``retired/<key id>.guest.pub.pem`` (retired guest keys: their tokens verify until they expire; also
   ``PATIENCE_RETIRED_GUEST_KEYS``, comma-separated base64).

The player-id key is never rotated: every player's id is derived from it, so a new key would make every player a
stranger to their games and boards. Without it, the server accepts no identities (players are off).
"""

from __future__ import annotations

import base64
import logging
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.security import key_files
from service.security.players import GuestIssuer, Identities, guest_key_id
from service.security.providers import providers_from

log = logging.getLogger("patience.keys")

ENV_GUEST_KEY = "PATIENCE_GUEST_KEY"
ENV_GUEST_KEY_FILE = "PATIENCE_GUEST_KEY_FILE"
ENV_RETIRED_GUEST_KEYS = "PATIENCE_RETIRED_GUEST_KEYS"
ENV_PLAYER_ID_KEY = "PATIENCE_PLAYER_ID_KEY"
ENV_PLAYER_ID_KEY_FILE = "PATIENCE_PLAYER_ID_KEY_FILE"

GUEST_FILE = "guest-key.pem"
PLAYER_ID_FILE = "player-id-key"
ID_KEY_BYTES = 32


def _from_env(env: Mapping[str, str], name: str, file_name: str) -> tuple[bytes, str] | None:
    if env.get(name):
        return env[name].encode(), name
    if env.get(file_name):
        path = Path(env[file_name]).expanduser()
        return key_files.read_secret(path), f"{file_name} ({path})"
    return None


def parse_id_key(data: bytes, what: str) -> bytes:
    raw = key_files.b64(data.decode("ascii", errors="replace"), what)
    if len(raw) != ID_KEY_BYTES:
        raise key_files.KeyConfigError(f"{what}: a player-id key is {ID_KEY_BYTES} bytes, not {len(raw)}")
    return raw


def generate_identity_keys(folder: Path, *, guest: bool = True, player_id: bool = True) -> dict[str, str]:
    """Write a guest key and/or a player-id key into ``folder`` (never over an existing one)."""
    key_files.check_outside_repo(folder)
    key_files.make_dir(folder)
    ids: dict[str, str] = {}
    if guest:
        path = folder / GUEST_FILE
        key = Ed25519PrivateKey.generate()
        key_files.write_secret(path, key_files.pem_private(key), overwrite=path.exists())
        ids["guest_key_id"] = guest_key_id(key.public_key())
        log.warning("generated a guest identity key %s in %s", ids["guest_key_id"], folder)
    if player_id:
        path = folder / PLAYER_ID_FILE
        if path.exists():
            raise key_files.KeyConfigError(f"{path} exists: the player-id key is never replaced (docs/keys.md)")
        key_files.write_secret(path, base64.b64encode(secrets.token_bytes(ID_KEY_BYTES)) + b"\n")
        ids["player_id_key"] = "generated"
        log.warning("generated a player-id key in %s", folder)
    return ids


def generate_missing(folder: Path) -> dict[str, str]:
    """The identity keys ``keys generate`` adds: whichever of the two is missing (the player-id key is never
    replaced, even with --force)."""
    guest = not (folder / GUEST_FILE).exists()
    player = not (folder / PLAYER_ID_FILE).exists()
    return generate_identity_keys(folder, guest=guest, player_id=player) if guest or player else {}


def rotate_guest_key(folder: Path) -> dict[str, str]:
    """Retire the guest key (its public half to ``retired/<id>.guest.pub.pem``) and make a new one."""
    path = folder / GUEST_FILE
    if not path.exists():
        raise key_files.KeyConfigError(f"no {path} to rotate; use `generate`")
    old = key_files.parse_signing_key(key_files.read_secret(path), str(path))
    retired = folder / key_files.RETIRED_DIR / f"{guest_key_id(old.public_key())}.guest.pub.pem"
    key_files.write_public(retired, key_files.pem_public(old.public_key()))
    return {"retired_guest_key_id": guest_key_id(old.public_key()), **generate_identity_keys(folder, player_id=False)}


def load_identities(
    directory: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    generate: bool = False,
    guest_lifetime_seconds: int | None = None,
) -> Identities | None:
    """The identities the server accepts, or None when no player-id key is configured anywhere."""
    env = os.environ if env is None else env
    folder = Path(directory).expanduser() if directory is not None else key_files.default_keys_dir(env)
    guest_text = _from_env(env, ENV_GUEST_KEY, ENV_GUEST_KEY_FILE)
    id_text = _from_env(env, ENV_PLAYER_ID_KEY, ENV_PLAYER_ID_KEY_FILE)
    need_guest = guest_text is None and not key_files.exists(folder / GUEST_FILE)
    need_id = id_text is None and not key_files.exists(folder / PLAYER_ID_FILE)
    if generate and (need_guest or need_id):
        generate_identity_keys(folder, guest=need_guest, player_id=need_id)
    if guest_text is None and key_files.exists(folder / GUEST_FILE):
        guest_text = key_files.read_secret(folder / GUEST_FILE), str(folder / GUEST_FILE)
    if id_text is None and key_files.exists(folder / PLAYER_ID_FILE):
        id_text = key_files.read_secret(folder / PLAYER_ID_FILE), str(folder / PLAYER_ID_FILE)
    if id_text is None:
        log.warning("no player-id key: players are off, every call is anonymous (see docs/keys.md)")
        return None
    retired = [
        key_files.parse_public_key(p.read_bytes(), str(p))
        for p in sorted((folder / key_files.RETIRED_DIR).glob("*.guest.pub.pem"))
    ]
    retired += [
        key_files.parse_public_key(t, ENV_RETIRED_GUEST_KEYS)
        for t in key_files.split_list(env.get(ENV_RETIRED_GUEST_KEYS, ""))
    ]
    guest_key = key_files.parse_signing_key(*guest_text) if guest_text is not None else None
    lifetime: dict[str, Any] = {} if guest_lifetime_seconds is None else {"lifetime_seconds": guest_lifetime_seconds}
    guests = GuestIssuer(guest_key, retired, **lifetime) if guest_key is not None or retired else None
    return Identities(parse_id_key(*id_text), guests)


def load_service_identities(settings: Any) -> Identities | None:
    """What ``service.server`` calls: identities for ``settings.keys_dir`` / ``settings.generate_keys``, with the
    OpenID Connect providers of ``--oidc-issuer`` (which need a player-id key: KeyConfigError without one)."""
    days = getattr(settings, "guest_lifetime_days", None)
    identities = load_identities(
        getattr(settings, "keys_dir", None),
        generate=bool(getattr(settings, "generate_keys", False)),
        guest_lifetime_seconds=int(days * 86400) if days else None,
    )
    issuers = tuple(getattr(settings, "oidc_issuer", ()))
    if not issuers:
        return identities
    if identities is None:
        raise key_files.KeyConfigError("--oidc-issuer needs a player-id key (docs/keys.md): none is configured")
    identities.providers = providers_from(issuers, settings.oidc_audience, settings.oidc_jwks_url)
    return identities
