"""patience-cli's competition commands (docs/competition.md): ``daily`` (a daily deal's board, commitment and, once
its day is over, its seed) and ``leaderboard`` (a board's ranking; ``--verify`` checks every entry offline)."""

from __future__ import annotations

import hashlib

from patience.v1 import patience_pb2 as pb

from .cli_certificates import load_keys
from .cli_context import Context, parse_options
from .leaderboards import BoardCheck


def cmd_daily(ctx: Context) -> int:
    a = ctx.args
    deal = ctx.client.daily_deal(a.variant, parse_options(a.option), date=a.date or "")
    opens, closes = deal.opens_at.ToDatetime(), deal.closes_at.ToDatetime()
    ctx.print(f"daily deal {deal.date} of {deal.variant}: board {deal.board}")
    ctx.print(f"  open {opens:%Y-%m-%d %H:%M} to {closes:%Y-%m-%d %H:%M} UTC")
    ctx.print(f"  commitment {deal.commitment.hex()}")
    if deal.seed:
        ok = hashlib.sha256(deal.seed).digest() == deal.commitment
        ctx.print(f"  seed {deal.seed.hex()} (SHA-256 {'matches' if ok else 'DOES NOT MATCH'} the commitment)")
        if not ok:
            return 1
    else:
        ctx.print("  seed: secret until the day is over")
    if deal.game_id:
        ctx.print(f"  your ranked game: {deal.game_id} (patience-cli new {deal.variant} --daily resumes it)")
    return 0


def _marks(check: BoardCheck | None) -> dict[int, str]:
    if check is None:
        return {}
    return {e.rank: "✓" if e.valid else f"✗ {e.reason}" for e in check.entries}


def _line(entry: pb.LeaderboardEntry, mark: str) -> str:
    seconds = entry.play_time.ToMilliseconds() / 1000
    how = "" if entry.played != "submitted" else ", submitted"
    return (f"{entry.rank:>4}. {entry.player.display_name:<32} {entry.move_count:>5} moves, "
            f"{entry.undo_count} undos, {seconds:,.1f} s{how}  {mark}").rstrip()  # fmt: skip


def cmd_leaderboard(ctx: Context) -> int:
    a = ctx.args
    if a.verify:
        pages = ctx.client.leaderboard_pages(a.board, page_size=a.page_size or 50)
    else:
        pages = [ctx.client.leaderboard(a.board, page_size=a.page_size)]
    first = pages[0]
    state = "frozen" if first.frozen else "open" if first.kind == "daily" else "open puzzle"
    ctx.print(f"{first.board} ({first.kind}, {state}): {first.total} {'entry' if first.total == 1 else 'entries'}")
    check = None
    if a.verify:
        from .leaderboards import check_pages

        check = check_pages(pages, load_keys(ctx), replay=a.replay)
    marks = _marks(check)
    for page in pages:
        for entry in page.entries:
            ctx.print(_line(entry, marks.get(entry.rank, "")))
    if first.HasField("own") and not a.verify:
        ctx.print(f"you: {_line(first.own, '').strip()}")
    if not a.verify:
        if first.next_page_token:
            ctx.print("... more: --page-size, or --verify for the whole board")
        return 0
    assert check is not None
    if check.reason == "SEALED":
        ctx.print("✗ not checkable yet: a daily board's certificates are out once its day is over")
        return 1
    if check.reason:
        ctx.print(f"✗ the board itself does not check: {check.reason}")
        return 1
    bad = [e for e in check.entries if not e.valid]
    words = " and replayed" if a.replay else ""
    ctx.print(
        f"✓ every entry checked{words} against the published keys" if not bad else f"✗ {len(bad)} entries do not check"
    )
    return 0 if check.valid else 1
