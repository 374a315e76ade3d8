"""Safe automatic moves: moves to the foundations that can never turn a won game into a lost one.

What AutoPlay applies, and what the solver plays without searching. A move is safe when every card that
could still want the moving card as a place to build is home already, and the foundation it goes to is
as good as any other it fits (docs/rules-decisions.md, "Safe moves to the foundations", gives the rule of
each family and why it is safe):

- king-chain (columns build down in alternate colours, foundations up in suit): an ace or a two always;
  a card of rank r once all four cards of rank r - 1 of the other colour are home.
- salic-law (foundations A..J regardless of suit): a card of rank r once every foundation has reached
  r - 1 at least, so that every card of rank r still out has a foundation waiting for it; aces always.
- captives (columns build down in suit, the king row up in suit from K): a card other than a king once
  both cards of its suit one rank lower are home (an ace always: nothing goes on an ace), and only when
  every slot it fits is interchangeable with the others (no captive waits under a slot that is not yet
  complete, or it fits one slot only); kings never, as the slot a king takes decides a captive's fate.
- sultan (no tableau: cards only wait in the side slots and the waste): every move to a foundation.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from ..cards import ACE, KING, NO_CARD, RANK, RED, SUIT, Card
from ..game import Game
from ..games.captives import COMPLETE, Captives
from ..games.royal_retinue import RoyalRetinue
from ..games.salic_law import HOME_CARDS, Tribunal
from ..games.sultan import Sultan36
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State

#: No safe chain is longer than the deck.
_MAX_CHAIN = 110
_WASTE = Pile(PileKind.WASTE)
#: ``_NEXT_HOME[top]``: the card a captives king-row slot topped by ``top`` takes next (a king: its ace; a queen:
#: none). Kings are never safe, so no king is wanted.
_NEXT_HOME = tuple(c - 12 if RANK[c] == KING else (NO_CARD if RANK[c] == KING - 1 else c + 1) for c in range(52))
#: The wanted cards of the king rows seen lately (``_captives_wanted``): the children of a position share its
#: king row, bar the home moves. Forgotten past ``_WANTED_SIZE`` king rows.
_WANTED: dict[tuple[tuple[Card, ...], ...], dict[Card, list[int]]] = {}
_WANTED_SIZE = 4096
#: The same for the salic-law foundations: the ranks that go home safely (``_salic_safe_ranks``).
_SALIC_SAFE: dict[tuple[tuple[Card, ...], ...], dict[int, int]] = {}
#: The rule of safe moves of each game class (``safe_rule``).
_RULES: dict[type, Callable[[Any, State], Move | None]] = {}
_COLUMNS = tuple(Pile(PileKind.COLUMN, i + 1) for i in range(9))
_FOUNDATIONS = tuple(Pile(PileKind.FOUNDATION, i + 1) for i in range(9))


def safe_move(game: Game, state: State) -> Move | None:
    """The first safe move to a foundation in ``state`` (in ``legal_moves`` order), or None."""
    return safe_rule(game)(game, state)


def safe_rule(game: Game) -> Callable[[Any, State], Move | None]:
    """The family's rule of safe moves, ``rule(game, state)`` as ``safe_move`` (found once per class: the solver
    asks after every move it tries)."""
    rule = _RULES.get(type(game))
    if rule is None:
        if isinstance(game, RoyalRetinue):
            rule = _king_chain
        elif isinstance(game, Tribunal):
            rule = _salic_law
        elif isinstance(game, Captives):
            rule = _captives
        elif isinstance(game, Sultan36):
            rule = _sultan
        else:
            rule = _no_rule
        _RULES[type(game)] = rule
    return rule


def _no_rule(game: Game, state: State) -> Move | None:
    return None


def autoplay(game: Game, state: State) -> tuple[State, list[Move]]:
    """Apply safe moves until none is left: the final position and the moves, in explicit form."""
    moves: list[Move] = []
    rule = safe_rule(game)
    for _ in range(_MAX_CHAIN):
        move = rule(game, state)
        if move is None:
            break
        state, explicit = game.play(state, move)
        moves.append(explicit)
    return state, moves


def _king_chain(game: Game, state: State) -> Move | None:
    """Looks at the free cards and the cells directly: this runs after every move the solver tries."""
    founds = state.foundations
    level = [[0, 0], [0, 0], [0, 0], [0, 0]]  # the two foundation ranks of each suit, 0 = not started
    started = [0, 0, 0, 0]
    home: dict[int, int] = {}  # card -> the 1-based foundation it goes on (the first that fits)
    for i in range(len(founds) - 1, -1, -1):
        f = founds[i]
        if f:
            top = f[-1]
            s = SUIT[top]
            level[s][started[s]] = RANK[top]
            started[s] += 1
            if RANK[top] != KING:
                home[top + 1] = i + 1
        else:
            for ace in (0, 13, 26, 39):
                home[ace] = i + 1
    # the highest rank that is safe for a red card (the black suits' lowest level + 1), and for a black one
    red_max = max(2, min(*level[0], *level[3]) + 1)
    black_max = max(2, min(*level[1], *level[2]) + 1)
    for i, col in enumerate(state.columns):
        if col:
            c = col[-1]
            fi = home.get(c, 0)
            if fi and RANK[c] <= (red_max if RED[c] else black_max):
                return Move(MoveKind.TRANSFER, (Pile(PileKind.COLUMN, i + 1),), Pile(PileKind.FOUNDATION, fi))
    for i, c in enumerate(state.cells):
        if c != NO_CARD:
            fi = home.get(c, 0)
            if fi and RANK[c] <= (red_max if RED[c] else black_max):
                return Move(MoveKind.TRANSFER, (Pile(PileKind.RESERVE, i + 1),), Pile(PileKind.FOUNDATION, fi))
    return None


def _salic_law(game: Game, state: State) -> Move | None:
    """The first foundation move of ``generate_legal_moves`` that is safe, found without generating the others:
    a column's free card (not a king, the column not cut back to its king) that some foundation takes."""
    founds = state.foundations
    if not state.stock and sum(map(len, founds)) == HOME_CARDS:  # won: no move at all
        return None
    safe = _SALIC_SAFE.get(founds)
    if safe is None:
        if len(_SALIC_SAFE) >= _WANTED_SIZE:
            _SALIC_SAFE.clear()
        safe = _SALIC_SAFE[founds] = _salic_safe_ranks(founds)
    for s, col in enumerate(state.columns):
        if len(col) >= 2:
            f = safe.get(RANK[col[-1]])
            if f is not None:
                return _column_home(s, f)
    return None


def _salic_safe_ranks(founds: tuple[tuple[Card, ...], ...]) -> dict[int, int]:
    """The ranks that go home safely on these foundations, and the first foundation that takes each: an ace
    always, a card of rank r once every foundation has reached r - 1 (kings never go home)."""
    needs = [RANK[f[-1]] + 1 if f else ACE for f in founds]
    low = min(needs) - 1
    return {r: needs.index(r) for r in needs if r != KING and (r == ACE or r <= low + 1)}


def _captives(game: Captives, state: State) -> Move | None:
    founds = state.foundations
    wanted = _WANTED.get(founds)
    if wanted is None:
        if len(_WANTED) >= _WANTED_SIZE:
            _WANTED.clear()
        wanted = _WANTED[founds] = _captives_wanted(founds)
    if not wanted:
        return None
    captives = state.captives
    for i, col in enumerate(state.columns):
        if col and col[-1] in wanted and _captives_safe(state, col[-1], wanted[col[-1]]):
            return Move(MoveKind.TRANSFER, (_COLUMNS[i],), _foundation(wanted[col[-1]][0]))
    if state.waste and state.waste[-1] in wanted and _captives_safe(state, state.waste[-1], wanted[state.waste[-1]]):
        return Move(MoveKind.TRANSFER, (_WASTE,), _foundation(wanted[state.waste[-1]][0]))
    for i, c in enumerate(captives):
        # released (its slot is complete) and wanted
        if c != NO_CARD and len(founds[i]) == COMPLETE and c in wanted and _captives_safe(state, c, wanted[c]):
            return Move(MoveKind.TRANSFER, (Pile(PileKind.CAPTIVE, i + 1),), _foundation(wanted[c][0]))
    return None


def _captives_wanted(founds: tuple[tuple[Card, ...], ...]) -> dict[Card, list[int]]:
    """The cards the king-row slots take next (a king's slot its ace, else the next card in suit), and which."""
    wanted: dict[Card, list[int]] = {}
    for i, f in enumerate(founds):
        if f:
            c = _NEXT_HOME[f[-1]]
            if c != NO_CARD:
                wanted.setdefault(c, []).append(i)
    return wanted


def _captives_safe(state: State, c: Card, fits: list[int]) -> bool:
    """Whether ``c``, which the slots ``fits`` take, goes home safely: both cards one rank lower are home (an
    ace: always), and the slots it fits are interchangeable (no captive waits under one), or it fits one only."""
    founds = state.foundations
    if RANK[c] != ACE and sum(map(tuple.count, founds, repeat(c - 1, len(founds)))) < 2:
        return False
    captives = state.captives
    return len(fits) == 1 or all(
        i >= len(captives) or captives[i] == NO_CARD or len(founds[i]) == COMPLETE for i in fits
    )


def _sultan(game: Sultan36, state: State) -> Move | None:
    """The first foundation move of ``generate_legal_moves`` (the waste's top, then the side slots in order),
    found without generating the others."""
    if game.is_won(state):
        return None
    nxt = game.next_card
    tops = [nxt[p[-1]] for p in state.foundations]
    if state.waste:
        w = state.waste[-1]
        if w in tops:
            return Move(MoveKind.TRANSFER, (_WASTE,), _foundation(tops.index(w)))
    for i, c in enumerate(state.cells):
        if c != NO_CARD and c in tops:
            return Move(MoveKind.TRANSFER, (Pile(PileKind.RESERVE, i + 1),), _foundation(tops.index(c)))
    return None


def _column_home(s: int, f: int) -> Move:
    return Move(MoveKind.TRANSFER, (_COLUMNS[s],), _foundation(f))


def _foundation(i: int) -> Pile:
    return _FOUNDATIONS[i] if i < len(_FOUNDATIONS) else Pile(PileKind.FOUNDATION, i + 1)
