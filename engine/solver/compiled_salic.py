"""The salic-law late scans compiled (``_salic.c`` through cffi): ``Playouts`` and ``DepthFirst`` stand in for
``playouts.Playouts`` and ``search._DepthFirst`` by kind in tribunal and picture-gallery's late phase
(``search.LATE_BY_KIND``), where nearly all the search's CPU goes once it passes ``search.LATE_AFTER``.

The same answers: each call expands as many positions as the Python scan does, and a won line is the same tuple of
moves (the safe moves included); the positions, their keys (compared exactly), scores, kinds and the draws of
CPython's generator are the Python ones, reproduced. Built by installing the distribution (setup.py's
``cffi_modules``, ``cffi_build.py``); where it is not built the Python scans run. ``PATIENCE_SOLVER`` chooses as
for the king-chain core (``compiled.wanted``).
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

from ..cards import RANK
from ..game import Game
from ..games.salic_law import _TO_COLUMN, _TO_FOUNDATION, FOUNDATIONS, Tribunal
from ..moves import DEAL, REDEAL, Move
from ..state import State
from . import compiled
from .playouts import Exhausted
from .profiles import Profile

Line = tuple[Move, ...]

try:
    _module: Any = importlib.import_module("engine.solver._salic_c")
except ImportError:  # not built: the Python scans stand in
    _module = None


def built() -> bool:
    """Whether the compiled scans are importable."""
    return _module is not None


def active() -> bool:
    """Whether the late phase uses the compiled scans now (built, and not turned off by ``PATIENCE_SOLVER``)."""
    return compiled.wanted(_module is not None, "the compiled salic-law scans")


def _lib() -> tuple[Any, Any]:
    if _module is None:
        raise RuntimeError("the compiled salic-law scans are not built")
    return _module.ffi, _module.lib


class _Position(NamedTuple):
    """A position as ``_salic.c`` takes it (``sl_new``, ``sl_children``)."""

    cards: bytes
    lens: list[int]
    nstock: int
    foundations: bytes
    redeals: int
    fresh: int
    rules: Any


def _position(game: Game, state: State) -> _Position:
    """``state`` for the C scans; ValueError where it is no salic-law position they take (the C checks the rest)."""
    if not isinstance(game, Tribunal):
        raise ValueError(f"the compiled salic-law scans do not play {game.id}")
    founds = state.foundations
    if len(founds) != FOUNDATIONS or any(f and RANK[f[-1]] != len(f) for f in founds):
        raise ValueError("a salic-law position has 8 foundations, each built A up to its length")
    ffi, _ = _lib()
    # past 1000 redeals (allowed or used) the C refuses the position
    rules = ffi.new(
        "sl_rules *", {"lone_king_rule": int(game.lone_king_rule), "redeals_allowed": min(game.redeals_allowed(), 1001)}
    )
    cards = b"".join(map(bytes, state.columns)) + bytes(state.stock)
    return _Position(
        cards,
        [len(c) for c in state.columns],
        len(state.stock),
        bytes(len(f) for f in founds),
        min(state.redeals, 1001),
        int(state.fresh),
        rules,
    )


def _moves(raw: bytes) -> Line:
    """Steps of 3 bytes (``SL_STEP_*``, 1-based piles) as the game's explicit moves."""
    _, lib = _lib()
    out: list[Move] = []
    for i in range(0, len(raw), 3):
        kind, a, b = raw[i : i + 3]
        if kind == lib.SL_STEP_HOME:
            out.append(_TO_FOUNDATION[a, b])
        elif kind == lib.SL_STEP_COLUMN:
            out.append(_TO_COLUMN[a, b])
        else:
            out.append(DEAL if kind == lib.SL_STEP_DEAL else REDEAL)
    return tuple(out)


class _Scan:
    """One C scan object, freed with this one; ``run`` as the Python scans' (``Exhausted`` when none is left)."""

    def __init__(self, game: Game, root: State, config: dict[str, object]) -> None:
        ffi, lib = _lib()
        pos = _position(game, root)
        cfg = ffi.new("sl_config *", config)
        err = ffi.new("int *")
        made = lib.sl_new(
            pos.cards, pos.lens, len(pos.lens), pos.nstock, pos.foundations, pos.redeals, pos.fresh, pos.rules, cfg, err
        )
        if made == ffi.NULL:
            if err[0] == lib.SL_NOMEM:
                raise MemoryError("the compiled salic-law scans ran out of memory")
            raise ValueError("not a salic-law position or scan the compiled scans take")
        self._scan = ffi.gc(made, lib.sl_free)

    @property
    def expanded(self) -> int:
        _, lib = _lib()
        return int(lib.sl_expanded(self._scan))

    def run(self, n: int) -> Line | None:
        """Expand up to ``n`` positions; the whole line from the root if one is won."""
        ffi, lib = _lib()
        code = lib.sl_run(self._scan, n)
        if code == lib.SL_MORE:
            return None
        if code == lib.SL_EXHAUSTED:
            raise Exhausted
        if code == lib.SL_NOMEM:
            raise MemoryError("the compiled salic-law scans ran out of memory")
        if code == lib.SL_FINISHED:
            raise RuntimeError("this scan has won already: it ends with its win")
        count = ffi.new("int *")
        steps = lib.sl_line(self._scan, count)
        return _moves(bytes(ffi.buffer(steps, 3 * count[0])))


class Playouts(_Scan):
    """``playouts.Playouts`` (every way of drawing ``search.LATE_BY_KIND`` uses) compiled: the same arguments."""

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
        if not 0 <= seed < 2**32:
            raise ValueError("the compiled playouts take a seed from 0 to 2**32 - 1")
        _, lib = _lib()
        config: dict[str, object] = {
            "scan": lib.SL_PLAYOUTS,
            "seed": seed,
            "noise": noise,
            "stock_last": stock_last,
            "by_kind": int(by_kind),
            "next_kind": next_kind,
        }
        super().__init__(game, root, config)


class DepthFirst(_Scan):
    """``search._DepthFirst`` by kind with no noise (the late phase's) compiled: the same arguments, those others
    refused."""

    def __init__(
        self,
        game: Game,
        prof: Profile,
        root: State,
        noise: int = 0,
        seed: int = 0,
        by_kind: bool = True,
        on_visit: bool = False,
    ) -> None:
        if noise or not by_kind:
            raise ValueError("the compiled depth-first scan orders by kind, with no noise")
        _, lib = _lib()
        super().__init__(game, root, {"scan": lib.SL_DEPTH_FIRST, "on_visit": int(on_visit)})


class Child(NamedTuple):
    """A child as the C scans see it (``children``): its moves (the move, then the safe ones), kind, score, whether
    won, the profile's key and the foundations' lengths in order, all after the safe moves."""

    moves: Line
    kind: int
    score: int
    won: bool
    key: tuple[tuple[bytes, ...], bytes, bytes, int, bool]
    foundations: tuple[int, ...]


def children(game: Game, state: State) -> list[Child]:
    """The children of ``state`` in C, in ``successors``' order (what the tests hold against the Python)."""
    ffi, lib = _lib()
    pos = _position(game, state)
    out = ffi.new("sl_child[]", lib.SL_MAX_KIDS)
    n = lib.sl_children(
        pos.cards, pos.lens, len(pos.lens), pos.nstock, pos.foundations, pos.redeals, pos.fresh, pos.rules, out
    )
    if n < 0:
        raise ValueError("not a salic-law position the compiled scans take")
    return [_child(bytes(ffi.buffer(c.key, c.klen)), c, ffi) for c in out[0:n]]


def _child(key: bytes, c: Any, ffi: Any) -> Child:
    ncols = key[0]
    lens = key[1 : 1 + ncols]
    at = 1 + ncols
    nstock = key[at]
    at += 1
    columns = []
    for n in lens:
        columns.append(key[at : at + n])
        at += n
    stock = key[at : at + nstock]
    at += nstock
    ranks = key[at : at + FOUNDATIONS]
    redeals = key[at + FOUNDATIONS] + 256 * key[at + FOUNDATIONS + 1]
    fresh = bool(key[at + FOUNDATIONS + 2])
    return Child(
        _moves(bytes(ffi.buffer(c.steps, 3 * c.nsteps))),
        int(c.kind),
        int(c.score),
        bool(c.won),
        (tuple(columns), stock, ranks, redeals, fresh),
        tuple(c.fnd),
    )
