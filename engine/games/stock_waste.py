"""The stock and waste that Captives and the Sultan's Harem share.

Both turn one card a move from the stock onto the waste, and both may turn
the waste over into a new stock a fixed number of times, keeping its order:
the card that was turned first is dealt first again.
"""

from __future__ import annotations

from ..errors import Reason
from ..game import Game, illegal
from ..moves import Move
from ..state import State


class TurnsStock(Game):
    """What the stock tells of a game that turns it one card a move: while the stock has cards and the game is not
    won, ``s`` is legal, so the status check after a move need not look for anything else."""

    def has_legal_move(self, state: State) -> bool:
        if state.stock:
            return not self.is_won(state)
        return super().has_legal_move(state)

    def stock_visible(self, state: State) -> bool:
        """A stock that is the waste turned over is no secret: the player saw each of its cards turned, in this
        order, and the whole waste before it was turned over (the view shows the waste whole)."""
        return state.redeals > 0


def turn_one(state: State, move: Move) -> State:
    """``s``: the stock's top card onto the waste."""
    if not state.stock:
        raise illegal(Reason.STOCK_EMPTY, "the stock is empty: turn the waste over with 'rd'", move)
    return State(
        state.columns,
        state.cells,
        state.foundations,
        state.stock[1:],
        (*state.waste, state.stock[0]),
        state.captives,
        state.fixed,
        state.redeals,
        state.fresh,
    )


def turn_waste(state: State, move: Move, turns: int) -> State:
    """``rd``: the waste becomes the stock, at most ``turns`` times in a game."""
    if state.redeals >= turns:
        raise illegal(Reason.NO_REDEALS_LEFT, f"the waste may be turned over {turns} times only", move)
    if state.stock:
        raise illegal(Reason.STOCK_NOT_EMPTY, f"{len(state.stock)} cards are left in the stock", move)
    if not state.waste:
        raise illegal(Reason.EMPTY_PILE, "the waste is empty: nothing to turn over", move)
    return State(
        state.columns,
        state.cells,
        state.foundations,
        state.waste,
        (),
        state.captives,
        state.fixed,
        state.redeals + 1,
        state.fresh,
    )
