"""``patience``: the offline command line (lists games, prints deals, verifies move files).

It is an offline tool: ``deal`` prints hidden cards too. Exit codes: 0 success
(for ``verify``: a win), 1 a verdict other than a win, 2 bad input. ``solve`` has
its own: 0 a win found, 1 the budget ran out, 2 no win exists (proven), 3 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .cards import NO_CARD, TEXT, cards_text
from .catalogue import get_game, variants
from .deal import ALGORITHM, parse_seed, shuffle
from .errors import PatienceError
from .game import Game, format_option
from .moves import split_moves
from .state import State
from .verify import Outcome, verify

MAX_FILE_BYTES = 8 * 1024 * 1024


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"patience: --option takes key=value, not {pair!r}")
        out[key.strip()] = value.strip()
    return out


def _read(path: str) -> str:
    data = sys.stdin.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_text()[: MAX_FILE_BYTES + 1]
    if len(data) > MAX_FILE_BYTES:
        raise SystemExit(f"patience: input over {MAX_FILE_BYTES} bytes")
    return data


def _cell(c: int) -> str:
    return ".." if c == NO_CARD else TEXT[c]


def format_state(game: Game, state: State) -> str:
    """The whole position as text, hidden cards included (offline use only)."""
    lines = [f"{game.info.name_en} ({game.id})"]
    if state.fixed:
        lines.append(f"fixed:       {cards_text(state.fixed)}")
    if state.foundations:
        lines.append(
            "foundations: "
            + "  ".join(f"f{i + 1}:{_cell(p[-1]) if p else '--'}" for i, p in enumerate(state.foundations))
        )
    if state.captives:
        lines.append("captives:    " + "  ".join(f"c{i + 1}:{_cell(c)}" for i, c in enumerate(state.captives)))
    if state.cells:
        lines.append("cells:       " + "  ".join(f"r{i + 1}:{_cell(c)}" for i, c in enumerate(state.cells)))
    for i, col in enumerate(state.columns):
        lines.append(f"{i + 1:>2}: {cards_text(col)}")
    if state.stock or state.waste or game.redeals_allowed():
        lines.append(f"stock ({len(state.stock)}, top first): {cards_text(state.stock)}")
        lines.append(f"waste ({len(state.waste)}, top last):  {cards_text(state.waste)}")
        lines.append(f"redeals used: {state.redeals} of {game.redeals_allowed()}")
    return "\n".join(lines)


def state_json(state: State) -> dict[str, object]:
    def texts(p: Sequence[int]) -> list[str | None]:
        return [None if c == NO_CARD else TEXT[c] for c in p]

    return {
        "columns": [texts(c) for c in state.columns],
        "cells": texts(state.cells),
        "foundations": [texts(f) for f in state.foundations],
        "stock": texts(state.stock),
        "waste": texts(state.waste),
        "captives": texts(state.captives),
        "fixed": texts(state.fixed),
        "redeals": state.redeals,
    }


def cmd_variants(args: argparse.Namespace) -> int:
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": v.id,
                        "name_en": v.name_en,
                        "name_ru": v.name_ru,
                        "family": v.family,
                        "summary": v.summary,
                        "options": [
                            {
                                "name": o.name,
                                "default": o.default,
                                "allowed": list(o.allowed),
                                "description": o.description,
                            }
                            for o in v.options
                        ],
                    }
                    for v in variants()
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    for v in variants():
        opts = "; ".join(
            f"{o.name}={format_option(o.default)} ({'/'.join(format_option(a) for a in o.allowed)})" for o in v.options
        )
        print(f"{v.id:<26} {v.name_en} / {v.name_ru}" + (f"   options: {opts}" if opts else ""))
    return 0


def cmd_deal(args: argparse.Namespace) -> int:
    game = get_game(args.variant, _options(args.option))
    seed = parse_seed(args.seed)
    shuffled = shuffle(seed, game.id, game.info.deck_size)
    pulled: dict[str, int] = {}

    def pick(m: int) -> int:
        """Deal step 7 as ``Game.deal`` does it, noting m and k for the output."""
        pulled.update(m=m, k=shuffled.random.uniform(m))
        return pulled["k"]

    state = game.deal_from(list(shuffled.cards), pick)
    if args.json:
        doc = {
            "variant": game.id,
            "options": game.options,
            "seed": seed.hex(),
            "algorithm": ALGORITHM,
            "shuffled": [TEXT[c] for c in shuffled.cards],
            "pulled": pulled or None,
            "state": state_json(state),
        }
        print(json.dumps(doc, indent=2))
    else:
        print(format_state(game, state))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    moves = split_moves(_read(args.file))
    verdict = verify(args.variant, _options(args.option), parse_seed(args.seed), moves)
    if args.json:
        print(
            json.dumps(
                {
                    "outcome": verdict.outcome.value,
                    "move_count": verdict.move_count,
                    "final_hash": verdict.final_hash,
                    "status": verdict.status.value,
                    "error_index": verdict.error_index,
                    "error_reason": verdict.error_reason.value if verdict.error_reason else None,
                    "error_message": verdict.error_message,
                    "error_text": verdict.error_text,
                }
            )
        )
    else:
        print(verdict.describe())
    return 0 if verdict.outcome is Outcome.WON else 1


#: ``patience solve`` without a budget: the CPU seconds it gives itself (an unbounded search can fill memory).
DEFAULT_SOLVE_SECONDS = 30.0
SOLVE_EXIT = {"won": 0, "unknown": 1, "no-win": 2}
SOLVE_BAD_INPUT = 3


def cmd_solve(args: argparse.Namespace) -> int:
    from .solver import solve
    from .verify import replay

    try:
        game = get_game(args.variant, _options(args.option))
        start = game.deal(parse_seed(args.seed))
        played = split_moves(_read(args.from_file)) if args.from_file else []
        if args.max_states is not None and args.max_states < 1:
            raise ValueError("--max-states is at least 1")
        if args.max_seconds is not None and not args.max_seconds > 0:
            raise ValueError("--max-seconds is more than 0")
    except (PatienceError, ValueError, OSError) as exc:
        print(f"patience: {exc}", file=sys.stderr)
        return SOLVE_BAD_INPUT
    done = replay(game, start, played)
    if done.verdict.outcome is Outcome.ILLEGAL:
        print(f"patience: {args.from_file}: {done.verdict.describe()}", file=sys.stderr)
        return SOLVE_BAD_INPUT
    seconds = args.max_seconds
    if seconds is None and args.max_states is None:
        seconds = DEFAULT_SOLVE_SECONDS
    found = solve(game, done.state, max_states=args.max_states, max_seconds=seconds)
    moves = found.texts()
    if args.json:
        doc = {
            "variant": game.id,
            "options": game.options,
            "outcome": found.outcome.value,
            "moves": moves,
            "after_moves": len(played),
            "states": found.states,
            "seconds": round(found.seconds, 3),
            "budget_hit": found.budget_hit or None,
            "core": found.core,
        }
        print(json.dumps(doc))
    else:
        if moves:
            print("\n".join(moves))
        what = {
            "won": f"won in {len(moves)} moves",
            "no-win": "no win exists: every position reachable was searched",
            "unknown": f"unknown: the budget in {found.budget_hit} ran out",
        }[found.outcome.value]
        print(f"patience: {what} ({found.states} positions, {found.seconds:.2f} s)", file=sys.stderr)
    return SOLVE_EXIT[found.outcome.value]


def cmd_fcs_board(args: argparse.Namespace) -> int:
    from .fcs import fcs_board

    game = get_game(args.variant, _options(args.option))
    print(fcs_board(game, game.deal(parse_seed(args.seed))), end="")
    return 0


def cmd_fcs_import(args: argparse.Namespace) -> int:
    from .fcs import fcs_import

    print("\n".join(fcs_import(_read(args.file))))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="patience", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("variants", help="list the games")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_variants)

    def game_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("variant")
        sp.add_argument("--seed", required=True, help="64 hex digits")
        sp.add_argument("--option", action="append", default=[], metavar="K=V")

    s = sub.add_parser("deal", help="print a deal, hidden cards included")
    game_args(s)
    s.add_argument("--json", action="store_true", help="JSON, with the whole shuffled list")
    s.set_defaults(func=cmd_deal)

    s = sub.add_parser("verify", help="replay a move file; exit 0 only for a win")
    game_args(s)
    s.add_argument("file", help="moves separated by spaces or new lines, or - for stdin")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser(
        "solve",
        help="find a winning line with everything visible; exit 0 won, 1 budget out, 2 no win exists, 3 bad input",
    )
    game_args(s)
    s.add_argument("--max-seconds", type=float, help=f"CPU seconds (default {DEFAULT_SOLVE_SECONDS:g} with no budget)")
    s.add_argument("--max-states", type=int, help="positions to expand: the same answer on every run")
    s.add_argument("--from", dest="from_file", metavar="FILE", help="continue after the moves in FILE (- for stdin)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("fcs-board", help="a cats-tail or royal-retinue deal in Freecell Solver's board format")
    game_args(s)
    s.set_defaults(func=cmd_fcs_board)

    s = sub.add_parser("fcs-import", help="Freecell Solver's solution output to our notation")
    s.add_argument("file")
    s.set_defaults(func=cmd_fcs_import)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (PatienceError, ValueError, OSError) as exc:
        print(f"patience: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
