"""patience-cli's game commands: new, show, move, undo, legal, hint, auto, resign, replay, submit, mint, solve
and the interactive ``play``."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from patience.seeds import mixed_from
from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError
from engine.moves import split_moves
from engine.verify import Outcome, verify

from . import lineinput, render
from .cli_certificates import dealt_words, engine_reason
from .cli_context import Context, UsageError, parse_options, read_text, refusal
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


def cmd_variants(ctx: Context) -> int:
    for v in ctx.client.list_variants():
        opts = "; ".join(f"{o.name}={o.default_value} ({'/'.join(o.allowed_values)})" for o in v.options)
        ctx.print(f"{v.id:<26} {v.name_en} / {v.name_ru}" + (f"   options: {opts}" if opts else ""))
    return 0


def _seed_arg(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        seed = b""
    if len(seed) != 32:
        raise UsageError(f"--replay takes a deal's seed, 64 hex digits, not {text[:80]!r}")
    return seed


def _new(
    ctx: Context,
    variant: str,
    *,
    replay_seed: bytes | None = None,
    options: dict[str, str] | None = None,
    allow_undo: bool | None = None,
) -> pb.Game:
    """Deal a new game from the command line's options (or, for ``replay``, from the ended game's)."""
    a = ctx.args
    client_seed = bytes.fromhex(a.client_seed) if getattr(a, "client_seed", None) else None
    if getattr(a, "replay", None):
        replay_seed = _seed_arg(a.replay)
    deal_number = getattr(a, "deal", None)
    winnable = True if getattr(a, "winnable", False) else None
    choosers = (("--replay", replay_seed), ("--deal", deal_number), ("--winnable", winnable))
    chosen = [name for name, given in choosers if given is not None]
    others = [name for name, given in (("--client-seed", client_seed), ("--ticket", getattr(a, "ticket", None)))
              if given is not None]  # fmt: skip
    if chosen and len(chosen + others) > 1:
        raise UsageError(f"{chosen[0]} chooses the deal by itself: not with {(chosen + others)[1]}")
    prepared = None
    if client_seed is not None:  # the server commits to its seed before it sees ours (docs/fairness.md)
        prepared = ctx.client.prepare_game()
        ctx.print("server seed commitment (SHA-256 of the seed the server reveals at the end):")
        ctx.print(f"  {prepared.server_seed_commitment.hex()}")
    resp = ctx.client.new_game(
        variant,
        options if options is not None else parse_options(getattr(a, "option", []) or []),
        client_seed=client_seed,
        deal_ticket=getattr(a, "ticket", None),
        allow_undo=False if getattr(a, "no_undo", False) else allow_undo,
        prepared_id=prepared.prepared_id if prepared is not None else None,
        replay_seed=replay_seed,
        deal_number=deal_number,
        winnable=winnable,
        watchable=True if getattr(a, "watchable", False) else None,
    )
    ctx.save(resp.game)
    game = resp.game
    how = f" ({dealt_words(game.dealt, game.deal_number)})" if game.dealt in ("public", "replay", "winnable") else ""
    ctx.print(f"new game {game.game_id}{how}:")
    ctx.print(f"  commitment {game.commitment.hex()}")
    return game


def cmd_new(ctx: Context) -> int:
    ctx.show(_new(ctx, ctx.args.variant or ""))
    return 0


def cmd_replay(ctx: Context) -> int:
    """A new game of the current game's deal, once that game is over and its seed revealed."""
    old = ctx.client.get_game(ctx.game_id())
    if not old.seed:
        over = old.status in (pb.GAME_STATUS_WON, pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_EXPIRED,
                              pb.GAME_STATUS_FORFEITED)  # fmt: skip
        why = "its deal ticket is still valid" if over else "it is not over (resign it first)"
        raise UsageError(f"game {old.game_id}'s seed is still secret: {why}")
    game = _new(ctx, old.variant, replay_seed=old.seed, options=dict(old.options), allow_undo=old.allow_undo)
    ctx.show(game)
    return 0


def cmd_show(ctx: Context) -> int:
    game = ctx.client.get_game(ctx.game_id(), include_moves=ctx.args.moves)
    ctx.show(game)
    if ctx.args.moves:
        ctx.print("moves: " + (" ".join(game.moves) or "(none)"))
    _after(ctx, game)
    return 0


def _check_solution(ctx: Context, game: pb.Game) -> None:
    """A deal dealt as winnable: replay the server's winning line on the revealed seed with the engine."""
    try:
        verdict = verify(game.variant, dict(game.options), game.seed, list(game.solution))
        wins = verdict.outcome is Outcome.WON
    except (PatienceError, ValueError):
        wins = False
    ctx.print(f"dealt as winnable: the server's winning line ({len(game.solution)} moves) "
              f"{'wins' if wins else 'DOES NOT WIN'} this deal:")  # fmt: skip
    ctx.print("  " + " ".join(game.solution))


def _after(ctx: Context, game: pb.Game) -> None:
    """Keep the state file's version, and say what the end of a game means."""
    if ctx.current and ctx.current.game_id == game.game_id:
        ctx.save(game)
    if game.seed:
        ok = hashlib.sha256(game.seed).digest() == game.commitment
        ctx.print(f"seed {game.seed.hex()}")
        verdict = "matches" if ok else "DOES NOT MATCH"
        ctx.print(f"  SHA-256(seed) {verdict} the commitment {game.commitment.hex()[:16]}...")
    if game.server_seed and game.server_seed_commitment:
        ok = hashlib.sha256(game.server_seed).digest() == game.server_seed_commitment
        ctx.print(f"server seed {game.server_seed.hex()}")
        ctx.print(
            f"  SHA-256 {'matches' if ok else 'DOES NOT MATCH'} the server seed commitment "
            f"{game.server_seed_commitment.hex()[:16]}..."
        )
    if game.seed and game.server_seed and game.client_seed:
        ok = mixed_from(game.seed, game.server_seed, game.client_seed)
        ctx.print(
            f"  the seed {'is' if ok else 'IS NOT'} the server seed mixed with your client seed (docs/fairness.md)"
        )
    if game.seed and game.solution:
        _check_solution(ctx, game)
    if game.status == pb.GAME_STATUS_WON and game.HasField("certificate") and game.certificate.encoded:
        path = _cert_path(ctx, game.game_id)
        path.write_bytes(game.certificate.encoded)
        ctx.print(f"won! certificate saved to {path} (check it: patience-cli verify-cert {path})")


def _cert_path(ctx: Context, game_id: str) -> Path:
    given = getattr(ctx.args, "cert_out", None)
    return Path(given) if given else Path(f"patience-{game_id}.cert")  # ids may start with "-"


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
            _after(ctx, session.game)
            return 1
        ctx.print(f"played {resp.applied.text}")
    ctx.show(session.game)
    _after(ctx, session.game)
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
    _after(ctx, session.game)
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
    _after(ctx, session.game)
    return 0


def cmd_resign(ctx: Context) -> int:
    session = ctx.client.session(ctx.game_id())
    game = session.resign()
    ctx.show(game)
    _after(ctx, game)
    return 0


def cmd_submit(ctx: Context) -> int:
    moves = split_moves(read_text(ctx.args.file))
    if ctx.args.ticket:
        resp = ctx.client.submit_solution(moves, deal_ticket=ctx.args.ticket)
    else:
        resp = ctx.client.submit_solution(moves, game_id=ctx.game_id())
    return _report_submission(ctx, resp)


def _report_submission(ctx: Context, resp: pb.SubmitSolutionResponse) -> int:
    v = resp.verdict
    outcome = pb.Outcome.Name(v.outcome).removeprefix("OUTCOME_").lower()
    ctx.print(f"game {resp.game_id}: {outcome} after {v.move_count} moves (state {v.final_state_hash[:16]})")
    if v.outcome == pb.OUTCOME_ILLEGAL:
        ctx.print(f"✗ move {v.error_index + 1} {v.error_move_text!r} refused: {v.error_reason}: {v.error_message}")
        ctx.print(f"  why: {render.explain(engine_reason(v.error_reason))}")
    if v.outcome == pb.OUTCOME_NOT_WON:
        ctx.print("  (how it failed is withheld: the ticket is still valid and its deal secret)")
    if resp.HasField("game") and resp.game.status == pb.GAME_STATUS_FORFEITED:
        # A submission for a game is final: not a win, so the game is over.
        ctx.print("the game is over (forfeited): a submitted solution is final")
        _after(ctx, resp.game)
        return 1
    if resp.HasField("game") and ctx.current and ctx.current.game_id == resp.game.game_id:
        ctx.save(resp.game)
    if v.outcome == pb.OUTCOME_WON and resp.certificate.encoded:
        path = _cert_path(ctx, resp.game_id)
        path.write_bytes(resp.certificate.encoded)
        ctx.print(f"won! certificate saved to {path} (check it: patience-cli verify-cert {path})")
        return 0
    return 1


def cmd_mint(ctx: Context) -> int:
    resp = ctx.client.mint_deal(
        ctx.args.variant, parse_options(ctx.args.option), valid_seconds=ctx.args.valid_seconds, label=ctx.args.label
    )
    ctx.print(resp.deal_ticket)
    print(f"ticket {resp.ticket_id}: {resp.variant}\n  commitment {resp.commitment.hex()}", file=sys.stderr)
    return 0


def cmd_fcs_board(ctx: Context) -> int:
    from engine.fcs import fcs_board

    from .solver import state_from_view

    rules, state = state_from_view(ctx.client.get_game(ctx.game_id()))
    ctx.out.write(fcs_board(rules, state))
    return 0


def cmd_solve(ctx: Context) -> int:
    """Solve the current position with fc-solve; write, play or submit the moves."""
    from .solver import SolverError, solve

    a = ctx.args
    game = ctx.client.get_game(ctx.game_id(), include_moves=True)
    try:
        moves = solve(game, fc_solve=a.fc_solve, max_iterations=a.max_iterations)
    except SolverError as exc:
        ctx.print(f"✗ {exc}")
        return 1
    ctx.print(f"fc-solve: {len(moves)} moves win from here (checked with the engine)")
    whole = [*game.moves, *moves]  # a solution starts from the deal
    if a.out:
        Path(a.out).write_text("\n".join(whole) + "\n")
        ctx.print(f"moves from the deal saved to {a.out} (submit them: patience-cli submit {a.out})")
    if a.play:
        session = ctx.client.session(game)
        for text in moves:
            session.move(text)
        ctx.print(f"played {len(moves)} moves")
        ctx.show(session.game)
        _after(ctx, session.game)
        return 0 if session.game.status == pb.GAME_STATUS_WON else 1
    if a.submit:
        resp = ctx.client.submit_solution(whole, game_id=game.game_id)
        return _report_submission(ctx, resp)
    if not a.out:
        ctx.print(" ".join(moves))
    return 0


def cmd_play(ctx: Context) -> int:
    """The interactive loop; every line is a move, several moves, or a command."""
    a = ctx.args
    if a.variant:
        game = _new(ctx, a.variant)
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
                    _after(ctx, session.game)
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
                _after(ctx, session.game)
                break
            if session.game.status == pb.GAME_STATUS_STUCK:
                ctx.print("no legal move is left: undo (u) or resign")
    ctx.save(session.game)
    ctx.print(f"game {session.game_id} kept in {ctx.state_path}")
    return 0


# -- the parser -------------------------------------------------------------------------------------------------
