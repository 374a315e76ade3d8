"""Pure rules engine for the Russian two-deck patience games of docs/rules.md.

No I/O, no clock, no global random: a deal is a pure function of
(variant, options, seed) and a move is a pure function of (state, move).
"""

from .cards import Card, card_text, parse_card
from .catalogue import VARIANT_IDS, get_game, variant_info, variants
from .errors import IllegalMoveError, MoveError, NotationError, PatienceError, Reason, VariantError
from .game import Game, Status, VariantInfo
from .moves import Move, MoveKind, Pile, PileKind
from .state import State

__all__ = [
    "VARIANT_IDS",
    "Card",
    "Game",
    "IllegalMoveError",
    "Move",
    "MoveError",
    "MoveKind",
    "NotationError",
    "PatienceError",
    "Pile",
    "PileKind",
    "Reason",
    "State",
    "Status",
    "VariantError",
    "VariantInfo",
    "card_text",
    "get_game",
    "parse_card",
    "variant_info",
    "variants",
]
