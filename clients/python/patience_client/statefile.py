"""The terminal client's memory of the current game, so a player can stop and come back.

A small JSON file: the server target, the game id, its token (the game's bearer
secret: the file is written with mode 0600) and the last version seen. Its
place: ``$PATIENCE_STATE_FILE``, else ``$XDG_CONFIG_HOME/patience/current.json``,
else ``~/.config/patience/current.json``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class CurrentGame:
    """What the CLI keeps between runs."""

    target: str
    game_id: str
    token: str
    variant: str = ""
    version: int = 0


def default_path(env: Mapping[str, str] | None = None) -> Path:
    e = os.environ if env is None else env
    if e.get("PATIENCE_STATE_FILE"):
        return Path(e["PATIENCE_STATE_FILE"]).expanduser()
    base = Path(e["XDG_CONFIG_HOME"]) if e.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "patience" / "current.json"


def load(path: Path) -> CurrentGame | None:
    """The saved game, or None when there is none (a damaged file counts as none)."""
    try:
        data = json.loads(path.read_text())
        return CurrentGame(
            target=str(data["target"]),
            game_id=str(data["game_id"]),
            token=str(data["token"]),
            variant=str(data.get("variant", "")),
            version=int(data.get("version", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(path: Path, current: CurrentGame) -> None:
    """Write atomically (temp file + rename), readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(asdict(current), f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def clear(path: Path) -> None:
    path.unlink(missing_ok=True)
