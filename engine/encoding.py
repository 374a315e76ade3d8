"""A compact, self-describing binary encoding of a position, and its hash.

Layout (version 1): ``b"P1"``, variant index (catalogue order), options text
(length byte + ASCII ``k=v,...`` of non-default options), ``redeals``,
``fresh``, then seven pile groups -- columns, cells, foundations, stock, waste,
captives, fixed -- where a group of piles is a count byte followed by each
pile as a length byte and its card bytes, and a flat group is a length byte
and its card bytes. ``NO_CARD`` is 0xFF. A 104-card game is about 150 bytes.
"""

from __future__ import annotations

import hashlib

from .cards import NO_CARD
from .catalogue import GAME_CLASSES, get_game, variant_index
from .errors import VariantError
from .game import Game
from .state import Pile, State

MAGIC = b"P1"
MAX_ENCODED = 1024


class EncodingError(ValueError):
    """Bytes that are not an encoded position."""


#: Every byte that is not a card (0-51) or NO_CARD (255): ``bytes.translate`` keeps only those.
_NOT_CARD_BYTES = bytes(range(52)) + b"\xff"


def _header(game: Game) -> bytes:
    opts = game.options_text().encode("ascii")
    return MAGIC + bytes([variant_index(game.id), len(opts)]) + opts


def encode_state(game: Game, state: State) -> bytes:
    # Every count and card as one list of small ints, turned into bytes in C: the service encodes a position on
    # every move, and a pile at a time this costs three times as much.
    header = game.encoding_header
    if header is None:
        header = game.encoding_header = _header(game)
    flat = [state.redeals, 1 if state.fresh else 0]
    append, extend = flat.append, flat.extend
    for group in (state.columns, state.foundations):
        append(len(group))
        for pile in group:
            append(len(pile))
            extend(pile)
    for pile in (state.cells, state.stock, state.waste, state.captives, state.fixed):
        append(len(pile))
        extend(pile)
    try:
        return header + bytes(flat)
    except ValueError:  # NO_CARD (-1) in a pile: counts are never negative, so only cards map to 0xFF
        return header + bytes(255 if c == NO_CARD else c for c in flat)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise EncodingError("truncated state")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise EncodingError("truncated state")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def flat(self) -> Pile:
        cards = self.take(self.byte())
        if cards.translate(None, _NOT_CARD_BYTES):
            raise EncodingError("not a card byte")
        if 255 in cards:
            return tuple(NO_CARD if c == 255 else c for c in cards)
        return tuple(cards)

    def group(self) -> tuple[Pile, ...]:
        return tuple(self.flat() for _ in range(self.byte()))


def decode_state(data: bytes) -> tuple[Game, State]:
    """The game and position from :func:`encode_state`'s bytes; EncodingError if malformed."""
    if len(data) > MAX_ENCODED or data[:2] != MAGIC:
        raise EncodingError("not an encoded state")
    r = _Reader(data)
    r.take(2)
    index = r.byte()
    if index >= len(GAME_CLASSES):
        raise EncodingError(f"unknown variant index {index}")
    opts_text = r.take(r.byte()).decode("ascii", errors="replace")
    options = dict(kv.split("=", 1) for kv in opts_text.split(",") if "=" in kv)
    try:
        game = get_game(GAME_CLASSES[index].info.id, options)
    except VariantError as exc:
        raise EncodingError(str(exc)) from exc
    # One position, one encoding: anything but the canonical form is refused, so that equal positions always have
    # equal bytes (and hashes), and a hash names exactly one byte string.
    if game.options_text() != opts_text:
        raise EncodingError(f"options {opts_text!r} are not in canonical form ({game.options_text()!r})")
    redeals = r.byte()
    fresh_byte = r.byte()
    if fresh_byte > 1:
        raise EncodingError(f"the fresh flag is 0 or 1, not {fresh_byte}")
    fresh = fresh_byte == 1
    columns = r.group()
    foundations = r.group()
    cells, stock, waste, captives, fixed = (r.flat() for _ in range(5))
    if r.pos != len(data):
        raise EncodingError("trailing bytes after the state")
    state = State(
        columns=columns,
        cells=cells,
        foundations=foundations,
        stock=stock,
        waste=waste,
        captives=captives,
        fixed=fixed,
        redeals=redeals,
        fresh=fresh,
    )
    return game, state


def state_hash(game: Game, state: State) -> str:
    """A stable hash of the position (hex SHA-256 of its encoding)."""
    return hashlib.sha256(encode_state(game, state)).hexdigest()
