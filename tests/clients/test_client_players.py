"""The Python client and patience-cli as a signed-in player (docs/players.md): a guest's sign-in, whoami, the
player's games (ListGames) and a game resumed on a second "device" (another client, another state file) with the
identity alone, rename, erase; the identity from the environment or a file. Against a real service and Redis.
"""

from __future__ import annotations

import asyncio
import io
import os
import stat
from pathlib import Path

import pytest
from client_harness import ServiceThread, service
from patience_client import AsyncPatienceClient, ClientSettings, PatienceClient, cli, statefile
from patience_client.errors import InvalidRequest, PermissionDenied, Unauthenticated

__all__ = ["service"]


def test_a_guest_signs_in_and_finds_their_games_from_another_client(service: ServiceThread) -> None:
    with PatienceClient(ClientSettings(target=service.target)) as phone:
        created = phone.create_guest("Ada")
        assert phone.credentials.identity == created.token
        assert phone.get_player() == created.player
        ids = [phone.new_game("cats-tail").game.game_id for _ in range(3)]
        assert phone.new_game("cats-tail").game.player == created.player
    # Another client that knows only the identity: no game token at all.
    with PatienceClient(ClientSettings(target=service.target, identity=created.token)) as laptop:
        listed = [g.game_id for g in laptop.all_games(page_size=2)]
        assert listed[1:] == ids[::-1] and len(listed) == 4
        page = laptop.list_games(page_size=2)
        assert len(page.games) == 2 and page.next_page_token
        game = laptop.get_game(ids[0])
        moved = laptop.apply_move(ids[0], laptop.legal_moves(ids[0]).moves[0].text, expected_version=game.version)
        assert moved.game.version == 2
        assert laptop.update_player("Ada L.").display_name == "Ada L."
        with pytest.raises(InvalidRequest) as bad:
            laptop.update_player("")
        assert bad.value.reason == "BAD_DISPLAY_NAME"
        assert laptop.erase_player() == 4
        with pytest.raises(PermissionDenied):
            laptop.get_game(ids[0])
    with PatienceClient(ClientSettings(target=service.target)) as anonymous:
        with pytest.raises(Unauthenticated) as refused:
            anonymous.get_player()
        assert refused.value.reason == "MISSING_IDENTITY"
        assert not anonymous.new_game("cats-tail").game.HasField("player")


def test_the_asyncio_client_does_the_same(service: ServiceThread) -> None:
    async def run() -> None:
        async with AsyncPatienceClient(ClientSettings(target=service.target)) as client:
            created = await client.create_guest("Async")
            game_id = (await client.new_game("cats-tail")).game.game_id
            assert (await client.get_player()).display_name == "Async"
            assert [g.game_id for g in (await client.list_games()).games] == [game_id]
            assert (await client.update_player("Async 2")).display_name == "Async 2"
            assert await client.erase_player() == 1
            assert created.token == client.credentials.identity

    asyncio.run(run())


def test_the_identity_comes_from_the_environment_or_a_file(service: ServiceThread, tmp_path: Path) -> None:
    with PatienceClient(ClientSettings(target=service.target)) as client:
        token = client.create_guest("Env").token
    assert ClientSettings.from_env({"PATIENCE_IDENTITY": f" {token}\n"}).identity == token
    (tmp_path / "id").write_text(token + "\n")
    assert ClientSettings.from_env({"PATIENCE_IDENTITY_FILE": str(tmp_path / "id")}).identity == token
    (tmp_path / "bad").write_text("pgt_not-an-identity\n")
    with pytest.raises(ValueError):
        ClientSettings.from_env({"PATIENCE_IDENTITY_FILE": str(tmp_path / "bad")})


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


@pytest.fixture
def device(service: ServiceThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A terminal of its own: its state directory (where the identity file goes too)."""
    home = tmp_path / "phone"
    monkeypatch.setenv("PATIENCE_TARGET", service.target)
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(home / "current.json"))
    for var in ("PATIENCE_TOKEN", "PATIENCE_GAME", "PATIENCE_IDENTITY", "PATIENCE_IDENTITY_FILE", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return home


def test_cli_guest_games_and_resume_on_another_device(device: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run("whoami")
    assert code == 2  # not signed in: a usage message, not a refusal
    code, out = run("guest", "Ада")
    assert code == 0 and "signed in as Ада (p_" in out
    identity = device / "identity"
    assert stat.S_IMODE(os.stat(identity).st_mode) == 0o600
    code, out = run("whoami")
    assert code == 0 and out.startswith("Ада (p_") and "guest" in out
    assert run("new", "cats-tail")[0] == 0
    first = statefile.load(device / "current.json")
    assert first is not None
    # The other device: another state file, the identity in the environment (no game token anywhere).
    laptop = device.parent / "laptop"
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(laptop / "current.json"))
    monkeypatch.setenv("PATIENCE_IDENTITY", identity.read_text().strip())
    code, out = run("games")
    assert code == 0 and first.game_id in out and "cats-tail" in out and "playing" in out
    code, out = run("resume", first.game_id)
    assert code == 0
    resumed = statefile.load(laptop / "current.json")
    assert resumed is not None and resumed.game_id == first.game_id and resumed.token == ""  # no token kept
    code, out = run("show")
    assert code == 0
    code, out = run("rename", "Ada")
    assert code == 0 and "now Ada (" in out
    assert run("erase")[0] == 2  # not without --yes
    code, out = run("erase", "--yes")
    assert code == 0 and "1 game(s) unlinked" in out
    code, out = run("show")
    assert code == 1 and "WRONG_TOKEN" in out  # the identity no longer opens it
    monkeypatch.delenv("PATIENCE_IDENTITY")
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(device / "current.json"))
    assert run("show")[0] == 0  # the phone still holds the game's own token
    code, out = run("sign-out")
    assert code == 0 and not identity.exists()
    assert run("whoami")[0] == 2
