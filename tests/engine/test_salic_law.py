"""Family 2, Salic Law: tribunal and picture-gallery (docs/rules.md "Family 2", docs/rules-decisions.md).

Every rule has its legal case accepted and its illegal neighbour refused with the
right Reason. Positions are either dealt from hand-built decks (``deal_from``)
or built by hand as plain ``State`` values.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import IllegalMoveError, Move, PileKind, Reason, State, Status, VariantError, get_game
from engine.cards import KING, QUEEN, RANK, Card, canonical_deck, card_text, parse_card
from engine.deal import shuffle
from engine.game import Game
from engine.games.salic_law import PictureGallery, Tribunal

FULL = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J"]


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def texts(pile: tuple[Card, ...]) -> str:
    return " ".join(card_text(c) for c in pile)


def deck(top: str) -> list[Card]:
    """A whole double deck: ``top`` first, then the rest in canonical order."""
    head = list(cards(top))
    rest = canonical_deck(104)
    for c in head:
        rest.remove(c)
    return head + rest


def full(suit: str, upto: str = "J") -> str:
    """A foundation built A..``upto`` in one suit (suits do not matter here)."""
    return " ".join(r + suit for r in FULL[: FULL.index(upto) + 1])


def position(
    columns: list[str],
    stock: str = "",
    foundations: list[str] | None = None,
    fresh: bool = False,
    redeals: int = 0,
) -> State:
    fnd = [cards(f) for f in foundations or []]
    fnd += [()] * (8 - len(fnd))
    return State(
        columns=tuple(cards(c) for c in columns),
        foundations=tuple(fnd),
        stock=cards(stock),
        fixed=cards("QC QC QD QD QH QH QS QS"),
        redeals=redeals,
        fresh=fresh,
    )


def accept(game: Game, state: State, move: str, explicit: str | None = None) -> State:
    """Play ``move``; check the explicit form returned and that legal_moves lists it."""
    new, resolved = game.play(state, Move.parse(move))
    assert resolved.text() == (explicit or move)
    assert Move.parse(resolved.text()) == resolved
    listed = list(game.legal_moves(state))
    if resolved.target is not None and resolved.target.kind is PileKind.FOUNDATION:
        # legal_moves lists a card to the first foundation that fits only.
        assert game.play(state, f"{resolved.source.text()}-f")[1] in listed
    else:
        assert resolved in listed
    return new


def refuse(game: Game, state: State, move: str, reason: Reason) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, Move.parse(move))
    assert info.value.reason is reason, info.value
    assert info.value.text == Move.parse(move).text()
    assert Move.parse(move) not in list(game.legal_moves(state))
    return info.value


tribunal = Tribunal()
gallery = PictureGallery()
gallery3 = PictureGallery({"deals": 3})


# -- catalogue, options ---------------------------------------------------------


def test_catalogue_gives_these_classes_and_their_redeals() -> None:
    assert type(get_game("tribunal")) is Tribunal
    assert type(get_game("picture-gallery")) is PictureGallery
    assert tribunal.redeals_allowed() == 0
    assert gallery.redeals_allowed() == 1
    assert gallery3.redeals_allowed() == 2
    assert PictureGallery({"deals": "3"}).redeals_allowed() == 2


def test_deals_option_is_two_or_three() -> None:
    for bad in (1, 4, "many"):
        with pytest.raises(VariantError) as info:
            PictureGallery({"deals": bad})
        assert info.value.reason is Reason.BAD_OPTION
    with pytest.raises(VariantError) as info:
        Tribunal({"deals": 3})
    assert info.value.reason is Reason.BAD_OPTION


# -- the deal -------------------------------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_deal_pulls_queens_and_topmost_king(game: Game) -> None:
    d = deck("5C QH 7D KD 9S QS KC 2H")
    s = game.deal_from(d)
    assert s.columns == (cards("KD"),)
    assert texts(s.stock[:5]) == "5C 7D 9S KC 2H"
    assert len(s.stock) == 104 - 8 - 1
    assert not any(RANK[c] == QUEEN for c in s.stock)
    assert Counter(RANK[c] for c in s.stock)[KING] == 7
    # The queens in deck order: QH, QS from the top, then the rest canonically.
    assert texts(s.fixed) == "QH QS QC QD QC QD QH QS"
    assert s.foundations == ((),) * 8
    assert s.redeals == 0
    assert sorted(s.all_cards()) == sorted(d)
    # The rest keep their order: the stock is the deck minus the queens and that one king.
    rest = [c for c in d if RANK[c] != QUEEN]
    rest.remove(parse_card("KD"))
    assert list(s.stock) == rest


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_deal_pulls_the_king_that_deal_step_7_chooses(game: Game) -> None:
    """One of the 8 kings, counted from the top once the queens are out; not the topmost unless chosen."""
    d = deck("QH 5C KD QS 7H KS")  # kings from the top: KD, KS, then KC KD KH KS KC KD KH KS canonically
    asked: list[int] = []

    def third(m: int) -> int:
        asked.append(m)
        return 2

    s = game.deal_from(d, third)
    assert asked == [8]
    assert texts(s.columns[0]) == "KC"
    rest = [c for c in d if RANK[c] != QUEEN]
    rest.remove(parse_card("KC"))  # the first KC, third king from the top
    assert list(s.stock) == rest and texts(s.stock[:4]) == "5C KD 7H KS"
    assert game.deal_from(d).columns[0] == cards("KD")  # a hand-built deck's default: the topmost


def test_deal_fresh_flag_only_in_picture_gallery() -> None:
    d = deck("KS 5C")
    assert gallery.deal_from(d).fresh is True
    assert tribunal.deal_from(d).fresh is False


def test_deal_from_refuses_anything_but_a_double_deck() -> None:
    with pytest.raises(ValueError):
        tribunal.deal_from(deck("KS")[:-1])
    with pytest.raises(ValueError):
        tribunal.deal_from([*deck("KS")[:-1], parse_card("AC")])  # three aces of clubs, one king of spades


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_seeded_deal_is_deal_v2(game: Game) -> None:
    seed = bytes(range(32))
    shuffled = shuffle(seed, game.id, 104)
    assert game.deal(seed) == game.deal_from(shuffled.cards, shuffled.random.uniform)
    assert game.deal(seed) == game.deal(seed)
    assert game.deal(seed) != game.deal(bytes(32))


# -- dealing --------------------------------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_d_deals_onto_the_newest_column(game: Game) -> None:
    s = game.deal_from(deck("KS 5C 7D KH 9S"))
    s = accept(game, s, "d")
    assert s.columns == (cards("KS 5C"),)
    s = accept(game, s, "d")
    s = accept(game, s, "d")
    assert s.columns == (cards("KS 5C 7D"), cards("KH"))
    s = accept(game, s, "d")
    # Onto the newest column (2), not the first.
    assert s.columns == (cards("KS 5C 7D"), cards("KH 9S"))
    assert s.fresh is False


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_d_needs_a_stock(game: Game) -> None:
    s = position(["KS 5C"], stock="9D")
    s = accept(game, s, "d")
    refuse(game, s, "d", Reason.STOCK_EMPTY)


def test_tribunal_king_starts_a_column_even_after_a_king() -> None:
    """The neighbour of picture-gallery's lone-king rule: tribunal puts no filler."""
    s = tribunal.deal_from(deck("KS KH 5C"))
    s = accept(tribunal, s, "d")
    assert s.columns == (cards("KS"), cards("KH"))
    assert texts(s.stock[:1]) == "5C"


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_at_most_eight_columns_whole_deal(game: Game) -> None:
    s = game.deal(bytes([7]) * 32)
    while s.stock:
        s = game.play(s, "d")[0]
        assert len(s.columns) <= 8
    assert len(s.columns) == 8
    for col in s.columns:
        assert RANK[col[0]] == KING
        assert all(RANK[c] != KING for c in col[1:])
    assert sorted(s.all_cards()) == sorted(canonical_deck(104))


def test_at_most_eight_columns_a_ninth_king_goes_on_the_newest() -> None:
    """Unreachable with a double deck; a hand-built position keeps 8 columns (Decision)."""
    s = position(["KS 5C", "KS", "KH", "KH", "KD", "KD", "KC 3C", "KC 4D"], stock="KH 6D")
    s = accept(tribunal, s, "d")
    assert len(s.columns) == 8
    assert s.columns[7] == cards("KC 4D KH")
    refuse(tribunal, s, "8-f", Reason.KING_CANNOT_MOVE)
    refuse(tribunal, s, "1-9", Reason.NO_SUCH_PILE)


# -- foundations ----------------------------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_foundations_regardless_of_suit(game: Game) -> None:
    s = position(["KS AH", "KD 2S", "KC 3D", "KH 3C"], stock="9D")
    s = accept(game, s, "1-f1")
    s = accept(game, s, "2-f1")
    assert texts(s.foundations[0]) == "AH 2S"
    s = accept(game, s, "3-f", "3-f1")  # 3D on 2S
    refuse(game, s, "4-f1", Reason.DOES_NOT_FIT)  # 3C on 3D
    refuse(game, s, "4-f2", Reason.DOES_NOT_FIT)  # only an ace starts an empty one
    refuse(game, s, "4-f", Reason.DOES_NOT_FIT)


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_any_ace_starts_an_empty_foundation(game: Game) -> None:
    s = position(["KS AD", "KD AS"], foundations=["AC"], stock="9D")
    refuse(game, s, "1-f1", Reason.DOES_NOT_FIT)
    s = accept(game, s, "1-f5")
    s = accept(game, s, "2-f", "2-f2")
    assert texts(s.foundations[1]) == "AS"
    assert texts(s.foundations[4]) == "AD"


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_foundation_stops_at_jack(game: Game) -> None:
    s = position(["KS JH", "KD JS"], foundations=[full("C", "T")], stock="9D")
    s = accept(game, s, "1-f", "1-f1")
    refuse(game, s, "2-f1", Reason.DOES_NOT_FIT)
    refuse(game, s, "2-f", Reason.DOES_NOT_FIT)


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_f_takes_the_lowest_numbered_foundation(game: Game) -> None:
    s = position(["KS 5H", "KD AC"], foundations=["", "AS 2S 3S 4S", "AC", "AD 2D 3H 4C"], stock="9D")
    assert game.play(s, "1-f")[1].text() == "1-f2"
    assert game.play(s, "2-f")[1].text() == "2-f1"
    # An explicit other foundation that fits is legal too; legal_moves lists the first only.
    assert game.play(s, "1-f4")[1].text() == "1-f4"
    listed = {m.text() for m in game.legal_moves(s)}
    assert {"1-f2", "2-f1"} <= listed
    assert "1-f4" not in listed
    assert "2-f5" not in listed
    refuse(game, s, "1-f3", Reason.DOES_NOT_FIT)
    refuse(game, s, "1-f9", Reason.NO_SUCH_PILE)


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_foundation_cards_stay(game: Game) -> None:
    s = position(["KS", "KD 5C"], foundations=["AC", "AD"], stock="9D")
    refuse(game, s, "f1-f2", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "f1-1", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "f2-1/1", Reason.NOT_IN_THIS_GAME)


# -- lone kings -----------------------------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_lone_king_takes_any_one_card(game: Game) -> None:
    s = position(["KS 9H 5C", "KD", "KC 7D"], stock="9D")
    s = accept(game, s, "1-2", "1-2/1")
    assert s.columns == (cards("KS 9H"), cards("KD 5C"), cards("KC 7D"))
    # A second card: column 2 is no longer a lone king.
    e = refuse(game, s, "1-2", Reason.DOES_NOT_FIT)
    assert "9H" in e.message and "KD 5C" in e.message
    refuse(game, s, "1-3/1", Reason.DOES_NOT_FIT)
    s = position(["KS 9H 5C", "KD", "KC 7D"], stock="9D")
    s = accept(game, s, "3-2/1")
    assert s.columns[1] == cards("KD 7D")
    # Column 3 is now cut back to its king and takes a card in turn.
    s = accept(game, s, "1-3/1")
    assert s.columns == (cards("KS 9H"), cards("KD 7D"), cards("KC 5C"))


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_only_one_card_moves(game: Game) -> None:
    s = position(["KS 9H 5C", "KD"], stock="9D")
    e = refuse(game, s, "1-2/2", Reason.NOT_FREE_CARD)
    assert "5C" in e.message
    accept(game, s, "1-2/1")


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_a_card_alone_on_its_king_may_move_to_another_lone_king(game: Game) -> None:
    """Decision: the rule's letter (and PySol) allow it; in picture-gallery it changes the redeal order."""
    s = position(["KS 5C", "KD"], stock="9D")
    s = accept(game, s, "1-2/1")
    assert s.columns == (cards("KS"), cards("KD 5C"))


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_kings_never_move(game: Game) -> None:
    s = position(["KS", "KD 5C", "KH"], foundations=[full("C")], stock="9D")
    e = refuse(game, s, "1-3", Reason.KING_CANNOT_MOVE)
    assert "KS" in e.message
    refuse(game, s, "1-f", Reason.KING_CANNOT_MOVE)
    refuse(game, s, "1-f2", Reason.KING_CANNOT_MOVE)
    refuse(game, s, "3-1/1", Reason.KING_CANNOT_MOVE)
    accept(game, s, "2-1/1")


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_same_pile(game: Game) -> None:
    s = position(["KS 5C", "KD"], stock="9D")
    refuse(game, s, "1-1", Reason.SAME_PILE)
    refuse(game, s, "2-2/1", Reason.SAME_PILE)


# -- piles and move kinds the game lacks ------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery])
@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("r1-f", Reason.NO_SUCH_PILE),
        ("w-f", Reason.NO_SUCH_PILE),
        ("c3-f5", Reason.NO_SUCH_PILE),
        ("1-r", Reason.NO_SUCH_PILE),
        ("1-r2", Reason.NO_SUCH_PILE),
        ("4-f", Reason.NO_SUCH_PILE),  # only 3 columns are out
        ("1-4", Reason.NO_SUCH_PILE),
        ("9-1", Reason.NO_SUCH_PILE),
        ("1-f9", Reason.NO_SUCH_PILE),
        ("s", Reason.NOT_IN_THIS_GAME),
        ("1-k", Reason.NOT_IN_THIS_GAME),
        ("1,2-r", Reason.NOT_IN_THIS_GAME),
        ("f1-f2", Reason.NOT_IN_THIS_GAME),
        ("f1-f2/1", Reason.NOT_IN_THIS_GAME),
    ],
)
def test_piles_and_moves_the_game_lacks(game: Game, move: str, reason: Reason) -> None:
    s = position(["KS 5C", "KD 2C", "KH"], foundations=["AC"], stock="9D")
    refuse(game, s, move, reason)


def test_rd_in_tribunal_is_not_in_this_game() -> None:
    s = position(["KS 5C", "KD 3C"], foundations=["AC"])
    refuse(tribunal, s, "rd", Reason.NOT_IN_THIS_GAME)
    assert tribunal.status(s) is Status.STUCK


# -- picture-gallery: the lone-king filler ------------------------------------------


def test_lone_king_filler_on_first_d_when_first_card_is_a_king() -> None:
    s = gallery.deal_from(deck("KS KH 5C 7D"))
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH"))
    assert texts(s.stock[:1]) == "7D"
    assert s.fresh is True
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH 7D"))
    assert s.fresh is False


def test_lone_king_filler_passes_over_kings_that_keep_their_places() -> None:
    s = gallery.deal_from(deck("KS KH KD KC 5C 7D 9S"))
    s = accept(gallery, s, "d")  # KH out: 5C (past KD, KC) onto KS
    assert s.columns == (cards("KS 5C"), cards("KH"))
    assert texts(s.stock[:4]) == "KD KC 7D 9S"
    s = accept(gallery, s, "d")  # KD out: KH is fresh, 7D onto it
    assert s.columns == (cards("KS 5C"), cards("KH 7D"), cards("KD"))
    assert texts(s.stock[:2]) == "KC 9S"
    s = accept(gallery, s, "d")  # KC out: 9S onto KD
    assert s.columns == (cards("KS 5C"), cards("KH 7D"), cards("KD 9S"), cards("KC"))


def test_no_filler_when_the_newest_column_had_a_stock_card() -> None:
    s = gallery.deal_from(deck("KS 5C KH 7D"))
    s = accept(gallery, s, "d")
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH"))
    assert texts(s.stock[:1]) == "7D"


def test_no_filler_left_puts_nothing() -> None:
    s = position(["KS 5C", "KH"], stock="KD KC", fresh=True)
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH"), cards("KD"))
    assert texts(s.stock) == "KC"
    assert s.fresh is True
    s = accept(gallery, s, "d")
    assert s.columns[3] == cards("KC")
    assert not s.stock
    refuse(gallery, s, "d", Reason.STOCK_EMPTY)


def test_player_moved_card_on_a_lone_king_does_not_count() -> None:
    s = position(["KS 9H 5C", "KH"], stock="KD 7D", fresh=True)
    s = accept(gallery, s, "1-2/1")
    assert s.fresh is True
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 9H"), cards("KH 5C 7D"), cards("KD"))


def test_player_emptying_a_column_back_to_its_king_does_not_make_it_fresh() -> None:
    s = position(["KS 5C", "KH AD"], stock="KD 7D", fresh=False)
    s = accept(gallery, s, "2-f", "2-f1")
    assert s.columns[1] == cards("KH")
    assert s.fresh is False
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH"), cards("KD"))
    assert texts(s.stock) == "7D"


def test_tribunal_ignores_the_fresh_flag() -> None:
    s = position(["KS"], stock="KD 7D", fresh=True)
    s = accept(tribunal, s, "d")
    assert s.columns == (cards("KS"), cards("KD"))


# -- picture-gallery: the redeal ---------------------------------------------------


def test_redeal_gathers_column_one_first_and_puts_its_king_out() -> None:
    s = position(["KS 5C 9H", "KH", "KD 7D"], foundations=["AC"], redeals=0)
    assert not gallery.stock_visible(s)
    s = accept(gallery, s, "rd")
    assert s.columns == (cards("KS"),)
    assert texts(s.stock) == "5C 9H KH KD 7D"
    assert texts(s.foundations[0]) == "AC"
    assert s.fixed == cards("QC QC QD QD QH QH QS QS")
    assert s.redeals == 1
    assert s.fresh is True
    assert gallery.stock_visible(s)
    # `d` deals the rest by the same rules; KH comes after KS had a stock card.
    s = accept(gallery, s, "d")
    s = accept(gallery, s, "d")
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C 9H"), cards("KH"))
    # KD out while KH is fresh: 7D goes onto KH first.
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C 9H"), cards("KH 7D"), cards("KD"))
    assert not s.stock


def test_redeal_with_a_lone_king_in_column_one_uses_the_filler() -> None:
    s = position(["KS", "KH 5C 9H"])
    s = accept(gallery, s, "rd")
    s = accept(gallery, s, "d")
    assert s.columns == (cards("KS 5C"), cards("KH"))
    assert texts(s.stock) == "9H"


def test_redeal_needs_an_empty_stock() -> None:
    s = position(["KS 5C", "KH"], stock="9H")
    refuse(gallery, s, "rd", Reason.STOCK_NOT_EMPTY)
    s = accept(gallery, s, "d")
    accept(gallery, s, "rd")


def test_two_deals_by_default_three_with_the_option() -> None:
    s = position(["KS 5C", "KH 9D"])
    once = accept(gallery, s, "rd")
    emptied = once
    while emptied.stock:
        emptied = gallery.play(emptied, "d")[0]
    refuse(gallery, emptied, "rd", Reason.NO_REDEALS_LEFT)
    assert gallery.status(emptied) is Status.STUCK
    # Before the stock is out, no redeal left is the more telling reason (Decision).
    refuse(gallery, once, "rd", Reason.NO_REDEALS_LEFT)

    twice = accept(gallery3, emptied, "rd")
    assert twice.redeals == 2
    while twice.stock:
        twice = gallery3.play(twice, "d")[0]
    refuse(gallery3, twice, "rd", Reason.NO_REDEALS_LEFT)
    assert gallery3.status(twice) is Status.STUCK


def test_stock_hidden_in_tribunal_and_in_the_first_deal() -> None:
    s = gallery.deal_from(deck("KS 5C"))
    assert not gallery.stock_visible(s)
    assert not tribunal.stock_visible(tribunal.deal_from(deck("KS 5C")))
    assert not tribunal.stock_visible(position(["KS"], redeals=1))


# -- win, stuck -----------------------------------------------------------------


def home_but(last_foundation_upto: str) -> list[str]:
    suits = "CCDDHHS"
    return [full(s) for s in suits] + [full("S", last_foundation_upto)]


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_win_and_nothing_after_it(game: Game) -> None:
    s = position(["KS JS", "KH", "KD", "KC", "KS", "KH", "KD", "KC"], foundations=home_but("T"))
    assert not game.is_won(s)
    onto_lone_kings = [f"1-{t}/1" for t in range(2, 9)]
    redeal = ["rd"] if game.redeals_allowed() else []
    assert [m.text() for m in game.legal_moves(s)] == ["1-f8", *onto_lone_kings, *redeal]
    s = accept(game, s, "1-f", "1-f8")
    assert game.is_won(s)
    assert game.status(s) is Status.WON
    assert list(game.legal_moves(s)) == []
    for move in ("d", "rd", "1-f", "1-2", "s", "r1-f", "f1-f2"):
        refuse(game, s, move, Reason.GAME_OVER)


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_not_won_while_kings_wait_in_the_stock(game: Game) -> None:
    s = position(["KS", "KH", "KD", "KC", "KS", "KH", "KD"], stock="KC", foundations=home_but("J"))
    assert not game.is_won(s)
    assert [m.text() for m in game.legal_moves(s)] == ["d"]
    s = accept(game, s, "d")
    assert game.is_won(s)


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_a_whole_game_won_from_a_hand_built_deck(game: Game) -> None:
    ranks = [r + s for r in FULL for s in "CDHSCDHS"]
    kings = "KD KH KS KC KD KH KS"
    s = game.deal_from(deck("KC " + " ".join(ranks) + " " + kings))
    for _ in ranks:
        s = accept(game, s, "d")
        s = game.play(s, "1-f")[0]
    assert [len(f) for f in s.foundations] == [11] * 8
    assert not game.is_won(s)
    for _ in range(7):
        s = accept(game, s, "d")
    assert len(s.columns) == 8
    assert game.is_won(s)
    assert game.status(s) is Status.WON


def test_stuck_when_nothing_fits_and_no_lone_king() -> None:
    s = position(["KS 5C", "KH 9D"], foundations=["AC 2C 3C"])
    assert tribunal.status(s) is Status.STUCK
    assert list(tribunal.legal_moves(s)) == []
    # Neighbours: a card that fits, a lone king, a card in the stock, a redeal left.
    assert tribunal.status(position(["KS 4C", "KH 9D"], foundations=["AC 2C 3C"])) is Status.IN_PROGRESS
    assert tribunal.status(position(["KS 5C", "KH 9D", "KD"], foundations=["AC 2C 3C"])) is Status.IN_PROGRESS
    assert tribunal.status(position(["KS 5C", "KH 9D"], stock="8D", foundations=["AC 2C 3C"])) is Status.IN_PROGRESS
    assert [m.text() for m in gallery.legal_moves(s)] == ["rd"]
    assert gallery.status(s) is Status.IN_PROGRESS
    assert gallery.status(position(["KS 5C", "KH 9D"], foundations=["AC 2C 3C"], redeals=1)) is Status.STUCK


def test_legal_moves_order_and_forms() -> None:
    s = position(["KS 5C", "KH", "KD AH", "KC"], stock="9D", foundations=["AC 2C 3C 4C"])
    assert [m.text() for m in tribunal.legal_moves(s)] == [
        "1-f1",
        "1-2/1",
        "1-4/1",
        "3-f2",
        "3-2/1",
        "3-4/1",
        "d",
    ]


# -- whole random games ---------------------------------------------------------


@pytest.mark.parametrize("game", [tribunal, gallery, gallery3])
@pytest.mark.parametrize("n", range(4))
def test_random_games_conserve_the_cards(game: Game, n: int) -> None:
    rnd = random.Random(n)
    s = game.deal(bytes([n, 2]) * 16)
    whole = Counter(canonical_deck(104))
    for _ in range(3000):
        moves = list(game.legal_moves(s))
        if not moves:
            break
        assert len(set(moves)) == len(moves)
        move = rnd.choice(moves)
        before = s
        s, explicit = game.play(s, move)
        assert explicit == move
        assert game.play(before, move)[0] == s  # pure: same input, same output
        assert Counter(s.all_cards()) == whole
        assert len(s.columns) <= 8
        assert all(RANK[col[0]] == KING for col in s.columns)
    if game.status(s) is not Status.IN_PROGRESS:
        assert list(game.legal_moves(s)) == []


@pytest.mark.parametrize("game", [tribunal, gallery])
def test_greedy_play_to_the_end(game: Game) -> None:
    """Foundation moves first, then deal, then redeal: each game ends won, or with only lone-king moves left."""
    ends: Counter[Status] = Counter()
    for n in range(24):  # greedy play wins 1 of the first 40 of these deals in tribunal, 5 in picture-gallery
        s = game.deal(bytes([n, 9]) * 16)
        while True:
            moves = list(game.legal_moves(s))
            home = [m for m in moves if m.target is not None and m.target.kind is PileKind.FOUNDATION]
            stock = [m for m in moves if m.target is None]
            if not home and not stock:
                break
            s = game.play(s, (home or stock)[0])[0]
        assert not s.stock
        assert all(m.target is not None and m.target.kind is PileKind.COLUMN for m in moves)
        if game.is_won(s):
            assert moves == []
        ends[game.status(s)] += 1
        assert Counter(s.all_cards()) == Counter(canonical_deck(104))
    # The redeal gives picture-gallery the better odds on these deals.
    assert ends[Status.WON] < 24
    assert ends[Status.WON] > 0 or game.redeals_allowed() == 0
