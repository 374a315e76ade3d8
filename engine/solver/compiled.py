"""The king-chain search compiled (``_kingchain.c`` through cffi): the same answers as ``kingchain``'s scans
taking turns in ``search._solve_king_chain``, at about a twentieth of the CPU.

It gives the same outcome, the same line (the same atomic steps) and the same count of expanded positions
for any budget in positions; only its transposition tables key positions by a hash of their own. Built by
installing the distribution (setup.py's ``cffi_modules``); where it is not built, ``solve`` runs the
pure-Python search. ``PATIENCE_SOLVER=python`` forces the pure-Python search (comparisons, debugging);
``PATIENCE_SOLVER=c`` makes a missing compiled core an error (the tests' check that the build made it).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from . import kingchain

#: The environment variable that picks the core: ``python``, ``c``, or unset (the compiled one if built).
ENV = "PATIENCE_SOLVER"
_GROUP_END = 255

try:
    _module: Any = importlib.import_module("engine.solver._kingchain_c")
except ImportError:  # not built: the pure-Python search stands in
    _module = None


def built() -> bool:
    """Whether the compiled core is importable."""
    return _module is not None


def active() -> bool:
    """Whether ``solve`` uses the compiled core now (built, and not turned off by ``PATIENCE_SOLVER``)."""
    return wanted(_module is not None, "the compiled king-chain search")


def wanted(is_built: bool, what: str) -> bool:
    """Whether to use a compiled part that ``is_built``, by ``PATIENCE_SOLVER`` (every compiled part obeys it): never
    with ``python``; with ``c`` a part not built is an error (``what`` names it); unset, whenever built."""
    choice = os.environ.get(ENV, "")
    if choice == "python":
        return False
    if choice == "c" and not is_built:
        raise RuntimeError(f"{ENV}=c but {what} is not built (pip install the checkout)")
    return is_built


def _step(kind: int, a: int, b: int, k: int) -> kingchain.Step:
    if kind == kingchain.COL_COL:
        return (kind, a, b, k)
    if kind == kingchain.CELL_COL:
        return (kind, a, b)
    return (kind, a)


def run(
    root: kingchain.Pos,
    runs: bool,
    max_states: int | None,
    slice_: int,
    deadline: float | None,
    configs: tuple[kingchain.ScanConfig, ...] = kingchain.SCANS,
    late: tuple[kingchain.LateScan, ...] = kingchain.LATE_SCANS,
    late_after: int = kingchain.LATE_AFTER,
    proof_slices: int = kingchain.PROOF_SLICES,
) -> tuple[str, int, kingchain.Line]:
    """``kingchain.run`` compiled: the same arguments and answers."""
    if _module is None:
        raise RuntimeError("the compiled king-chain search is not built")
    ffi, lib = _module.ffi, _module.lib
    cols, cells, fnd = root
    if len(fnd) != 8 or not configs or slice_ < 1 or late_after < 0 or any(n < 1 for _, n in late) or proof_slices < 1:
        raise ValueError("a king-chain position has 8 foundations, a search at least one scan and a turn")
    if max_states is not None and max_states <= 0:  # as kingchain.run: the budget is spent before a turn
        return kingchain.RUN_STATES, 0, ()
    every = (*((config, 1) for config in configs), *late)
    # the first scans' turns once the late ones joined: longer for a complete one (it alone proves no win)
    after = [proof_slices if frozenset(k for g in c[0] for k in g) == kingchain.ALL_KINDS else 1 for c in configs]
    after += [n for _, n in late]
    cfgs = ffi.new("kc_scan_config[]", len(every))
    for cfg, (config, slices), later in zip(cfgs, every, after, strict=True):
        order, seed, scored, weights, on_visit, best_first = config
        flat = [k for group in order for k in (*group, _GROUP_END)]
        if len(flat) > lib.KC_ORDER_MAX:
            raise ValueError("too many kinds of moves in a scan's order")
        cfg.order[0 : len(flat)] = flat
        cfg.order_len = len(flat)
        cfg.seed = seed
        cfg.scored = scored
        cfg.weights = list(weights)
        cfg.slices = slices
        cfg.late_slices = later
        cfg.on_visit = int(on_visit)
        cfg.best_first = best_first
    result = ffi.new("kc_result *")
    code = lib.kc_solve(
        b"".join(cols),
        [len(c) for c in cols],
        len(cols),
        cells,
        len(cells),
        fnd,
        int(runs),
        cfgs,
        len(every),
        len(configs),
        late_after,
        -1 if max_states is None else max_states,
        slice_,
        -1.0 if deadline is None else deadline,
        result,
    )
    try:
        if code == lib.KC_BAD:
            raise ValueError("not a king-chain position the compiled search takes")
        if code == lib.KC_NOMEM:
            raise MemoryError("the compiled king-chain search ran out of memory")
        expanded = int(result.expanded)
        if code != lib.KC_WON:
            answer = {lib.KC_NO_WIN: kingchain.RUN_NO_WIN, lib.KC_UNKNOWN_STATES: kingchain.RUN_STATES}.get(
                code, kingchain.RUN_SECONDS
            )
            return answer, expanded, ()
        raw = bytes(ffi.buffer(result.steps, 4 * result.nsteps))
        steps = [_step(*raw[i : i + 4]) for i in range(0, len(raw), 4)]
        line: list[kingchain.Steps] = []
        begin = 0
        for end in ffi.unpack(result.entry_ends, result.nentries):
            line.append(tuple(steps[begin:end]))
            begin = end
        return kingchain.RUN_WON, expanded, tuple(line)
    finally:
        lib.kc_free(result)
