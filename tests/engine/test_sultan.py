"""Family 4, the Sultan's Harem (docs/rules.md "Family 4", docs/rules-decisions.md "Family 4: Sultan's Harem").

Every rule and Decision has its legal case accepted and its illegal neighbour
refused with the right Reason, for both decks where they differ. Positions are
dealt from hand-built decks (``deal_from``) or built by hand as plain ``State`` values.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import IllegalMoveError, Move, Reason, State, Status, get_game
from engine.cards import NO_CARD, Card, canonical_deck, card_text, parse_card
from engine.deal import shuffle
from engine.games.sultan import Sultan36, Sultan52
from engine.moves import PileKind
from engine.verify import Outcome, replay
from engine.view import hidden_cards, player_view

s36 = Sultan36()
s52 = Sultan52()
GAMES = [s36, s52]
KINGS = "KC KC KD KD KH KS KS"
#: The ranks after the ace, up to the queen.
CLIMB = {72: "6789TJQ", 104: "23456789TJQ"}


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def texts(pile: tuple[Card, ...]) -> str:
    return " ".join(card_text(c) for c in pile)


def deck_with(game: Sultan36, top: str) -> list[Card]:
    """A whole deck of ``game``: ``top`` first, then the rest in canonical order."""
    head = list(cards(top))
    rest = canonical_deck(game.info.deck_size)
    for c in head:
        rest.remove(c)
    return head + rest


def position(
    game: Sultan36,
    foundations: list[str] | None = None,
    cells: str = "",
    stock: str = "",
    waste: str = "",
    redeals: int = 0,
) -> State:
    """A hand-built position: foundations given as extra cards over the starting K / AH."""
    extra = foundations or []
    extra += [""] * (8 - len(extra))
    bases = [*KINGS.split(), "AH"]
    slots = [NO_CARD if t == "--" else parse_card(t) for t in cells.split()]
    slots += [NO_CARD] * (game.side_slots - len(slots))
    return State(
        cells=tuple(slots),
        foundations=tuple(cards(f"{b} {x}") for b, x in zip(bases, extra, strict=True)),
        stock=cards(stock),
        waste=cards(waste),
        fixed=cards("KH"),
        redeals=redeals,
    )


def accept(game: Sultan36, state: State, move: str, explicit: str | None = None) -> State:
    """Play ``move``; check the explicit form returned and that legal_moves lists it."""
    new, resolved = game.play(state, Move.parse(move))
    assert resolved.text() == (explicit or move)
    assert Move.parse(resolved.text()) == resolved
    listed = list(game.legal_moves(state))
    if resolved.target is not None and resolved.target.kind is PileKind.FOUNDATION:
        assert game.play(state, f"{resolved.source.text()}-f")[1] in listed
    elif resolved.target is not None and resolved.target.kind is PileKind.RESERVE:
        assert game.play(state, "w-r")[1] in listed
    else:
        assert resolved in listed
    assert sorted(new.all_cards()) == sorted(state.all_cards())
    assert new.fixed == state.fixed
    return new


def refuse(game: Sultan36, state: State, move: str, reason: Reason) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        game.play(state, Move.parse(move))
    assert info.value.reason is reason, info.value
    assert info.value.text == Move.parse(move).text()
    assert Move.parse(move) not in list(game.legal_moves(state))
    return info.value


# -- catalogue --------------------------------------------------------------------------


def test_catalogue_gives_these_classes() -> None:
    assert type(get_game("sultan-36")) is Sultan36
    assert type(get_game("sultan-52")) is Sultan52
    assert s36.info.deck_size == 72 and s52.info.deck_size == 104
    assert s36.side_slots == 6 and s52.side_slots == 8
    assert s36.redeals_allowed() == 2 and s52.redeals_allowed() == 2


# -- the deal -----------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "stock"), [(s36, 57), (s52, 87)])
def test_deal_pulls_kings_and_topmost_ace_of_hearts(game: Sultan36, stock: int) -> None:
    d = deck_with(game, "7S KS AH 9D KH AH JC KC 8D 6C TS QH")
    s = game.deal_from(d)
    assert s.fixed == cards("KH")
    assert [texts(f) for f in s.foundations] == [*KINGS.split(), "AH"]
    rest = [c for c in d if card_text(c)[0] != "K"]
    rest.remove(parse_card("AH"))  # the topmost one only
    n = game.side_slots
    assert list(s.cells) == rest[:n]
    assert texts(s.cells[:6]) == "7S 9D AH JC 8D 6C"  # the second AH stays in its place
    assert list(s.stock) == rest[n:]
    assert len(s.stock) == stock
    assert s.waste == () and s.redeals == 0 and s.columns == () and s.captives == ()
    assert Counter(s.all_cards()) == Counter(d)


@pytest.mark.parametrize("game", GAMES)
def test_deal_pulls_the_ace_of_hearts_that_deal_step_7_chooses(game: Sultan36) -> None:
    """Of the two AH, the one the stream picks (k = 1: the lower one) goes to f8; the other keeps its place."""
    d = deck_with(game, "7S KS AH 9D KH JC KC 8D AH 6C TS QH")
    asked: list[int] = []

    def lower(m: int) -> int:
        asked.append(m)
        return 1

    s = game.deal_from(d, lower)
    assert asked == [2]
    assert s.foundations[-1] == cards("AH")
    assert texts(s.cells[:6]) == "7S AH 9D JC 8D 6C"  # the upper AH stays in its place
    rest = [c for c in d if card_text(c)[0] != "K"]
    del rest[rest.index(parse_card("AH"), rest.index(parse_card("AH")) + 1)]
    assert [*s.cells, *s.stock] == rest
    assert texts(game.deal_from(d).cells[:6]) == "7S 9D JC 8D AH 6C"  # the default: the topmost one


@pytest.mark.parametrize("game", GAMES)
def test_foundation_order_does_not_depend_on_where_the_kings_were(game: Sultan36) -> None:
    a = game.deal_from(deck_with(game, "KS KS KH KH KD KD KC KC AH"))
    b = game.deal_from(deck_with(game, "AH KC KD KH KS"))
    assert a.foundations == b.foundations
    assert [texts(f) for f in a.foundations] == [*KINGS.split(), "AH"]


@pytest.mark.parametrize("game", GAMES)
def test_seeded_deal_is_deal_v2(game: Sultan36) -> None:
    seed = bytes(range(32))
    shuffled = shuffle(seed, game.id, game.info.deck_size)
    assert game.deal(seed) == game.deal_from(shuffled.cards, shuffled.random.uniform)
    assert game.deal(seed) != game.deal(bytes(32))
    assert Counter(game.deal(seed).all_cards()) == Counter(canonical_deck(game.info.deck_size))


def test_deal_from_refuses_a_wrong_deck() -> None:
    with pytest.raises(ValueError):
        s36.deal_from(canonical_deck(104))
    with pytest.raises(ValueError):
        s52.deal_from(canonical_deck(72))
    with pytest.raises(ValueError):
        s36.deal_from([*canonical_deck(72)[:-1], parse_card("AH")])


@pytest.mark.parametrize("game", GAMES)
def test_only_the_stock_order_is_hidden(game: Sultan36) -> None:
    s = game.deal(bytes(range(32)))
    view = player_view(game, s)
    assert view.stock is None and view.stock_count == len(s.stock)
    assert view.cells == s.cells and view.fixed == cards("KH")
    assert Counter(hidden_cards(game, s)) == Counter(s.stock)


# -- foundations ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_king_takes_its_ace(game: Sultan36) -> None:
    s = position(game, waste="AC")
    s2 = accept(game, s, "w-f", "w-f1")
    assert texts(s2.foundations[0]) == "KC AC"
    accept(game, s, "w-f2")
    refuse(game, s, "w-f3", Reason.WRONG_SUIT)
    refuse(game, s, "w-f8", Reason.DOES_NOT_FIT)  # AC on AH
    # The second AC goes to the second KC.
    accept(game, position(game, ["AC"], waste="AC"), "w-f", "w-f2")


def test_36_card_piles_go_ace_then_six() -> None:
    s = position(s36, ["AC"], waste="6C")
    accept(s36, s, "w-f", "w-f1")
    refuse(s36, position(s36, ["AC"], waste="7C"), "w-f1", Reason.DOES_NOT_FIT)
    refuse(s36, position(s36, ["AC"], waste="6D"), "w-f1", Reason.WRONG_SUIT)
    refuse(s36, position(s36, ["AC"], waste="7D"), "w-f1", Reason.DOES_NOT_FIT)  # rank before suit


def test_52_card_piles_go_ace_then_two() -> None:
    s = position(s52, ["AC"], waste="2C")
    accept(s52, s, "w-f", "w-f1")
    refuse(s52, position(s52, ["AC"], waste="6C"), "w-f1", Reason.DOES_NOT_FIT)
    refuse(s52, position(s52, ["AC"], waste="2S"), "w-f1", Reason.WRONG_SUIT)


@pytest.mark.parametrize("game", GAMES)
def test_ace_of_hearts_builds_hearts_from_the_lowest_rank_after_ace(game: Sultan36) -> None:
    low = CLIMB[game.info.deck_size][0]
    s = position(game, waste=f"{low}H")
    accept(game, s, "w-f", "w-f8")  # the KH (f5) needs its ace first
    refuse(game, s, "w-f5", Reason.DOES_NOT_FIT)
    refuse(game, position(game, waste=f"{low}S"), "w-f8", Reason.WRONG_SUIT)
    refuse(game, position(game, waste="8H"), "w-f8", Reason.DOES_NOT_FIT)
    # The second AH goes onto the other KH, f5.
    accept(game, position(game, waste="AH"), "w-f", "w-f5")


@pytest.mark.parametrize("game", GAMES)
def test_pile_climbs_to_the_queen_and_stops(game: Sultan36) -> None:
    climb = CLIMB[game.info.deck_size]
    upto_j = " ".join(f"{r}S" for r in ("A", *climb[:-1]))
    s = position(game, ["", "", "", "", "", upto_j], waste="QS")
    s = accept(game, s, "w-f", "w-f6")
    assert texts(s.foundations[5]).endswith("JS QS")
    # A queen closes the pile: the next QS goes to f7 (which needs an ace, so it fits nowhere).
    s = State(cells=s.cells, foundations=s.foundations, waste=cards("QS"), fixed=s.fixed)
    refuse(game, s, "w-f6", Reason.DOES_NOT_FIT)
    refuse(game, s, "w-f", Reason.DOES_NOT_FIT)


@pytest.mark.parametrize("game", GAMES)
def test_foundation_pile_errors(game: Sultan36) -> None:
    s = position(game, cells="AC", waste="AD")
    refuse(game, s, "w-f9", Reason.NO_SUCH_PILE)
    refuse(game, position(game), "w-f9", Reason.NO_SUCH_PILE)  # before the empty waste
    refuse(game, s, "r2-f9", Reason.NO_SUCH_PILE)  # before the empty slot
    refuse(game, s, "r2-f", Reason.EMPTY_PILE)
    refuse(game, position(game), "w-f", Reason.EMPTY_PILE)
    refuse(game, position(game, waste="7C"), "w-f", Reason.DOES_NOT_FIT)
    refuse(game, s, "f1-f2", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "f1-f2/1", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "f8-r2", Reason.NOT_IN_THIS_GAME)


# -- side slots -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_side_slot_card_goes_to_a_foundation(game: Sultan36) -> None:
    s = position(game, cells="7S AD")
    s2 = accept(game, s, "r2-f", "r2-f3")
    assert s2.cells[1] == NO_CARD and texts(s2.foundations[2]) == "KD AD"
    # Nothing refills the slot by itself.
    assert s2.stock == s.stock and s2.waste == s.waste
    accept(game, s, "r2-f4")
    refuse(game, s, "r1-f", Reason.DOES_NOT_FIT)
    refuse(game, s, "r2-f1", Reason.WRONG_SUIT)
    refuse(game, s, "r3-f", Reason.EMPTY_PILE)


@pytest.mark.parametrize("game", GAMES)
def test_empty_side_slot_takes_the_waste_top(game: Sultan36) -> None:
    s = position(game, cells="7S -- 8S", waste="2D 9C")
    s2 = accept(game, s, "w-r2")
    assert texts(s2.cells[:3]) == "7S 9C 8S" and texts(s2.waste) == "2D"
    accept(game, s, "w-r", "w-r2")  # the first empty slot
    accept(game, s, "w-r4")
    refuse(game, s, "w-r1", Reason.CELL_OCCUPIED)
    refuse(game, position(game, cells="7S -- 8S"), "w-r2", Reason.EMPTY_PILE)


@pytest.mark.parametrize("game", GAMES)
def test_all_side_slots_full(game: Sultan36) -> None:
    s = position(game, cells=" ".join(["7S"] * game.side_slots), waste="9C")
    refuse(game, s, "w-r", Reason.RESERVE_FULL)
    refuse(game, s, "w-r1", Reason.CELL_OCCUPIED)


def test_side_slot_names_per_deck() -> None:
    refuse(s36, position(s36, waste="9C"), "w-r7", Reason.NO_SUCH_PILE)
    refuse(s36, position(s36, waste="9C"), "r7-f", Reason.NO_SUCH_PILE)
    accept(s52, position(s52, waste="9C"), "w-r8")
    refuse(s52, position(s52, waste="9C"), "w-r9", Reason.NO_SUCH_PILE)


@pytest.mark.parametrize("game", GAMES)
def test_side_slot_takes_only_the_waste_top(game: Sultan36) -> None:
    s = position(game, cells="7S -- 8S", waste="9C")
    refuse(game, s, "r1-r2", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "r1-r", Reason.NOT_IN_THIS_GAME)
    refuse(game, s, "f1-r2", Reason.NOT_IN_THIS_GAME)
    accept(game, s, "w-r2")


# -- stock and waste ------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_stock_one_card_a_move(game: Sultan36) -> None:
    s = position(game, stock="7S 8S 9S")
    s = accept(game, s, "s")
    assert texts(s.waste) == "7S" and texts(s.stock) == "8S 9S"
    s = accept(game, accept(game, s, "s"), "s")
    assert texts(s.waste) == "7S 8S 9S"
    refuse(game, s, "s", Reason.STOCK_EMPTY)


@pytest.mark.parametrize("game", GAMES)
def test_turning_keeps_the_order_and_three_passes_in_all(game: Sultan36) -> None:
    full = " ".join(["9C"] * game.side_slots)
    s = position(game, cells=full, stock="7S 8S 9S")
    for turn in (1, 2):
        s = accept(game, accept(game, accept(game, s, "s"), "s"), "s")
        s = accept(game, s, "rd")
        assert s.redeals == turn
        assert texts(s.stock) == "7S 8S 9S" and s.waste == ()  # the card turned first comes first again
    s = accept(game, accept(game, accept(game, s, "s"), "s"), "s")
    refuse(game, s, "rd", Reason.NO_REDEALS_LEFT)
    assert game.status(s) is Status.STUCK


@pytest.mark.parametrize("game", GAMES)
def test_a_stock_turned_over_from_the_waste_is_no_secret(game: Sultan36) -> None:
    """The player saw the waste's cards turned, in order: after ``rd`` the view shows the stock; before, it does
    not."""
    s = position(game, cells=" ".join(["9C"] * game.side_slots), stock="7S 8S 9S")
    s = accept(game, accept(game, s, "s"), "s")
    assert player_view(game, s).stock is None and texts(tuple(hidden_cards(game, s))) == "9S"
    turned = accept(game, accept(game, s, "s"), "rd")
    assert player_view(game, turned).stock == turned.stock and hidden_cards(game, turned) == []


@pytest.mark.parametrize("game", GAMES)
def test_redeal_needs_an_empty_stock_and_a_waste(game: Sultan36) -> None:
    refuse(game, position(game, stock="7S", waste="8S"), "rd", Reason.STOCK_NOT_EMPTY)
    refuse(game, position(game), "rd", Reason.EMPTY_PILE)
    refuse(game, position(game, stock="7S", waste="8S", redeals=2), "rd", Reason.NO_REDEALS_LEFT)
    accept(game, position(game, waste="8S", redeals=1), "rd")


@pytest.mark.parametrize("game", GAMES)
def test_stock_may_be_turned_while_other_moves_exist(game: Sultan36) -> None:
    s = position(game, cells="AC", stock="7S", waste="AD")
    assert len(list(game.legal_moves(s))) == 4  # r1-f1, w-f3, w-r2, s
    accept(game, s, "s")


@pytest.mark.parametrize("game", GAMES)
def test_waste_may_be_turned_over_whenever_the_stock_is_empty(game: Sultan36) -> None:
    """Decision (docs/rules.md): "when the whole deck is open and there are no more moves" is advice: with a foundation
    move still open, ``rd`` is legal once the stock is empty; with a card left in the stock it is not."""
    s = position(game, cells="AC", waste="8S AD")
    assert {m.text() for m in game.legal_moves(s)} >= {"r1-f1", "w-f3", "rd"}
    turned = accept(game, s, "rd")
    assert texts(turned.stock) == "8S AD" and turned.waste == () and turned.redeals == 1
    refuse(game, position(game, cells="AC", stock="7S", waste="8S AD"), "rd", Reason.STOCK_NOT_EMPTY)


# -- moves this game lacks ------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_moves_this_game_lacks(game: Sultan36) -> None:
    s = position(game, cells="AC", waste="AD")
    for move in ("d", "1,2-r", "1-2", "1-f", "w-3", "r1-3", "3-r"):
        refuse(game, s, move, Reason.NOT_IN_THIS_GAME)
    for move in ("w-k", "r1-k", "c1-f"):
        refuse(game, s, move, Reason.NO_SUCH_PILE)


# -- winning, stuck ---------------------------------------------------------------------------


def win_setup(game: Sultan36) -> tuple[list[Card], list[str]]:
    """A deck whose stock arrives in building order, and the moves that win it.

    The cards needed, rank by rank over f1..f8, make the build order; its last
    cards sit in the side slots, the rest is the stock. The kings and both AHs are
    spread through the deck so the deal has to pull them out.
    """
    suits = "CCDDHSS"
    order: list[str] = [f"A{s}" for s in suits]
    for r in CLIMB[game.info.deck_size]:
        order += [f"{r}{s}" for s in suits] + [f"{r}H"]
    n = game.side_slots
    stock, slots = order[:-n], order[-n:]
    rest = slots + stock
    kings = ["KH", *KINGS.split()]
    head: list[str] = ["AH"]  # the topmost AH, pulled out
    for i, c in enumerate(rest):
        head.append(c)
        if i % 7 == 3 and kings:
            head.append(kings.pop())
    head += kings
    moves = ["s", "w-f"] * len(stock) + [f"r{i}-f" for i in range(1, n + 1)]
    return list(cards(" ".join(head))), moves


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_won_game(game: Sultan36) -> None:
    d, moves = win_setup(game)
    assert Counter(d) == Counter(canonical_deck(game.info.deck_size))
    start = game.deal_from(d)
    assert len(start.stock) == moves.count("s")
    result = replay(game, start, moves)
    assert result.verdict.outcome is Outcome.WON, result.verdict.describe()
    s = result.state
    assert game.is_won(s) and game.status(s) is Status.WON
    assert [texts(f)[-2:] for f in s.foundations] == ["QC", "QC", "QD", "QD", "QH", "QS", "QS", "QH"]
    assert s.fixed == cards("KH")
    assert list(game.legal_moves(s)) == []
    for move in ("s", "rd", "w-f", "r1-f", "w-r", "1-2"):
        refuse(game, s, move, Reason.GAME_OVER)
    before = replay(game, start, moves[:-1]).state
    assert not game.is_won(before)
    assert [m.text() for m in game.legal_moves(before)] == [f"r{game.side_slots}-f8"]


@pytest.mark.parametrize("game", GAMES)
def test_stuck_after_the_third_pass(game: Sultan36) -> None:
    full = " ".join(["9C"] * game.side_slots)
    s = position(game, cells=full, waste="8S 7S", redeals=2)
    assert game.status(s) is Status.STUCK
    assert list(game.legal_moves(s)) == []
    # Neighbours: an empty side slot, or a turn left.
    assert game.status(position(game, cells="--", waste="8S 7S", redeals=2)) is Status.IN_PROGRESS
    assert game.status(position(game, cells=full, waste="8S 7S", redeals=1)) is Status.IN_PROGRESS


# -- whole-game properties -------------------------------------------------------------------


def candidate_moves() -> list[str]:
    """A wide net of move texts, legal or not."""
    srcs = ["w", "1", "c1"] + [f"r{i}" for i in range(1, 10)] + [f"f{i}" for i in range(1, 10)]
    dsts = ["f", "r", "k", "1"] + [f"f{i}" for i in range(1, 10)] + [f"r{i}" for i in range(1, 10)]
    return ["s", "rd", "d"] + [f"{a}-{b}" for a in srcs for b in dsts]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playouts_conserve_cards_and_agree_with_legal_moves(game: Sultan36, seed: int) -> None:
    rnd = random.Random(seed)
    s = game.deal(bytes([seed]) * 32)
    deck = Counter(s.all_cards())
    nets = candidate_moves()
    for step in range(2000):
        legal = list(game.legal_moves(s))
        assert len(set(legal)) == len(legal)
        if step % 40 == 0:
            for text in nets:
                try:
                    _, explicit = game.play(s, Move.parse(text))
                except IllegalMoveError:
                    continue
                if explicit.target is not None and explicit.target.kind is PileKind.FOUNDATION:
                    explicit = game.play(s, f"{explicit.source.text()}-f")[1]
                elif explicit.target is not None and explicit.target.kind is PileKind.RESERVE:
                    explicit = game.play(s, "w-r")[1]
                assert explicit in legal, (text, explicit)
        if not legal:
            assert game.status(s) in (Status.STUCK, Status.WON)
            break
        move = rnd.choice(legal)
        new, explicit = game.play(s, move)
        assert explicit == move
        assert Counter(new.all_cards()) == deck
        assert new.fixed == cards("KH") and len(new.cells) == game.side_slots
        assert new.redeals <= 2
        s = new
    else:
        pytest.fail("a game of three passes must end")
