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
from ..games.captives_play import CAPTIVE_SOURCE, HOME, WASTE_SOURCE, homed
from ..games.royal_retinue import RoyalRetinue
from ..games.salic_law import HOME_CARDS, Tribunal
from ..games.sultan import Sultan36
from ..moves import Move, MoveKind, Pile, PileKind
from ..state import State

#: What goes home safely on a captives king row: each card and the slot it goes to (the first that takes it), and
#: the move of the first released captive among them.
_CaptivesSafe = tuple[dict[Card, int], Move | None]
#: No safe chain is longer than the deck.
_MAX_CHAIN = 110
_WASTE = Pile(PileKind.WASTE)
#: ``_NEXT_HOME[top]``: the card a captives king-row slot topped by ``top`` takes next (a king: its ace; a queen:
#: none). Kings are never safe, so no king is wanted.
_NEXT_HOME = tuple(c - 12 if RANK[c] == KING else (NO_CARD if RANK[c] == KING - 1 else c + 1) for c in range(52))
#: The king row and captives the captives' rule looked at last, and what goes home safely there
#: (``_captives_safe_cards``): the children of a position share both with it (the very same tuples), bar its home
#: moves, so one look at identity answers most calls. Replaced whole, so that threads never see half an entry.
_captives_last: tuple[object, object, _CaptivesSafe] = ((), (), ({}, None))
#: The same for the king rows and captives seen lately, by value; forgotten past ``_WANTED_SIZE`` of them.
_CAPTIVES_SAFE: dict[tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]], _CaptivesSafe] = {}
_WANTED_SIZE = 4096
#: The captives' moves home, read back for ``homed``: the source's kind and 0-based index, the slot.
_HOME_PLAYED: dict[Move, tuple[PileKind, int, int]] = {
    HOME[src][slot]: (
        PileKind.COLUMN if src < WASTE_SOURCE else PileKind.WASTE if src == WASTE_SOURCE else PileKind.CAPTIVE,
        src if src < WASTE_SOURCE else 0 if src == WASTE_SOURCE else src - CAPTIVE_SOURCE,
        slot,
    )
    for src in range(len(HOME))
    for slot in range(len(HOME[src]))
}
#: The ranks that go home safely on the salic-law foundations seen lately (``_salic_safe_ranks``): the children
#: of a position share its foundations, bar the home moves. Forgotten past ``_WANTED_SIZE`` of them.
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
    if isinstance(game, Captives):
        return _captives_settle(game, state)
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
    """The first safe move of ``generate_legal_moves`` (a column's top, the waste's top, then a released captive),
    looked up among the cards that go home safely on this king row."""
    founds = state.foundations
    captives = state.captives
    last = _captives_last
    safe, freed = last[2] if last[0] is founds and last[1] is captives else _captives_safe_cards(founds, captives)
    if not safe:
        return None
    columns = state.columns
    for col in columns:
        if col and col[-1] in safe:
            # the first column like this one is this one (an earlier one alike would have been found first)
            return HOME[columns.index(col)][safe[col[-1]]]
    waste = state.waste
    if waste and waste[-1] in safe:
        return HOME[WASTE_SOURCE][safe[waste[-1]]]
    return freed


def _captives_safe_cards(founds: tuple[tuple[Card, ...], ...], captives: tuple[Card, ...]) -> _CaptivesSafe:
    """The cards that go home safely on this king row with these captives (each with the slot it goes to, the
    first that takes it), and the first released captive among them (None if none)."""
    global _captives_last
    last = _captives_last
    if last[0] is founds and last[1] is captives:
        return last[2]
    known = _CAPTIVES_SAFE.get((founds, captives))
    if known is None:
        if len(_CAPTIVES_SAFE) >= _WANTED_SIZE:
            _CAPTIVES_SAFE.clear()
        known = _CAPTIVES_SAFE[founds, captives] = _captives_safe_from(founds, captives)
    _captives_last = (founds, captives, known)
    return known


def _captives_safe_from(founds: tuple[tuple[Card, ...], ...], captives: tuple[Card, ...]) -> _CaptivesSafe:
    """``_captives_safe_cards`` worked out."""
    wanted: dict[Card, list[int]] = {}  # the cards the slots take next, and which slots
    for i, f in enumerate(founds):
        if f:
            c = _NEXT_HOME[f[-1]]
            if c != NO_CARD:
                wanted.setdefault(c, []).append(i)
    held = len(captives)
    safe: dict[Card, int] = {}
    for c, fits in wanted.items():
        # both cards one rank lower home (an ace: always), and the slots it fits interchangeable (no captive waits
        # under one) or one only
        if RANK[c] != ACE and sum(map(tuple.count, founds, repeat(c - 1, len(founds)))) < 2:
            continue
        if len(fits) == 1 or all(i >= held or captives[i] == NO_CARD or len(founds[i]) == COMPLETE for i in fits):
            safe[c] = fits[0]
    freed = None
    if safe:
        for i, c in enumerate(captives):
            if c != NO_CARD and len(founds[i]) == COMPLETE and c in safe:
                freed = HOME[CAPTIVE_SOURCE + i][safe[c]]
                break
    return safe, freed


def _captives_settle(game: Captives, state: State) -> tuple[State, list[Move]]:
    """``autoplay`` for captives: each safe move applied as ``play`` would (``homed``), without its checks."""
    moves: list[Move] = []
    for _ in range(_MAX_CHAIN):
        move = _captives(game, state)
        if move is None:
            break
        kind, at, slot = _HOME_PLAYED[move]
        if kind is PileKind.COLUMN:
            card = state.columns[at][-1]
        elif kind is PileKind.WASTE:
            card = state.waste[-1]
        else:
            card = state.captives[at]
        state = homed(state, kind, at, card, slot)
        moves.append(move)
    return state, moves


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
