"""``patience-cli``: play the patience service from a terminal.

The server address and the game token come from options, else the
environment (PATIENCE_TARGET, PATIENCE_TOKEN, PATIENCE_GAME, PATIENCE_TLS,
PATIENCE_CA_FILE, PATIENCE_CERT_FILE, PATIENCE_KEY_FILE, PATIENCE_TIMEOUT,
PATIENCE_OPERATOR_KEY), else the state file
that remembers the current game (PATIENCE_STATE_FILE, default
~/.config/patience/current.json), so ``patience-cli show`` after a break finds
the game again. Exit codes: 0 done, 1 refused (an illegal move, a solution
that does not win, a certificate that does not verify), 2 bad usage or no
connection.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError, Reason
from engine.moves import split_moves
from engine.verify import Outcome, verify

from . import lineinput, render, statefile
from .certificates import (
    CertificateCheck,
    PublicKeys,
    keys_from_json,
    keys_from_proto,
    keys_to_json,
    verify_certificate,
)
from .client import GameSession, PatienceClient
from .config import DEFAULT_TARGET, ClientSettings
from .errors import PatienceClientError, ServiceError, VersionConflict

MAX_FILE_BYTES = 8 * 1024 * 1024

PLAY_HELP = """\
Type a move in the notation of docs/rules.md, or several separated by spaces:
  3-7  3-7/4  3-r  3-r2  3,5,5-r  3-f  r2-f  w-f2  f1-f4/3  c3-f5  3-k  d  s  rd
Commands:
  ?            list the legal moves          u, undo    take back the last move
  hint         a move to make, and why       auto       send every safe card home
  show, Enter  draw the table again          resign     give up (shows the seed)
  help         this text                     q, quit    leave (the game is kept: come back with play)"""


class UsageError(Exception):
    """Bad input on the command line (exit 2)."""


@dataclass
class Context:
    """What every command needs: the client, the resolved game, the state file and the output."""

    args: argparse.Namespace
    settings: ClientSettings
    state_path: Path
    current: statefile.CurrentGame | None
    out: TextIO
    color: bool
    width: int
    _client: PatienceClient | None = None

    @property
    def client(self) -> PatienceClient:
        if self._client is None:
            self._client = PatienceClient(self.settings)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def game_id(self) -> str:
        gid: str | None = (
            self.args.game or os.environ.get("PATIENCE_GAME") or (self.current.game_id if self.current else None)
        )
        if not gid:
            raise UsageError("no current game: start one with `patience-cli new VARIANT` (or pass --game ID)")
        if self.current and self.current.game_id == gid and self.settings.token is None:
            self.client.remember(gid, self.current.token)
        return gid

    def save(self, game: pb.Game) -> None:
        """Remember ``game`` as the current one, with the token the client uses for it."""
        self.current = statefile.CurrentGame(
            target=self.settings.target,
            game_id=game.game_id,
            token=self.client.credentials.token_for(game.game_id, None) or "",
            variant=game.variant,
            version=game.version,
        )
        statefile.save(self.state_path, self.current)

    def show(self, game: pb.Game, hint: pb.Move | None = None) -> None:
        self.print(render.render_game(game, color=self.color, width=self.width, hint=hint))


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--option takes key=value, not {pair!r}")
        out[key.strip()] = value.strip()
    return out


def _read_text(path: str) -> str:
    data = sys.stdin.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_text()[: MAX_FILE_BYTES + 1]
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"{path}: over {MAX_FILE_BYTES} bytes")
    return data


def refusal(exc: ServiceError) -> str:
    """A refused move or request in a player's words: what, the server's reason and message, and why."""
    what = f"{exc.move_text!r} refused" if exc.move_text else "refused"
    if exc.move_index is not None and exc.method == "SubmitSolution":
        what = f"move {exc.move_index + 1} {what}"
    text = f"✗ {what}: {exc.reason or exc.code.name}: {exc.message}"
    why = render.explain(exc.engine_reason)
    return text + (f"\n  why: {why}" if why else "")


# -- commands -------------------------------------------------------------------------------------------------


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
        options if options is not None else _options(getattr(a, "option", []) or []),
        client_seed=client_seed,
        deal_ticket=getattr(a, "ticket", None),
        allow_undo=False if getattr(a, "no_undo", False) else allow_undo,
        prepared_id=prepared.prepared_id if prepared is not None else None,
        replay_seed=replay_seed,
        deal_number=deal_number,
        winnable=winnable,
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
    moves = split_moves(_read_text(ctx.args.file))
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
        ctx.print(f"  why: {render.explain(_reason(v.error_reason))}")
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


def _reason(code: str) -> Reason | None:
    try:
        return Reason(code)
    except ValueError:
        return None


def _load_keys(ctx: Context) -> PublicKeys:
    a = ctx.args
    keys: dict[str, bytes] = {}
    if a.keys:
        keys.update(keys_from_json(Path(a.keys).read_text()))
    for item in a.public_key or []:
        key_id, sep, hexkey = item.partition(":")
        if not sep:
            raise UsageError(f"--public-key takes KEY_ID:HEX, not {item!r}")
        keys[key_id] = bytes.fromhex(hexkey)
    if not keys:
        keys = dict(keys_from_proto(ctx.client.get_signing_keys()))
        ctx.print(f"(public keys fetched from {ctx.settings.target}: {', '.join(sorted(keys))})")
    return keys


def cmd_verify_cert(ctx: Context) -> int:
    encoded = Path(ctx.args.file).read_bytes()
    if ctx.args.server:
        resp = ctx.client.verify_certificate(encoded, replay=ctx.args.replay)
        ok, reason, message = resp.valid, resp.reason, resp.message
        ctx.print(f"server says: {'valid' if ok else 'NOT valid'}" + (f": {reason}: {message}" if not ok else ""))
        return 0 if ok else 1
    check = verify_certificate(encoded, _load_keys(ctx), replay=ctx.args.replay)
    ctx.print(describe_check(check))
    return 0 if check.valid else 1


#: How a certified win was played, in words (the certificate's ``played`` field).
_PLAYED = {"moves": "played move by move", "submitted": "submitted whole"}


def dealt_words(dealt: str, deal_number: int) -> str:
    """How a deal was chosen, in words ("" when not said: a certificate signed before the field existed)."""
    if dealt == "public":
        return f"public deal #{deal_number} (no fairness claim)"
    if dealt == "replay":
        return "a replay of a seed the player chose (no fairness claim)"
    words = {"random": "dealt at random", "ticket": "a minted deal", "winnable": "a deal the server's solver has won"}
    return words.get(dealt, dealt)


def describe_check(check: CertificateCheck) -> str:
    if not check.valid:
        return f"✗ certificate NOT valid: {check.reason}: {check.message}"
    c = check.contents
    assert c is not None
    how = dealt_words(c.dealt, c.deal_number)
    lines = [
        f"✓ certificate valid (key {check.key_id}): game {c.game_id}, {c.variant}, "
        f"{c.move_count} moves, {c.undo_count} undos"
        + (f", {c.hints} hint{'s' if c.hints != 1 else ''}" if c.hints is not None else "")
        + (f", {_PLAYED.get(c.played, c.played)}" if c.played else ""),
        f"  seed {c.seed.hex()}" + (f", {how}" if how else ""),
    ]
    if check.replayed:
        lines.append(f"  replayed with the engine: won, final state {c.final_state_hash[:16]} matches")
    return "\n".join(lines)


def cmd_keys(ctx: Context) -> int:
    text = keys_to_json(keys_from_proto(ctx.client.get_signing_keys()))
    if ctx.args.out:
        Path(ctx.args.out).write_text(text)
        ctx.print(f"keys saved to {ctx.args.out}")
    else:
        ctx.print(text.rstrip())
    return 0


def cmd_mint(ctx: Context) -> int:
    resp = ctx.client.mint_deal(
        ctx.args.variant, _options(ctx.args.option), valid_seconds=ctx.args.valid_seconds, label=ctx.args.label
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
            "--winnable",
            action="store_true",
            help="a deal the server's solver has won (its winning line is shown when the game ends)",
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
    settings = ClientSettings.from_env(
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
    return Context(args, settings, state_path, current, out, color, max(width, 40))


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
