"""What patience-cli says after a game has changed (``report_end``): the state file keeps its version, and a game
that is over gets its checks -- the seed against its commitment, the server seed and the client seed's mix, a
winnable deal's winning line replayed with the engine -- and a won game's certificate saved to a file.

Every command that moves, submits or shows a game ends with it, so it lives apart from them."""

from __future__ import annotations

import hashlib
from pathlib import Path

from patience.seeds import mixed_from
from patience.v1 import patience_pb2 as pb

from engine.errors import PatienceError
from engine.verify import Outcome, verify

from .cli_context import Context


def report_end(ctx: Context, game: pb.Game) -> None:
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
        path = certificate_path(ctx, game.game_id)
        path.write_bytes(game.certificate.encoded)
        ctx.print(f"won! certificate saved to {path} (check it: patience-cli verify-cert {path})")


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


def certificate_path(ctx: Context, game_id: str) -> Path:
    given = getattr(ctx.args, "cert_out", None)
    return Path(given) if given else Path(f"patience-{game_id}.cert")  # ids may start with "-"
