"""``patience-cli play`` driven through a real pseudo-terminal (pexpect), against a real service.

A player starts a game, asks for the legal moves, plays, is refused and told
why, takes a move back, leaves, and comes back to the same game.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
from client_harness import ServiceThread, refused_move, seed_for, service
from patience_client import statefile

from engine.catalogue import get_game
from engine.solver import autoplay

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
    child.expect(f"✗ '{re.escape(bad)}' refused: {rule}: ")
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


def test_arrow_keys_and_ctrl_l_edit_lines_and_history_is_kept(service: ServiceThread, tmp_path: Path) -> None:
    """Up arrow recalls the last line, Ctrl-L redraws: neither reaches the game as a move (readline is on)."""
    state = tmp_path / "current.json"
    history = tmp_path / "history"
    os.environ["PATIENCE_HISTORY_FILE"] = str(history)
    try:
        child = spawn(service, state, "play", "cats-tail")
    finally:
        del os.environ["PATIENCE_HISTORY_FILE"]
    child.expect("move> ")
    child.sendline("?")
    child.expect(r"(\d+) legal: ")
    count = child.match.group(1)
    child.expect("move> ")
    child.send("\x1b[A")  # up arrow: the line "?" again
    child.send("\r")
    child.expect(rf"{count} legal: ")
    child.expect("move> ")
    child.send("\x0c")  # Ctrl-L: the screen is cleared and the prompt drawn again
    child.expect("move> ")
    child.sendline("q")
    child.expect("kept in")
    child.expect(pexpect.EOF)
    output = child.before
    assert "BAD_NOTATION" not in output and "refused" not in output
    assert "^L" not in output and "^[[A" not in output
    child.close()
    assert child.exitstatus == 0
    kept = history.read_text().split()
    assert kept[0] == "?" and kept[-1] == "q"  # kept for the next session


def _royal_retinue_seed_with_a_long_column() -> bytes:
    game = get_game("royal-retinue")
    for i in range(200):
        if max(len(c) for c in game.deal(seed_for(i)).columns) >= 30:
            return seed_for(i)
    raise AssertionError("no deal with a column of 30 cards among 200")


def test_at_80_columns_no_line_is_longer_and_no_card_is_split(service: ServiceThread, tmp_path: Path) -> None:
    seed = _royal_retinue_seed_with_a_long_column()
    state = tmp_path / "current.json"
    program, prefix = command()
    env = {**os.environ, "PATIENCE_TARGET": service.target, "PATIENCE_STATE_FILE": str(state), "TERM": "xterm"}
    env.pop("COLUMNS", None)
    env.pop("NO_COLOR", None)
    args = [*prefix, "new", "royal-retinue"]
    service.seeds.preset.extend([seed, seed])  # both games below deal it
    # in an 80-column terminal ...
    child = pexpect.spawn(program, args, env=env, encoding="utf-8", timeout=30, dimensions=(50, 80))
    child.expect(pexpect.EOF)
    shown = [ANSI.sub("", line) for line in child.before.splitlines()]
    # ... and into a pipe (no terminal to ask: 80 columns)
    piped = subprocess.run([program, *args], env=env, capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    for lines in (shown, piped.stdout.splitlines()):
        columns = [line for line in lines if re.match(r"^ ?\d  ", line) or line.startswith("    ")]
        assert len(columns) > 8, lines  # the long column wrapped onto lines of its own
        assert max(len(line) for line in lines) <= 80, max(lines, key=len)
        for line in columns:  # every token of a column line is a whole card
            for token in line[4:].split():
                assert re.fullmatch(r"(10|[2-9AJQK])[♣♦♥♠]|··", token), (token, line)


def test_hint_and_auto_in_a_terminal(service: ServiceThread, tmp_path: Path) -> None:
    """`hint` marks the hinted move's piles on the table (reverse video) and says why; `auto` plays the safe moves."""
    state = tmp_path / "current.json"
    game = get_game("sultan-36")
    _, safe = autoplay(game, game.deal(seed_for(0)))
    child = spawn(service, state, "play", "sultan-36")
    child.expect("move> ")
    child.sendline("hint")
    child.expect(r"hint: (\S+)  \((.+)\)")
    hinted = child.match.group(1)
    assert hinted in [m.text() for m in game.legal_moves(game.deal(seed_for(0)))]
    assert "\x1b[7m<- from" in child.before  # the pile the hinted move starts from, marked
    child.expect("hints in this game: 1")
    child.expect("move> ")
    child.sendline("auto")
    if safe:
        child.expect(f"played {re.escape(' '.join(m.text() for m in safe))}")
        child.expect(f"version {1 + len(safe)}")
    else:
        child.expect("no card can safely go home now")
    child.expect("move> ")
    child.sendline("auto")
    child.expect("no card can safely go home now")
    child.expect("move> ")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = statefile.load(state)
    assert saved is not None and saved.version == 1 + len(safe)
