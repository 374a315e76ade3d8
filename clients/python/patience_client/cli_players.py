"""patience-cli's player commands (docs/players.md): guest, whoami, games, resume, rename, sign-out, erase.

The identity token comes from --identity-file, else PATIENCE_IDENTITY, else PATIENCE_IDENTITY_FILE, else the
identity file beside the state file (``~/.config/patience/identity``), which ``guest`` writes (mode 0600).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from patience.v1 import patience_pb2 as pb

from .cli_context import Context, UsageError
from .config import read_identity

#: GameSummary.status in words.
STATUS_WORDS = {
    pb.GAME_STATUS_IN_PROGRESS: "playing",
    pb.GAME_STATUS_WON: "won",
    pb.GAME_STATUS_STUCK: "stuck",
    pb.GAME_STATUS_RESIGNED: "resigned",
    pb.GAME_STATUS_EXPIRED: "expired",
    pb.GAME_STATUS_FORFEITED: "forfeited",
}


def identity_path(state_path: Path, given: str | None, env: Mapping[str, str] | None = None) -> Path:
    """Where the identity token is kept: --identity-file, else PATIENCE_IDENTITY_FILE, else beside the state file."""
    e = os.environ if env is None else env
    if given:
        return Path(given).expanduser()
    if e.get("PATIENCE_IDENTITY_FILE"):
        return Path(e["PATIENCE_IDENTITY_FILE"]).expanduser()
    return state_path.with_name("identity")


def identity_from(path: Path, env: Mapping[str, str] | None = None, *, given: bool = False) -> str | None:
    """The identity token to use: PATIENCE_IDENTITY (unless a file was given on the command line), else the file's
    if it exists."""
    e = os.environ if env is None else env
    if e.get("PATIENCE_IDENTITY") and not given:
        return e["PATIENCE_IDENTITY"].strip()
    return read_identity(path) if path.is_file() else None


def save_identity(path: Path, token: str) -> None:
    """Write atomically, readable by the owner only: the token is the player's only way back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.replace(tmp, path)


def _signed_in(ctx: Context) -> None:
    if not ctx.client.credentials.identity:
        raise UsageError("not signed in: `patience-cli guest NAME`, or an identity token in PATIENCE_IDENTITY")


def _player(player: pb.Player) -> str:
    return f"{player.display_name} ({player.id}, {player.kind})"


def cmd_guest(ctx: Context) -> int:
    created = ctx.client.create_guest(ctx.args.name)
    save_identity(ctx.identity_path, created.token)
    ctx.print(f"signed in as {_player(created.player)}")
    ctx.print(f"identity kept in {ctx.identity_path} until {created.expires_at.ToJsonString()[:10]}: keep it safe")
    ctx.print("new games are yours now, on any device that signs in with it (`patience-cli games`)")
    return 0


def cmd_whoami(ctx: Context) -> int:
    _signed_in(ctx)
    ctx.print(_player(ctx.client.get_player()))
    return 0


def cmd_games(ctx: Context) -> int:
    _signed_in(ctx)
    if ctx.args.all:
        games = list(ctx.client.all_games())
        more = ""
    else:
        page = ctx.client.list_games(page_size=ctx.args.page_size)
        games, more = list(page.games), page.next_page_token
    if not games:
        ctx.print("no games yet: `patience-cli new VARIANT`")
        return 0
    for g in games:
        when = (g.finished_at if g.HasField("finished_at") else g.updated_at).ToJsonString()[:16].replace("T", " ")
        status = STATUS_WORDS.get(g.status, "?")
        ctx.print(f"{g.game_id}  {g.variant:<24} {status:<9} {g.move_count:>4} moves  {when}")
    if more:
        ctx.print("... and more: `patience-cli games --all`")
    ctx.print("continue one with `patience-cli resume GAME_ID`")
    return 0


def cmd_resume(ctx: Context) -> int:
    """Make one of the player's games the current one (the identity opens it: no game token needed)."""
    _signed_in(ctx)
    game = ctx.client.get_game(ctx.args.game_id)
    ctx.save(game)
    ctx.show(game)
    return 0


def cmd_rename(ctx: Context) -> int:
    _signed_in(ctx)
    ctx.print(f"now {_player(ctx.client.update_player(ctx.args.name))}")
    return 0


def cmd_sign_out(ctx: Context) -> int:
    ctx.identity_path.unlink(missing_ok=True)
    ctx.print(f"signed out: {ctx.identity_path} deleted (a guest cannot sign in again without that token)")
    return 0


def cmd_erase(ctx: Context) -> int:
    _signed_in(ctx)
    if not ctx.args.yes:
        raise UsageError("erase forgets your name and your list of games on the server: add --yes to do it")
    unlinked = ctx.client.erase_player()
    ctx.print(f"erased: {unlinked} game(s) unlinked from you; certificates already issued stay as they are")
    return 0
