"""The table as text for a terminal: Unicode suits, red and black, one line a pile.

Columns are drawn as rows (``" 3  K♠ Q♥ J♣"``): a two-deck column can hold
dozens of cards, which fits a terminal's width far better than its height.
Colours are ANSI escapes, used only when asked (the CLI asks when stdout is a
terminal and NO_COLOR is unset).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from patience.v1 import patience_pb2 as pb

from engine.errors import Reason

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = frozenset("DH")
RED = "\x1b[31m"
BLACK = "\x1b[1m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"
MARK = "\x1b[7m"  # reverse video: the hinted move's piles

#: The games with a waste pile (families 3 and 4).
WASTE_VARIANTS = frozenset({"captives", "sultan-36", "sultan-52"})

STATUS_NAMES = {
    pb.GAME_STATUS_UNSPECIFIED: "unknown",
    pb.GAME_STATUS_IN_PROGRESS: "in progress",
    pb.GAME_STATUS_WON: "won",
    pb.GAME_STATUS_STUCK: "stuck (no legal move; undo or resign)",
    pb.GAME_STATUS_RESIGNED: "resigned",
    pb.GAME_STATUS_EXPIRED: "expired",
    pb.GAME_STATUS_FORFEITED: "forfeited (a submitted solution did not win)",
}

#: Why the rules refuse a move, in a player's words (the server's message names the cards).
EXPLANATIONS: dict[Reason, str] = {
    Reason.BAD_NOTATION: (
        "that is not a move. Moves look like 3-7, 3-7/4 (a run of 4), 3-r, 3,5-r, 3-f, r2-f, w-f2, "
        "f1-f4/3, d, s, rd, 3-k. Type ? for the legal moves."
    ),
    Reason.UNKNOWN_VARIANT: "there is no such game; `patience-cli variants` lists them.",
    Reason.BAD_OPTION: "that option or value does not exist for this game; `patience-cli variants` lists them.",
    Reason.NOT_IN_THIS_GAME: "this kind of move does not exist in this game.",
    Reason.NO_SUCH_PILE: "this game has no such pile.",
    Reason.SAME_PILE: "the source and the target are the same pile.",
    Reason.EMPTY_PILE: "there is no card to take there.",
    Reason.NOT_FREE_CARD: "only a pile's free card (its last one) can be taken, alone or as the bottom of a run.",
    Reason.DOES_NOT_FIT: "the card does not fit on that pile by this game's building rule.",
    Reason.WRONG_COLOUR: "columns build down in alternating colours: red on black, black on red.",
    Reason.WRONG_SUIT: "this pile builds in suit.",
    Reason.RESERVE_FULL: "every reserve cell is taken.",
    Reason.CELL_OCCUPIED: "that cell already holds a card.",
    Reason.DEAD_COLUMN: "a column once emptied is dead: it is never filled again.",
    Reason.KING_CANNOT_MOVE: "kings never move in this game.",
    Reason.NOT_A_KING: "only a king goes to the king row.",
    Reason.KING_ROW_FULL: "all king-row slots are taken.",
    Reason.SEQUENCE_MOVES_OFF: "this deal forbids run moves (sequence_moves=false): move one card at a time.",
    Reason.STOCK_EMPTY: "the stock is empty (rd turns the waste over or redeals, if any are left).",
    Reason.STOCK_NOT_EMPTY: "that needs an empty stock.",
    Reason.NO_REDEALS_LEFT: "no redeals are left.",
    Reason.HIDDEN_CARD: "that card is face down.",
    Reason.GAME_OVER: "the game is over: no move is legal any more.",
}


def explain(reason: Reason | None) -> str:
    """A player's explanation for an engine reason ('' when there is none)."""
    return EXPLANATIONS.get(reason, "") if reason is not None else ""


def card(text: str, *, color: bool = False) -> str:
    """``TH`` -> ``10♥`` (red when ``color``); ``""`` -> ``··``, ``??`` -> a face-down card."""
    if not text:
        return f"{DIM}··{RESET}" if color else "··"
    if text == "??":
        return f"{DIM}░░{RESET}" if color else "??"
    rank, suit = text[:-1], text[-1:]
    shown = ("10" if rank == "T" else rank) + SUIT_SYMBOLS.get(suit, suit)
    if not color:
        return shown
    return f"{RED if suit in RED_SUITS else BLACK}{shown}{RESET}"


def cards(texts: Iterable[str], *, color: bool = False) -> str:
    return " ".join(card(t, color=color) for t in texts)


def _wrap(prefix: str, items: Sequence[str], width: int, visible: Sequence[int]) -> list[str]:
    """``prefix`` then the items, wrapped under the first item at ``width`` visible characters."""
    lines: list[str] = []
    line, used = prefix, len(prefix)
    indent = " " * len(prefix)
    for item, size in zip(items, visible, strict=True):
        if used + size + 1 > width and used > len(prefix):
            lines.append(line.rstrip())
            line, used = indent, len(indent)
        line += item + " "
        used += size + 1
    lines.append(line.rstrip())
    return lines


def _visible(text: str) -> int:
    if not text:
        return 2
    return 2 if text == "??" else len(text) + (0 if text[0] != "T" else 1)


#: A pile as the table draws it: ("column", 1), ("reserve", 2), ("foundation", 3), ("waste", 0) ...
PileKey = tuple[str, int]
_KINDS = {
    pb.PILE_KIND_COLUMN: "column",
    pb.PILE_KIND_RESERVE: "reserve",
    pb.PILE_KIND_FOUNDATION: "foundation",
    pb.PILE_KIND_WASTE: "waste",
    pb.PILE_KIND_CAPTIVE: "captive",
    pb.PILE_KIND_KING_ROW: "foundation",
}


def move_piles(move: pb.Move) -> dict[PileKey, str]:
    """The piles a move takes cards from ("from") and puts them on ("to"); a deal or a turn of the stock
    marks the stock."""
    if move.kind != pb.MOVE_KIND_TRANSFER:
        return {("stock", 0): "from"}
    marks: dict[PileKey, str] = {}
    for ref in move.sources:
        marks[(_KINDS.get(ref.kind, "?"), ref.index if ref.HasField("index") else 0)] = "from"
    if move.HasField("target"):
        target = move.target
        marks[(_KINDS.get(target.kind, "?"), target.index if target.HasField("index") else 0)] = "to"
    return marks


def _marked(line: str, mark: str | None, color: bool) -> str:
    if mark is None:
        return line
    note = f"<- {mark}"
    return f"{line}  {MARK}{note}{RESET}" if color else f"{line}  {note}"


def view_lines(view: pb.View, *, color: bool = False, width: int = 100, hint: pb.Move | None = None) -> list[str]:
    """The piles of ``view``, one line each (long columns wrap); the piles of ``hint`` marked."""
    marks = move_piles(hint) if hint is not None else {}

    def row_mark(kind: str, count: int) -> str | None:
        """A mark for a row of numbered piles (reserve, foundations): "from r2", "to f3"."""
        letter = {"reserve": "r", "foundation": "f", "captive": "c"}[kind]
        found = [f"{m} {letter}{i or ''}" for (k, i), m in marks.items() if k == kind and i <= count]
        return ", ".join(found) or None

    lines: list[str] = []
    if view.fixed:
        lines.append("fixed        " + cards(view.fixed, color=color))
    if view.foundations:
        name = "king row   " if view.captives else "foundations"
        tops = [f"f{i + 1} {card(p.cards[-1] if p.cards else '', color=color)}" for i, p in enumerate(view.foundations)]
        counts = [len(p.cards) for p in view.foundations]
        lines.append(_marked(f"{name}  " + "  ".join(tops), row_mark("foundation", len(tops)), color))
        if any(counts):
            row = "  ".join(f"{f'({n})':<{len(f'f{i + 1}') + 3}}" for i, n in enumerate(counts))
            lines.append(("             " + row).rstrip())
    if view.captives:
        row = "captives     " + "  ".join(f"c{i + 1} {card(c, color=color)}" for i, c in enumerate(view.captives))
        lines.append(_marked(row, row_mark("captive", len(view.captives)), color))
    if view.cells:
        name = "side slots " if view.variant.startswith("sultan") else "reserve    "
        row = f"{name}  " + "  ".join(f"r{i + 1} {card(c, color=color)}" for i, c in enumerate(view.cells))
        lines.append(_marked(row, row_mark("reserve", len(view.cells)), color))
    for i, col in enumerate(view.columns):
        prefix = f"{i + 1:>2}  "
        mark = marks.get(("column", i + 1))
        if not col.cards:
            lines.append(_marked(prefix + ("--" if not color else f"{DIM}--{RESET}"), mark, color))
            continue
        items = [card(c, color=color) for c in col.cards]
        wrapped = _wrap(prefix, items, width, [_visible(c) for c in col.cards])
        wrapped[-1] = _marked(wrapped[-1], mark, color)  # beside the free card, where the move starts or lands
        lines.extend(wrapped)
    if view.stock_count or view.waste or view.redeals_left or view.redeals_used:
        stock = _marked(f"stock {view.stock_count}", marks.get(("stock", 0)), color)
        if view.stock_visible and view.stock:
            stock += (
                "  (next first: " + cards(view.stock[:12], color=color) + (" ...)" if len(view.stock) > 12 else ")")
            )
        lines.append(stock)
        if view.waste or view.variant in WASTE_VARIANTS:
            top = cards(view.waste[-8:], color=color) if view.waste else "--"
            lines.append(_marked(f"waste {len(view.waste)}  {top}  (top last)", marks.get(("waste", 0)), color))
        lines.append(f"redeals used {view.redeals_used}, left {view.redeals_left}")
    return lines


def game_header(game: pb.Game, *, width: int = 100) -> str:
    """One line, or two where the terminal is narrow (never a part cut in the middle)."""
    status = STATUS_NAMES.get(game.status, str(game.status))
    how = f" deal #{game.deal_number}" if game.dealt == "public" else " (replay)" if game.dealt == "replay" else ""
    first = f"{game.variant}{how}  game {game.game_id}"
    second = f"version {game.version}  moves {game.move_count}  undos {game.undo_count}  {status}"
    if len(first) + 2 + len(second) <= width:
        return f"{first}  {second}"
    return f"{first}\n{second}"


def render_game(game: pb.Game, *, color: bool = False, width: int = 100, hint: pb.Move | None = None) -> str:
    """The header and the table (with the piles of ``hint`` marked)."""
    table = view_lines(game.view, color=color, width=width, hint=hint)
    return "\n".join([game_header(game, width=width), *table])


def hint_line(hint: pb.HintResponse) -> str:
    """What a hint says, in one line: the move and why (or that no move is left)."""
    if not hint.HasField("move"):
        return f"no hint: {hint.reason}"
    return f"hint: {hint.move.text}  ({hint.reason})"


def legal_lines(moves: Sequence[pb.NotatedMove], *, width: int = 100) -> list[str]:
    """Legal moves, several a line."""
    if not moves:
        return ["no legal move (undo, or resign)"]
    texts = [m.text for m in moves]
    return _wrap(f"{len(texts)} legal: ", texts, width, [len(t) for t in texts])
