"""patience-cli's commands for whole solutions: submit (a move list from the deal, or for a deal ticket), solve
(Freecell Solver from the current position: write, play or submit its moves) and fcs-board (the position in
Freecell Solver's notation)."""

from __future__ import annotations

from pathlib import Path

from patience.v1 import patience_pb2 as pb

from engine.moves import split_moves

from . import render
from .cli_certificates import engine_reason
from .cli_context import Context, read_text
from .cli_endings import certificate_path, report_end


def cmd_submit(ctx: Context) -> int:
    moves = split_moves(read_text(ctx.args.file))
    if ctx.args.ticket:
        resp = ctx.client.submit_solution(moves, deal_ticket=ctx.args.ticket)
    else:
        resp = ctx.client.submit_solution(moves, game_id=ctx.game_id())
    return report_submission(ctx, resp)


def report_submission(ctx: Context, resp: pb.SubmitSolutionResponse) -> int:
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
        report_end(ctx, resp.game)
        return 1
    if resp.HasField("game") and ctx.current and ctx.current.game_id == resp.game.game_id:
        ctx.save(resp.game)
    if v.outcome == pb.OUTCOME_WON and resp.certificate.encoded:
        path = certificate_path(ctx, resp.game_id)
        path.write_bytes(resp.certificate.encoded)
        ctx.print(f"won! certificate saved to {path} (check it: patience-cli verify-cert {path})")
        return 0
    return 1


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
        report_end(ctx, session.game)
        return 0 if session.game.status == pb.GAME_STATUS_WON else 1
    if a.submit:
        resp = ctx.client.submit_solution(whole, game_id=game.game_id)
        return report_submission(ctx, resp)
    if not a.out:
        ctx.print(" ".join(moves))
    return 0
