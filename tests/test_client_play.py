"""``patience-cli play`` driven through a real pseudo-terminal (pexpect), against a real service.

A player starts a game, asks for the legal moves, plays, is refused and told
why, takes a move back, leaves, and comes back to the same game.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
from client_harness import ServiceThread, refused_move, seed_for, service
from patience_client import statefile

from engine.catalogue import get_game

__all__ = ["service"]

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def command() -> tuple[str, list[str]]:
    """The installed ``patience-cli`` (deploy/setup.sh installs clients/python), else the module."""
    installed = Path(sys.executable).parent / "patience-cli"
    if installed.exists():
        return str(installed), []
    return sys.executable, ["-m", "patience_client.cli"]


def spawn(service: ServiceThread, state: Path, *args: str) -> pexpect.spawn:
    program, prefix = command()
    env = {
        **os.environ,
        "PATIENCE_TARGET": service.target,
        "PATIENCE_STATE_FILE": str(state),
        "TERM": "xterm-256color",
        "COLUMNS": "120",
    }
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        program, [*prefix, *args], env=env, encoding="utf-8", timeout=30, dimensions=(50, 120), cwd=str(state.parent)
    )
    return child


def test_play_a_game_in_a_terminal(service: ServiceThread, tmp_path: Path) -> None:
    state = tmp_path / "current.json"
    game = get_game("cats-tail")
    start = game.deal(seed_for(0))
    legal = [m.text() for m in game.legal_moves(start)]
    bad, rule = refused_move("cats-tail", seed_for(0))

    child = spawn(service, state, "play", "cats-tail")
    child.expect("new game (\\S+):")
    game_id = child.match.group(1)
    child.expect("move> ")
    table = child.before
    assert "\x1b[31m" in table and ("♥" in table or "♦" in table) and "♠" in table  # red and black suits
    assert "cats-tail" in ANSI.sub("", table)

    child.sendline("?")
    child.expect(r"(\d+) legal: ")
    assert int(child.match.group(1)) == len(legal)
    child.expect("move> ")
    assert all(m in child.before for m in legal)

    child.sendline(bad)
    child.expect(f"✗ '{re.escape(bad)}' refused: {rule.upper().replace('-', '_')}: ")
    child.expect("why: ")
    child.expect("move> ")

    child.sendline(legal[0])
    child.expect(f"played {re.escape(legal[0])}")
    child.expect("version 2")
    child.expect("move> ")

    child.sendline("3~7")
    child.expect("BAD_NOTATION")
    child.expect("Moves look like")
    child.expect("move> ")

    child.sendline("u")
    child.expect(f"took back {re.escape(legal[0])}")
    child.expect("move> ")

    child.sendline("help")
    child.expect("list the legal moves")
    child.expect("move> ")

    child.sendline("q")
    child.expect("kept in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = statefile.load(state)
    assert saved is not None and saved.game_id == game_id and saved.version == 3

    # come back later: the same game, at its version
    again = spawn(service, state, "play")
    again.expect(f"continuing game {re.escape(game_id)}")
    again.expect("version 3")
    again.expect("move> ")
    again.sendline("resign")
    again.expect("resigned")
    again.expect(f"seed {seed_for(0).hex()}")
    again.expect(pexpect.EOF)
    again.close()
    assert again.exitstatus == 0


def test_no_color_turns_colour_off_in_a_terminal(service: ServiceThread, tmp_path: Path) -> None:
    state = tmp_path / "current.json"
    program, prefix = command()
    env = {**os.environ, "PATIENCE_TARGET": service.target, "PATIENCE_STATE_FILE": str(state), "NO_COLOR": "1"}
    child = pexpect.spawn(program, [*prefix, "new", "cats-tail"], env=env, encoding="utf-8", timeout=30)
    child.expect(pexpect.EOF)
    assert "♠" in child.before and "\x1b[" not in child.before
