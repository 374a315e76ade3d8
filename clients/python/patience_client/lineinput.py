"""Line editing and history for ``patience-cli play``, when a person types at a terminal.

Python's ``input()`` edits lines only once the ``readline`` module is loaded; without it the arrow keys arrive as
escape sequences (``\\x1b[A``) and Ctrl-L as a control character, and the game refuses them as moves. History is
kept between sessions in ``$XDG_STATE_HOME/patience/history`` (default ``~/.local/state``), or
``PATIENCE_HISTORY_FILE``; an empty ``PATIENCE_HISTORY_FILE`` keeps none.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

HISTORY_LENGTH = 1000


def history_path(env: Mapping[str, str] | None = None) -> Path | None:
    e = os.environ if env is None else env
    if "PATIENCE_HISTORY_FILE" in e:
        return Path(e["PATIENCE_HISTORY_FILE"]).expanduser() if e["PATIENCE_HISTORY_FILE"] else None
    base = Path(e["XDG_STATE_HOME"]) if e.get("XDG_STATE_HOME") else Path.home() / ".local" / "state"
    return base / "patience" / "history"


def _readline() -> ModuleType | None:
    try:
        import readline  # loading it is what turns line editing on
    except ImportError:  # a Python built without it (some Windows builds): plain input still works
        return None
    return readline


@contextlib.contextmanager
def line_editing(interactive: bool) -> Iterator[None]:
    """Within the block, ``input()`` edits lines and recalls earlier ones (only when ``interactive``)."""
    readline = _readline() if interactive else None
    path = history_path() if readline is not None else None
    if readline is not None:
        readline.set_history_length(HISTORY_LENGTH)
        if path is not None:
            with contextlib.suppress(OSError):
                readline.read_history_file(path)
    try:
        yield
    finally:
        if readline is not None and path is not None:
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
                readline.write_history_file(path)
