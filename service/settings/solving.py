"""The settings of the solver's side: the winnable-deal pools and their filler, and the hint pool's processes,
queue and budgets (docs/configuration.md, "Winnable deals" and "Hints").

One module per part of docs/configuration.md; ``service.settings.config`` puts the parts together.
"""

from __future__ import annotations

from service.settings import config_values as values
from service.settings.config_values import Spec

SPECS: tuple[Spec, ...] = (
    Spec(
        "winnable_filler",
        "--winnable-filler",
        "embedded: the service starts one filler process beside itself (one per host, whatever --workers) that "
        "keeps the winnable pools full; off: the fillers run apart (python -m service.solving.filler, production)",
        values.choice("embedded", "off"),
        "MODE",
    ),
    Spec(
        "winnable_pool_target",
        "--winnable-pool-target",
        "proven deals the filler keeps ready in each configuration's winnable pool",
        values.positive(int),
        "N",
    ),
    Spec(
        "winnable_wait",
        "--winnable-wait",
        "seconds NewGame with winnable waits for an empty pool before it answers UNAVAILABLE WINNABLE_POOL_EMPTY",
        values.non_negative(float),
        "SECONDS",
    ),
    Spec(
        "winnable_max_states",
        "--winnable-max-states",
        "the filler's budget per attempted seed, in positions the solver expands; deals not won within it are dropped",
        values.positive(int),
        "N",
    ),
    Spec(
        "winnable_max_seconds",
        "--winnable-max-seconds",
        "the filler's budget per attempted seed, in CPU seconds",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "winnable_pools",
        "--winnable-pools",
        "the pools a filler fills, comma-separated (cats-tail,cats-tail:sequence_moves=false ...); unset: all",
        values.names,
        "POOLS",
    ),
    Spec(
        "hint_processes",
        "--hint-processes",
        "solver processes for Hint, per server process (each --workers worker has its own); started on the first hint",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_queue",
        "--hint-queue",
        "hints that may wait for a solver process beyond those running; more are refused at once "
        "(UNAVAILABLE, HINTS_BUSY)",
        values.non_negative(int),
        "N",
    ),
    Spec(
        "hint_per_client",
        "--hint-per-client",
        "hints one client address may have running or waiting at once, per server process; one more is refused at "
        "once (RESOURCE_EXHAUSTED, HINTS_IN_PROGRESS)",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_states",
        "--hint-states",
        "positions one hint may expand in all (the same hint on every run): one search with every card face up, "
        "else six guesses of the hidden cards sharing them",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_cpu_seconds",
        "--hint-cpu-seconds",
        "CPU seconds one hint may take at most (a guard: --hint-states bounds it first on a usual machine)",
        values.positive(float),
        "SECONDS",
    ),
)
