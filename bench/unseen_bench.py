"""Our king-chain search against Freecell Solver on fresh deals: seeds by label, resumable, rendered from files.

The same head-to-head as ``solver_bench.py`` (fc-solve ``-l cj`` and our ``solve`` with --seconds of CPU time
each, every win replayed by the engine's verifier before it counts) on the deals ``sha256("<label>-<i>")``,
i = --from-deal .. --from-deal + --deals - 1, so that a set of deals never tuned on can be named and kept apart
(``unseen``, ``unseen-b``) from the ones tuned on (``tune``). Each deal is a JSON line in --progress FILE as
soon as it is done; --resume skips the deals already there, so a killed run goes on where it stopped.
--side ours (or fcs) runs one side only, e.g. our changed solver against fc-solve's rows of an earlier run;
--render reads progress files (later rows of a side win over earlier ones) and prints the table per game:
deals, wins and median CPU (over the deals won and over all, a lost deal counting its whole budget) of each,
and the deals only one side won with both CPU times.

Usage: python bench/unseen_bench.py --seed-label unseen --deals 300 --progress unseen.jsonl [--resume]
       python bench/unseen_bench.py --render unseen.jsonl [more.jsonl ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from solver_bench import HEAD_TO_HEAD, fc_solve_path, run_fc_solve, run_ours

from engine import get_game

#: Per side: the fields of a progress row (won, CPU seconds, and what else is kept).
FCS_FIELDS = ("fcs_won", "fcs_cpu", "fcs_moves")
OURS_FIELDS = ("ours_won", "ours", "ours_cpu", "ours_moves", "ours_states")


def deal_seed(label: str, i: int) -> bytes:
    """The deal ``i`` of a set: ``sha256("<label>-<i>")``."""
    return hashlib.sha256(f"{label}-{i}".encode()).digest()


def read_rows(paths: Iterable[Path]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Rows of progress files by (variant, label, deal); a later row's fields replace an earlier one's."""
    rows: dict[tuple[str, str, int], dict[str, Any]] = {}
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows.setdefault((row["variant"], row["label"], row["deal"]), {}).update(row)
    return rows


def play(variant: str, label: str, i: int, seconds: float, side: str, exe: str) -> dict[str, Any]:
    """One deal by the sides asked: a progress row."""
    game = get_game(variant)
    state = game.deal(deal_seed(label, i))
    row: dict[str, Any] = {"variant": variant, "label": label, "deal": i, "seconds": seconds}
    if side in ("both", "fcs"):
        won, cpu, moves = run_fc_solve(exe, game, state, seconds)
        row |= {"fcs_won": won, "fcs_cpu": round(cpu, 4), "fcs_moves": moves}
    if side in ("both", "ours"):
        outcome, cpu, moves, states = run_ours(game, state, seconds)
        row |= {"ours_won": outcome == "won", "ours": outcome, "ours_cpu": round(cpu, 4)}
        row |= {"ours_moves": moves, "ours_states": states}
    return row


def medians(cpus: list[float], wins: list[bool], budget: float) -> tuple[float | None, float | None]:
    """Median CPU in ms over the deals won, and over all (a lost deal counting ``budget``)."""
    won = [c for c, w in zip(cpus, wins, strict=True) if w]
    every = [c if w else max(c, budget) for c, w in zip(cpus, wins, strict=True)]
    return (
        round(statistics.median(won) * 1000, 1) if won else None,
        round(statistics.median(every) * 1000, 1) if every else None,
    )


def render(rows: dict[tuple[str, str, int], dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game and label, the deals both sides played: the figures of the docs' table."""
    out = []
    for variant, label in sorted({(v, lab) for v, lab, _ in rows}):
        done = [
            r
            for (v, lab, _), r in sorted(rows.items())
            if v == variant and lab == label and all(f in r for f in (*FCS_FIELDS, *OURS_FIELDS))
        ]
        if not done:
            continue
        budget = max(r["seconds"] for r in done)
        fcs = medians([r["fcs_cpu"] for r in done], [r["fcs_won"] for r in done], budget)
        ours = medians([r["ours_cpu"] for r in done], [r["ours_won"] for r in done], budget)
        out.append(
            {
                "variant": variant,
                "label": label,
                "deals": len(done),
                "fcs_won": sum(r["fcs_won"] for r in done),
                "fcs_ms_won": fcs[0],
                "fcs_ms_all": fcs[1],
                "ours_won": sum(r["ours_won"] for r in done),
                "ours_ms_won": ours[0],
                "ours_ms_all": ours[1],
                "ours_no_win": sum(r["ours"] == "no-win" for r in done),
                "only_fcs": [(r["deal"], r["fcs_cpu"], r["ours_cpu"]) for r in done if r["fcs_won"] > r["ours_won"]],
                "only_ours": [(r["deal"], r["fcs_cpu"], r["ours_cpu"]) for r in done if r["ours_won"] > r["fcs_won"]],
            }
        )
    return out


def table(figures: list[dict[str, Any]]) -> str:
    """The figures as the markdown table of docs/solver.md, and the deals only one side won."""
    lines = [
        "| game | seeds | deals | fc-solve won | its median CPU (won / all) | ours won | our median CPU (won / all) |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        lines.append(
            f"| `{f['variant']}` | `{f['label']}-<i>` | {f['deals']} | {f['fcs_won']} | {f['fcs_ms_won']} ms / "
            f"{f['fcs_ms_all']} ms | {f['ours_won']} | {f['ours_ms_won']} ms / {f['ours_ms_all']} ms |"
        )
    for f in figures:
        for who, deals in (("fc-solve", f["only_fcs"]), ("ours", f["only_ours"])):
            for deal, fcs, ours in deals:
                lines.append(
                    f"only {who} won {f['variant']} {f['label']}-{deal}: fc-solve {fcs * 1000:.0f} ms, ours "
                    f"{ours * 1000:.0f} ms"
                )
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed-label", default="unseen", help="deals sha256('<label>-<i>')")
    p.add_argument("--from-deal", type=int, default=0)
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per deal and solver")
    p.add_argument("--variants", nargs="*", default=list(HEAD_TO_HEAD))
    p.add_argument("--side", choices=("both", "ours", "fcs"), default="both")
    p.add_argument("--progress", type=Path, help="a JSON line per deal done, appended")
    p.add_argument("--resume", action="store_true", help="skip the deals the progress file has for this side")
    p.add_argument("--render", type=Path, nargs="*", help="only render these progress files")
    p.add_argument("--json", type=Path, help="write the rendered figures here")
    args = p.parse_args()
    if args.render is None:
        if args.progress is None:
            p.error("--progress FILE is needed to run (or --render FILES)")
        fields = {"both": (*FCS_FIELDS, *OURS_FIELDS), "fcs": FCS_FIELDS, "ours": OURS_FIELDS}[args.side]
        done = read_rows([args.progress]) if args.resume else {}
        exe = fc_solve_path()
        for variant in args.variants:
            for i in range(args.from_deal, args.from_deal + args.deals):
                if all(f in done.get((variant, args.seed_label, i), {}) for f in fields):
                    continue
                row = play(variant, args.seed_label, i, args.seconds, args.side, exe)
                with args.progress.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)
    figures = render(read_rows(args.render or [args.progress]))
    print(table(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
