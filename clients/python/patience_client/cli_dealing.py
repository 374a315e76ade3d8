"""patience-cli's commands that deal: variants, new, replay (a finished game's deal again) and mint (a deal
ticket); ``deal`` is the one way every command deals a game (``play`` with a variant too)."""

from __future__ import annotations

import sys

from patience.v1 import patience_pb2 as pb

from .cli_certificates import dealt_words
from .cli_context import Context, UsageError, parse_options


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


def deal(
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
    daily = True if getattr(a, "daily", False) else None
    choosers = (("--replay", replay_seed), ("--deal", deal_number), ("--winnable", winnable), ("--daily", daily))
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
        daily=daily,
    )
    ctx.save(resp.game)
    game = resp.game
    shown = ("public", "replay", "winnable", "daily")
    how = f" ({dealt_words(game.dealt, game.deal_number)})" if game.dealt in shown else ""
    if game.board:
        how += f", on board {game.board}" + (" (your ranked game)" if game.ranked else "")
    ctx.print(f"new game {game.game_id}{how}:")
    ctx.print(f"  commitment {game.commitment.hex()}")
    return game


def cmd_new(ctx: Context) -> int:
    ctx.show(deal(ctx, ctx.args.variant or ""))
    return 0


def cmd_replay(ctx: Context) -> int:
    """A new game of the current game's deal, once that game is over and its seed revealed."""
    old = ctx.client.get_game(ctx.game_id())
    if not old.seed:
        over = old.status in (pb.GAME_STATUS_WON, pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_EXPIRED,
                              pb.GAME_STATUS_FORFEITED)  # fmt: skip
        why = "its deal ticket is still valid" if over else "it is not over (resign it first)"
        raise UsageError(f"game {old.game_id}'s seed is still secret: {why}")
    game = deal(ctx, old.variant, replay_seed=old.seed, options=dict(old.options), allow_undo=old.allow_undo)
    ctx.show(game)
    return 0


def cmd_mint(ctx: Context) -> int:
    resp = ctx.client.mint_deal(
        ctx.args.variant, parse_options(ctx.args.option), valid_seconds=ctx.args.valid_seconds, label=ctx.args.label
    )
    ctx.print(resp.deal_ticket)
    print(f"ticket {resp.ticket_id}: {resp.variant}\n  commitment {resp.commitment.hex()}", file=sys.stderr)
    return 0
