"""Family 3, Captives (docs/rules.md "Family 3", docs/rules-decisions.md "Family 3: Captives").

Every rule and Decision has its legal case accepted and its illegal neighbour
refused with the right Reason. Positions are either dealt from hand-built decks
(``deal_from``) or built by hand as plain ``State`` values.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import IllegalMoveError, Move, PileKind, Reason, State, Status, get_game
from engine.cards import NO_CARD, Card, canonical_deck, card_text, parse_card
from engine.deal import shuffled_deck
from engine.games.captives import Captives
from engine.verify import Outcome, replay
from engine.view import HIDDEN, hidden_cards, player_view

game = Captives()
SUITS_OF_SLOTS = "CCDDHHSS"
UP = ["K", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q"]


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def texts(pile: tuple[Card, ...]) -> str:
    return " ".join(card_text(c) for c in pile)


def pile(suit: str, upto: str) -> str:
    """A king-row pile K, A, 2 .. ``upto`` in ``suit``."""
    return " ".join(r + suit for r in UP[: UP.index(upto) + 1])


def position(
    columns: list[str],
    foundations: list[str] | None = None,
    captives: str = "2C 3C 4C 5C 6C 7C 8C",
    stock: str = "",
    waste: str = "",
    redeals: int = 0,
) -> State:
    """A hand-built position (not necessarily a whole deck: the rules never count cards)."""
    cols = [cards(c) for c in columns]
    cols += [()] * (8 - len(cols))
    fnd = [cards(f) for f in foundations or []]
    fnd += [()] * (8 - len(fnd))
    return State(
        columns=tuple(cols),
        foundations=tuple(fnd),
        stock=cards(stock),
        waste=cards(waste),
        captives=tuple(NO_CARD if t == "--" else parse_card(t) for t in captives.split()),
        redeals=redeals,
    )


def accept(state: State, move: str, explicit: str | None = None) -> State:
    """Play ``move``; check the explicit form returned and that legal_moves lists it."""
    new, resolved = game.play(state, Move.parse(move))
    assert resolved.text() == (explicit or move)
    assert Move.parse(resolved.text()) == resolved
    listed = list(game.legal_moves(state))
    if (
        resolved.target is not None
        and resolved.target.kind is PileKind.FOUNDATION
        and new not in {game.play(state, m)[0] for m in listed}
    ):
        raise AssertionError(f"{resolved} leads to a position no listed move leads to")
    elif resolved.target is None or resolved.target.kind is not PileKind.FOUNDATION:
        assert resolved in listed
    assert sorted(new.all_cards()) == sorted(state.all_cards())
    return new


def refuse(state: State, move: str, reason: Reason) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, Move.parse(move))
    assert info.value.reason is reason, info.value
    assert info.value.text == Move.parse(move).text()
    assert Move.parse(move) not in list(game.legal_moves(state))
    return info.value


# -- catalogue ----------------------------------------------------------------------


def test_catalogue_gives_this_class_with_two_turns() -> None:
    assert type(get_game("captives")) is Captives
    assert game.redeals_allowed() == 2
    assert game.info.deck_size == 104


# -- the deal ---------------------------------------------------------------------


def test_deal_captives_then_rows_of_eight_then_stock() -> None:
    d = shuffled_deck(bytes(range(32)), "captives", 104)
    s = game.deal_from(d)
    assert s.captives == tuple(d[:7])
    # Row by row, left to right: column c gets cards 7+c, 15+c, 23+c, 31+c; the last dealt is the free card.
    assert len(s.columns) == 8
    for c, col in enumerate(s.columns):
        assert col == (d[7 + c], d[15 + c], d[23 + c], d[31 + c])
    assert s.stock == tuple(d[39:])
    assert len(s.stock) == 65
    assert s.foundations == ((),) * 8
    assert s.waste == ()
    assert s.redeals == 0
    assert s.cells == () and s.fixed == ()
    assert Counter(s.all_cards()) == Counter(canonical_deck(104))


def test_deal_by_hand_built_deck() -> None:
    head = (
        "2C 3C 4C 5C 6C 7C 8C "
        + "AH 2H 3H 4H 5H 6H 7H 8H "
        + "AS 2S 3S 4S 5S 6S 7S 8S " * 2
        + "9D TD JD QD KD AD 2D 3D"
    )
    d = list(cards(head))
    rest = canonical_deck(104)
    for c in d:
        rest.remove(c)
    s = game.deal_from(d + rest)
    assert texts(s.captives) == "2C 3C 4C 5C 6C 7C 8C"
    assert texts(s.columns[0]) == "AH AS AS 9D"
    assert texts(s.columns[7]) == "8H 8S 8S 3D"
    assert s.stock == tuple(rest)


def test_seeded_deal_is_deal_v2() -> None:
    seed = bytes(range(32))
    assert game.deal(seed) == game.deal_from(shuffled_deck(seed, "captives", 104))
    assert game.deal(seed) != game.deal(bytes(32))


def test_deal_from_refuses_anything_but_two_full_decks() -> None:
    d = canonical_deck(104)
    with pytest.raises(ValueError):
        game.deal_from(d[:-1])
    with pytest.raises(ValueError):
        game.deal_from([*d[:-1], parse_card("AC")])
    with pytest.raises(ValueError):
        game.deal_from(canonical_deck(72))


def test_captives_start_hidden_and_stock_is_secret() -> None:
    s = game.deal(bytes(range(32)))
    assert not any(game.captive_released(s, i) for i in range(7))
    view = player_view(game, s)
    assert view.captives == (HIDDEN,) * 7
    assert view.stock is None and view.stock_count == 65
    assert Counter(hidden_cards(game, s)) == Counter(s.stock + s.captives)


# -- columns ------------------------------------------------------------------------


def test_column_builds_down_in_suit() -> None:
    s = position(["5C 8H", "9H", "9S", "TH"])
    s2 = accept(s, "1-2", "1-2/1")
    assert texts(s2.columns[0]) == "5C" and texts(s2.columns[1]) == "9H 8H"
    refuse(s, "1-3", Reason.WRONG_SUIT)  # 8H on 9S: the rank fits, the suit does not
    refuse(s, "1-4", Reason.DOES_NOT_FIT)  # 8H on TH: the suit fits, the rank does not


def test_rank_is_checked_before_suit() -> None:
    s = position(["8H", "TS"])
    refuse(s, "1-2", Reason.DOES_NOT_FIT)
    refuse(s, "1-2/1", Reason.DOES_NOT_FIT)


def test_natural_rank_order_no_wrap() -> None:
    """Decision: Q on K is a build; K on A is not (no wrap); nothing goes on an ace."""
    s = position(["QH", "KH", "KS", "AS", "2S"])
    accept(s, "1-2", "1-2/1")
    err = refuse(s, "3-4", Reason.DOES_NOT_FIT)
    assert "KS" in err.message and "AS" in err.message
    refuse(s, "5-4", Reason.DOES_NOT_FIT)  # 2S on AS: up, not down
    accept(position(["AS", "2S"]), "1-2", "1-2/1")


def test_run_in_suit_moves_as_one_move() -> None:
    s = position(["4D 9H 8H 7H", "TH"])
    s2 = accept(s, "1-2", "1-2/3")
    assert texts(s2.columns[0]) == "4D" and texts(s2.columns[1]) == "TH 9H 8H 7H"
    accept(s, "1-2/3")


def test_any_tail_of_a_run_may_move() -> None:
    s = position(["9H 8H 7H", "8H", "9H"])
    s2 = accept(s, "1-2/1")
    assert texts(s2.columns[0]) == "9H 8H" and texts(s2.columns[1]) == "8H 7H"
    accept(s, "1-2", "1-2/1")  # without /n: the only length that fits
    accept(s, "1-3", "1-3/2")
    refuse(s, "1-2/2", Reason.DOES_NOT_FIT)  # 8H on 8H
    refuse(s, "1-3/1", Reason.DOES_NOT_FIT)  # 7H on 9H


def test_tail_longer_than_the_run_is_refused() -> None:
    s = position(["9S 8H 7H", "TH", ""])
    refuse(s, "1-2/3", Reason.NOT_FREE_CARD)  # 9S 8H is no run in suit
    refuse(s, "1-3/3", Reason.NOT_FREE_CARD)
    refuse(s, "1-3/4", Reason.NOT_FREE_CARD)
    accept(s, "1-3/2")


def test_run_without_count_that_fits_nowhere() -> None:
    """Decision: a run with a card of the right rank but the wrong suit is WRONG_SUIT, else DOES_NOT_FIT."""
    s = position(["5D 4D", "5S", "9D"])
    refuse(s, "1-2", Reason.WRONG_SUIT)  # 4D has 5S's next rank
    refuse(s, "1-3", Reason.DOES_NOT_FIT)
    accept(position(["5D 4D", "5D"]), "1-2", "1-2/1")


def test_empty_column_takes_the_longest_run_or_any_tail() -> None:
    s = position(["4D 9H 8H 7H", ""])
    s2 = accept(s, "1-2", "1-2/3")
    assert texts(s2.columns[1]) == "9H 8H 7H"
    for n in (1, 2, 3):
        accept(s, f"1-2/{n}")
    refuse(s, "1-2/4", Reason.NOT_FREE_CARD)


def test_whole_column_onto_an_empty_column_is_legal() -> None:
    """docs/rules.md: an empty column takes any playable card or run, a whole column's run included."""
    s = position(["9H 8H", ""])
    s2 = accept(s, "1-2/2")
    assert texts(s2.columns[1]) == "9H 8H" and s2.columns[0] == ()
    assert game.play(s, "1-2")[1] == Move.parse("1-2/2")  # onto an empty column: the longest run
    accept(s, "1-2/1")
    accept(position(["9H", ""]), "1-2/1")
    assert Move.parse("1-2/1") in set(game.legal_moves(position(["9H", ""])))
    refuse(position(["9H", ""]), "1-1", Reason.SAME_PILE)


def test_waste_top_onto_a_column_or_an_empty_column() -> None:
    s = position(["9H", "9S", ""], waste="2C 8H")
    s2 = accept(s, "w-1")
    assert texts(s2.columns[0]) == "9H 8H" and texts(s2.waste) == "2C"
    accept(s, "w-1/1", "w-1")
    accept(s, "w-3")
    refuse(s, "w-2", Reason.WRONG_SUIT)
    refuse(s, "w-1/2", Reason.NOT_FREE_CARD)
    refuse(position(["9H", "TH"], waste="8H"), "w-2", Reason.DOES_NOT_FIT)
    refuse(position(["9H"]), "w-1", Reason.EMPTY_PILE)


def test_column_move_pile_errors() -> None:
    s = position(["9H 8H", "", "9S"])
    refuse(s, "1-1", Reason.SAME_PILE)
    refuse(s, "9-1", Reason.NO_SUCH_PILE)
    refuse(s, "1-9", Reason.NO_SUCH_PILE)
    refuse(s, "2-3", Reason.EMPTY_PILE)
    refuse(s, "1-3", Reason.WRONG_SUIT)


# -- the king row -------------------------------------------------------------------


def test_king_goes_to_the_leftmost_empty_slot() -> None:
    s = position(["KD", "KS", "5C"])
    s = accept(s, "2-k")
    assert texts(s.foundations[0]) == "KS"
    s = accept(s, "1-k")
    assert texts(s.foundations[1]) == "KD"
    assert s.foundations[2:] == ((),) * 6
    refuse(s, "3-k", Reason.NOT_A_KING)


def test_king_from_the_waste() -> None:
    s = position(["5C"], foundations=["KH"], waste="KC")
    s = accept(s, "w-k")
    assert texts(s.foundations[1]) == "KC" and s.waste == ()
    refuse(position(["5C"], waste="QC"), "w-k", Reason.NOT_A_KING)


def test_king_with_f_notation() -> None:
    """Decision: '3-f' with a king means the king row; 'f<n>' only if n is the leftmost empty slot."""
    s = position(["KD"], foundations=["KH", "KS", "KC"])
    accept(s, "1-f", "1-k")
    accept(s, "1-f4", "1-k")
    refuse(s, "1-f6", Reason.DOES_NOT_FIT)
    refuse(s, "1-f2", Reason.DOES_NOT_FIT)


def test_eighth_king_takes_slot_eight_which_has_no_captive() -> None:
    s = position(["KD"], foundations=["KH", "KS", "KC", "KC", "KD", "KH", "KS"])
    s = accept(s, "1-k")
    assert texts(s.foundations[7]) == "KD"
    assert len(s.captives) == 7
    refuse(s, "c8-f", Reason.NO_SUCH_PILE)


def test_king_row_full() -> None:
    s = position(["KD"], foundations=["KH", "KS", "KC", "KC", "KD", "KH", "KS", "KS"])
    refuse(s, "1-k", Reason.KING_ROW_FULL)
    refuse(s, "1-f", Reason.KING_ROW_FULL)
    refuse(s, "1-f8", Reason.DOES_NOT_FIT)


# -- foundations (king-row piles) -----------------------------------------------------


def test_pile_builds_k_then_a_then_up_in_suit() -> None:
    s = position(["AH", "2H", "AS", "2S", "3H"], foundations=["KH"])
    s2 = accept(s, "1-f", "1-f1")
    assert texts(s2.foundations[0]) == "KH AH"
    s3 = accept(s2, "2-f1")
    assert texts(s3.foundations[0]) == "KH AH 2H"
    refuse(s, "2-f1", Reason.DOES_NOT_FIT)  # 2H on KH
    refuse(s, "2-f", Reason.DOES_NOT_FIT)
    refuse(s, "3-f1", Reason.WRONG_SUIT)  # AS on KH
    refuse(s, "4-f1", Reason.DOES_NOT_FIT)  # 2S on KH: rank first
    refuse(s2, "5-f1", Reason.DOES_NOT_FIT)  # 3H on AH


def test_first_foundation_that_fits_and_any_named_one() -> None:
    s = position(["AH"], foundations=["KS", "KH", "KH"])
    accept(s, "1-f", "1-f2")
    accept(s, "1-f3")
    refuse(s, "1-f1", Reason.WRONG_SUIT)


def test_empty_slot_takes_only_a_king() -> None:
    s = position(["AH"], foundations=["KH"])
    refuse(s, "1-f2", Reason.DOES_NOT_FIT)
    refuse(s, "1-k", Reason.NOT_A_KING)


def test_queen_completes_a_pile_and_nothing_goes_on_it() -> None:
    s = position(["QH", "KH"], foundations=[pile("H", "J")], captives="-- -- -- -- -- -- --")
    s = accept(s, "1-f", "1-f1")
    assert len(s.foundations[0]) == 13
    refuse(s, "2-f1", Reason.DOES_NOT_FIT)


def test_from_waste_to_a_foundation() -> None:
    s = position(["5C"], foundations=["KH AH"], waste="2H")
    s = accept(s, "w-f", "w-f1")
    assert s.waste == () and texts(s.foundations[0]) == "KH AH 2H"
    refuse(s, "w-f", Reason.EMPTY_PILE)


def test_cards_on_the_king_row_never_move() -> None:
    s = position(["", "QH"], foundations=["KH AH", "KS"])
    refuse(s, "f1-1", Reason.NOT_IN_THIS_GAME)
    refuse(s, "f1-f2", Reason.NOT_IN_THIS_GAME)
    refuse(s, "f1-f2/1", Reason.NOT_IN_THIS_GAME)
    refuse(s, "f1-k", Reason.NOT_IN_THIS_GAME)
    refuse(s, "2-f9", Reason.NO_SUCH_PILE)


# -- captives -------------------------------------------------------------------------


def test_captive_is_released_by_the_move_that_completes_its_slot() -> None:
    s = position(["QH", "8C 7C"], foundations=[pile("H", "J"), pile("D", "J")], captives="QD 5S 6S 7S 8S 9S TS")
    assert not game.captive_released(s, 0)
    err = refuse(s, "c1-f", Reason.HIDDEN_CARD)
    assert "QD" not in err.message  # a face-down card is never named
    refuse(s, "c1-f2", Reason.HIDDEN_CARD)
    s = accept(s, "1-f1")
    assert game.captive_released(s, 0)
    assert not game.captive_released(s, 1)
    assert player_view(game, s).captives[:2] == (parse_card("QD"), HIDDEN)
    # In the very next move the released captive plays, onto a pile where it fits.
    s2 = accept(s, "c1-f", "c1-f2")
    assert s2.captives[0] == NO_CARD
    assert game.captive_released(s2, 1)  # QD completed slot 2 and freed its captive at once
    assert not game.captive_released(s2, 0)
    refuse(s2, "c1-f", Reason.EMPTY_PILE)
    refuse(s2, "c2-f", Reason.DOES_NOT_FIT)  # 5S: no pile takes it


def test_released_captive_goes_only_onto_a_foundation() -> None:
    s = position(["", "KS"], foundations=[pile("H", "Q"), "KD AD 2D 3D"], captives="4D 5S 6S 7S 8S 9S TS")
    assert game.captive_released(s, 0)
    refuse(s, "c1-1", Reason.NOT_IN_THIS_GAME)  # not onto an empty column
    refuse(s, "c1-2", Reason.NOT_IN_THIS_GAME)
    refuse(s, "c2-1", Reason.NOT_IN_THIS_GAME)  # a hidden one neither
    refuse(s, "c1-f1", Reason.DOES_NOT_FIT)  # its own slot is complete
    refuse(s, "c1-f3", Reason.DOES_NOT_FIT)  # an empty slot takes a king only
    refuse(s, "c1-k", Reason.NOT_A_KING)
    accept(s, "c1-f2")
    refuse(
        position([], foundations=[pile("H", "Q"), "KH AH 2H 3H"], captives="4D -- -- -- -- -- --"),
        "c1-f2",
        Reason.WRONG_SUIT,
    )


def test_released_king_goes_to_the_leftmost_empty_slot() -> None:
    s = position(["2C"], foundations=[pile("H", "Q"), "KS"], captives="KD 5S 6S 7S 8S 9S TS")
    s2 = accept(s, "c1-k")
    assert texts(s2.foundations[2]) == "KD"
    accept(s, "c1-f", "c1-k")
    refuse(s, "c1-f4", Reason.DOES_NOT_FIT)


def test_captive_piles_that_do_not_exist() -> None:
    s = position(["2C"])
    refuse(s, "c8-f", Reason.NO_SUCH_PILE)
    refuse(s, "c9-k", Reason.NO_SUCH_PILE)


def test_no_such_pile_comes_before_an_empty_or_hidden_source() -> None:
    s = position(["", "2C"])
    refuse(s, "1-f9", Reason.NO_SUCH_PILE)
    refuse(s, "1-f", Reason.EMPTY_PILE)
    refuse(s, "c1-f9", Reason.NO_SUCH_PILE)
    refuse(s, "w-f9", Reason.NO_SUCH_PILE)
    refuse(s, "w-f", Reason.EMPTY_PILE)
    refuse(s, "9-2", Reason.NO_SUCH_PILE)
    refuse(s, "1-9", Reason.NO_SUCH_PILE)


# -- stock and waste ------------------------------------------------------------------


def test_stock_one_card_a_move_onto_the_waste() -> None:
    s = position(["5C"], stock="AD 2D 3D")
    s = accept(s, "s")
    assert texts(s.waste) == "AD" and texts(s.stock) == "2D 3D"
    s = accept(accept(s, "s"), "s")
    assert texts(s.waste) == "AD 2D 3D" and s.stock == ()
    refuse(s, "s", Reason.STOCK_EMPTY)


def test_turning_keeps_the_order_and_three_passes_in_all() -> None:
    s = position(["5C", "7C", "9C", "JC", "5S", "7S", "9S", "JS"], stock="AD 2D 3D")
    for turn in (1, 2):
        s = accept(accept(accept(s, "s"), "s"), "s")
        s = accept(s, "rd")
        assert s.redeals == turn
        # The card turned first is dealt first again.
        assert texts(s.stock) == "AD 2D 3D" and s.waste == ()
    s = accept(accept(accept(s, "s"), "s"), "s")
    refuse(s, "rd", Reason.NO_REDEALS_LEFT)
    assert game.status(s) is Status.STUCK


def test_a_stock_turned_over_from_the_waste_is_no_secret() -> None:
    """The player saw every card of the waste turned, and the whole waste before it was turned over: the view shows
    the new stock's order (as picture-gallery's after a redeal). Its neighbour: before the first turn, hidden."""
    s = position(["5C", "7C", "9C", "JC", "5S", "7S", "9S", "JS"], captives=" ".join(["--"] * 7), stock="AD 2D 3D")
    assert player_view(game, s).stock is None and texts(tuple(hidden_cards(game, s))) == "AD 2D 3D"
    s = accept(accept(s, "s"), "s")
    assert player_view(game, s).stock is None and player_view(game, s).waste == cards("AD 2D")
    turned = accept(accept(s, "s"), "rd")
    view = player_view(game, turned)
    assert view.stock == cards("AD 2D 3D") and hidden_cards(game, turned) == []
    assert player_view(game, accept(turned, "s")).stock == cards("2D 3D")


def test_redeal_needs_an_empty_stock_and_a_waste() -> None:
    refuse(position(["5C"], stock="AD", waste="2D"), "rd", Reason.STOCK_NOT_EMPTY)
    refuse(position(["5C"]), "rd", Reason.EMPTY_PILE)
    refuse(position(["5C"], stock="AD", waste="2D", redeals=2), "rd", Reason.NO_REDEALS_LEFT)
    accept(position(["5C"], waste="2D", redeals=1), "rd")


def test_stock_may_be_turned_at_any_time() -> None:
    """Decision: the seed's "when tableau moves are exhausted" is advice."""
    s = position(["KH", "9S", "8S"], stock="2D")
    assert any(m.target is not None for m in game.legal_moves(s))
    accept(s, "s")


def test_waste_may_be_turned_over_at_any_time_once_the_stock_is_empty() -> None:
    """Decision (docs/rules.md): "if everything that can be moved has been moved" is advice too: with tableau moves and
    a waste move still open, ``rd`` is legal once the stock is empty; with a card left in the stock it is not."""
    s = position(["KH", "9S", "8S"], waste="7S 2D")
    assert {"1-k", "3-2/1", "w-4", "rd"} <= {m.text() for m in game.legal_moves(s)}
    turned = accept(s, "rd")
    assert texts(turned.stock) == "7S 2D" and turned.waste == () and turned.redeals == 1
    refuse(position(["KH", "9S", "8S"], stock="AD", waste="7S 2D"), "rd", Reason.STOCK_NOT_EMPTY)


# -- moves this game lacks -------------------------------------------------------------


def test_moves_this_game_lacks() -> None:
    s = position(["9H 8H", "7C"], waste="5D")
    refuse(s, "d", Reason.NOT_IN_THIS_GAME)
    refuse(s, "1,2-r", Reason.NOT_IN_THIS_GAME)
    refuse(s, "1-r", Reason.NO_SUCH_PILE)
    refuse(s, "1-r2", Reason.NO_SUCH_PILE)
    refuse(s, "w-r", Reason.NO_SUCH_PILE)
    refuse(s, "r1-2", Reason.NO_SUCH_PILE)


# -- winning, stuck ---------------------------------------------------------------------

#: A whole deal that wins: kings on top of the columns, the stock A..8 in slot order, then 9C;
#: the columns hold 9..J (and one QC), the captives the other 7 queens, released in a chain.
WIN_CAPTIVES = "QC QD QD QH QH QS QS"
WIN_ROWS = (
    "QC JC JD JD JH JH JS JS",
    "JC TC TD TD TH TH TS TS",
    "TC 9C 9D 9D 9H 9H 9S 9S",
    "KC KC KD KD KH KH KS KS",
)
WIN_STOCK = " ".join(f"{r}{s}" for r in "A2345678" for s in SUITS_OF_SLOTS) + " 9C"


def win_deck() -> list[Card]:
    return list(cards(" ".join((WIN_CAPTIVES, *WIN_ROWS, WIN_STOCK))))


def win_moves() -> list[str]:
    moves = [f"{c}-k" for c in range(1, 9)]
    moves += ["s", "w-f"] * 65
    moves += [f"{c}-f" for c in range(1, 9) for _ in range(3)]
    moves += [f"c{i}-f" for i in range(1, 8)]
    return moves


def test_a_whole_won_game() -> None:
    d = win_deck()
    assert Counter(d) == Counter(canonical_deck(104))
    start = game.deal_from(d)
    result = replay(game, start, win_moves())
    assert result.verdict.outcome is Outcome.WON, result.verdict.describe()
    s = result.state
    assert game.is_won(s)
    assert game.status(s) is Status.WON
    assert [texts(f) for f in s.foundations] == [pile(suit, "Q") for suit in SUITS_OF_SLOTS]
    assert s.captives == (NO_CARD,) * 7
    assert list(game.legal_moves(s)) == []
    for move in ("s", "rd", "1-2", "w-f", "c1-f", "1-k", "d"):
        refuse(s, move, Reason.GAME_OVER)
    # One move short of the win: the last captive still to play.
    before = replay(game, start, win_moves()[:-1]).state
    assert not game.is_won(before) and game.status(before) is Status.IN_PROGRESS
    assert game.captive_released(before, 6)
    assert list(game.legal_moves(before)) == [Move.parse("c7-f8")]


def test_stuck_when_no_move_is_left() -> None:
    s = position(["9H", "5S", "", "JC", "5C", "7C", "9C", "JS"], foundations=["KC"], waste="7D", redeals=2)
    # The waste's 7D can still go to the empty column.
    assert game.status(s) is Status.IN_PROGRESS
    s = accept(s, "w-3")
    # Now no move is left: no empty column, nothing fits anywhere, no turn left.
    assert game.status(s) is Status.STUCK
    assert list(game.legal_moves(s)) == []
    # Its neighbour: a waste left with one turn, and then with none.
    full = ["9H", "5S", "7D", "JC", "5C", "7C", "9C", "JS"]
    s2 = position(full, foundations=["KC"], waste="2D", redeals=1)
    assert game.status(s2) is Status.IN_PROGRESS
    assert list(game.legal_moves(s2)) == [Move.parse("rd")]
    assert game.status(position(full, foundations=["KC"], waste="2D", redeals=2)) is Status.STUCK


# -- whole-game properties ----------------------------------------------------------------


def candidate_moves(state: State) -> list[str]:
    """A wide net of move texts around a position, legal or not."""
    srcs = [str(i) for i in range(1, 10)] + ["w"] + [f"c{i}" for i in range(1, 9)]
    out = ["s", "rd", "d"]
    for src in srcs:
        out += [f"{src}-f", f"{src}-k"] + [f"{src}-f{j}" for j in range(1, 10)]
        for d in range(1, 10):
            out.append(f"{src}-{d}")
            if src.isdigit():
                out += [f"{src}-{d}/{n}" for n in range(1, 14)]
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_playouts_conserve_cards_and_agree_with_legal_moves(seed: int) -> None:
    rnd = random.Random(seed)
    s = game.deal(bytes([seed]) * 32)
    deck = Counter(s.all_cards())
    for step in range(600):
        legal = list(game.legal_moves(s))
        assert len(set(legal)) == len(legal)
        if step % 60 == 0:
            for text in candidate_moves(s):
                try:
                    _, explicit = game.play(s, Move.parse(text))
                except IllegalMoveError:
                    continue
                if explicit.target is not None and explicit.target.kind is PileKind.FOUNDATION:
                    explicit = game.play(s, f"{explicit.source.text()}-f")[1]
                assert explicit in legal, (text, explicit)
        if not legal:
            assert game.status(s) in (Status.STUCK, Status.WON)
            break
        # Prefer progress a little, so play-outs reach captives and turns.
        home = [m for m in legal if m.target is not None and m.target.kind in (PileKind.FOUNDATION, PileKind.KING_ROW)]
        move = home[0] if home and rnd.random() < 0.7 else rnd.choice(legal)
        new, explicit = game.play(s, move)
        assert explicit == move
        assert Counter(new.all_cards()) == deck
        assert len(new.captives) == 7 and len(new.foundations) == 8 and len(new.columns) == 8
        assert new.redeals <= 2
        s = new


# -- legal_moves lists every foundation that leads somewhere else -----------------------------------


def test_legal_moves_lists_each_slot_that_frees_another_captive() -> None:
    """Two KH slots both take AH: f5 and f6 hold different captives, so both moves are listed and lead to
    different positions; a third slot with no captive waiting (f8) is listed too, once."""
    s = position(
        ["AH", "9S"],
        foundations=["KC", "KC", "KD", "KD", "KH", "KH", "KS", "KH"],
        captives="2C 3C 4C 5C 6C 7C 8C",
    )
    listed = {m.text() for m in game.legal_moves(s)}
    assert {"1-f5", "1-f6", "1-f8"} <= listed
    after = {t: accept(s, t) for t in ("1-f5", "1-f6", "1-f8")}
    assert len(set(after.values())) == 3
    # "1-f" still takes the first that fits.
    assert game.play(s, "1-f")[1].text() == "1-f5"


def test_legal_moves_lists_one_of_the_slots_with_no_captive_waiting() -> None:
    """With the captives of f5 and f6 played, the two KH slots are interchangeable: one move, not two."""
    s = position(
        ["AH", "9S"],
        foundations=["KC", "KC", "KD", "KD", "KH", "KH", "KS", "KS"],
        captives="2C 3C 4C 5C -- -- 8C",
    )
    home = [m.text() for m in game.legal_moves(s) if m.target is not None and m.target.kind is PileKind.FOUNDATION]
    assert home == ["1-f5"]
    assert game.is_legal(s, "1-f6")
