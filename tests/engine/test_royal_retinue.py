"""Family 1, the king-chain tableau (docs/rules.md): the four deals, every rule and Decision, legal moves.

Each rule has its legal case accepted and its illegal neighbour refused with the right Reason.
Positions are built by hand with State(...); unused columns are empty (dead), which changes nothing.
"""

from __future__ import annotations

import random

import pytest

from engine import IllegalMoveError, Move, NotationError, Reason, State, VariantError, get_game, parse_card
from engine.cards import KING, NO_CARD, RANK, canonical_deck, card_text
from engine.game import Game, Status

RR = get_game("royal-retinue")
ACES = get_game("royal-retinue-aces")
KINGS_LAST = get_game("royal-retinue-kings-last")
CATS = get_game("cats-tail")
CATS_NO_RUNS = get_game("cats-tail", {"sequence_moves": False})
FAMILY = (RR, ACES, KINGS_LAST, CATS)


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


def pos(*columns: str, cells: str = "", foundations: tuple[str, ...] = (), ncols: int = 8) -> State:
    """A position: columns head first ("" = empty), cells as "- 7H -", foundations bottom first."""
    cols = [cards(c) for c in columns] + [()] * (ncols - len(columns))
    cl = [NO_CARD] * 8
    for i, t in enumerate(cells.split()):
        if t != "-":
            cl[i] = parse_card(t)
    fs: list[tuple[int, ...]] = [()] * 8
    for i, f in enumerate(foundations):
        fs[i] = cards(f)
    return State(tuple(cols), tuple(cl), tuple(fs))


def text(pile: tuple[int, ...]) -> str:
    return " ".join(card_text(c) for c in pile)


def cells_text(state: State) -> str:
    return " ".join("-" if c == NO_CARD else card_text(c) for c in state.cells)


def play(game: Game, state: State, move: str) -> tuple[State, str]:
    new, explicit = game.play(state, Move.parse(move))
    return new, explicit.text()


def refused(game: Game, state: State, move: str, reason: Reason) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, Move.parse(move))
    assert info.value.reason is reason, info.value
    assert info.value.text == Move.parse(move).text()
    return info.value


def deck_with(prefix: str) -> list[int]:
    """The double deck with ``prefix`` on top, then the rest in canonical order (copy 0's cards used first)."""
    rest = canonical_deck(104)
    top = list(cards(prefix))
    for c in top:
        rest.remove(c)
    return top + rest


def seeds(n: int) -> list[bytes]:
    return [bytes([i]) * 32 for i in range(n)]


# -- the deals ----------------------------------------------------------------------------------------

# kings at depth 2..10, the 8th king in the middle of what becomes column 8 (or 9)
EIGHT_KINGS = "3C KH KD KC KS KH KD KC 4C KS 5C"


def test_royal_retinue_deal_pulls_the_king_step_7_chooses_and_each_king_starts_a_column() -> None:
    asked: list[int] = []

    def fourth(m: int) -> int:
        asked.append(m)
        return 3

    s = RR.deal_from(deck_with(EIGHT_KINGS), fourth)  # the 4th king from the top, KS, heads column 1
    assert asked == [8]
    assert [text(c) for c in s.columns[:7]] == ["KS 3C", "KH", "KD", "KC", "KH", "KD", "KC 4C"]
    assert text(s.columns[7][:3]) == "KS 5C AC"
    for game in (RR, ACES):
        with pytest.raises(ValueError):
            game.deal_from(deck_with(EIGHT_KINGS), lambda m: m)  # no 9th king to choose


def test_royal_retinue_hand_built_deck_pulls_the_topmost_king_by_default() -> None:
    s = RR.deal_from(deck_with(EIGHT_KINGS))
    assert [text(c) for c in s.columns[:7]] == ["KH 3C", "KD", "KC", "KS", "KH", "KD", "KC 4C"]
    assert text(s.columns[7][:3]) == "KS 5C AC"
    assert len(s.columns[7]) == 2 + (104 - 11)  # after the 8th king every remaining card goes onto column 8
    assert s.cells == (NO_CARD,) * 8 and s.foundations == ((),) * 8


def test_royal_retinue_deal_cards_before_the_first_king_go_on_it() -> None:
    s = RR.deal_from(deck_with("5C 7D KH 2S KD"))
    assert text(s.columns[0]) == "KH 5C 7D 2S"
    assert text(s.columns[1]) == "KD AC 2C 3C 4C 6C 7C 8C 9C TC JC QC"
    assert [card_text(c[0]) for c in s.columns] == ["KH", "KD", "KC", "KS", "KC", "KD", "KH", "KS"]
    assert text(s.columns[7]) == "KS"


def test_aces_deal_starts_the_foundations_with_the_eight_aces_in_deck_order() -> None:
    asked: list[int] = []
    last = ACES.deal_from(deck_with("AH AD " + EIGHT_KINGS), lambda m: asked.append(m) or m - 1)
    assert asked == [8]  # the aces are out first (step 6); then one of the 8 kings is chosen (step 7)
    assert [text(f) for f in last.foundations] == ["AH", "AD", "AC", "AS", "AC", "AD", "AH", "AS"]
    assert text(last.columns[0][:2]) == "KS 3C"  # the 8th king from the top: the second KS, canonical order
    s = ACES.deal_from(deck_with("AH AD " + EIGHT_KINGS))
    assert [text(f) for f in s.foundations] == ["AH", "AD", "AC", "AS", "AC", "AD", "AH", "AS"]
    assert [text(c) for c in s.columns[:7]] == ["KH 3C", "KD", "KC", "KS", "KH", "KD", "KC 4C"]
    assert text(s.columns[7][:3]) == "KS 5C 2C"
    assert not any(RANK[c] == 1 for col in s.columns for c in col)
    assert sum(map(len, s.columns)) == 96


def test_kings_last_deal_each_king_closes_its_column_then_heads_it() -> None:
    s = KINGS_LAST.deal_from(deck_with("4D 6D KH 3C KD KC KS KH KD KC 4C KS 5C"))
    assert [text(c) for c in s.columns[:7]] == ["KH 4D 6D", "KD 3C", "KC", "KS", "KH", "KD", "KC"]
    # Decision: the 8th king does not close column 8: the rest follows, then the king moves to the head
    assert text(s.columns[7][:4]) == "KS 4C 5C AC"
    assert len(s.columns[7]) == 3 + (104 - 13)
    assert all(RANK[c[0]] == KING for c in s.columns)


def test_kings_last_deal_first_card_a_king() -> None:
    s = KINGS_LAST.deal_from(deck_with("KH 3C KD"))
    assert text(s.columns[0]) == "KH"
    assert text(s.columns[1]) == "KD 3C"


def test_cats_tail_deal_every_king_starts_the_next_of_nine_columns() -> None:
    s = CATS.deal_from(deck_with(EIGHT_KINGS))
    assert len(s.columns) == 9
    assert [text(c) for c in s.columns[:8]] == ["3C", "KH", "KD", "KC", "KS", "KH", "KD", "KC 4C"]
    assert text(s.columns[8][:3]) == "KS 5C AC"


def test_cats_tail_first_card_a_king_leaves_column_one_empty_and_dead() -> None:
    s = CATS.deal_from(deck_with("KH 3C"))
    assert s.columns[0] == ()
    assert text(s.columns[1][:2]) == "KH 3C"
    # dead from the start: nothing ever goes there
    refused(CATS, s, "2-1", Reason.DEAD_COLUMN)
    refused(CATS, s, "1-2", Reason.EMPTY_PILE)
    assert all(m.target is None or m.target.text() != "1" for m in CATS.legal_moves(s))


def test_deal_from_refuses_a_deck_that_is_not_the_double_deck() -> None:
    deck = deck_with("")
    deck[0] = deck[1]
    for game in FAMILY:
        with pytest.raises(ValueError):
            game.deal_from(deck)


@pytest.mark.parametrize("game", FAMILY, ids=lambda g: g.id)
def test_real_deals_hold_every_card_once_and_kings_head_the_columns(game: Game) -> None:
    full = sorted(canonical_deck(104))
    for seed in seeds(12):
        s = game.deal(seed)
        assert sorted(s.all_cards()) == full
        assert s == game.deal(seed)
        kings = [(i, j) for i, col in enumerate(s.columns) for j, c in enumerate(col) if RANK[c] == KING]
        if game is CATS:
            assert len(s.columns) == 9
            assert [i for i, _ in kings] == list(range(1, 9)) and all(j == 0 for _, j in kings)
        else:
            assert len(s.columns) == 8
            assert kings == [(i, 0) for i in range(8)]
        if game is ACES:
            assert sorted(RANK[f[0]] for f in s.foundations) == [1] * 8
            assert sum(map(len, s.columns)) == 96
        else:
            assert s.foundations == ((),) * 8
        assert game.status(s) is Status.IN_PROGRESS


def test_the_variants_deal_differently_from_the_same_seed() -> None:
    seed = bytes(32)
    assert len({g.deal(seed).columns for g in FAMILY}) == 4


# -- building on columns -------------------------------------------------------------------------------


def test_a_free_card_goes_on_one_rank_higher_of_the_other_colour() -> None:
    s = pos("KC 7H", "KD 8S", "KS 8H", "KH 9S", "KC 9H")
    new, move = play(RR, s, "1-2")
    assert move == "1-2/1"
    assert text(new.columns[0]) == "KC" and text(new.columns[1]) == "KD 8S 7H"
    assert s.columns[0] == cards("KC 7H")  # never mutated
    e = refused(RR, s, "1-3", Reason.WRONG_COLOUR)
    assert "7H" in e.message and "8H" in e.message
    e = refused(RR, s, "1-4", Reason.DOES_NOT_FIT)
    assert "7H does not go on 9S" in e.message
    refused(RR, s, "1-5", Reason.DOES_NOT_FIT)  # rank is checked before colour
    refused(RR, s, "1-5/1", Reason.DOES_NOT_FIT)
    refused(RR, s, "1-3/1", Reason.WRONG_COLOUR)


def test_a_run_moves_as_one_move_and_its_length_is_inferred() -> None:
    s = pos("KC 5D 9S 8H 7C", "KD TD", "KH 9D", "KS 9C", "KC 5S", "KD 8D")
    new, move = play(RR, s, "1-2")
    assert move == "1-2/3"
    assert text(new.columns[1]) == "KD TD 9S 8H 7C" and text(new.columns[0]) == "KC 5D"
    assert play(RR, s, "1-2/3")[1] == "1-2/3"
    assert play(RR, s, "1-4")[1] == "1-4/2"  # 8H 7C on 9C
    assert play(RR, s, "1-6")[1] == "1-6/1"  # 7C on 8D
    refused(RR, s, "1-3", Reason.WRONG_COLOUR)  # 8H 7C on 9D: the run that fits by rank is the same colour
    refused(RR, s, "1-5", Reason.DOES_NOT_FIT)  # nothing in the run goes on 5S
    refused(RR, s, "1-2/4", Reason.NOT_FREE_CARD)  # 5D 9S 8H 7C is no run
    refused(RR, s, "1-2/9", Reason.NOT_FREE_CARD)  # longer than the column
    refused(RR, s, "1-2/2", Reason.DOES_NOT_FIT)  # 8H does not go on TD
    refused(RR, s, "1-3/2", Reason.WRONG_COLOUR)


def test_a_run_of_any_length_moves() -> None:
    run = "QH JS TH 9S 8H 7S 6H 5S 4H 3S 2H AS"
    s = pos("KD " + run, "KC")
    new, move = play(RR, s, "1-2")
    assert move == "1-2/12"
    assert text(new.columns[1]) == "KC " + run


def test_a_run_goes_by_its_highest_card() -> None:
    """docs/rules.md: "a run by its highest card" goes onto a free card one rank higher and of the other colour."""
    s = pos("KC 8H 7C", "KD 9S", "KS 8D")
    assert play(RR, s, "1-2")[1] == "1-2/2"  # 8H, the run's highest card, on 9S
    assert play(RR, s, "1-3")[1] == "1-3/1"  # a run's tail is a run too: 7C alone on 8D
    refused(RR, s, "1-3/2", Reason.DOES_NOT_FIT)  # the highest card, 8H, does not go on 8D
    refused(RR, s, "1-2/1", Reason.DOES_NOT_FIT)  # 7C alone does not go on 9S


@pytest.mark.parametrize("game", FAMILY, ids=lambda g: g.id)
def test_sequence_moves_off_refuses_runs_but_not_single_cards(game: Game) -> None:
    """docs/rules.md: the option exists in all four king-chain games; off, a run of 2+ cards between columns is refused
    and its one-card neighbour accepted; on (the default), the run moves."""
    no_runs = get_game(game.id, {"sequence_moves": False})
    s = pos("KC 5D 9S 8H 7C", "KD TD", "KS 8D", ncols=len(game.deal(bytes(32)).columns))
    refused(no_runs, s, "1-2", Reason.SEQUENCE_MOVES_OFF)
    refused(no_runs, s, "1-2/3", Reason.SEQUENCE_MOVES_OFF)
    assert play(no_runs, s, "1-3")[1] == "1-3/1"
    assert play(game, s, "1-2")[1] == "1-2/3"
    assert {m.text() for m in no_runs.legal_moves(s) if m.target and m.target.kind.value == ""} == {"1-3/1"}
    assert "1-2/3" in {m.text() for m in game.legal_moves(s)}
    assert "1-2/3" not in {m.text() for m in no_runs.legal_moves(s)}


@pytest.mark.parametrize("variant", ["royal-retinue", "royal-retinue-aces", "royal-retinue-kings-last", "cats-tail"])
def test_sequence_moves_is_an_option_of_the_four_king_chain_games(variant: str) -> None:
    assert get_game(variant).options == {"sequence_moves": True}  # the default
    off = get_game(variant, {"sequence_moves": "false"})
    assert off.options == {"sequence_moves": False} and off.options_text() == "sequence_moves=false"
    assert get_game(variant, {"sequence_moves": "true"}).options_text() == ""
    with pytest.raises(VariantError) as info:
        get_game(variant, {"sequence_moves": "sometimes"})
    assert info.value.reason is Reason.BAD_OPTION


@pytest.mark.parametrize("variant", ["tribunal", "picture-gallery", "captives", "sultan-36", "sultan-52"])
def test_sequence_moves_is_no_option_of_the_other_games(variant: str) -> None:
    with pytest.raises(VariantError) as info:
        get_game(variant, {"sequence_moves": False})
    assert info.value.reason is Reason.BAD_OPTION


def test_an_emptied_column_is_dead() -> None:
    s = pos("KC 7H", "KD 8S", "AH", "9C 8H", "KH TD", "6D", cells="6S")
    for emptying in ("3-f", "4-5", "6-r"):
        new, _ = play(RR, s, emptying)
        dead = int(emptying[0])
        assert new.columns[dead - 1] == ()
        refused(RR, new, f"1-{dead}", Reason.DEAD_COLUMN)
        refused(RR, new, f"r1-{dead}", Reason.DEAD_COLUMN)
        assert all(m.target is None or m.target.text() != str(dead) for m in RR.legal_moves(new))
    assert play(RR, s, "r1-1")[1] == "r1-1"  # 6S on 7H: the same cell onto a live column


def test_source_and_target_checks() -> None:
    s = pos("KC 7H", "", "KD 8S")
    refused(RR, s, "1-1", Reason.SAME_PILE)
    refused(RR, s, "2-3", Reason.EMPTY_PILE)
    refused(RR, s, "2-r", Reason.EMPTY_PILE)
    refused(RR, s, "2-f", Reason.EMPTY_PILE)
    refused(RR, s, "9-1", Reason.NO_SUCH_PILE)  # royal-retinue has 8 columns
    refused(RR, s, "1-9", Reason.NO_SUCH_PILE)
    refused(RR, s, "1-r9", Reason.NO_SUCH_PILE)
    refused(RR, s, "1-f9", Reason.NO_SUCH_PILE)
    refused(RR, s, "r9-1", Reason.NO_SUCH_PILE)
    refused(RR, s, "f9-f1", Reason.NO_SUCH_PILE)
    refused(RR, s, "w-f", Reason.NO_SUCH_PILE)
    refused(RR, s, "c3-f1", Reason.NO_SUCH_PILE)
    assert play(RR, s, "1-3")[1] == "1-3/1"


def test_cats_tail_has_a_ninth_column() -> None:
    s = pos("KC 7H", "", "", "", "", "", "", "", "KD 8S", ncols=9)
    assert play(CATS, s, "1-9")[1] == "1-9/1"
    refused(RR, pos("KC 7H", "KD 8S"), "1-9", Reason.NO_SUCH_PILE)


def test_moves_the_family_lacks() -> None:
    s = pos("KC 7H", "KD 8S", cells="5D")
    for move in ("d", "s", "rd", "3-k", "1-k"):
        refused(RR, s, move, Reason.NOT_IN_THIS_GAME)
    # Decision: only the king-row move itself (a column to k) is a move kind; k after another pile is no pile
    refused(RR, s, "r1-k", Reason.NO_SUCH_PILE)


# -- the reserve ------------------------------------------------------------------------------------------


def test_a_free_card_goes_to_the_first_empty_cell_or_a_named_empty_cell() -> None:
    s = pos("KC 7H", "KD 8S", cells="5D - 6C")
    new, move = play(RR, s, "1-r")
    assert move == "1-r2"
    assert cells_text(new) == "5D 7H 6C - - - - -" and text(new.columns[0]) == "KC"
    new, move = play(RR, s, "1-r4")
    assert move == "1-r4" and cells_text(new) == "5D - 6C 7H - - - -"
    e = refused(RR, s, "1-r3", Reason.CELL_OCCUPIED)
    assert "6C" in e.message
    full = pos("KC 7H", "KD 8S", cells="AS 2S 3S 4S 5S 6S 7S 8S")
    refused(RR, full, "1-r", Reason.RESERVE_FULL)
    refused(RR, full, "1-r8", Reason.CELL_OCCUPIED)


def test_a_reserve_card_goes_back_by_the_build_rule_or_to_a_foundation() -> None:
    s = pos("KC 8S", "KD 8H", "KH 9S", "", cells="7H 2D", foundations=("AD",))
    new, move = play(RR, s, "r1-1")
    assert move == "r1-1"
    assert text(new.columns[0]) == "KC 8S 7H" and new.cells[0] == NO_CARD
    assert play(RR, s, "r1-1/1")[1] == "r1-1"
    refused(RR, s, "r1-2", Reason.WRONG_COLOUR)
    refused(RR, s, "r1-3", Reason.DOES_NOT_FIT)
    refused(RR, s, "r1-4", Reason.DEAD_COLUMN)
    refused(RR, s, "r1-1/2", Reason.NOT_FREE_CARD)
    refused(RR, s, "r3-1", Reason.EMPTY_PILE)
    refused(RR, s, "r3-f", Reason.EMPTY_PILE)
    new, move = play(RR, s, "r2-f")
    assert move == "r2-f1" and text(new.foundations[0]) == "AD 2D" and new.cells[1] == NO_CARD
    assert play(RR, s, "r2-f1")[1] == "r2-f1"
    refused(RR, s, "r1-f", Reason.DOES_NOT_FIT)
    refused(RR, s, "r2-f2", Reason.DOES_NOT_FIT)  # an empty foundation takes an ace only


def test_reserve_to_reserve_is_refused() -> None:
    """Decision: the cells are interchangeable; a reserve card goes to a column or a foundation."""
    s = pos("KC 8S", cells="7H")
    refused(RR, s, "r1-r2", Reason.NOT_IN_THIS_GAME)
    refused(RR, s, "r1-r", Reason.NOT_IN_THIS_GAME)
    assert play(RR, s, "r1-1")[1] == "r1-1"


def test_one_to_eight_free_cards_go_to_the_reserve_in_one_move() -> None:
    s = pos("KC 3H 9D", "KD 4C", "KH 5S 7D 6C", cells="JS")
    new, move = play(RR, s, "3,1,3,3-r")
    assert move == "3,1,3,3-r"  # one move; the cards are each column's free card at that moment
    assert cells_text(new) == "JS 6C 9D 7D 5S - - -"
    assert text(new.columns[2]) == "KH" and text(new.columns[0]) == "KC 3H"
    refused(RR, s, "3,3,3,3,3-r", Reason.EMPTY_PILE)  # column 3 holds 4 cards, its king included
    new, _ = play(RR, s, "3,3,3,3-r")
    assert new.columns[2] == () and cells_text(new) == "JS 6C 7D 5S KH - - -"
    eight = pos("KC QD JS TD 9S 8D 7S 6D", "KH 2C")
    new, move = play(RR, eight, "1,1,1,1,1,1,1,2-r")
    assert cells_text(new) == "6D 7S 8D 9S TD JS QD 2C" and text(new.columns[0]) == "KC"
    with pytest.raises(NotationError):
        Move.parse("1,1,1,1,1,1,1,1,2-r")  # at most 8


def test_a_multi_card_reserve_move_needs_enough_empty_cells() -> None:
    s = pos("KC 3H 9D", "KD 4C", cells="JS QS 2S 3S 4S 5S")
    refused(RR, s, "1,1,2-r", Reason.RESERVE_FULL)
    new, _ = play(RR, s, "1,2-r")
    assert cells_text(new) == "JS QS 2S 3S 4S 5S 9D 4C"
    refused(RR, s, "1,9-r", Reason.NO_SUCH_PILE)


def test_a_multi_card_reserve_move_may_empty_a_column_then_fails_on_it() -> None:
    s = pos("KC 3H", "KD 4C")
    refused(RR, s, "1,1,1-r", Reason.EMPTY_PILE)
    new, _ = play(RR, s, "1,1-r")
    assert new.columns[0] == () and cells_text(new) == "3H KC - - - - - -"


def test_multi_card_reserve_moves_are_not_in_legal_moves() -> None:
    s = pos("KC 3H", "KD 4C")
    moves = {m.text() for m in RR.legal_moves(s)}
    assert {"1-r1", "2-r1"} <= moves
    assert not any("," in m for m in moves)


def test_sequence_moves_off_still_allows_multi_card_reserve_moves() -> None:
    """Decision: the option forbids runs between columns only."""
    s = pos("KC 3H 9D", "KD 4C", ncols=9)
    new, _ = play(CATS_NO_RUNS, s, "1,1,2-r")
    assert cells_text(new) == "9D 3H 4C - - - - -"


# -- foundations -------------------------------------------------------------------------------------------


def test_any_free_ace_starts_a_foundation_and_foundations_build_up_in_suit() -> None:
    s = pos("KC AH", "KD 2H", "KS 3D", "KH 2S", cells="AD", foundations=("AS", "AH", "AD 2D"))
    new, move = play(RR, s, "1-f")
    assert move == "1-f4" and text(new.foundations[3]) == "AH" and text(new.columns[0]) == "KC"
    assert play(RR, s, "1-f6")[1] == "1-f6"
    refused(RR, s, "1-f1", Reason.DOES_NOT_FIT)  # an ace goes on an empty foundation only
    new, move = play(RR, s, "2-f")
    assert move == "2-f2" and text(new.foundations[1]) == "AH 2H"
    refused(RR, s, "2-f1", Reason.WRONG_SUIT)  # 2H on AS
    refused(RR, s, "2-f3", Reason.DOES_NOT_FIT)  # 2H on 2D: rank before suit
    refused(RR, s, "2-f4", Reason.DOES_NOT_FIT)  # 2H on an empty foundation
    assert play(RR, s, "3-f")[1] == "3-f3"
    assert play(RR, s, "4-f")[1] == "4-f1"
    assert play(RR, s, "r1-f")[1] == "r1-f4"


def test_first_foundation_that_fits() -> None:
    s = pos("KC 2H", foundations=("AS", "AH", "AC", "AH"))
    assert play(RR, s, "1-f")[1] == "1-f2"
    assert play(RR, s, "1-f4")[1] == "1-f4"
    assert [m.text() for m in RR.legal_moves(s) if m.target and m.target.text().startswith("f")] == ["1-f2"]


def test_no_foundation_fits() -> None:
    s = pos("KC 4H", "KD 3C", foundations=("AS 2S", "AH"))
    refused(RR, s, "1-f", Reason.DOES_NOT_FIT)  # no foundation has a 3 on top
    refused(RR, s, "2-f", Reason.WRONG_SUIT)  # 2S is one below 3C, but spades


def test_nothing_moves_by_itself() -> None:
    """An ace freed by a move stays where it is until the player moves it (auto-play sends ordinary moves)."""
    s = pos("KC AH 7S", "KD 8H", cells="2H")
    new, _ = play(RR, s, "1-2")
    assert text(new.columns[0]) == "KC AH" and new.foundations == ((),) * 8 and card_text(new.cells[0]) == "2H"
    assert play(RR, new, "1-f")[1] == "1-f1"
    refused(RR, s, "1-f", Reason.DOES_NOT_FIT)  # before the move, 7S hides the ace


def test_foundation_cards_never_come_back() -> None:
    """Decision: a foundation card leaves the foundations only by a foundation run."""
    s = pos("KC 3S", foundations=("AH 2H", "AS 2S"))
    refused(RR, s, "f1-1", Reason.NOT_IN_THIS_GAME)
    refused(RR, s, "f1-r", Reason.NOT_IN_THIS_GAME)
    refused(RR, s, "f1-r1", Reason.NOT_IN_THIS_GAME)
    assert play(RR, s, "1-f")[1] == "1-f2"


# -- foundation runs ---------------------------------------------------------------------------------------------


def test_a_foundation_run_moves_onto_the_same_suit_one_rank_below_its_lowest_card() -> None:
    s = pos("KC", foundations=("AH 2H 3H 4H 5H 6H", "AD 2D", "", "AH 2H"))
    new, move = play(RR, s, "f1-f4/4")
    assert move == "f1-f4/4"
    assert text(new.foundations[0]) == "AH 2H" and text(new.foundations[3]) == "AH 2H 3H 4H 5H 6H"
    assert play(RR, s, "f1-f4")[1] == "f1-f4/4"
    assert play(RR, s, "f1-f")[1] == "f1-f4/4"
    assert play(RR, s, "f1-f/4")[1] == "f1-f4/4"
    refused(RR, s, "f1-f4/3", Reason.DOES_NOT_FIT)  # 4H on 2H
    refused(RR, s, "f1-f4/7", Reason.NOT_FREE_CARD)
    refused(RR, s, "f1-f2/4", Reason.WRONG_SUIT)  # 3H on 2D
    refused(RR, s, "f1-f2", Reason.WRONG_SUIT)
    refused(RR, s, "f1-f1", Reason.SAME_PILE)
    refused(RR, s, "f5-f1", Reason.EMPTY_PILE)
    refused(RR, s, "f4-f1", Reason.DOES_NOT_FIT)  # nothing of AH 2H goes on 6H
    assert [m.text() for m in RR.legal_moves(s) if m.source.kind.value == "f"] == ["f1-f4/4"]


def test_a_foundation_run_never_goes_onto_an_empty_foundation() -> None:
    """Decision: an empty foundation has no top card one rank below the run, not even for a whole pile."""
    s = pos("KC", foundations=("AH 2H 3H", "", "AH"))
    refused(RR, s, "f1-f2", Reason.DOES_NOT_FIT)
    refused(RR, s, "f1-f2/3", Reason.DOES_NOT_FIT)
    refused(RR, s, "f1-f2/2", Reason.DOES_NOT_FIT)
    assert play(RR, s, "f1-f3")[1] == "f1-f3/2"


def test_sequence_moves_off_still_allows_foundation_runs() -> None:
    """Decision: the option forbids runs between columns only."""
    s = pos("KC", foundations=("AH 2H 3H", "AH"), ncols=9)
    assert play(CATS_NO_RUNS, s, "f1-f2")[1] == "f1-f2/2"


# -- the end ------------------------------------------------------------------------------------------------


def _one_card_from_a_win() -> State:
    suits = "CDHS"
    ranks = "A23456789TJQK"
    piles = [" ".join(r + s for r in ranks) for s in suits for _ in range(2)]
    piles[7] = piles[7][:-3]  # the last KS is still in column 1
    return pos("KS", "", foundations=tuple(piles))


def test_won_when_all_104_cards_are_home_and_nothing_is_legal_after() -> None:
    s = _one_card_from_a_win()
    assert not RR.is_won(s) and RR.status(s) is Status.IN_PROGRESS
    new, move = play(RR, s, "1-f")
    assert move == "1-f8"
    assert RR.is_won(new) and RR.status(new) is Status.WON
    assert list(RR.legal_moves(new)) == []
    for after in ("1-f", "1-2", "f1-f2", "r1-1", "d", "3,4-r", "w-f", "1-1"):
        refused(RR, new, after, Reason.GAME_OVER)


def test_a_stuck_position() -> None:
    s = pos("KC 5H", "KD 9C", cells="9S 9S 9H 9H 8C 8C 7D 7D")
    assert list(RR.legal_moves(s)) == []
    assert RR.status(s) is Status.STUCK


# -- legal moves ----------------------------------------------------------------------------------------------


def _candidates(state: State) -> set[str]:
    """Every move in the explicit forms legal_moves yields, legal or not."""
    n = len(state.columns)
    out = {f"{a}-{b}/{k}" for a in range(1, n + 1) for b in range(1, n + 1) for k in range(1, 14)}
    out |= {f"{a}-r{c}" for a in range(1, n + 1) for c in range(1, 9)}
    out |= {f"{a}-f{f}" for a in range(1, n + 1) for f in range(1, 9)}
    out |= {f"r{c}-{b}" for c in range(1, 9) for b in range(1, n + 1)}
    out |= {f"r{c}-f{f}" for c in range(1, 9) for f in range(1, 9)}
    out |= {f"f{a}-f{b}/{k}" for a in range(1, 9) for b in range(1, 9) for k in range(1, 14)}
    return out


def _canonical(game: Game, state: State, move: str) -> bool:
    """Whether a legal explicit move is the one legal_moves yields (first empty cell, first foundation)."""
    m = Move.parse(move)
    assert m.target is not None
    if m.target.kind.value == "r":
        return m.target.index == state.cells.index(NO_CARD) + 1
    if m.target.kind.value == "f" and m.source.kind.value != "f":
        loose = Move(m.kind, m.sources, type(m.target)(m.target.kind), m.count)
        return game.play(state, loose)[1] == m
    return True


@pytest.mark.parametrize("game", [*FAMILY, CATS_NO_RUNS], ids=lambda g: g.id + g.options_text())
def test_legal_moves_are_exactly_the_accepted_explicit_moves(game: Game) -> None:
    rng = random.Random(7)
    checked = 0
    for seed in seeds(10):
        s = game.deal(seed)
        for step in range(120):
            moves = [m.text() for m in game.legal_moves(s)]
            assert len(moves) == len(set(moves))
            if step % 40 == 0:
                accepted = {m for m in _candidates(s) if game.is_legal(s, m) and _canonical(game, s, m)}
                assert set(moves) == accepted
                checked += 1
            if not moves:
                break
            for m in moves:
                new, explicit = game.play(s, Move.parse(m))
                assert explicit.text() == m
                assert sorted(new.all_cards()) == sorted(s.all_cards())
            s = game.play(s, rng.choice(moves))[0]
    assert checked >= 20


def test_played_positions_are_ordinary_states() -> None:
    """play builds States without the dataclass __init__ (for speed): they must equal and hash like any."""
    s = CATS.deal(bytes(32))
    new = CATS.play(s, next(iter(CATS.legal_moves(s))))[0]
    twin = State(new.columns, new.cells, new.foundations)
    assert new == twin and hash(new) == hash(twin) and repr(new) == repr(twin)
    assert (new.stock, new.waste, new.captives, new.fixed, new.redeals, new.fresh) == ((), (), (), (), 0, False)


def test_the_quick_state_constructor_builds_the_same_state() -> None:
    from engine.games.king_chain_tables import new_state as _state

    columns, cells, foundations = ((1, 2), (3,)), (-1, 5), ((0,), ())
    quick = _state(columns, cells, foundations)
    assert type(quick) is State
    assert quick == State(columns=columns, cells=cells, foundations=foundations)
    assert (quick.stock, quick.waste, quick.captives, quick.fixed, quick.redeals, quick.fresh) == (
        (),
        (),
        (),
        (),
        0,
        False,
    )
