"""Leaderboard names and the order of a board: the one definition the service, the clients and the certificate
format share (docs/competition.md).

A board is named by the deal it ranks:

- ``daily-{variant}-{YYYY-MM-DD}``: the daily deal of that UTC day;
- ``public-{variant}-{N}``: the numbered public deal N (1 to 2**32-1, docs/deal-v2.md);

and ``:{option}={value}`` for each option that is not the variant's default, sorted by name (the engine's
``Game.options_text()`` with ``:`` for ``,``): ``daily-cats-tail-2026-01-31:sequence_moves=false``. A name has one
spelling: defaults are never written, options are in order, values in their one text.

Entries are ranked by :func:`rank_key`: wins without undo before wins with undo, then fewer moves, then a shorter
time from the deal to the win, then the earlier win.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.catalogue import get_game
from engine.errors import PatienceError
from engine.game import Game, format_option

__all__ = [
    "DAILY",
    "MAX_BOARD_LENGTH",
    "PUBLIC",
    "Board",
    "BoardNameError",
    "RankKey",
    "board_of",
    "daily_board",
    "daily_date",
    "day_bounds_ms",
    "parse_board",
    "public_board",
    "rank_key",
    "well_formed",
]

DAILY = "daily"
PUBLIC = "public"
#: The longest board name read at all (the longest the catalogue makes is under 60 characters).
MAX_BOARD_LENGTH = 160
MAX_DEAL_NUMBER = (1 << 32) - 1
_VARIANT = r"(?P<variant>[a-z0-9]+(?:-[a-z0-9]+)*)"
_OPTIONS = r"(?P<options>(?::[a-z0-9_]+=(?:true|false|0|[1-9][0-9]*))*)"
_DAILY = re.compile(rf"daily-{_VARIANT}-(?P<date>[0-9]{{4}}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])){_OPTIONS}")
_PUBLIC = re.compile(rf"public-{_VARIANT}-(?P<number>[1-9][0-9]{{0,9}}){_OPTIONS}")


class BoardNameError(ValueError):
    """Not the name of a board (its grammar, an unknown variant or option, a default written out, a bad date)."""


@dataclass(frozen=True)
class Board:
    """A board: its kind (DAILY or PUBLIC), variant, the options that differ from the defaults (as text), and its
    day (daily) or deal number (public)."""

    kind: str
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    date: str = ""
    number: int = 0

    @property
    def name(self) -> str:
        tail = self.date if self.kind == DAILY else str(self.number)
        return f"{self.kind}-{self.variant}-{tail}" + "".join(f":{k}={v}" for k, v in sorted(self.options.items()))

    def game(self) -> Game:
        """The board's variant with its options (every board :func:`parse_board` returns has one)."""
        return get_game(self.variant, self.options or None)


class _Parts(NamedTuple):
    kind: str
    variant: str
    options: list[tuple[str, str]]
    date: str
    number: int


def _parts(name: str) -> _Parts | None:
    """The grammar alone: no catalogue."""
    if not isinstance(name, str) or len(name) > MAX_BOARD_LENGTH:
        return None
    daily = _DAILY.fullmatch(name)
    public = None if daily else _PUBLIC.fullmatch(name)
    found = daily or public
    if found is None:
        return None
    options = [tuple(item.split("=", 1)) for item in found["options"].split(":")[1:]]
    names = [k for k, _ in options]
    if names != sorted(set(names)):  # in order, each once: one spelling
        return None
    number = int(public["number"]) if public else 0
    if number > MAX_DEAL_NUMBER:
        return None
    kind = DAILY if daily else PUBLIC
    return _Parts(kind, found["variant"], [(k, v) for k, v in options], found["date"] if daily else "", number)


def daily_date(name: str) -> str:
    """A daily board's day (YYYY-MM-DD) by the grammar alone, "" for any other name."""
    parts = _parts(name)
    return parts.date if parts is not None else ""


def well_formed(name: str) -> bool:
    """The grammar of a board name, without the catalogue (what a certificate verifier checks of ``board``)."""
    return _parts(name) is not None


def parse_board(name: str) -> Board:
    """The board named ``name``, checked against the catalogue: a known variant, options it has with values it
    takes and not their defaults, a real day. BoardNameError otherwise."""
    parts = _parts(name)
    if parts is None:
        raise BoardNameError(f"{name[:80]!r} is not a board name (daily-VARIANT-YYYY-MM-DD or public-VARIANT-N)")
    if parts.date:
        try:
            dt.date.fromisoformat(parts.date)
        except ValueError as exc:
            raise BoardNameError(f"{parts.date} is not a day") from exc
    options = dict(parts.options)
    try:
        game = get_game(parts.variant, options or None)
    except PatienceError as exc:
        raise BoardNameError(f"{name[:80]!r}: {exc}") from exc
    defaults = get_game(parts.variant).options
    for key, value in options.items():
        if format_option(defaults[key]) == value:
            raise BoardNameError(f"{name[:80]!r} names the default {key}={value}: defaults are left out")
        if format_option(game.options[key]) != value:
            raise BoardNameError(f"{name[:80]!r}: {key}={value} is not in its one spelling")
    return Board(parts.kind, parts.variant, options, parts.date, parts.number)


def _options_of(game: Game) -> dict[str, str]:
    text = game.options_text()
    return dict(item.split("=", 1) for item in text.split(",")) if text else {}


def daily_board(game: Game, day: dt.date) -> Board:
    return Board(DAILY, game.id, _options_of(game), date=day.isoformat())


def public_board(game: Game, number: int) -> Board:
    return Board(PUBLIC, game.id, _options_of(game), number=number)


def board_of(name: str) -> Board | None:
    """:func:`parse_board`, None for a name that is not a board's."""
    try:
        return parse_board(name)
    except BoardNameError:
        return None


def day_bounds_ms(date: str) -> tuple[int, int]:
    """A UTC day's start and end (the next day's start), Unix milliseconds."""
    start = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), tzinfo=dt.UTC)
    begin = int(start.timestamp()) * 1000
    return begin, begin + 86_400_000


class RankKey(NamedTuple):
    """What ranks an entry, compared as a tuple: smaller is better."""

    undone: bool  # any move taken back: after every win without undo
    moves: int
    play_ms: int  # from the deal to the win
    finished_at: int


def rank_key(undo_count: int, move_count: int, started_at: int, finished_at: int) -> RankKey:
    return RankKey(undo_count > 0, move_count, max(0, finished_at - started_at), finished_at)
