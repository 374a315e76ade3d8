"""The captives late scans compiled (``_captives.c`` through cffi): ``Playouts`` and ``DepthFirst`` here answer as
``playouts.Playouts`` and ``search._DepthFirst`` do, position for position, at a small fraction of their CPU.

Constructed from the same arguments, they expose the same ``expanded`` and ``run(n)``: after every call the same
count of expanded positions, the same line of explicit moves on a win, the same exhaustion. ``search._late_scan``
takes them for captives when the module is built and ``PATIENCE_SOLVER`` (``compiled.ENV``) does not ask for the
pure-Python search; ``PATIENCE_SOLVER=c`` makes a missing module an error, as for the king-chain core.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..game import Game
from ..games.captives import Captives
from ..games.captives_play import HOME, REDEAL, RUN_MOVES, STOCK, TO_KING_ROW, WASTE_TO
from ..moves import Move
from ..state import State
from . import compiled
from .playouts import Exhausted
from .profiles import Profile

Line = tuple[Move, ...]

try:
    _module: Any = importlib.import_module("engine.solver._captives_c")
except ImportError:  # not built: the pure-Python scans stand in
    _module = None


def built() -> bool:
    """Whether the compiled scans are importable."""
    return _module is not None


def active() -> bool:
    """Whether ``search`` takes the compiled scans for captives now (built, and not turned off by the variable)."""
    return compiled.wanted(_module is not None, "the compiled captives scans")


def takes(game: Game, root: State) -> bool:
    """Whether the compiled scans play ``root`` (a captives position with columns of at most 19 cards: all that
    play reaches); otherwise the Python scans stand in."""
    if _module is None or not isinstance(game, Captives):
        return False
    try:
        position, _keep = _position(root)
    except ValueError:
        return False
    out = _module.ffi.new("cp_child *")
    return bool(_module.lib.cp_settle(position, out) >= 0)


def _lib() -> tuple[Any, Any]:
    if _module is None:
        raise RuntimeError("the compiled captives scans are not built")
    return _module.ffi, _module.lib


def _position(state: State) -> tuple[Any, list[Any]]:
    """``state`` as a ``cp_position``, and the buffers it points into (keep them while it is used)."""
    ffi, _ = _lib()
    if len(state.columns) != 8 or len(state.foundations) != 8 or len(state.captives) != 7:
        raise ValueError("a captives position has 8 columns, 8 king-row slots and 7 captives")
    if state.cells or state.fixed or state.fresh:
        raise ValueError("a captives position has no cells, fixed cards or fresh column")
    try:
        buffers = [
            ffi.new("uint8_t[]", bytes(part))
            for part in (
                [c for col in state.columns for c in col],
                [c for pile in state.foundations for c in pile],
                state.stock,
                state.waste,
            )
        ]
    except (ValueError, TypeError) as error:
        raise ValueError(f"not a captives position: {error}") from None
    if not all(-1 <= c < 52 for c in state.captives) or not 0 <= state.redeals < 256:
        raise ValueError("a captive is a card or NO_CARD, and the turns used a small number")
    pos = ffi.new("cp_position *")
    pos.cards, pos.found, pos.stock, pos.waste = buffers
    pos.col_lens = [len(col) for col in state.columns]
    pos.found_lens = [len(pile) for pile in state.foundations]
    pos.nstock, pos.nwaste = len(state.stock), len(state.waste)
    pos.captives = list(state.captives)
    pos.redeals = state.redeals
    return pos, buffers


def _step(kind: int, a: int, b: int, n: int) -> Move:
    """A step of a compiled line as the move ``Captives.successors`` or the safe rule gives (the same values)."""
    _, lib = _lib()
    if kind == lib.CP_HOME:
        return HOME[a][b]
    if kind == lib.CP_KING_ROW:
        return TO_KING_ROW[a]
    if kind == lib.CP_RUN:
        return RUN_MOVES[a][b][n]
    if kind == lib.CP_WASTE_TO:
        return WASTE_TO[b]
    return STOCK if kind == lib.CP_STOCK else REDEAL


def steps_to_moves(raw: bytes) -> Line:
    """4 bytes a step (``_captives.h``) as explicit moves."""
    return tuple(_step(*raw[i : i + 4]) for i in range(0, len(raw), 4))


def _made(ptr: Any, err: Any) -> Any:
    ffi, lib = _lib()
    if ptr == ffi.NULL:
        if err[0] == lib.CP_NOMEM:
            raise MemoryError("the compiled captives scans ran out of memory")
        raise ValueError("not a position or a scan the compiled captives scans take")
    return ffi.gc(ptr, lib.cp_free)


def _seed(seed: int) -> int:
    if not 0 <= seed < 2**32:
        raise ValueError("the compiled scans take seeds from 0 to 2**32 - 1")
    return seed


class _Scan:
    """A compiled scan driven slice by slice; freed with this object."""

    _scan: Any

    @property
    def expanded(self) -> int:
        return int(_lib()[1].cp_expanded(self._scan))

    def _run(self, n: int) -> int:
        _, lib = _lib()
        code = int(lib.cp_run(self._scan, n))
        if code == lib.CP_NOMEM:
            raise MemoryError("the compiled captives scans ran out of memory")
        if code == lib.CP_BAD:
            raise ValueError("a slice is a count of positions")
        return code

    def _line(self) -> Line:
        ffi, lib = _lib()
        steps = ffi.new("const uint8_t **")
        n = lib.cp_line(self._scan, steps)
        return steps_to_moves(bytes(ffi.buffer(steps[0], 4 * n)))


class Playouts(_Scan):
    """``playouts.Playouts`` compiled, for captives (``prof`` is the captives profile: the C has its own)."""

    def __init__(
        self,
        game: Game,
        prof: Profile,
        root: State,
        seed: int,
        noise: int,
        stock_last: float,
        by_kind: bool,
        next_kind: float = 0.0,
    ) -> None:
        ffi, lib = _lib()
        position, _keep = _position(root)
        err = ffi.new("int *")
        self._scan = _made(lib.cp_playouts(position, _seed(seed), noise, stock_last, int(by_kind), next_kind, err), err)

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions; the whole line from the root on a win."""
        return self._line() if self._run(n) == _lib()[1].CP_WON else None


class DepthFirst(_Scan):
    """``search._DepthFirst`` compiled, for captives: raises ``Exhausted`` as it does."""

    def __init__(
        self,
        game: Game,
        prof: Profile,
        root: State,
        noise: int = 0,
        seed: int = 0,
        by_kind: bool = False,
        on_visit: bool = False,
    ) -> None:
        ffi, lib = _lib()
        position, _keep = _position(root)
        err = ffi.new("int *")
        self._scan = _made(lib.cp_depth_first(position, _seed(seed), noise, int(by_kind), int(on_visit), err), err)

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions; the whole line from the root on a win."""
        code = self._run(n)
        lib = _lib()[1]
        if code == lib.CP_EXHAUSTED:
            raise Exhausted
        return self._line() if code == lib.CP_WON else None
