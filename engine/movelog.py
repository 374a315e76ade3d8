"""A packed move log: :class:`~engine.moves.Move` values in about 2.3 bytes a move instead of 6-7 as text.

The service keeps each game's log in this form. Every move ends with a byte that says how far back it starts,
so a log can be read from its end, one move at a time, without decoding the rest (the store's undo pops the
last move that way, in Lua)::

    pile code   PileKind's position * 10 + index (0 = no index): columns 1-9, r 10, r1 11 .. k 50
    transfer    [0x80 + count - 1, count 1..112] source codes (each < 64) ... 64 + target code
    d, s, rd    0xF0, 0xF1, 0xF2
    otherwise   the move's text in ASCII, its length byte, 0xFF (a count over 112 or an index over 9)

The codes and the text are the engine's own: the pile kinds in :class:`~engine.moves.PileKind`'s order, and
``Move.text``/``Move.parse`` for the escaped form, so there is one notation.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .errors import NotationError
from .moves import MAX_MOVE_TEXT, Move, MoveKind, Pile, PileKind

__all__ = ["CorruptLog", "pack", "pack_all", "unpack"]

_KINDS = tuple(PileKind)  # COLUMN, RESERVE, FOUNDATION, WASTE, CAPTIVE, KING_ROW: codes 0-9, 10-19 ... 50-59
_STOCK_BYTES = {MoveKind.DEAL: 0xF0, MoveKind.STOCK: 0xF1, MoveKind.REDEAL: 0xF2}
_STOCK_MOVES = {byte: Move(kind) for kind, byte in _STOCK_BYTES.items()}
_ESCAPE = 0xFF
_TARGET = 64
_COUNT = 0x80
_MAX_COUNT = 0xF0 - _COUNT  # 112
_MAX_SOURCES = _TARGET - 1


class CorruptLog(ValueError):
    """Bytes that no sequence of packed moves gives."""


def _pile_code(pile: Pile) -> int | None:
    index = pile.index or 0
    if not 0 <= index <= 9 or (pile.kind is PileKind.COLUMN and index == 0):
        return None
    return _KINDS.index(pile.kind) * 10 + index


def _pile(code: int) -> Pile:
    kind, index = divmod(code, 10)
    return Pile(_KINDS[kind], index or None)


@lru_cache(maxsize=4096)
def pack(move: Move) -> bytes:
    """One move in its packed form."""
    byte = _STOCK_BYTES.get(move.kind)
    if byte is not None:
        return bytes((byte,))
    packed = _pack_transfer(move)
    if packed is not None:
        return packed
    raw = move.text().encode("ascii")
    if len(raw) > MAX_MOVE_TEXT:
        raise ValueError(f"a logged move is at most {MAX_MOVE_TEXT} characters: {move.text()[:80]!r}")
    return raw + bytes((len(raw), _ESCAPE))


def _pack_transfer(move: Move) -> bytes | None:
    if move.target is None or not move.sources or len(move.sources) > _MAX_SOURCES:
        return None
    codes = [_pile_code(p) for p in move.sources]
    goal = _pile_code(move.target)
    if goal is None or None in codes:
        return None
    count = b""
    if move.count is not None:
        if not 1 <= move.count <= _MAX_COUNT:
            return None
        count = bytes((_COUNT + move.count - 1,))
    return count + bytes(c for c in codes if c is not None) + bytes((_TARGET + goal,))


def pack_all(moves: Iterable[Move]) -> bytes:
    """A whole log."""
    return b"".join(pack(m) for m in moves)


def last_move(log: bytes, end: int) -> tuple[Move, int]:
    """The move that ends at ``log[end - 1]`` and where it starts; CorruptLog if the bytes are not a log."""
    last = log[end - 1]
    if last == _ESCAPE:
        start = end - 2 - log[end - 2] if end >= 2 else -1
        if start < 0:
            raise CorruptLog("an escaped move longer than the log")
        try:
            return Move.parse(log[start : end - 2].decode("ascii")), start
        except (UnicodeDecodeError, NotationError) as exc:
            raise CorruptLog(f"an escaped move that is not a move: {exc}") from exc
    stock = _STOCK_MOVES.get(last)
    if stock is not None:
        return stock, end - 1
    if not _TARGET <= last < _TARGET + 10 * len(_KINDS):
        raise CorruptLog(f"no move ends with byte {last:#04x}")
    i = end - 1
    while i > 0 and log[i - 1] < _TARGET:
        i -= 1
    if i == end - 1:
        raise CorruptLog("a transfer without a source")
    if i > 0 and _COUNT <= log[i - 1] < _COUNT + _MAX_COUNT:
        i -= 1
    return _transfer(log[i:end]), i


@lru_cache(maxsize=4096)
def _transfer(raw: bytes) -> Move:
    """A transfer from its bytes (a game repeats a few hundred of them: each is decoded once)."""
    count = None
    if raw[0] >= _COUNT:
        count = raw[0] - _COUNT + 1
        raw = raw[1:]
    sources = tuple(_pile(c) for c in raw[:-1])
    return Move(MoveKind.TRANSFER, sources, _pile(raw[-1] - _TARGET), count)


def unpack(log: bytes) -> tuple[Move, ...]:
    """Every move of a packed log, first to last; CorruptLog if the bytes are not a log."""
    out: list[Move] = []
    end = len(log)
    while end > 0:
        move, end = last_move(log, end)
        out.append(move)
    out.reverse()
    return tuple(out)
