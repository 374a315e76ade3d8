"""Winnable deals: what a pool holds and how a seed gets into one.

A pool is a Redis list per configuration (variant + options, ``pool_name``) of *entries*: a 32-byte seed the
service drew from its own secure randomness followed by the winning line the solver found for its deal, packed
as the move log is (``engine.movelog``). ``prove`` is the whole admission test: deal the seed, solve it with
every card visible within a budget, and replay the line through the engine's verifier; only a line the verifier
calls won makes an entry. The filler (``service.solving.filler``) calls it; NewGame pops entries
(``GameStore.pop_winnable``) and never sees a seed that did not pass.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine import movelog
from engine.catalogue import configurations, get_game
from engine.deal import SEED_BYTES
from engine.game import Game
from engine.moves import Move
from engine.solver import Finding, solve
from engine.verify import Outcome as Verdict
from engine.verify import replay


def pool_name(game: Game) -> str:
    """The configuration a pool is for: the variant id, then ``:`` and the options that differ from their
    defaults (``cats-tail``, ``cats-tail:sequence_moves=false``). Never holds ``{`` or ``}`` (the keys' hash
    tags)."""
    options = game.options_text()
    return f"{game.id}:{options}" if options else game.id


def all_games() -> list[Game]:
    """The game of every configuration a pool is kept for (``engine.catalogue.configurations()``)."""
    return [get_game(variant, options) for variant, options in configurations()]


def selected_games(names: Sequence[str]) -> list[Game]:
    """The games of the pools ``names`` (every configuration when empty); ValueError for a name no
    configuration has."""
    games = all_games()
    if not names:
        return games
    by_name = {pool_name(game): game for game in games}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(f"no pool {', '.join(unknown)}; the pools are {', '.join(by_name)}")
    return [by_name[name] for name in dict.fromkeys(names)]


@dataclass(frozen=True, slots=True)
class Entry:
    """A proven seed and the solver's winning line for its deal."""

    seed: bytes
    line: tuple[Move, ...]

    def pack(self) -> bytes:
        return self.seed + movelog.pack_all(self.line)

    @staticmethod
    def unpack(data: bytes) -> Entry:
        """The entry ``pack`` wrote; ValueError (or engine.movelog's CorruptLog) if ``data`` is not one."""
        if len(data) <= SEED_BYTES:
            raise ValueError("a pool entry is a seed and a line")
        return Entry(bytes(data[:SEED_BYTES]), movelog.unpack(bytes(data[SEED_BYTES:])))


@dataclass(frozen=True, slots=True)
class Budget:
    """What one attempted seed may cost the solver: positions, and CPU seconds of the solving thread."""

    max_states: int = 20_000
    max_seconds: float = 10.0


@dataclass(frozen=True, slots=True)
class Attempt:
    """One seed tried: the entry if it was proven, the solver's outcome, and what it cost."""

    entry: Entry | None
    outcome: Finding
    states: int
    seconds: float


def new_seed() -> bytes:
    """A seed from the operating system's secure randomness, as NewGame draws one."""
    return secrets.token_bytes(SEED_BYTES)


def prove(game: Game, seed: bytes, budget: Budget) -> Attempt:
    """Solve the deal of ``seed`` within ``budget``; an entry only when the verifier replays the line as a win."""
    start = game.deal(seed)
    found = solve(game, start, max_states=budget.max_states, max_seconds=budget.max_seconds)
    entry = None
    if found.outcome is Finding.WON:
        checked = replay(game, start, found.moves)
        if checked.verdict.outcome is Verdict.WON:
            entry = Entry(seed, tuple(checked.moves))
    return Attempt(entry, found.outcome, found.states, found.seconds)


def choose_pool(sizes: Mapping[str, int], target: int, tries: Mapping[str, int]) -> str | None:
    """The pool to fill next: the emptiest of those below ``target``; among equally empty ones, the one tried
    least often since its size last changed (so a configuration whose deals the solver rarely wins does not
    keep the others waiting), then the first in ``sizes``' order. None when every pool is full."""
    best: tuple[int, int, int] | None = None
    chosen: str | None = None
    for order, (name, size) in enumerate(sizes.items()):
        if size >= target:
            continue
        key = (size, tries.get(name, 0), order)
        if best is None or key < best:
            best, chosen = key, name
    return chosen
