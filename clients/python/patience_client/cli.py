"""``patience-cli``: play the patience service from a terminal.

The server address and the game token come from options, else the
environment (PATIENCE_TARGET, PATIENCE_TOKEN, PATIENCE_GAME, PATIENCE_TLS,
PATIENCE_CA_FILE, PATIENCE_CERT_FILE, PATIENCE_KEY_FILE, PATIENCE_TIMEOUT,
PATIENCE_OPERATOR_KEY), else the state file
that remembers the current game (PATIENCE_STATE_FILE, default
~/.config/patience/current.json), so ``patience-cli show`` after a break finds
the game again. Signed in (``guest NAME``, or an identity token in
PATIENCE_IDENTITY or a file: --identity-file, PATIENCE_IDENTITY_FILE, default
~/.config/patience/identity), new games are the player's and ``games`` lists
them on any device. Exit codes: 0 done, 1 refused (an illegal move, a solution
that does not win, a certificate that does not verify), 2 bad usage or no
connection.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from . import statefile
from .cli_certificates import cmd_keys, cmd_verify_cert
from .cli_commands import cmd_auto, cmd_hint, cmd_legal, cmd_move, cmd_play, cmd_resign, cmd_show, cmd_undo
from .cli_competition import cmd_daily, cmd_leaderboard
from .cli_context import Context, UsageError, refusal
from .cli_dealing import cmd_mint, cmd_new, cmd_replay, cmd_variants
from .cli_players import (
    cmd_erase,
    cmd_games,
    cmd_guest,
    cmd_rename,
    cmd_resume,
    cmd_sign_out,
    cmd_whoami,
    identity_from,
    identity_path,
)
from .cli_solving import cmd_fcs_board, cmd_solve, cmd_submit
from .cli_watch import cmd_watch
from .config import DEFAULT_TARGET, ClientSettings
from .errors import PatienceClientError, ServiceError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="patience-cli",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--target", help=f"server address HOST:PORT (env PATIENCE_TARGET; default {DEFAULT_TARGET})")
    p.add_argument("--token", help="the game token (env PATIENCE_TOKEN; default: the state file's)")
    p.add_argument("--game", help="the game id (env PATIENCE_GAME; default: the current game)")
    p.add_argument("--tls", action="store_true", default=None, help="connect with TLS (env PATIENCE_TLS=1)")
    p.add_argument("--ca-file", help="PEM roots for TLS (env PATIENCE_CA_FILE)")
    p.add_argument("--cert-file", help="PEM client certificate for mutual TLS, e.g. mint (env PATIENCE_CERT_FILE)")
    p.add_argument("--key-file", help="PEM key of that client certificate (env PATIENCE_KEY_FILE)")
    p.add_argument("--timeout", type=float, help="deadline of each call in seconds (env PATIENCE_TIMEOUT)")
    p.add_argument("--operator-key", help="for mint (env PATIENCE_OPERATOR_KEY)")
    p.add_argument("--state-file", type=Path, help="where the current game is kept (env PATIENCE_STATE_FILE)")
    p.add_argument(
        "--identity-file",
        help="a file holding your identity token (env PATIENCE_IDENTITY_FILE, or the token in PATIENCE_IDENTITY)",
    )
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="coloured suits")
    sub = p.add_subparsers(dest="command", required=True)

    def cmd(name: str, func: Callable[[Context], int], help: str) -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=help, description=help)
        s.set_defaults(func=func)
        return s

    def new_args(s: argparse.ArgumentParser) -> None:
        s.add_argument("-o", "--option", action="append", default=[], metavar="K=V", help="a variant option")
        s.add_argument("--client-seed", metavar="HEX", help="your own bytes mixed into the seed (hex, up to 64)")
        s.add_argument("--ticket", help="play a minted deal ticket (then VARIANT may be left out)")
        s.add_argument("--no-undo", action="store_true", help="forbid undo in this game")
        s.add_argument("--replay", metavar="SEEDHEX", help="play again the deal of this seed (a finished game's)")
        s.add_argument("--deal", type=int, metavar="N", help="play numbered public deal #N (1 to 4294967295)")
        s.add_argument(
            "--watchable", action="store_true", help="let spectators watch the game without its token (watch)"
        )
        s.add_argument(
            "--winnable",
            action="store_true",
            help="a deal the server's solver has won (its winning line is shown when the game ends)",
        )
        s.add_argument(
            "--daily",
            action="store_true",
            help="today's daily deal (signed in: your one ranked game of it; again: the same game)",
        )

    cmd(
        "variants",
        cmd_variants,
        "list the games and their options",
    )
    s = cmd("new", cmd_new, "deal a new game and make it the current one")
    s.add_argument("variant", nargs="?", default="", help="e.g. cats-tail (see variants)")
    new_args(s)
    s = cmd("show", cmd_show, "draw the current game")
    s.add_argument("--moves", action="store_true", help="also list the moves played")
    s = cmd("watch", cmd_watch, "follow a game live: drawn after every change, wherever it is played, until it ends")
    s.add_argument("game_id", nargs="?", help="the game (default: --game, or the current game)")
    s.add_argument("--spectator", action="store_true", help="without the token: a game dealt --watchable")
    s.add_argument("--after", type=int, default=0, metavar="VERSION", help="the last version seen (0: draw it now)")
    s.add_argument("--count", type=int, default=0, metavar="N", help="stop after N updates (0: when the game ends)")
    s = cmd("move", cmd_move, "play one or more moves (docs/rules.md notation)")
    s.add_argument("moves", nargs="+", metavar="MOVE")
    cmd("undo", cmd_undo, "take back the last move")
    cmd("legal", cmd_legal, "list the legal moves")
    cmd("hint", cmd_hint, "a move to make now and why, marked on the table (counted in the game's certificate)")
    cmd("auto", cmd_auto, "send every card that can safely go home to the foundations")
    cmd("resign", cmd_resign, "give up the current game (reveals its seed)")
    s = cmd("replay", cmd_replay, "play the current game's deal again, once it is over (a new game, dealt replay)")
    s.add_argument("--no-undo", action="store_true", help="forbid undo in the new game")
    s = cmd(
        "submit",
        cmd_submit,
        "submit a whole solution (moves from the deal) for a certificate; final: a game that it does not win is "
        "over (forfeited)",
    )
    s.add_argument("file", help="moves separated by spaces or new lines; - for stdin")
    s.add_argument("--ticket", help="a deal ticket instead of the current game")
    s.add_argument("--cert-out", help="where to save the certificate (default patience-GAME_ID.cert)")
    s = cmd("verify-cert", cmd_verify_cert, "check a certificate offline (Ed25519 + canonical encoding)")
    s.add_argument("file", help="the certificate file (as saved by submit or play)")
    s.add_argument("--keys", help="public keys JSON (from `patience-cli keys --out`); default: ask the server")
    s.add_argument("--public-key", action="append", metavar="KEY_ID:HEX", help="a public key (repeatable)")
    s.add_argument("--replay", action="store_true", help="also replay its moves with the engine")
    s.add_argument("--server", action="store_true", help="ask the server (VerifyCertificate) instead")
    s = cmd("keys", cmd_keys, "the service's public signing keys as JSON, for offline checks")
    s.add_argument("--out", help="write them to this file")
    s = cmd("mint", cmd_mint, "mint a deal ticket (needs the operator key)")
    s.add_argument("variant")
    s.add_argument("-o", "--option", action="append", default=[], metavar="K=V")
    s.add_argument("--valid-seconds", type=int, default=0)
    s.add_argument("--label", default="")
    cmd("fcs-board", cmd_fcs_board, "the current position in Freecell Solver's board format (cats-tail, royal-retinue)")
    s = cmd("solve", cmd_solve, "solve the current position with Freecell Solver (cats-tail, royal-retinue)")
    s.add_argument("--fc-solve", help="the fc-solve program (env FC_SOLVE; default: PATH, ~/.cache/fc-solve)")
    s.add_argument("--max-iterations", type=int, default=2_000_000, help="fc-solve's search budget")
    s.add_argument("--out", help="save the whole solution (moves from the deal) to this file")
    what = s.add_mutually_exclusive_group()
    what.add_argument("--submit", action="store_true", help="submit it at once (SubmitSolution) for a certificate")
    what.add_argument("--play", action="store_true", help="play the moves one by one (ApplyMove)")
    s.add_argument("--cert-out", help="where to save the certificate (default patience-GAME_ID.cert)")
    s = cmd("guest", cmd_guest, "sign in as a new guest with this display name (the identity is kept in a file)")
    s.add_argument("name", help="1 to 32 characters, shown on your games")
    cmd("whoami", cmd_whoami, "the signed-in player")
    s = cmd("games", cmd_games, "your games, newest first (live and ended), on any device you signed in on")
    s.add_argument("--page-size", type=int, default=20, help="how many (1 to 100)")
    s.add_argument("--all", action="store_true", help="every one, page after page")
    s = cmd("resume", cmd_resume, "make one of your games the current one (your identity opens it)")
    s.add_argument("game_id")
    s = cmd("rename", cmd_rename, "change your display name (games dealt before keep theirs)")
    s.add_argument("name")
    cmd("sign-out", cmd_sign_out, "delete the identity file")
    s = cmd("erase", cmd_erase, "erase what the server keeps about you (your name, your list of games)")
    s.add_argument("--yes", action="store_true", help="yes, erase")
    s = cmd("daily", cmd_daily, "a daily deal: its board, its commitment, its seed once the day is over")
    s.add_argument("variant")
    s.add_argument("-o", "--option", action="append", default=[], metavar="K=V", help="a variant option")
    s.add_argument("--date", help="YYYY-MM-DD (UTC); default today, at most tomorrow")
    s = cmd("leaderboard", cmd_leaderboard, "a leaderboard: daily-VARIANT-YYYY-MM-DD or public-VARIANT-N")
    s.add_argument("board")
    s.add_argument("--page-size", type=int, default=0, help="entries to show (1-50; default 25)")
    s.add_argument("--verify", action="store_true", help="fetch the whole board and check every entry offline")
    s.add_argument("--replay", action="store_true", help="with --verify: also replay every certificate's moves")
    s.add_argument("--keys", help="public keys JSON (from `patience-cli keys --out`); default: ask the server")
    s.add_argument("--public-key", action="append", metavar="KEY_ID:HEX", help="a public key (repeatable)")
    s = cmd("play", cmd_play, "play interactively (the current game, or a new one of VARIANT)")
    s.add_argument("variant", nargs="?", help="start a new game of this variant")
    s.add_argument("--cert-out", help="where to save the certificate of a win (default patience-GAME_ID.cert)")
    new_args(s)
    return p


def make_context(args: argparse.Namespace, out: TextIO) -> Context:
    state_path = args.state_file or statefile.default_path()
    current = statefile.load(state_path)
    target = args.target or os.environ.get("PATIENCE_TARGET") or (current.target if current else None)
    ca = Path(args.ca_file).read_bytes() if args.ca_file else None
    cert = Path(args.cert_file).read_bytes() if args.cert_file else None
    key = Path(args.key_file).read_bytes() if args.key_file else None
    ident_path = identity_path(state_path, args.identity_file)
    # The identity is resolved here (a file that does not exist yet is no error: `guest` writes it).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATIENCE_IDENTITY")}
    settings = ClientSettings.from_env(
        env,
        identity=identity_from(ident_path, given=bool(args.identity_file)),
        target=target,
        token=args.token,
        tls=True if (args.tls or ca or cert) else None,
        root_certificates=ca,
        certificate_chain=cert,
        private_key=key,
        timeout=args.timeout,
        operator_key=args.operator_key,
    )
    if args.timeout == 0:
        settings = dataclasses.replace(settings, timeout=None)
    if current is not None and current.target != settings.target:
        current = None  # a game of another server
    color = (out.isatty() and not os.environ.get("NO_COLOR")) if args.color == "auto" else args.color == "always"
    # A terminal tells its width; anything else (a pipe, a file, a pager) gets the classic 80 columns.
    width = shutil.get_terminal_size((80, 24)).columns if out.isatty() else 80
    return Context(args, settings, state_path, current, out, color, max(width, 40), ident_path)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    stream = out or sys.stdout
    try:
        ctx = make_context(args, stream)
    except (OSError, ValueError) as exc:
        print(f"patience-cli: {exc}", file=sys.stderr)
        return 2
    try:
        return int(args.func(ctx))
    except UsageError as exc:
        print(f"patience-cli: {exc}", file=sys.stderr)
        return 2
    except ServiceError as exc:
        if exc.code.name in ("UNAVAILABLE", "DEADLINE_EXCEEDED") and not exc.reason:  # no answer from the service
            print(f"patience-cli: cannot reach {ctx.settings.target}: {exc.message}", file=sys.stderr)
            return 2
        print(refusal(exc), file=stream)
        return 1
    except (PatienceClientError, OSError, ValueError) as exc:
        print(f"patience-cli: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=stream)
        return 130
    finally:
        ctx.close()


if __name__ == "__main__":
    raise SystemExit(main())
