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

from ..cards import ACE, KING, NO_CARD, RANK, RED, SUIT
from ..game import Game
from ..games.captives import COMPLETE, Captives
from ..games.royal_retinue import RoyalRetinue
from ..games.salic_law import Tribunal
from ..games.sultan import Sultan36
from ..moves import Move, Pile, PileKind
from ..state import State

#: No safe chain is longer than the deck.
_MAX_CHAIN = 110


def safe_move(game: Game, state: State) -> Move | None:
    """The first safe move to a foundation in ``state`` (in ``legal_moves`` order), or None."""
    if isinstance(game, RoyalRetinue):
        return _king_chain(game, state)
    if isinstance(game, Tribunal):
        return _salic_law(game, state)
    if isinstance(game, Captives):
        return _captives(game, state)
    if isinstance(game, Sultan36):
        return _sultan(game, state)
    return None


def autoplay(game: Game, state: State) -> tuple[State, list[Move]]:
    """Apply safe moves until none is left: the final position and the moves, in explicit form."""
    moves: list[Move] = []
    for _ in range(_MAX_CHAIN):
        move = safe_move(game, state)
        if move is None:
            break
        state, explicit = game.play(state, move)
        moves.append(explicit)
    return state, moves


def _king_chain(game: Game, state: State) -> Move | None:
    # home[suit][rank]: how many cards of that suit are home up to that rank (foundations hold A..top in suit)
    founds = state.foundations
    top_by_suit: list[list[int]] = [[], [], [], []]
    for f in founds:
        if f:
            top_by_suit[SUIT[f[-1]]].append(RANK[f[-1]])

    def safe(c: int) -> bool:
        r = RANK[c]
        if r <= 2:
            return True
        other = (0, 3) if RED[c] else (1, 2)  # suits of the other colour: C, S for a red card; D, H for black
        return all(sum(1 for t in top_by_suit[s] if t >= r - 1) == 2 for s in other)

    for move in game.legal_moves(state):
        src = move.sources[0]
        if move.target is None or move.target.kind is not PileKind.FOUNDATION or src.kind is PileKind.FOUNDATION:
            continue
        assert src.index is not None
        c = state.columns[src.index - 1][-1] if src.kind is PileKind.COLUMN else state.cells[src.index - 1]
        if safe(c):
            return move
    return None


def _salic_law(game: Game, state: State) -> Move | None:
    low = min((RANK[f[-1]] if f else 0) for f in state.foundations)
    for move in game.legal_moves(state):
        if move.target is None or move.target.kind is not PileKind.FOUNDATION:
            continue
        assert move.sources[0].index is not None
        c = state.columns[move.sources[0].index - 1][-1]
        if RANK[c] == ACE or RANK[c] <= low + 1:
            return move
    return None


def _captives(game: Captives, state: State) -> Move | None:
    founds = state.foundations
    home = [0] * 52
    for f in founds:
        for c in f:
            home[c] += 1
    # a slot is interchangeable with the others when no captive waits under it
    free_slot = [
        i >= len(state.captives) or state.captives[i] == NO_CARD or len(founds[i]) == COMPLETE
        for i in range(len(founds))
    ]
    playable: list[tuple[Move, int]] = []
    for i, col in enumerate(state.columns):
        if col:
            playable.append((Move.parse(f"{i + 1}-f"), col[-1]))
    if state.waste:
        playable.append((Move.parse("w-f"), state.waste[-1]))
    for i, c in enumerate(state.captives):
        if c != NO_CARD and game.captive_released(state, i):
            playable.append((Move.parse(f"c{i + 1}-f"), c))
    for move, c in playable:
        r = RANK[c]
        if r == KING or (r != ACE and home[c - 1] < 2):
            continue
        want = c + 12 if r == ACE else c - 1  # the top a slot needs for c: its king, or one rank lower
        fits = [i for i, f in enumerate(founds) if f and f[-1] == want]
        if not fits or (len(fits) > 1 and not all(free_slot[i] for i in fits)):
            continue
        return game.resolve(state, Move(move.kind, move.sources, _foundation(fits[0])))
    return None


def _sultan(game: Game, state: State) -> Move | None:
    for move in game.legal_moves(state):
        if move.target is not None and move.target.kind is PileKind.FOUNDATION:
            return move
    return None


def _foundation(i: int) -> Pile:
    return Pile(PileKind.FOUNDATION, i + 1)
