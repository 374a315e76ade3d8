"""The solver (engine/solver): every answer checked by the replay verifier, proofs on small positions.

"No win exists" is only claimed when the search has seen every reachable position, so it is checked on
hand-built positions small enough to know the answer, each beside a winnable neighbour.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.cards import NO_CARD, Card, parse_card
from engine.catalogue import configurations
from engine.game import Game
from engine.solver import Finding, solve
from engine.verify import Outcome as Verdict
from engine.verify import replay

#: Every variant with every option set (the defaults, and each option's other values).
CONFIGS = configurations()


def seed(i: int) -> bytes:
    return hashlib.sha256(b"solver-test-%d" % i).digest()


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def suit_pile(suit: str) -> tuple[Card, ...]:
    return cards(" ".join(r + suit for r in "A23456789TJQK"))


def assert_wins(game: Game, state: State, moves: tuple[object, ...]) -> None:
    verdict = replay(game, state, [m.text() for m in moves]).verdict  # type: ignore[attr-defined]
    assert verdict.outcome is Verdict.WON, verdict.describe()


# -- king-chain: hand-built endings ------------------------------------------------------------------


def hearts_ending(cells: str, columns: list[str]) -> State:
    """Clubs, diamonds and spades home twice; the 26 hearts in ``cells`` (``..`` empty) and ``columns``."""
    cols = [cards(c) for c in columns] + [()] * (8 - len(columns))
    cell = tuple(NO_CARD if t == ".." else parse_card(t) for t in cells.split())
    founds = (suit_pile("C"), suit_pile("C"), suit_pile("D"), suit_pile("D"), suit_pile("S"), suit_pile("S"), (), ())
    return State(columns=tuple(cols), cells=cell, foundations=founds)


HEART_COLUMNS = ["AH KH", "AH KH", "7H 7H 6H 6H 5H 5H", "9H 9H 8H 8H", "JH JH TH TH", "QH QH"]


def test_king_chain_no_win_is_proven_with_every_cell_taken() -> None:
    """Hearts never go on hearts, every cell is full and both aces lie under a king: nothing can be done."""
    game = get_game("royal-retinue")
    state = hearts_ending("2H 2H 3H 3H 4H 4H 5H 5H", ["AH KH", "AH KH", "7H 7H 6H 6H", *HEART_COLUMNS[3:]])
    found = solve(game, state, max_states=1000)
    assert found.outcome is Finding.NO_WIN
    assert found.moves == ()


def test_king_chain_no_win_is_proven_after_a_search() -> None:
    """One empty cell: a king can go there, but then its queen still covers the ace, whichever king it is."""
    game = get_game("royal-retinue")
    state = hearts_ending("2H 2H 3H 3H 4H 4H 5H ..", ["AH QH KH", "AH QH KH", "7H 7H 6H 6H 5H", *HEART_COLUMNS[3:5]])
    found = solve(game, state, max_states=1000)
    assert found.outcome is Finding.NO_WIN
    assert found.states >= 1


def test_king_chain_win_is_found_with_two_cells_free() -> None:
    """The winnable neighbour: two cells free, both kings go there and the hearts climb home."""
    game = get_game("royal-retinue")
    state = hearts_ending("2H 2H 3H 3H 4H 4H .. ..", HEART_COLUMNS)
    found = solve(game, state, max_states=1000)
    assert found.outcome is Finding.WON
    assert_wins(game, state, found.moves)


def test_budget_too_small_is_unknown_not_no_win() -> None:
    game = get_game("cats-tail")
    state = game.deal(seed(0))
    found = solve(game, state, max_states=1)
    assert found.outcome is Finding.UNKNOWN
    assert found.budget_hit == "states"
    assert solve(game, state, max_seconds=1e-9).budget_hit == "seconds"


# -- salic-law: hand-built endings ------------------------------------------------------------------


def tribunal_ending(columns: list[str]) -> State:
    """Seven foundations complete (A..J), the eighth up to 9; the ten and jack left in ``columns``."""
    full = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC")
    return State(columns=tuple(cards(c) for c in columns), foundations=(full,) * 7 + (full[:9],))


def test_tribunal_no_win_with_the_ten_under_the_jack() -> None:
    game = get_game("tribunal")
    found = solve(game, tribunal_ending(["KC TH JH"]), max_states=100)
    assert found.outcome is Finding.NO_WIN


def test_tribunal_win_with_a_lone_king_to_take_the_jack() -> None:
    game = get_game("tribunal")
    state = tribunal_ending(["KC TH JH", "KS"])
    found = solve(game, state, max_states=100)
    assert found.outcome is Finding.WON
    assert [m.text() for m in found.moves] == ["1-2/1", "1-f8", "2-f8"]
    assert_wins(game, state, found.moves)


# -- whole deals of every game ----------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=[f"{v}{o or ''}" for v, o in CONFIGS])
def test_every_game_is_solved_on_some_deal_and_each_win_replays(variant: str, options: dict[str, object]) -> None:
    game = get_game(variant, options)
    wins = 0
    for i in range(8):
        state = game.deal(seed(i))
        found = solve(game, state, max_states=5000)
        assert found.outcome is not Finding.NO_WIN or found.states < 5000
        if found.outcome is Finding.WON:
            wins += 1
            assert_wins(game, state, found.moves)
        if wins:
            break
    assert wins, f"no win in 8 deals of {variant} {options}"


@pytest.mark.parametrize("variant", ["cats-tail", "tribunal", "captives", "sultan-52"])
def test_a_budget_in_states_gives_the_same_answer_every_run(variant: str) -> None:
    game = get_game(variant)
    state = game.deal(seed(1))
    first = solve(game, state, max_states=600)
    again = solve(game, state, max_states=600)
    assert (first.outcome, first.moves, first.states) == (again.outcome, again.moves, again.states)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    seed_bytes=st.binary(min_size=32, max_size=32),
    budget=st.integers(min_value=1, max_value=400),
)
def test_whatever_the_solver_calls_a_win_replays_as_a_win(
    config: tuple[str, dict[str, object]], seed_bytes: bytes, budget: int
) -> None:
    variant, options = config
    game = get_game(variant, options)
    state = game.deal(seed_bytes)
    found = solve(game, state, max_states=budget)
    if found.outcome is Finding.WON:
        assert_wins(game, state, found.moves)
    else:
        assert found.moves == ()


def test_sultan_key_folds_the_two_heart_piles_as_legal_moves_does() -> None:
    """With A♥ on top of both the K♥ pile (f5) and the A♥ pile (f8), 2♥ goes to either: legal_moves names f5 only,
    and the solver's key must find w-f8's position equal to w-f5's (both piles take 3♥ .. Q♥ next)."""
    from engine.solver.profiles import profile_for

    game = get_game("sultan-52")
    state = game.deal(hashlib.sha256(b"two hearts").digest())
    found = list(state.foundations)
    found[4] = (parse_card("KH"), parse_card("AH"))
    found[7] = (parse_card("AH"),)
    waste = (*(c for c in state.stock if c != parse_card("2H")), parse_card("2H"))
    state = state._replace(foundations=tuple(found), stock=(), waste=waste)
    home = [m.text() for m in game.legal_moves(state) if m.target is not None and m.target.text().startswith("f")]
    assert home == ["w-f5"]
    key = profile_for(game).key
    to_f5 = game.play(state, "w-f5")[0]
    to_f8 = game.play(state, "w-f8")[0]
    assert to_f5.foundations != to_f8.foundations and key(to_f5) == key(to_f8)
    # a clubs pile is not a hearts pile: the key still tells suits apart
    assert key(to_f5) != key(
        to_f5._replace(
            foundations=(to_f5.foundations[4], *to_f5.foundations[1:4], to_f5.foundations[0], *to_f5.foundations[5:])
        )
    )
