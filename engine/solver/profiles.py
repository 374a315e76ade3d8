"""What the search needs to know of each family: a canonical key, a score, and the moves worth trying.

The key folds positions that play the same into one entry of the transposition table: interchangeable
reserve cells and side slots (their multiset), interchangeable columns where no rule names a column
(king-chain and captives: emptied columns are all alike), and foundations that only matter by their top
card (king-chain: the pile under a top is always the suit from the ace; salic-law: only the rank
counts). The two copies of a card are one card value already (``engine.cards``).

The score is the heuristic of the best-first search (lower is better): cards not yet home weigh most,
then cards lying above lower cards of the same column (they must move before those can go home), then
how deep the next cards the foundations want are buried.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..cards import ACE, NO_CARD, RANK, RED
from ..game import Game
from ..games.captives import Captives
from ..games.royal_retinue import ALL_CARDS, RoyalRetinue
from ..games.salic_law import HOME_CARDS, Tribunal
from ..games.sultan import Sultan36
from ..moves import Move, PileKind
from ..state import State

#: Columns a profile remembers facts of (``_memo``).
_MEMO_SIZE = 50_000


@dataclass(frozen=True)
class Profile:
    """The search's view of one game: ``children`` gives what ``game.play`` gives for each move of ``moves``, in
    that order (the position, the move in explicit form), as cheaply as the game can."""

    key: Callable[[State], Hashable]
    score: Callable[[State], int]
    moves: Callable[[State], Iterator[Move]]
    children: Callable[[State], Iterator[tuple[State, Move]]]


@lru_cache(maxsize=32)
def profile_for(game: Game) -> Profile:
    """The profile of ``game`` (one per game and options, kept: the facts its score remembers of columns serve
    every search of that game, the guesses of a hint among them)."""
    if isinstance(game, RoyalRetinue):
        return _king_chain(game)
    if isinstance(game, Tribunal):
        return _salic_law(game)
    if isinstance(game, Captives):
        return _captives(game)
    if isinstance(game, Sultan36):
        return _sultan(game)
    raise ValueError(f"the solver does not know {game.id}")


def _memo(fn: Callable[[tuple[int, ...]], int]) -> Callable[[tuple[int, ...]], int]:
    """``fn`` of a column, remembered: most columns of a child are its parent's. Forgets everything past
    ``_MEMO_SIZE`` columns, so that a long search does not grow it without bound."""
    known: dict[tuple[int, ...], int] = {}

    def memo(col: tuple[int, ...]) -> int:
        value = known.get(col)
        if value is None:
            if len(known) >= _MEMO_SIZE:
                known.clear()
            value = known[col] = fn(col)
        return value

    return memo


# -- king-chain -------------------------------------------------------------------------------------


def _king_chain(game: RoyalRetinue) -> Profile:
    def key(state: State) -> Hashable:
        cols = sorted(bytes(c) for c in state.columns)
        cells = bytes(sorted(c for c in state.cells if c != NO_CARD))
        tops = bytes(sorted(f[-1] for f in state.foundations if f))
        return b"\xfe".join(cols) + b"\xfd" + cells + b"\xfd" + tops

    rank = RANK
    red = RED

    def score(state: State) -> int:
        founds = state.foundations
        home = 0
        # the cards the foundations take next (a card value may be wanted twice)
        wanted = [0] * 52
        aces = 0
        for f in founds:
            n = len(f)
            home += n
            if not f:
                aces += 1
            elif n < 13:
                wanted[f[-1] + 1] += 1
        if aces:
            for a in (0, 13, 26, 39):
                wanted[a] = 1
        disorder = 0
        buried = 0
        for col in state.columns:
            lo = 14
            prev = -1
            n = len(col)
            for i, c in enumerate(col):
                r = rank[c]
                if wanted[c]:
                    buried += n - 1 - i
                if r > lo and not (prev >= 0 and rank[prev] == r + 1 and red[prev] != red[c]):
                    disorder += 1
                if r < lo:
                    lo = r
                prev = c
        cells = sum(1 for c in state.cells if c == NO_CARD)
        return 8 * (ALL_CARDS - home) + 3 * disorder + buried - 2 * cells

    def moves(state: State) -> Iterator[Move]:
        for m in game.generate_legal_moves(state):
            if m.sources[0].kind is not PileKind.FOUNDATION:  # foundation runs only rename piles
                yield m

    def children(state: State) -> Iterator[tuple[State, Move]]:
        play = game.play
        for m in moves(state):
            yield play(state, m)

    return Profile(key, score, moves, children)


# -- salic-law --------------------------------------------------------------------------------------


def _salic_law(game: Tribunal) -> Profile:
    def key(state: State) -> Hashable:
        ranks = bytes(sorted(map(len, state.foundations)))  # a pile holds A..its top: its length is its rank
        return (tuple(map(bytes, state.columns)), bytes(state.stock), ranks, state.redeals, state.fresh)

    rank = RANK

    def column_disorder(col: tuple[int, ...]) -> int:
        """Cards above a lower card of the column, the king at its head left out."""
        disorder = 0
        lo = 14
        for c in col[1:]:
            r = rank[c]
            if r > lo:
                disorder += 1
            elif r < lo:
                lo = r
        return disorder

    disorder_of = _memo(column_disorder)

    def score(state: State) -> int:
        home = sum(map(len, state.foundations))
        disorder = sum(map(disorder_of, state.columns))
        return 6 * (HOME_CARDS - home) + 2 * disorder + 8 * state.redeals

    return Profile(key, score, game.generate_legal_moves, game.successors)


# -- captives ---------------------------------------------------------------------------------------


def _captives(game: Captives) -> Profile:
    # The key is the columns, sorted (emptied columns are all alike), and a byte string of the rest of the position
    # (the king row, the captives, the stock, the waste, the turns used), whose hash Python works out once and
    # keeps. The children of a position share the rest with it (the very same tuples), bar its home moves and the
    # waste and stock moves: the last rest made, and each of its parts, are kept and looked up by identity.
    last: tuple[object, object, object, object, int, bytes, bytes, bytes, bytes, bytes] = (
        (), (), (), (), -1, b"", b"", b"", b"", b""
    )  # fmt: skip

    def key(state: State) -> Hashable:
        nonlocal last
        columns, _, founds, stock, waste, captives, _, redeals, _ = state
        known = last
        if (
            known[0] is founds
            and known[1] is stock
            and known[2] is waste
            and known[3] is captives
            and known[4] == redeals
        ):
            return (*sorted(columns), known[5])
        # a king-row slot holds its king and the cards of its suit from the ace up: its pile is as cheap a key
        # as its top and length; a captive played (NO_CARD) is 255, no card
        f = known[6] if known[0] is founds else b"\xfc".join(map(bytes, founds))
        s = known[7] if known[1] is stock else bytes(stock)
        w = known[8] if known[2] is waste else bytes(waste)
        c = known[9] if known[3] is captives else bytes([c & 255 for c in captives])
        rest = b"\xfd".join((f, s, w, c, bytes((redeals,))))
        last = (founds, stock, waste, captives, redeals, rest, f, s, w, c)
        return (*sorted(columns), rest)

    rank = RANK

    def column_disorder(col: tuple[int, ...]) -> int:
        """Cards not on the card one rank above them in suit (an ace takes nothing)."""
        disorder = 0
        prev = -1
        for c in col:
            if prev >= 0 and not (c == prev - 1 and rank[prev] != ACE):
                disorder += 1
            prev = c
        return disorder

    # each column's disorder, remembered (as ``_memo`` does, read here without a call of ours per column)
    known: dict[tuple[int, ...], int] = {}
    disorder_of = known.__getitem__

    def score(state: State) -> int:
        home = sum(map(len, state.foundations))
        columns = state.columns
        empty = columns.count(())
        try:
            disorder = sum(map(disorder_of, columns))
        except KeyError:  # a column not seen yet
            if len(known) >= _MEMO_SIZE:
                known.clear()
            for col in columns:
                if col not in known:
                    known[col] = column_disorder(col)
            disorder = sum(map(disorder_of, columns))
        return 6 * (ALL_CARDS - home) + 2 * disorder - 3 * empty + 4 * state.redeals

    return Profile(key, score, game.generate_legal_moves, game.successors)


# -- sultan -----------------------------------------------------------------------------------------


def _sultan(game: Sultan36) -> Profile:
    def key(state: State) -> Hashable:
        cells = tuple(sorted(state.cells))  # a multiset; the empty slots (NO_CARD) sort first and count alike
        t = [f[-1] for f in state.foundations]
        # Two piles of one suit with the same top play alike: f1-f2 (clubs), f3-f4 (diamonds), f6-f7 (spades),
        # and in hearts the KH pile f5 and the AH pile f8 (both take the hearts after their top, up to Q)
        tops = bytes((*sorted(t[0:2]), *sorted(t[2:4]), *sorted(t[5:7]), *sorted((t[4], *t[7:]))))
        return (cells, tops, bytes(state.stock), bytes(state.waste), state.redeals)

    def score(state: State) -> int:
        out = len(state.stock) + len(state.waste) + len(state.cells) - state.cells.count(NO_CARD)
        return 4 * out + 6 * state.redeals + len(state.waste) // 4

    return Profile(key, score, game.generate_legal_moves, game.successors)
