"""Moves between the engine's value type and the API's structured form.

The API takes a move as text (docs/rules.md notation) or as a structured ``Move``;
both convert without loss, so a client may keep engine ``Move`` values and send
either form.
"""

from __future__ import annotations

from patience.moves import move_from_message, move_message
from patience.v1 import patience_pb2 as pb

from engine.moves import Move

MoveLike = str | Move | pb.Move


def move_to_proto(move: Move) -> pb.Move:
    """The structured form of an engine move."""
    return move_message(move)


def move_from_proto(move: pb.Move) -> Move:
    """The engine move for a structured one; NotationError if it is not a move at all."""
    return move_from_message(move)


def move_text(move: MoveLike) -> str:
    """The notation of any move form."""
    if isinstance(move, str):
        return move
    if isinstance(move, Move):
        return move.text()
    return move_from_proto(move).text()
