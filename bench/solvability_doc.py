"""docs/solvability.md from the deals' records of ``bench/solvability.py``: the rows (a deal run again with a larger
budget counts at the largest; the CPU of every run counts), the table and the text around it."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from engine import get_game
from engine.catalogue import configurations
from engine.solver import Finding

CONFIGS = configurations()
WON, NO_WIN, UNKNOWN = Finding.WON.value, Finding.NO_WIN.value, Finding.UNKNOWN.value


def latest(solved: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each deal's record at the largest budget it was given (a deal left unknown may be run again with more)."""
    kept: dict[int, dict[str, Any]] = {}
    for r in solved:
        if r["deal"] not in kept or r["max_states"] >= kept[r["deal"]]["max_states"]:
            kept[r["deal"]] = r
    return kept


def unknown_by_budget(solved: list[dict[str, Any]]) -> list[tuple[int, int, int, int]]:
    """For each budget the row's deals were given: (budget, deals unknown after it, deals given it, deals still
    unknown below it). A step is complete when every deal left unknown below was given it (the given count equals
    the open one); a run stopped early leaves its last step partial, and the document says so. The smallest budget
    counts only once every deal of the row was given it."""
    deals = {r["deal"] for r in solved}
    steps = []
    for budget in sorted({r["max_states"] for r in solved}):
        below = [r for r in solved if r["max_states"] < budget]
        at = {r["deal"] for r in solved if r["max_states"] == budget}
        if not below and at != deals:
            continue
        open_below = deals - {r["deal"] for r in below if r["outcome"] != UNKNOWN}
        settled = {r["deal"] for r in solved if r["max_states"] <= budget and r["outcome"] != UNKNOWN}
        steps.append((budget, len(deals - settled), len(at & open_below), len(open_below)))
    return steps


def rows_from(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows from the deals' records, in catalogue order (only the deals done so far count)."""
    order = {(v, get_game(v, o).options_text()): n for n, (v, o) in enumerate(CONFIGS)}
    rows = []
    for config in sorted({(r["variant"], r["options"]) for r in records}, key=order.__getitem__):
        every = [r for r in records if r["kind"] == "solve" and (r["variant"], r["options"]) == config]
        solved = list(latest(every).values())
        followed = [r for r in records if r["kind"] == "follow" and (r["variant"], r["options"]) == config]
        outcomes = [r["outcome"] for r in solved]
        lengths = [r["length"] for r in solved if r["outcome"] == WON]
        per_hint = [r["cpu"] for r in followed]
        per_move = [r["move_cpu"] for r in followed if "move_cpu" in r]
        rows.append(
            {
                "variant": config[0],
                "options": config[1],
                "seeds": len(solved),
                "won": outcomes.count(WON),
                "no_win": outcomes.count(NO_WIN),
                "unknown": outcomes.count(UNKNOWN),
                "median_length": statistics.median(lengths) if lengths else None,
                "solver_cpu": round(sum(r.get("cpu", 0.0) for r in every), 1) if every else None,
                "unknown_by_budget": unknown_by_budget(every),
                "hint_seeds": len(followed),
                "hint_wins": sum(1 for r in followed if r["won"]),
                "median_hint_ms": round(statistics.median(per_hint) * 1000, 1) if per_hint else None,
                "median_move_ms": round(statistics.median(per_move) * 1000, 1) if per_move else None,
                "max_states": max((r["max_states"] for r in solved), default=0),
            }
        )
    return rows


def read_records(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A progress file: its settings line and the deals' records."""
    settings: dict[str, Any] = {}
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            if r["kind"] == "settings":
                settings = r
            else:
                records.append(r)
    return settings, records


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def table(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    out = [
        "| game | options | budget (positions) | won | proven unwinnable | unknown | median line (moves) | "
        "solver CPU | hint follower won | CPU per hint | hint CPU per move |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        n = r["seeds"]
        length = format(r["median_length"], "g") if r["median_length"] else "-"
        out.append(
            f"| `{r['variant']}` | {r['options'] or 'defaults'} | {_budget(r, args.max_states)} | "
            f"{pct(r['won'], n)} ({r['won']}/{n}) | "
            f"{pct(r['no_win'], n)} ({r['no_win']}) | {pct(r['unknown'], n)} ({r['unknown']}) | {length} | "
            f"{_cpu(r.get('solver_cpu'))} | "
            f"{pct(r['hint_wins'], r['hint_seeds'])} ({r['hint_wins']}/{r['hint_seeds']}) | "
            f"{_ms(r['median_hint_ms'])} | {_ms(r.get('median_move_ms'))} |"
        )
    return "\n".join(out)


def _budget(row: dict[str, Any], default: int) -> str:
    """The row's budget: the largest, or while a larger one has reached only some of the unknown deals, the last
    one every deal had and that one with how far it got."""
    steps = row.get("unknown_by_budget") or []
    if len(steps) > 1 and steps[-1][2] != steps[-1][3]:
        budget, _, given, open_ = steps[-1]
        return f"{steps[-2][0]:,} ({budget:,} on {given} of {open_})"
    return f"{row.get('max_states', default):,}"


def budgets(rows: list[dict[str, Any]]) -> str:
    """How the unknown share fell as each row's budget grew (rows run again on their unknown deals)."""
    lines = []
    for r in rows:
        steps = r.get("unknown_by_budget") or []
        if len(steps) > 1:
            shares = " -> ".join(
                f"{b:,}: {pct(u, r['seeds'])}"
                if given == open_
                else f"{b:,} on {given} of {open_} so far: {pct(u, r['seeds'])}"
                for b, u, given, open_ in steps
            )
            lines.append(f"- `{r['variant']}` {r['options'] or 'defaults'}: {shares}")
    return "\n".join(lines)


def _cpu(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds / 60:.1f} min" if seconds >= 600 else f"{seconds:.0f} s"


def _ms(value: float | None) -> str:
    return "-" if value is None else format(value, "g") + " ms"


def document(rows: list[dict[str, Any]], settings: dict[str, Any], hints: dict[str, Any] | None = None) -> str:
    """docs/solvability.md: the method, the budgets and the table (``hints``: the settings of the follower's run,
    when it ran apart from the solver's)."""
    hints = hints or settings
    stall, max_moves, samples = hints.get("stall", 150), hints["max_moves"], hints["hint_samples"]
    full, total = hints["hint_full_states"], hints["hint_samples"] * hints["hint_states"]
    n = min((r["seeds"] for r in rows), default=0)
    hint_n = min((r["hint_seeds"] for r in rows if r["hint_seeds"]), default=0)
    target = settings["seeds"]
    stopped = (
        f"The runs were stopped at their time limit, before {target} deals of each game (a shared machine, busy "
        "with other work).\n"
        if n < target
        else ""
    )
    one = round(100 / (2 * max(n, 1) ** 0.5))
    one_hint = round(100 / (2 * max(hint_n, 1) ** 0.5))
    follower_n = (
        "; the hint follower played as many"
        if hint_n >= n
        else f"; the hint follower, who costs far more per deal, played fewer (each row says how many: at {hint_n} "
        f"deals, about +/- {one_hint} points)"
    )
    return f"""# How often each game can be won

Made by `bench/solvability.py`: `python bench/solvability.py --out docs/solvability.md`, or, as here, several
runs side by side (`--only solve` and `--only follow`, each on some of the games, each writing a line per deal
to `--progress FILE`) merged by `python bench/solvability.py --render FILE... --out docs/solvability.md`. For
each game and option set, the first deals of the seeds `sha256("solvability-<i>")` (i = 0, 1, ...; algorithm
deal-v2; how many in the table) were given to the solver (docs/solver.md) with full information and the budget
in positions per deal that the table gives.

- **won**: the solver found a winning line (replayed by the engine's verifier);
- **proven unwinnable**: the solver saw every position reachable from the deal without a win;
- **unknown**: the budget ran out first. So "won" is a lower bound of the share of winnable deals, and
  "won + unknown" an upper bound.
- **median line**: the median length, in moves, of the winning lines found (not the shortest lines: the solver
  looks for a win, not for the shortest one).
- **solver CPU**: the CPU time the solver spent on the row's deals, every run of them together (a deal left
  unknown and given a larger budget later counts twice).
- **hint follower won**: on the first of those deals (how many in the table), a player who presses auto-play (every
  safe move to the foundations) and then plays the hint, again and again, until the game is won, no move is left
  (or every move goes back to a position met), {stall} moves went by with no card home, none dealt and no
  redeal, or {max_moves} moves were made. Its hints are the service's (`engine.solver.follow`; docs/solver.md,
  "Hints"): while the player follows the line a hint came from, its next move, with no search (a winning line on
  the real position when every card is face up; with hidden cards, the line of a guess that won, up to its first
  card turned face up); else a new hint: with every card face up the solver on the real position with
  {full:,} positions; with hidden cards {samples} guesses of them from the player's view only, {total:,} positions
  in all; never a move back to a position met. **CPU per hint** is the median over the deals of the CPU time of
  one hint that searched, **hint CPU per move** the median over the deals of the hints' CPU time per move made (a
  kept line's hints cost nothing), as the run measured them.

Budgets are in positions, not seconds, so the table is the same on every machine and every run.
{stopped}Each row says how many deals it counts: at {n} deals a share is known to about +/- {one} points (one
standard error at 50 %){follower_n}.

{table(rows, argparse.Namespace(max_states=settings["max_states"]))}
{grown(rows)}{missing(rows)}"""


def grown(rows: list[dict[str, Any]]) -> str:
    steps = budgets(rows)
    if not steps:
        return ""
    return (
        "\nThe rows run again on their unknown deals with a larger budget (`--resume --escalate`), and the share "
        f"still unknown at each budget:\n\n{steps}\n"
    )


def missing(rows: list[dict[str, Any]]) -> str:
    """The configurations a run left out, named so that nobody reads the table as complete."""
    done = {(r["variant"], r["options"]) for r in rows}
    left = [
        f"`{v}` {get_game(v, o).options_text() or 'defaults'}".rstrip()
        for v, o in CONFIGS
        if (v, get_game(v, o).options_text()) not in done
    ]
    return f"\nNot measured in this run: {', '.join(left)}.\n" if left else ""
