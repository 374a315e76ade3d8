"""Head to head on the games with a stock: the solver against simple independent players, on the same deals.

For each game (tribunal, picture-gallery with 2 and 3 deals, captives, sultan-36, sultan-52), each deal of
seed ``sha256("<label>-<i>")`` for i in --from-deal .. --from-deal + --deals - 1 is played by our solver
(``engine.solver.solve`` with ``max_seconds``) and by each player of bench/simple_players.py, --seconds of CPU
time each (of the thread that plays). A win counts only when the engine's verifier (``engine.verify.replay``)
replays its line as a win. Every deal is a JSON line of --progress (with --resume, the deals already there are
not played again), so a killed run continues where it stopped; a progress file is only ever added to (without
--resume, one that holds deals is refused); --render prints the table of a progress file (--deals 0: play none).
--sides plays some sides only (the simple players do not depend on the solver: they can be played on a set before
the solver is frozen, and ours after); lines of the same deal are merged, a side's later line replacing its earlier.
--where-ours-lost plays only the deals ours lost (where a player can win a deal ours misses: first when CPU is short).

Reported per game: deals, each side's wins, its median CPU over the deals it won and over all (a deal not won
counts as its whole budget), and the deals only one side won, with both CPU times.

Usage: python bench/head_to_head_bench.py [--games tribunal captives ...] [--seed-label unseen] [--from-deal 0]
           [--deals 300] [--seconds 10] [--sides ours greedy-dfs playouts] [--progress FILE [--resume]] [--render]
           [--where-ours-lost] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from simple_players import PLAYERS

from engine import get_game
from engine.game import Game
from engine.solver import Finding, solve
from engine.state import State
from engine.verify import Outcome, replay

#: The games in the order they are played: the cheap ones first (a deal every side loses costs the most).
GAMES = ("sultan-36", "picture-gallery", "picture-gallery:deals=3", "sultan-52", "tribunal", "captives")
OURS = "ours"


def parse_game(name: str) -> Game:
    """``variant`` or ``variant:k=v,k=v``."""
    variant, _, opts = name.partition(":")
    options = dict(kv.split("=", 1) for kv in opts.split(",")) if opts else {}
    return get_game(variant, options)


def deal_seed(label: str, i: int) -> bytes:
    return hashlib.sha256(f"{label}-{i}".encode()).digest()


def verified(game: Game, state: State, moves: tuple[Any, ...]) -> bool:
    return replay(game, state, moves).verdict.outcome is Outcome.WON


def play_deal(game: Game, state: State, seconds: float, sides: list[str]) -> dict[str, dict[str, Any]]:
    """Each side's result on one deal: won (replayed as a win), CPU seconds, positions expanded, moves."""
    out: dict[str, dict[str, Any]] = {}
    if OURS in sides:
        found = solve(game, state, max_seconds=seconds)
        out[OURS] = {
            "won": found.outcome is Finding.WON and verified(game, state, found.moves),
            "outcome": found.outcome.value,
            "cpu": round(found.seconds, 4),
            "positions": found.states,
            "moves": len(found.moves),
        }
    for name in sides:
        if name == OURS:
            continue
        p = PLAYERS[name](game, state, seconds)
        out[name] = {
            "won": p.won and verified(game, state, p.moves),
            "cpu": round(p.seconds, 4),
            "positions": p.positions,
            "moves": len(p.moves),
        }
    return out


def load(path: Path | None) -> list[dict[str, Any]]:
    """The deals of a progress file, the lines of one deal merged (a side's later line replaces its earlier)."""
    if path is None or not path.exists():
        return []
    rows: dict[tuple[str, str, int], dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        key = (row["game"], row["label"], row["deal"])
        if key in rows:
            rows[key]["sides"].update(row["sides"])
        else:
            rows[key] = row
    return list(rows.values())


def summary(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Per side, over the deals it has played: wins and median CPU (won / all); the deals a player won and ours
    not (of those ours played), and those only ours won (of those every side played)."""
    sides = [OURS, *PLAYERS]
    out: dict[str, Any] = {"deals": len(rows), "sides": {}}
    for side in sides:
        played = [r["sides"][side] for r in rows if side in r["sides"]]
        wins = [p["cpu"] for p in played if p["won"]]
        every = [p["cpu"] if p["won"] else max(p["cpu"], seconds) for p in played]
        out["sides"][side] = {
            "deals": len(played),
            "won": len(wins),
            "median_ms_won": round(statistics.median(wins) * 1000, 1) if wins else None,
            "median_ms_all": round(statistics.median(every) * 1000, 1) if every else None,
        }

    def times(r: dict[str, Any]) -> dict[str, float]:
        return {s: r["sides"][s]["cpu"] for s in sides if s in r["sides"]}

    def won(r: dict[str, Any], side: str) -> bool:
        return bool(r["sides"].get(side, {}).get("won"))

    players = [s for s in sides if s != OURS]
    out["only_players"] = [
        {"deal": r["deal"], "won_by": [s for s in players if won(r, s)], "cpu": times(r)}
        for r in rows
        if OURS in r["sides"] and not won(r, OURS) and any(won(r, s) for s in players)
    ]
    out["only_ours"] = [
        {"deal": r["deal"], "cpu": times(r)}
        for r in rows
        if won(r, OURS) and all(s in r["sides"] for s in players) and not any(won(r, s) for s in players)
    ]
    return out


def render(rows: list[dict[str, Any]], seconds: float) -> str:
    """The table of docs/solver.md, and the deals only one side won. A side that has played fewer of a game's deals
    than the row counts says how many (``12 of 20``); its medians are over those."""
    by_game: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by_game.setdefault((r["game"], r["label"]), []).append(r)
    sides = [OURS, *PLAYERS]
    head = "| game | seeds | deals | " + " | ".join(f"{s} won | {s} median CPU (won / all)" for s in sides) + " |"
    lines = [head, "|" + "---|" * (3 + 2 * len(sides))]
    notes = []
    for (game, label), group in by_game.items():
        s = summary(sorted(group, key=lambda r: r["deal"]), seconds)
        cells = []
        for side in sides:
            f = s["sides"][side]
            if not f["deals"]:
                cells += ["-", "-"]
                continue
            cells.append(str(f["won"]) if f["deals"] == s["deals"] else f"{f['won']} of {f['deals']}")
            cells.append(f"{_ms(f['median_ms_won'])} / {_ms(f['median_ms_all'])}")
        lines.append(f"| `{game}` | {label} | {s['deals']} | " + " | ".join(cells) + " |")
        for d in s["only_players"]:
            cpu = ", ".join(f"{k} {v:.2f} s" for k, v in d["cpu"].items())
            notes.append(f"- `{game}` {label}-{d['deal']}: won by {', '.join(d['won_by'])}, not ours ({cpu})")
        for d in s["only_ours"]:
            cpu = ", ".join(f"{k} {v:.2f} s" for k, v in d["cpu"].items())
            notes.append(f"- `{game}` {label}-{d['deal']}: won by ours only ({cpu})")
    return "\n".join([*lines, "", *notes])


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def run(args: argparse.Namespace, say: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = load(args.progress) if args.resume else []
    by_key = {(r["game"], r["label"], r["deal"]): r for r in rows}
    for name in args.games:
        game = parse_game(name)
        for i in range(args.from_deal, args.from_deal + args.deals):
            key = (name, args.seed_label, i)
            known = by_key.get(key)
            sides = [s for s in args.sides if known is None or s not in known["sides"]]
            if args.where_ours_lost and (known is None or known["sides"].get(OURS, {"won": True})["won"]):
                continue
            if not sides:
                continue
            state = game.deal(deal_seed(args.seed_label, i))
            played = play_deal(game, state, args.seconds, sides)
            line = {"game": name, "label": args.seed_label, "deal": i, "seconds": args.seconds, "sides": played}
            if args.progress:
                with args.progress.open("a") as f:
                    f.write(json.dumps(line) + "\n")
            if known is None:
                by_key[key] = known = {**line, "sides": {}}
                rows.append(known)
            known["sides"].update(played)
            say(f"{name} {i}: " + "; ".join(f"{k} {v['won']} {v['cpu']:.2f} s" for k, v in played.items()))
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="*", default=list(GAMES), help="variant or variant:k=v (default: all six)")
    p.add_argument("--seed-label", default="unseen", help='deals sha256("<label>-<i>")')
    p.add_argument("--from-deal", type=int, default=0)
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per deal and side")
    sides = [OURS, *PLAYERS]
    p.add_argument("--sides", nargs="*", default=sides, choices=sides, help="the sides to play (default: all)")
    p.add_argument(
        "--where-ours-lost",
        action="store_true",
        help="only the deals ours has played and lost (the only ones where a simple player can win a deal ours misses)",
    )
    p.add_argument("--progress", type=Path, help="a JSON line per deal")
    p.add_argument("--resume", action="store_true", help="skip the deals already in --progress")
    p.add_argument("--render", action="store_true", help="print the table of --progress (after any deals to play)")
    p.add_argument("--json", type=Path, help="write the summary per game here")
    args = p.parse_args()

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.progress and args.deals > 0 and not args.resume and args.progress.exists() and args.progress.stat().st_size:
        # hours of CPU may be in it: a run adds to a progress file (--resume) or starts a new one, never empties one
        p.error(f"{args.progress} holds deals already: add --resume to go on with it, or name a new file")
    if not args.sides:
        p.error("--sides names no side to play")
    rows = run(args, say) if args.deals > 0 else load(args.progress)
    if args.render:
        print(render(rows, args.seconds))
    if args.json:
        by_game: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_game.setdefault(f"{r['game']} {r['label']}", []).append(r)
        args.json.write_text(json.dumps({k: summary(v, args.seconds) for k, v in by_game.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
