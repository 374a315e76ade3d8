"""What every patience-cli command is given: the settings, the client, the current game, where to print."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from patience.v1 import patience_pb2 as pb

from . import render, statefile
from .client import PatienceClient
from .config import ClientSettings
from .errors import ServiceError

MAX_FILE_BYTES = 8 * 1024 * 1024


class UsageError(Exception):
    """Bad input on the command line (exit 2)."""


@dataclass
class Context:
    """What every command needs: the client, the resolved game, the state file and the output."""

    args: argparse.Namespace
    settings: ClientSettings
    state_path: Path
    current: statefile.CurrentGame | None
    out: TextIO
    color: bool
    width: int
    identity_path: Path = Path("identity")  # where `guest` keeps the identity token (cli_players)
    _client: PatienceClient | None = None

    @property
    def client(self) -> PatienceClient:
        if self._client is None:
            self._client = PatienceClient(self.settings)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def game_id(self) -> str:
        gid: str | None = (
            self.args.game or os.environ.get("PATIENCE_GAME") or (self.current.game_id if self.current else None)
        )
        if not gid:
            raise UsageError("no current game: start one with `patience-cli new VARIANT` (or pass --game ID)")
        if self.current and self.current.game_id == gid and self.settings.token is None:
            self.client.remember(gid, self.current.token)
        return gid

    def save(self, game: pb.Game) -> None:
        """Remember ``game`` as the current one, with the token the client uses for it (none when that is the
        player's identity, which is kept in its own file)."""
        token = self.client.credentials.token_for(game.game_id, None) or ""
        self.current = statefile.CurrentGame(
            target=self.settings.target,
            game_id=game.game_id,
            token="" if token == self.client.credentials.identity else token,
            variant=game.variant,
            version=game.version,
        )
        statefile.save(self.state_path, self.current)

    def show(self, game: pb.Game, hint: pb.Move | None = None) -> None:
        self.print(render.render_game(game, color=self.color, width=self.width, hint=hint))


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--option takes key=value, not {pair!r}")
        out[key.strip()] = value.strip()
    return out


def read_text(path: str) -> str:
    data = sys.stdin.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_text()[: MAX_FILE_BYTES + 1]
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"{path}: over {MAX_FILE_BYTES} bytes")
    return data


def refusal(exc: ServiceError) -> str:
    """A refused move or request in a player's words: what, the server's reason and message, and why."""
    what = f"{exc.move_text!r} refused" if exc.move_text else "refused"
    if exc.move_index is not None and exc.method == "SubmitSolution":
        what = f"move {exc.move_index + 1} {what}"
    text = f"✗ {what}: {exc.reason or exc.code.name}: {exc.message}"
    why = render.explain(exc.engine_reason)
    return text + (f"\n  why: {why}" if why else "")
