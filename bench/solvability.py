"""Solvability table: how often each game can be won, and how often a player who follows the hints wins.

For every variant and option set, over --seeds deals (``sha256("solvability-<i>")``), the solver with full
information and --max-states positions per deal answers won / proven unwinnable / unknown; the median
length of the lines it found is reported. Then on the first --hint-seeds deals a *hint follower* plays:
it applies the safe moves to the foundations (auto-play), asks for a hint, plays it, and so on until the game
is won, no move is left (or every move goes back to a position met), --stall moves went by with no card home,
none dealt and no redeal, or --max-moves moves were made. Its hints are the service's
(``engine.solver.follow``, at the service's budgets by default): from the player's view only in games with
hidden cards; the line a hint came from continued while the player follows it (a winning line when every card
is face up, a guess's winning line up to its first hidden card otherwise); never a move back to a position
met. Budgets in positions, not seconds, so every run of the script gives the same table.

Deals are played deal by deal across the games (deal 0 of every game, then deal 1, ...), each written to
--progress as it ends, so that a run stopped early still gives a table (of the deals done) and runs of
different games side by side merge into one.

Usage: python bench/solvability.py [--seeds 200] [--max-states 5000] [--hint-seeds 200] [--progress run.jsonl]
           [--out docs/solvability.md]
       python bench/solvability.py --render run.jsonl [more.jsonl ...] --out docs/solvability.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from solvability_doc import document, read_records, rows_from, table

from engine import get_game
from engine.catalogue import configurations
from engine.game import Game
from engine.moves import Move
from engine.solver import Finding, autoplay, solve
from engine.solver.follow import Followed, continued, hint_on_path, position_key, walk
from engine.solver.hint import SAMPLE_STATES, SAMPLES
from engine.state import State
from engine.verify import Outcome as Verdict
from engine.verify import replay

CONFIGS = configurations()


def chosen(game: Game, variants: list[str] | None) -> bool:
    """Whether ``--variants`` names ``game``: its variant id (every option set) or ``id:options`` (that one)."""
    return not variants or game.id in variants or f"{game.id}:{game.options_text()}" in variants


def deal_seed(i: int) -> bytes:
    return hashlib.sha256(b"solvability-%d" % i).digest()


def follow_hints(
    game: Game, seed: bytes, samples: int, sample_states: int, full_states: int, max_moves: int, stall: int
) -> dict[str, Any]:
    """A player who auto-plays and follows the hints as the service gives them (``engine.solver.follow``: the line
    a hint came from is continued while the player follows it, no hint goes back to a position met): whether it
    won, how it ended, the moves made, the hints that searched and their CPU seconds in all."""
    state = game.deal(seed)
    path = {position_key(game, state)}
    kept: Followed | None = None
    played: list[Move] = []
    searched = 0
    cpu = 0.0
    moves = 0
    progress, since = progress_of(state), 0
    end = "moves"
    while moves < max_moves:
        before = state
        state, auto = autoplay(game, state)
        path.update(walk(game, before, auto)[1])
        moves += len(auto)
        played += auto
        if game.is_won(state):
            end = "won"
            break
        if progress_of(state) != progress:
            progress, since = progress_of(state), moves
        elif moves - since >= stall:
            end = "stalled"
            break
        here = position_key(game, state)
        followed = None if kept is None else continued(kept.line, kept.keys, kept.to_end, played, here)
        if followed is None:
            started = time.thread_time()
            followed = hint_on_path(
                game,
                state,
                path,
                seed=seed + bytes([moves % 256]),
                samples=samples,
                sample_states=sample_states,
                full_states=full_states,
            )
            cpu += time.thread_time() - started
            searched += 1
        move = followed.hint.move
        if move is None:
            end = "stuck"
            break
        kept, played = (followed if followed.line else None), [move]
        state = game.play(state, move)[0]
        moves += 1
        key = position_key(game, state)
        if key in path:
            end = "came back"  # never, by hint_on_path's rule: counted, should it ever happen
            break
        path.add(key)
    return {"won": end == "won", "end": end, "moves": moves, "hints": searched, "hint_cpu": cpu}


def progress_of(state: State) -> tuple[int, int, int]:
    """What a follower who gets somewhere changes: cards home, cards left in the stock, redeals."""
    return sum(map(len, state.foundations)), len(state.stock), state.redeals


def solve_record(game: Game, i: int, args: argparse.Namespace) -> dict[str, Any]:
    """The solver with full information on deal ``i``: one line of the progress file."""
    state = game.deal(deal_seed(i))
    started = time.thread_time()
    found = solve(game, state, max_states=args.max_states)
    cpu = time.thread_time() - started
    if found.outcome is Finding.WON:
        assert replay(game, state, found.moves).verdict.outcome is Verdict.WON
    return {
        "kind": "solve",
        "variant": game.id,
        "options": game.options_text(),
        "deal": i,
        "outcome": found.outcome.value,
        "length": len(found.moves),
        "max_states": args.max_states,
        "states": found.states,
        "cpu": round(cpu, 4),
    }


def follow_record(game: Game, i: int, args: argparse.Namespace) -> dict[str, Any]:
    """The hint follower on deal ``i``: one line of the progress file (``cpu``: CPU seconds per hint that searched;
    ``move_cpu``: the hints' CPU seconds per move made)."""
    done = follow_hints(
        game, deal_seed(i), args.hint_samples, args.hint_states, args.hint_full_states, args.max_moves, args.stall
    )
    return {
        "kind": "follow",
        "variant": game.id,
        "options": game.options_text(),
        "deal": i,
        **{k: done[k] for k in ("won", "end", "moves", "hints")},
        "cpu": done["hint_cpu"] / max(done["hints"], 1),
        "move_cpu": done["hint_cpu"] / max(done["moves"], 1),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=200)
    p.add_argument("--max-states", type=int, default=5000, help="the solver's budget per deal, in positions")
    p.add_argument("--hint-seeds", type=int, default=200, help="deals the hint follower plays (the first ones)")
    p.add_argument(
        "--hint-samples", type=int, default=SAMPLES, help="guesses of the hidden cards per hint (the service's)"
    )
    p.add_argument(
        "--hint-states",
        type=int,
        default=SAMPLE_STATES,
        help="positions per guess (the service's: --hint-states is this times --hint-samples)",
    )
    p.add_argument(
        "--hint-full-states",
        type=int,
        default=SAMPLES * SAMPLE_STATES,
        help="positions per hint in games with every card face up (the service's: its --hint-states)",
    )
    p.add_argument("--max-moves", type=int, default=1500)
    p.add_argument(
        "--stall",
        type=int,
        default=150,
        help="the follower gives up after this many moves with no card home, none dealt and no redeal",
    )
    p.add_argument(
        "--variants",
        nargs="*",
        help="only these variant ids, or one option set of a variant: royal-retinue:sequence_moves=false",
    )
    p.add_argument("--json", type=Path, help="write the rows and settings here")
    p.add_argument("--out", type=Path, help="write the whole document here (docs/solvability.md)")
    p.add_argument(
        "--render",
        type=Path,
        nargs="+",
        help="only write --out from the JSON files of earlier runs (several: runs of different games, merged)",
    )
    p.add_argument("--notes", type=Path, help="with --render: a Markdown file appended to the document")
    p.add_argument("--progress", type=Path, help="append a line per deal here as the run goes (JSON lines)")
    p.add_argument(
        "--from-deal",
        type=int,
        default=0,
        help="start at this deal (with --progress files of their own, runs of different ranges of deals side by side)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="skip the deals --progress holds already (a run stopped early goes on where it stopped)",
    )
    p.add_argument(
        "--escalate",
        action="store_true",
        help="with --resume, give the deals --progress holds as unknown at a smaller budget --max-states now",
    )
    p.add_argument(
        "--only",
        choices=("solve", "follow"),
        help="only the solver's columns (--seeds deals) or only the hint follower (--hint-seeds deals): the two "
        "can run side by side and merge with --render",
    )
    args = p.parse_args()
    if args.render:
        runs = [read_records(path) for path in args.render]
        rows = rows_from([r for _, recs in runs for r in recs])
        solved = next((s for s, _ in runs if s.get("only") != "follow"), runs[0][0])
        followed = next((s for s, _ in runs if s.get("only") != "solve"), runs[0][0])
        text = document(rows, solved, followed)
        if args.notes:
            text += "\n" + args.notes.read_text()
        if args.out:
            args.out.write_text(text)
        print(text)
        return 0
    settings = {k: v for k, v in vars(args).items() if isinstance(v, (int, float, str, list)) or v is None}
    games = [g for g in (get_game(v, o) for v, o in CONFIGS) if chosen(g, args.variants)]
    records: list[dict[str, Any]] = []
    if args.resume and args.progress and args.progress.exists():
        records = read_records(args.progress)[1]
    done_before = {
        (r["kind"], r["variant"], r["options"], r["deal"])
        for r in records
        if not (args.escalate and r["kind"] == "solve" and r["outcome"] == Finding.UNKNOWN.value)
        or r["max_states"] >= args.max_states
    }
    progress = args.progress.open("a", buffering=1) if args.progress else None
    if progress:
        progress.write(json.dumps({"kind": "settings", **settings}) + "\n")
    # deal by deal across the games, so that a run stopped early has as many deals of each
    for i in range(args.from_deal, args.hint_seeds if args.only == "follow" else args.seeds):
        for game in games:
            todo: tuple[str, ...] = ("solve", "follow") if args.only is None else (args.only,)
            if i >= args.hint_seeds:
                todo = tuple(kind for kind in todo if kind != "follow")
            done = [
                (solve_record if kind == "solve" else follow_record)(game, i, args)
                for kind in todo
                if (kind, game.id, game.options_text(), i) not in done_before
            ]
            for r in done:
                records.append(r)
                if progress:
                    progress.write(json.dumps(r) + "\n")
    rows = rows_from(records)
    print(table(rows, args))
    if args.json:
        args.json.write_text(json.dumps({"args": settings | {"json": str(args.json)}, "rows": rows}, indent=1))
    if args.out:
        args.out.write_text(document(rows, settings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
