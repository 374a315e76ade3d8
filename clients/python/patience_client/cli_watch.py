"""patience-cli watch: a game followed live (WatchGame), drawn after every change until it ends."""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from .cli_context import Context


def cmd_watch(ctx: Context) -> int:
    """Follow a game (the current one, or GAME_ID): drawn now and after every change, wherever it is played, until
    it is over; ``--spectator`` watches without the token (a game dealt watchable)."""
    a = ctx.args
    game_id = a.game_id or ctx.game_id()
    updates = ctx.client.watch(game_id, after_version=a.after, spectator=a.spectator)
    for shown, game in enumerate(updates, start=1):
        ctx.show(game)
        ctx.print(f"version {game.version}: {pb.GameStatus.Name(game.status).removeprefix('GAME_STATUS_').lower()}")
        if a.count and shown >= a.count:
            updates.close()  # type: ignore[attr-defined]  # a generator: its stream is cancelled
            break
    return 0
