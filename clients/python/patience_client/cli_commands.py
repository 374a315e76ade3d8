"""patience-cli's commands on the current game: show, move, undo, legal, hint, auto, resign and the interactive
``play``. The others are in the modules named after what they do: ``cli_dealing`` (variants, new, replay, mint),
``cli_solving`` (submit, solve, fcs-board), ``cli_endings`` (what the end of a game shows)."""

from __future__ import annotations

import sys

from patience.v1 import patience_pb2 as pb

from engine.moves import split_moves

from . import lineinput, render
from .cli_context import Context, refusal
from .cli_dealing import deal
from .cli_endings import report_end
from .errors import ServiceError, VersionConflict
from .session import GameSession

PLAY_HELP = """\
Type a move in the notation of docs/rules.md, or several separated by spaces:
  3-7  3-7/4  3-r  3-r2  3,5,5-r  3-f  r2-f  w-f2  f1-f4/3  c3-f5  3-k  d  s  rd
Commands:
  ?            list the legal moves          u, undo    take back the last move
  hint         a move to make, and why       auto       send every safe card home
  show, Enter  draw the table again          resign     give up (shows the seed)
  help         this text                     q, quit    leave (the game is kept: come back with play)"""


def cmd_show(ctx: Context) -> int:
    game = ctx.client.get_game(ctx.game_id(), include_moves=ctx.args.moves)
    ctx.show(game)
    if ctx.args.moves:
        ctx.print("moves: " + (" ".join(game.moves) or "(none)"))
    report_end(ctx, game)
    return 0


def cmd_move(ctx: Context) -> int:
    gid = ctx.game_id()
    session = ctx.client.session(gid)
    moves = [m for text in ctx.args.moves for m in split_moves(text)]
    for text in moves:
        try:
            resp = session.move(text)
        except VersionConflict as exc:
            ctx.print(f"the game changed elsewhere (now version {session.version}); nothing was played")
            if exc.game is not None:
                ctx.show(exc.game)
            return 1
        except ServiceError as exc:
            ctx.print(refusal(exc))
            report_end(ctx, session.game)
            return 1
        ctx.print(f"played {resp.applied.text}")
    ctx.show(session.game)
    report_end(ctx, session.game)
    return 0


def cmd_undo(ctx: Context) -> int:
    session = ctx.client.session(ctx.game_id())
    try:
        resp = session.undo()
    except ServiceError as exc:
        ctx.print(refusal(exc))
        return 1
    ctx.print(f"took back {resp.undone.text}")
    ctx.show(session.game)
    report_end(ctx, session.game)
    return 0


def cmd_legal(ctx: Context) -> int:
    resp = ctx.client.legal_moves(ctx.game_id())
    for line in render.legal_lines(list(resp.moves), width=ctx.width):
        ctx.print(line)
    return 0


def _hint(ctx: Context, session: GameSession) -> None:
    """Ask for a hint; draw the table with the move's piles marked, and say the move and why."""
    given = session.hint()
    game = session.refresh() if given.version != session.version else session.game
    ctx.show(game, given.move.move if given.HasField("move") else None)
    ctx.print(render.hint_line(given))
    ctx.print(f"hints in this game: {given.hint_count}")


def cmd_hint(ctx: Context) -> int:
    session = ctx.client.session(ctx.game_id())
    try:
        _hint(ctx, session)
    except ServiceError as exc:
        ctx.print(refusal(exc))
        return 1
    return 0


def _auto(ctx: Context, session: GameSession) -> None:
    resp = session.autoplay()
    if resp.applied:
        ctx.print(f"played {' '.join(m.text for m in resp.applied)}")
    else:
        ctx.print("no card can safely go home now")
    ctx.show(session.game)


def cmd_auto(ctx: Context) -> int:
    session = ctx.client.session(ctx.game_id())
    try:
        _auto(ctx, session)
    except VersionConflict as exc:
        ctx.print(f"the game changed elsewhere (now version {session.version}); nothing was played")
        if exc.game is not None:
            ctx.show(exc.game)
        return 1
    except ServiceError as exc:
        ctx.print(refusal(exc))
        return 1
    report_end(ctx, session.game)
    return 0


def cmd_resign(ctx: Context) -> int:
    session = ctx.client.session(ctx.game_id())
    game = session.resign()
    ctx.show(game)
    report_end(ctx, game)
    return 0


def cmd_play(ctx: Context) -> int:
    """The interactive loop; every line is a move, several moves, or a command."""
    a = ctx.args
    if a.variant:
        game = deal(ctx, a.variant)
    else:
        game = ctx.client.get_game(ctx.game_id())
        ctx.print(f"continuing game {game.game_id}")
    session = ctx.client.session(game)
    ctx.show(game)
    ctx.print("type a move, ? for the legal moves, help for more, q to leave")
    with lineinput.line_editing(sys.stdin.isatty()):
        while True:
            try:
                line = input("move> " if sys.stdin.isatty() else "")
            except EOFError:
                ctx.print()
                break
            words = line.strip().split()
            if not words or words == ["show"]:
                ctx.show(session.refresh())
                continue
            cmd = words[0].lower()
            try:
                if cmd in ("q", "quit", "exit"):
                    break
                if cmd in ("h", "help"):
                    ctx.print(PLAY_HELP)
                elif cmd in ("?", "legal"):
                    for text in render.legal_lines(session.legal_moves(), width=ctx.width):
                        ctx.print(text)
                elif cmd == "hint":
                    _hint(ctx, session)
                elif cmd == "auto":
                    _auto(ctx, session)
                elif cmd in ("u", "undo"):
                    undone = session.undo()
                    ctx.print(f"took back {undone.undone.text}")
                    ctx.show(session.game)
                elif cmd == "resign":
                    ctx.show(session.resign())
                    report_end(ctx, session.game)
                    break
                else:
                    for text in words:
                        resp = session.move(text)
                        ctx.print(f"played {resp.applied.text}")
                    ctx.show(session.game)
            except VersionConflict as exc:
                ctx.print("the game changed elsewhere; here it is now")
                ctx.show(exc.game or session.refresh())
            except ServiceError as exc:
                if exc.code.name == "UNAVAILABLE":
                    raise
                ctx.print(refusal(exc))
            ctx.save(session.game)
            if session.game.status in (
                pb.GAME_STATUS_WON,
                pb.GAME_STATUS_RESIGNED,
                pb.GAME_STATUS_EXPIRED,
                pb.GAME_STATUS_FORFEITED,
            ):
                report_end(ctx, session.game)
                break
            if session.game.status == pb.GAME_STATUS_STUCK:
                ctx.print("no legal move is left: undo (u) or resign")
    ctx.save(session.game)
    ctx.print(f"game {session.game_id} kept in {ctx.state_path}")
    return 0
