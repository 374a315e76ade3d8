"""A bridge to Freecell Solver (fc-solve), the independent oracle for the king-chain games.

docs/rules.md: ``cats-tail`` is fc-solve's ``der_katzenschwanz`` preset (8 free cells, 9 stacks, 2 decks,
alternate colours, unlimited sequence moves, emptied stacks never filled) and ``royal-retinue`` is the
same with 8 stacks; any solution fc-solve finds for one of our deals must replay as a win in our
engine. This module only turns text into text -- a position into fc-solve's board format, fc-solve's
solution into our notation -- so it stays pure; running the solver is the caller's business
(tests/engine/test_fcs_oracle.py, tools/make_fcs_fixtures.py).

fc-solve numbers stacks and free cells from 0 and writes a stack from its bottom (the card dealt first)
to its top (the movable card): that is our column from its head to its free card.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from .cards import NO_CARD, RANK, SUIT, TEXT
from .game import Game
from .games.royal_retinue import RoyalRetinue
from .state import State

#: Where tools/build-fc-solve.sh installs the solver by default (the env var FC_SOLVE overrides it).
DEFAULT_FC_SOLVE = os.path.expanduser("~/.cache/fc-solve/bin/fc-solve")
#: Always cap the search: an unbounded one can eat 20+ GB.
DEFAULT_MAX_ITERATIONS = 2_000_000

_FCS_SUITS = "HCDS"  # fc-solve's order of suits on its Foundations line
_SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}
#: fc-solve's standard notation names free cells a-g, then k (h is "home", the foundations).
_CELL_LETTERS = "abcdefgk"
_NUM_CELLS = 8


def fcs_supported(game: Game) -> bool:
    """Whether fc-solve plays ``game``: the king-chain games with unlimited sequence moves."""
    return isinstance(game, RoyalRetinue) and bool(game.options.get("sequence_moves", True))


def fcs_args(game: Game, max_iterations: int = DEFAULT_MAX_ITERATIONS) -> list[str]:
    """fc-solve's arguments (without the program and the board file) for ``game``.

    ``-l cj`` (the "cool jives" preset) solves far more of our deals than the default scan; the
    preset resets the game type, so ``-g der_katzenschwanz`` comes again after it.
    """
    if not fcs_supported(game):
        raise ValueError(f"fc-solve does not play {game.id} {game.options_text()}".rstrip())
    assert isinstance(game, RoyalRetinue)
    args = ["-g", "der_katzenschwanz", "-l", "cj", "-g", "der_katzenschwanz", "-sel"]
    if game.num_columns != 9:
        args += ["--stacks-num", str(game.num_columns)]
    return [*args, "-mi", str(max_iterations), "-p", "-t", "-sam"]


def fcs_board(game: Game, state: State) -> str:
    """The position in fc-solve's board format.

    One line per stack (``8D TH ...``, head of the column first; an empty, dead column is an empty
    line), preceded by ``Foundations:`` and ``Freecells:`` lines when they hold cards. fc-solve's
    free cell i is our reserve cell r(i+1), so cell numbers in a solution are ours too. Foundations
    are given per suit (two of each in a double deck); which of ours is which does not matter, since
    fc-solve's moves only say "to the foundations".
    """
    if not fcs_supported(game):
        raise ValueError(f"fc-solve does not play {game.id} {game.options_text()}".rstrip())
    lines: list[str] = []
    if any(state.foundations):
        tops: list[list[int]] = [[], [], [], []]
        for f in state.foundations:
            if f:
                tops[SUIT[f[-1]]].append(RANK[f[-1]])
        parts = []
        for deck in range(2):
            for letter in _FCS_SUITS:
                ranks = tops[_SUIT_INDEX[letter]]
                rank = ranks[deck] if deck < len(ranks) else 0
                parts.append(f"{letter}-{'0A23456789TJQK'[rank]}")
        lines.append("Foundations: " + " ".join(parts))
    if any(c != NO_CARD for c in state.cells):
        lines.append("Freecells: " + " ".join("-" if c == NO_CARD else TEXT[c] for c in state.cells))
    lines.extend(" ".join(TEXT[c] for c in col) for col in state.columns)
    return "\n".join(lines) + "\n"


# -- solutions ------------------------------------------------------------------------------------------

_VERBOSE = (
    (re.compile(r"Move a card from stack (\d+) to freecell (\d+)$"), "s2c"),
    (re.compile(r"Move (\d+) cards? from stack (\d+) to stack (\d+)$"), "s2s"),
    (re.compile(r"Move a card from stack (\d+) to stack (\d+)$"), "s2s1"),
    (re.compile(r"Move a card from stack (\d+) to the foundations$"), "s2f"),
    (re.compile(r"Move a card from freecell (\d+) to stack (\d+)$"), "c2s"),
    (re.compile(r"Move a card from freecell (\d+) to the foundations$"), "c2f"),
    (re.compile(r"Move a card from freecell (\d+) to freecell (\d+)$"), "c2c"),
    (re.compile(r"Move the sequence on top of [Ss]tack (\d+) to the foundations$"), "seq2f"),
)
_STANDARD = re.compile(
    r"([1-9])([1-9])(?:v([0-9a-f]+))?|([1-9])([a-gk])|([1-9])h|([a-gk])([1-9])|([a-gk])h|([a-gk])([a-gk])"
)


class _Cells:
    """fc-solve's free cell -> our reserve cell; a free cell to free cell move only renames cells."""

    def __init__(self) -> None:
        self.ours = list(range(1, _NUM_CELLS + 1))

    def __getitem__(self, fcs_cell: int) -> int:
        return self.ours[_cell_index(fcs_cell)]

    def swap(self, a: int, b: int) -> None:
        a, b = _cell_index(a), _cell_index(b)
        self.ours[a], self.ours[b] = self.ours[b], self.ours[a]


def _cell_index(fcs_cell: int) -> int:
    if not 0 <= fcs_cell < _NUM_CELLS:
        raise ValueError(f"fc-solve free cell {fcs_cell} does not exist here")
    return fcs_cell


def fcs_import(text: str) -> list[str]:
    """fc-solve's solution as our moves (``4-r1``, ``2-5/3``, ``r3-f``), in order.

    Reads the verbose form (``fc-solve -p -t -sam``: "Move a card from stack 3 to freecell 0", with or
    without board dumps between moves) or, when the text has no such line, the standard notation
    (``fc-solve -sn``: ``3a 25 ah``, or ``Move: 3a`` lines with ``-sam``; stacks 1-based there, free cells
    a-g and k, ``h`` the foundations; a run's length only when it goes to an empty stack, ``25v3``).
    Stacks in the verbose form are 0-based; our columns are 1-based. Anything else is ignored, so the
    solver's whole output can be passed in. Raises ValueError on a move line it does not know.
    """
    lines = [line.strip() for line in text.splitlines()]
    if any(line.startswith("Move ") for line in lines):
        return _import_verbose(lines)
    return _import_standard(lines)


def _import_verbose(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    cells = _Cells()
    for line in lines:
        if not line.startswith("Move "):
            continue
        for pattern, kind in _VERBOSE:  # noqa: B007 - kind is read after the loop
            m = pattern.match(line)
            if m is not None:
                break
        else:
            raise ValueError(f"not an fc-solve move: {line!r}")
        n = [int(g) for g in m.groups()]
        if kind == "s2c":
            out.append(f"{n[0] + 1}-r{cells[n[1]]}")
        elif kind == "s2s":
            out.append(f"{n[1] + 1}-{n[2] + 1}/{n[0]}")
        elif kind == "s2s1":
            out.append(f"{n[0] + 1}-{n[1] + 1}/1")
        elif kind == "s2f":
            out.append(f"{n[0] + 1}-f")
        elif kind == "c2s":
            out.append(f"r{cells[n[0]]}-{n[1] + 1}")
        elif kind == "c2f":
            out.append(f"r{cells[n[0]]}-f")
        elif kind == "c2c":
            cells.swap(n[0], n[1])
        else:  # seq2f: a whole suit, king on top, from one stack: 13 foundation moves
            out.extend([f"{n[0] + 1}-f"] * 13)
    return out


def _import_standard(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    cells = _Cells()
    for line in lines:
        tokens = line.removeprefix("Move:").split()  # with -sam, fc-solve writes "Move: 6a" between boards
        matches = [_STANDARD.fullmatch(t) for t in tokens]
        if not tokens or any(m is None for m in matches):
            continue  # a board dump, a header or a summary line
        for m in matches:
            assert m is not None
            g = m.groups()
            if g[0]:
                out.append(f"{g[0]}-{g[1]}" + (f"/{int(g[2], 16)}" if g[2] else ""))
            elif g[3]:
                out.append(f"{g[3]}-r{cells[_CELL_LETTERS.index(g[4])]}")
            elif g[5]:
                out.append(f"{g[5]}-f")
            elif g[6]:
                out.append(f"r{cells[_CELL_LETTERS.index(g[6])]}-{g[7]}")
            elif g[8]:
                out.append(f"r{cells[_CELL_LETTERS.index(g[8])]}-f")
            else:
                cells.swap(_CELL_LETTERS.index(g[9]), _CELL_LETTERS.index(g[10]))
    return out
