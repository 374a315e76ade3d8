"""The rules interface every game implements, and what all games share.

A Game is the rules of one variant with its options: a value with no
position in it. Positions are :class:`State` values; ``apply`` is the one pure
reducer that play, the service and the replay verifier all go through.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from .cards import Card
from .deal import Pick, shuffle, topmost
from .errors import IllegalMoveError, MoveError, Reason, VariantError
from .moves import Move
from .state import State

OptionValue = bool | int


class Status(StrEnum):
    IN_PROGRESS = "in-progress"
    WON = "won"
    STUCK = "stuck"


@dataclass(frozen=True)
class OptionSpec:
    """One option of a variant: signed into the deal, so it cannot change mid-game."""

    name: str
    default: OptionValue
    allowed: tuple[OptionValue, ...]
    description: str

    def parse(self, value: object) -> OptionValue:
        """Accept the typed value or its text form (``"false"``, ``"3"``)."""
        v: object = value
        if isinstance(self.default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                v = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(low, value)
            if not isinstance(v, bool):
                raise VariantError(Reason.BAD_OPTION, f"option {self.name} is true or false, not {value!r}")
        else:
            if isinstance(value, str):
                try:
                    v = int(value.strip())
                except ValueError:
                    v = value
            if isinstance(v, bool) or not isinstance(v, int):
                raise VariantError(Reason.BAD_OPTION, f"option {self.name} is a whole number, not {value!r}")
        if v not in self.allowed:
            allowed = ", ".join(format_option(a) for a in self.allowed)
            raise VariantError(Reason.BAD_OPTION, f"option {self.name} is one of {allowed}, not {value!r}")
        return v


def format_option(value: OptionValue) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class VariantInfo:
    """What the catalogue says of a game."""

    id: str
    name_en: str
    name_ru: str
    family: str
    summary: str
    deck_size: int
    options: tuple[OptionSpec, ...] = field(default=())


class Game(ABC):
    """The rules of one variant with its options."""

    info: ClassVar[VariantInfo]

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        specs = {s.name: s for s in self.info.options}
        given = dict(options or {})
        unknown = sorted(set(given) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise VariantError(Reason.BAD_OPTION, f"{self.info.id} has no option {unknown[0]!r} (its options: {known})")
        self.options: dict[str, OptionValue] = {
            name: spec.parse(given[name]) if name in given else spec.default for name, spec in specs.items()
        }
        self._options_text = ",".join(
            f"{s.name}={format_option(self.options[s.name])}"
            for s in sorted(self.info.options, key=lambda s: s.name)
            if self.options[s.name] != s.default
        )
        #: What every encoded position of this game starts with (``engine.encoding``).
        self.encoding_header: bytes | None = None

    # -- identity -------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.info.id

    def options_text(self) -> str:
        """Canonical text of the options that differ from their defaults (``k=v,...``, sorted)."""
        return self._options_text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.id, self.options) == (other.id, other.options)

    def __hash__(self) -> int:
        return hash((self.id, tuple(sorted(self.options.items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"

    # -- the deal ---------------------------------------------------------------

    def deal(self, seed: bytes) -> State:
        """The starting position for ``seed`` (algorithm deal-v2)."""
        shuffled = shuffle(seed, self.id, self.info.deck_size)
        return self.deal_from(shuffled.cards, shuffled.random.uniform)

    @abstractmethod
    def deal_from(self, deck: list[Card], pick: Pick = topmost) -> State:
        """The starting position from the shuffled list (index 0 on top).

        ``pick(m)`` chooses which of m alike cards a variant pulls out singly (deal step 7): the deal's own
        stream in ``deal``; the topmost by default, for a hand-built deck.
        """

    # -- moves ------------------------------------------------------------------

    def legal_moves(self, state: State) -> LegalMoves:
        """The legal moves here, as a collection: iterate it for every move in explicit form (multi-card reserve
        moves excepted), ask ``move in legal`` (one validation, no generation), ``bool(legal)``, ``len(legal)``."""
        return LegalMoves(self, state)

    @abstractmethod
    def generate_legal_moves(self, state: State) -> Iterator[Move]:
        """Every legal move, in explicit form (multi-card reserve moves excepted), generated afresh."""

    def successors(self, state: State) -> Iterator[tuple[State, Move]]:
        """What ``play`` gives for each move of ``generate_legal_moves``, in that order: the position after it and
        the move in explicit form. For the solver, which asks this of every position it expands: a family may
        build the positions without ``play``'s checks, as its generator made only legal moves (the same values,
        checked by tests/engine/test_successors.py)."""
        play = self._play
        for move in self.generate_legal_moves(state):
            yield play(state, move)

    def play(self, state: State, move: Move | str) -> tuple[State, Move]:
        """The reducer, the one way a position changes: the position after ``move`` (a Move, or its text) and the
        move in explicit form (python-chess's ``parse_san`` and ``push`` in one); IllegalMoveError or
        NotationError, and the state is untouched."""
        return self._play(state, Move.parse(move) if isinstance(move, str) else move)

    @abstractmethod
    def _play(self, state: State, move: Move) -> tuple[State, Move]:
        """What each family implements for :meth:`play`: the move is already a Move."""

    def is_legal(self, state: State, move: Move | str) -> bool:
        """Whether ``move`` can be played here; text that is no move at all is simply not legal (never raises)."""
        try:
            self.play(state, move)
        except MoveError:
            return False
        return True

    @abstractmethod
    def is_won(self, state: State) -> bool:
        """All cards home."""

    def status(self, state: State) -> Status:
        if self.is_won(state):
            return Status.WON
        return Status.IN_PROGRESS if self.has_legal_move(state) else Status.STUCK

    def has_legal_move(self, state: State) -> bool:
        """Whether ``legal_moves`` yields anything: the status check that follows every move, which a game may
        answer more cheaply than by generating its first move."""
        for _ in self.generate_legal_moves(state):
            return True
        return False

    # -- what the player may see -------------------------------------------------

    def stock_visible(self, state: State) -> bool:
        """Whether the stock's order is no secret (picture-gallery after a redeal)."""
        return False

    def captive_released(self, state: State, slot: int) -> bool:
        """Whether the captive under king-row slot ``slot`` (0-based) is face up."""
        return False

    def redeals_allowed(self) -> int:
        """How many redeals (or waste turns) the game allows in all."""
        return 0


class LegalMoves:
    """The legal moves of one position, as python-chess's ``board.legal_moves``: iterating generates them
    (explicit moves), ``in`` validates one move without generating the others, ``bool`` asks whether any exists
    (the cheapest check a game offers). ``in`` accepts any Move or text the player could send, so a move such as
    ``3-f`` or a multi-card reserve move ``3,5,5-r`` is "in" when it can be played, although iteration lists
    only explicit moves, one per distinct result."""

    __slots__ = ("_game", "_state")

    def __init__(self, game: Game, state: State) -> None:
        self._game = game
        self._state = state

    def __iter__(self) -> Iterator[Move]:
        return self._game.generate_legal_moves(self._state)

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move | str) and self._game.is_legal(self._state, move)

    def __bool__(self) -> bool:
        return self._game.has_legal_move(self._state)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(m.text() for m in self)})>"


def illegal(reason: Reason, message: str, move: Move) -> IllegalMoveError:
    """Build the error for ``move`` (raise the result)."""
    return IllegalMoveError(reason, message, move.text())
