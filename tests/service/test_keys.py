"""Keys: generated with safe modes, loaded from files or the environment, rotated with old keys still working."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from patience.certificates import CertificateContents, key_id_of, raw_public_key

from service.security.keys import (
    ENV_RETIRED_PUBLIC_KEYS,
    ENV_RETIRED_TICKET_KEYS,
    ENV_SIGNING_KEY,
    ENV_SIGNING_KEY_FILE,
    ENV_TICKET_KEY,
    ENV_TICKET_KEY_FILE,
    KeyConfigError,
    default_keys_dir,
    generate_keys,
    load_keys,
    load_service_keys,
    rotate_keys,
)
from service.security.signing import KeyRing
from service.security.tickets import TicketMinter, ticket_key_id

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(32)


def contents() -> CertificateContents:
    return CertificateContents(
        game_id="g",
        variant="cats-tail",
        options={"sequence_moves": "true"},
        seed=SEED,
        commitment=hashlib.sha256(SEED).digest(),
        moves=("1-f",),
        move_count=1,
        undo_count=0,
        started_at=1,
        finished_at=2,
        final_state_hash="00" * 32,  # a certificate always names its final position (never replayed here)
    )


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.security.keys", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_generate_writes_keys_with_private_modes(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    done = cli("generate", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    ids = json.loads(done.stdout)
    assert mode(folder) == 0o700 and mode(folder / "retired") == 0o700
    assert mode(folder / "signing-key.pem") == 0o600 and mode(folder / "ticket-key") == 0o600
    assert mode(folder / "signing-key.pub.pem") == 0o644
    assert (folder / "signing-key.pem").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    keys = load_keys(folder, env={})
    assert keys.key_ring is not None and keys.tickets is not None
    assert keys.key_ring.active_key_id == ids["signing_key_id"]
    assert keys.tickets.key_id == ids["ticket_key_id"]
    assert len(base64.b64decode((folder / "ticket-key").read_text())) == 32


def test_generate_never_overwrites_by_accident(tmp_path: Path) -> None:
    first = json.loads(cli("generate", "--out", str(tmp_path)).stdout)
    again = cli("generate", "--out", str(tmp_path))
    assert again.returncode == 1 and "exists" in again.stderr
    assert load_keys(tmp_path, env={}).key_ring.active_key_id == first["signing_key_id"]  # type: ignore[union-attr]
    forced = json.loads(cli("generate", "--out", str(tmp_path), "--force").stdout)
    assert forced["signing_key_id"] != first["signing_key_id"]
    assert mode(tmp_path / "signing-key.pem") == 0o600


def test_keys_are_never_generated_inside_the_repository() -> None:
    with pytest.raises(KeyConfigError, match="inside the repository"):
        generate_keys(ROOT / "var" / "keys")
    done = cli("generate", "--out", "var/keys")
    assert done.returncode == 1 and "inside the repository" in done.stderr
    assert not (ROOT / "var" / "keys").exists()


def test_first_start_generates_then_reuses(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "keys"
    first = load_keys(folder, env={}, generate=True)
    second = load_keys(folder, env={}, generate=True)
    assert first.key_ring is not None and second.key_ring is not None
    assert first.key_ring.active_key_id == second.key_ring.active_key_id  # stable across restarts
    assert first.tickets is not None and second.tickets is not None
    assert first.tickets.key_id == second.tickets.key_id
    cert = first.key_ring.sign(contents())
    assert second.key_ring.verify(cert).valid


def test_load_service_keys_reads_the_settings(tmp_path: Path) -> None:
    ring, tickets = load_service_keys(SimpleNamespace(keys_dir=tmp_path, generate_keys=True))
    assert ring is not None and ring.signing_key is not None and tickets is not None
    with pytest.raises(KeyConfigError, match="generate"):
        load_service_keys(SimpleNamespace(keys_dir=tmp_path / "empty", generate_keys=False))


def test_an_explicit_directory_without_keys_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KeyConfigError, match=r"python -m service.security.keys generate"):
        load_keys(tmp_path, env={})


def test_nothing_configured_means_no_keys(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path)}
    assert default_keys_dir(env) == tmp_path / "patience" / "keys"
    keys = load_keys(None, env=env)
    assert keys.key_ring is None and keys.tickets is None
    assert default_keys_dir({"PATIENCE_KEYS_DIR": str(tmp_path / "k")}) == tmp_path / "k"


def test_keys_from_environment_values(tmp_path: Path) -> None:
    signing = Ed25519PrivateKey.generate()
    ticket = bytes(range(32))
    pem = signing.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    raw = base64.b64encode(signing.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()
    for text in (pem, raw):
        keys = load_keys(None, env={ENV_SIGNING_KEY: text, ENV_TICKET_KEY: base64.b64encode(ticket).decode()})
        assert keys.key_ring is not None and keys.key_ring.active_key_id == key_id_of(signing)
        assert keys.tickets is not None and keys.tickets.key_id == ticket_key_id(ticket)


def test_environment_wins_over_the_directory_and_files_work(tmp_path: Path) -> None:
    generate_keys(tmp_path / "dir")
    signing = Ed25519PrivateKey.generate()
    key_file = tmp_path / "signing.pem"
    key_file.write_bytes(signing.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    key_file.chmod(0o600)
    ticket_file = tmp_path / "ticket"
    ticket_file.write_text(base64.b64encode(bytes(32)).decode() + "\n")
    env = {ENV_SIGNING_KEY_FILE: str(key_file), ENV_TICKET_KEY_FILE: str(ticket_file)}
    keys = load_keys(tmp_path / "dir", env=env)
    assert keys.key_ring is not None and keys.key_ring.active_key_id == key_id_of(signing)
    assert keys.tickets is not None and keys.tickets.key_id == ticket_key_id(bytes(32))
    only_ticket = load_keys(tmp_path / "dir", env={ENV_TICKET_KEY_FILE: str(ticket_file)})
    assert only_ticket.key_ring is not None and only_ticket.key_ring.active_key_id != key_id_of(signing)  # from dir


def test_retired_keys_from_the_environment(tmp_path: Path) -> None:
    old_signing = Ed25519PrivateKey.generate()
    old_ticket = TicketMinter(bytes(range(32)))
    old_cert = KeyRing(old_signing).sign(contents())
    text, _ = old_ticket.mint("cats-tail", {}, expires_at=4_000_000_000, issued_at=1_700_000_000)
    generate_keys(tmp_path)
    env = {
        ENV_RETIRED_PUBLIC_KEYS: base64.b64encode(raw_public_key(old_signing.public_key())).decode(),
        ENV_RETIRED_TICKET_KEYS: base64.b64encode(bytes(range(32))).decode(),
    }
    keys = load_keys(tmp_path, env=env)
    assert keys.key_ring is not None and keys.key_ring.verify(old_cert).valid
    assert keys.tickets is not None and keys.tickets.open(text, now=1_700_000_100).key_id == old_ticket.key_id
    assert load_keys(tmp_path, env={}).key_ring.verify(old_cert).reason == "UNKNOWN_KEY"  # type: ignore[union-attr]


def test_rotation_keeps_old_certificates_and_tickets_working(tmp_path: Path) -> None:
    generate_keys(tmp_path)
    before = load_keys(tmp_path, env={})
    assert before.key_ring is not None and before.tickets is not None
    cert = before.key_ring.sign(contents())
    ticket_text, ticket = before.tickets.mint("cats-tail", {}, expires_at=4_000_000_000, issued_at=1_700_000_000)
    seed = before.tickets.seed(ticket)

    done = cli("rotate", "--dir", str(tmp_path), "--ticket")
    assert done.returncode == 0, done.stderr
    ids = json.loads(done.stdout)
    assert ids["retired_signing_key_id"] == before.key_ring.active_key_id != ids["signing_key_id"]
    assert ids["retired_ticket_key_id"] == before.tickets.key_id != ids["ticket_key_id"]
    assert mode(tmp_path / "retired" / f"{ids['retired_ticket_key_id']}.ticket-key") == 0o600
    assert not any(p.name.endswith(".pem") and "PRIVATE" in p.read_text() for p in (tmp_path / "retired").iterdir())

    after = load_keys(tmp_path, env={})
    assert after.key_ring is not None and after.tickets is not None
    assert after.key_ring.active_key_id == ids["signing_key_id"]
    assert after.key_ring.verify(cert).valid  # an old certificate still verifies
    assert [active for _, _, active in after.key_ring.public_keys()] == [True, False]
    reopened = after.tickets.open(ticket_text, now=1_700_000_100)
    assert after.tickets.seed(reopened) == seed  # an old ticket still deals the same game
    new_cert = after.key_ring.sign(contents())
    assert json.loads(new_cert)["key_id"] == ids["signing_key_id"]

    shown = json.loads(cli("show", "--dir", str(tmp_path), "--json").stdout)
    assert [(k["key_id"], k["active"]) for k in shown["signing_keys"]] == [
        (ids["signing_key_id"], True),
        (ids["retired_signing_key_id"], False),
    ]
    assert "PRIVATE" not in json.dumps(shown)


def test_rotating_twice_keeps_every_retired_key(tmp_path: Path) -> None:
    generate_keys(tmp_path)
    first = rotate_keys(tmp_path)
    second = rotate_keys(tmp_path)
    ring = load_keys(tmp_path, env={}).key_ring
    assert ring is not None
    assert {kid for kid, _, _ in ring.public_keys()} == {
        first["retired_signing_key_id"],
        second["retired_signing_key_id"],
        second["signing_key_id"],
    }


def test_unusable_keys_are_named_in_the_error(tmp_path: Path) -> None:
    ec_pem = (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        .decode()
    )
    cases = [
        ({ENV_SIGNING_KEY: "not base64 !!"}, ENV_SIGNING_KEY),
        ({ENV_SIGNING_KEY: base64.b64encode(b"short").decode()}, "32 bytes"),
        ({ENV_SIGNING_KEY: ec_pem}, "not an Ed25519 key"),
        ({ENV_SIGNING_KEY: "-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----"}, ENV_SIGNING_KEY),
        ({ENV_TICKET_KEY: base64.b64encode(bytes(16)).decode()}, ENV_TICKET_KEY),
        ({ENV_TICKET_KEY_FILE: str(tmp_path / "missing")}, "cannot read"),
        ({ENV_RETIRED_PUBLIC_KEYS: "AAAA"}, ENV_RETIRED_PUBLIC_KEYS),
    ]
    for env, message in cases:
        with pytest.raises(KeyConfigError, match=message):
            load_keys(None, env={"XDG_DATA_HOME": str(tmp_path), **env})


def test_rotate_without_keys_is_an_error(tmp_path: Path) -> None:
    done = cli("rotate", "--dir", str(tmp_path / "nothing"))
    assert done.returncode == 1 and "generate" in done.stderr


def test_group_readable_secrets_load_quietly_world_readable_ones_warn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Kubernetes mounts Secrets 0440 (group = the pod's fsGroup): fine. Readable by others: warned."""
    folder = tmp_path / "keys"
    load_keys(folder, env={}, generate=True)
    files = [p for p in folder.rglob("*") if p.is_file() and "public" not in p.name]
    assert files
    for path in files:
        path.chmod(0o440)
    caplog.clear()
    with caplog.at_level("WARNING", logger="patience.keys"):
        load_keys(folder, env={}, generate=False)
    assert not [r for r in caplog.records if "readable by other users" in r.getMessage()]
    for path in files:
        path.chmod(0o444)
    with caplog.at_level("WARNING", logger="patience.keys"):
        load_keys(folder, env={}, generate=False)
    assert [r for r in caplog.records if "readable by other users" in r.getMessage()]
