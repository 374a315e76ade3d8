"""Hints with hidden cards (engine/solver/guesses.py, hint.py, follow.py): every move weighed over guesses of the
hidden cards, the line of a guess that won kept up to its first hidden card, and nothing read but the view."""

from __future__ import annotations

import hashlib
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.cards import KING, QUEEN, RANK
from engine.deal import shuffled_deck
from engine.game import Game
from engine.games.sultan import ACE_OF_HEARTS, Sultan36
from engine.moves import Move, MoveKind
from engine.solver import HintCode, hint, solve
from engine.solver.follow import continued, hint_on_path
from engine.solver.guesses import best, guesses, until_revealed, weigh
from engine.solver.path import position_key
from engine.view import hidden_cards, player_view

SMALL = {"samples": 4, "sample_states": 200}


@cache
def late_tribunal() -> tuple[Game, State]:
    """A tribunal position late in a won deal (9 cards left in the stock) where the guesses win: three moves, two
    of them cards home, one a deal."""
    game = get_game("tribunal")
    state = game.deal(hashlib.sha256(b"guesses-0").digest())
    for move in solve(game, state, max_states=20_000).moves[:127]:
        state = game.play(state, move)[0]
    assert len(state.stock) == 9 and [m.text() for m in game.legal_moves(state)] == ["1-f3", "6-f2", "d"]
    return game, state


def test_the_hint_wins_in_the_guesses_and_its_line_ends_at_the_first_hidden_card() -> None:
    game, state = late_tribunal()
    given_hint = hint(game, state, seed=b"s", **SMALL)
    assert given_hint.code is HintCode.WINS_IN_GUESSES and given_hint.wins == given_hint.tried == 2
    assert given_hint.move is not None and given_hint.line[0] == given_hint.move
    # The line is the player's to follow up to and with its first deal (the first hidden card it turns); its moves
    # are legal on the real position, whatever the real stock is.
    kinds = [m.kind for m in given_hint.line]
    assert kinds[-1] is MoveKind.DEAL and MoveKind.DEAL not in kinds[:-1]
    real = state
    for move in given_hint.line:
        real = game.play(real, move)[0]
    assert given_hint.moves_to_end > len(given_hint.line)


def test_a_move_into_a_position_met_is_never_weighed() -> None:
    game, state = late_tribunal()
    first = hint(game, state, seed=b"s", **SMALL)
    assert first.move is not None
    met = {position_key(game, game.play(state, first.move)[0])}
    other = hint(game, state, seed=b"s", path=met, **SMALL)
    assert other.move is not None and other.move != first.move and game.is_legal(state, other.move)
    # Every move met: none is left to hint.
    every = {position_key(game, game.play(state, m)[0]) for m in game.legal_moves(state)}
    assert hint(game, state, seed=b"s", path=every, **SMALL).code is HintCode.NO_MOVE


def test_weigh_ranks_wins_first_then_the_lowest_value() -> None:
    game, state = late_tribunal()
    guessed = list(guesses(game, player_view(game, state), state.fresh, random.Random(3), 4))
    weighed, tried = weigh(game, guessed, frozenset(), 800)
    assert tried == 2 and {w.move.text() for w in weighed} == {"1-f3", "6-f2", "d"}
    assert best(weighed).wins == max(w.wins for w in weighed) > 0
    # No solving and no look (``look=False``, a budget of one position): no move wins, and none is valued.
    bare, _ = weigh(game, guessed, frozenset(), 1, look=False)
    assert all(w.wins == 0 for w in bare)


def test_until_revealed_stops_after_the_first_hidden_card_and_not_where_nothing_is_hidden() -> None:
    game, state = late_tribunal()
    line = solve(game, state, max_states=20_000).moves
    first_deal = next(i for i, m in enumerate(line) if m.kind is MoveKind.DEAL)
    assert until_revealed(game, state, line) == line[: first_deal + 1]
    # Its neighbour: picture-gallery after a redeal, every card in view: a deal turns nothing hidden.
    gallery = get_game("picture-gallery")
    seen = gallery.deal(hashlib.sha256(b"guesses-1").digest())
    won = solve(gallery, seen, max_states=20_000).moves
    cut = next(i for i, m in enumerate(won) if m.kind is MoveKind.REDEAL) + 1
    for move in won[:cut]:
        seen = gallery.play(seen, move)[0]
    assert not hidden_cards(gallery, seen) and any(m.kind is MoveKind.DEAL for m in won[cut:])
    assert until_revealed(gallery, seen, won[cut:]) == won[cut:]


def test_a_line_won_in_a_guess_is_kept_and_continued_as_one() -> None:
    game, state = late_tribunal()
    followed = hint_on_path(game, state, set(), seed=b"s", **SMALL)
    h = followed.hint
    assert h.code is HintCode.WINS_IN_GUESSES and followed.line == h.line and len(followed.line) >= 2
    assert followed.to_end == -h.moves_to_end  # negative: a guess's line, not the real position's
    after = game.play(state, followed.line[0])[0]
    nxt = continued(followed.line, followed.keys, followed.to_end, followed.line[:1], position_key(game, after))
    assert nxt is not None and nxt.hint.move == followed.line[1]
    assert nxt.hint.code is HintCode.WINS_IN_GUESSES and "guess" in nxt.hint.reason
    assert nxt.hint.moves_to_end == h.moves_to_end - 1 and nxt.to_end == followed.to_end + 1
    # Its neighbours: a player who left the line gets no move from it; a line found on the real position says so.
    deal = Move.parse("d")
    assert continued(followed.line, followed.keys, followed.to_end, [deal], b"\0" * 8) is None
    real = continued(followed.line, followed.keys, -followed.to_end, followed.line[:1], position_key(game, after))
    assert real is not None and real.hint.code is HintCode.WINNING_LINE and real.to_end > 0


# -- the hint reads the view only: twin deals --------------------------------------------------------------------


def _hidden_places(game: Game, deck: list[int], dealt: int) -> list[int]:
    """The places in ``deck`` of the cards still hidden after ``dealt`` cards came out of the stock (first pass, no
    captive released): tribunal's stock after its head king, captives' seven captives and stock, the sultan's stock
    after its side slots (kings and one AH pulled out)."""
    if game.id == "tribunal":  # the head king is on top (``twins``), so no card can take its place
        return [i for i, c in enumerate(deck) if RANK[c] != QUEEN][1 + dealt :]
    if game.id == "captives":
        return [*range(7), *range(39 + dealt, len(deck))]
    rest = [i for i, c in enumerate(deck) if RANK[c] != KING]
    rest.remove(next(i for i in rest if deck[i] == ACE_OF_HEARTS))  # the topmost AH, as deal_from picks
    assert isinstance(game, Sultan36)
    return rest[game.side_slots + dealt :]


def twins(variant: str, seed: bytes, steps: int) -> tuple[Game, State, State]:
    """Two deals that differ only in cards still hidden after the same ``steps`` moves (picked by a seeded walk
    that neither turns the waste over nor frees a captive, and goes on until at least two moves are left to choose
    from), played on both."""
    game = get_game(variant)
    deck = shuffled_deck(seed, game.id, game.info.deck_size)
    if game.id == "tribunal":
        deck.insert(0, deck.pop(next(i for i, c in enumerate(deck) if RANK[c] == KING)))
    rng = random.Random(seed)
    one = game.deal_from(deck)
    moves: list[Move] = []
    dealt = 0
    for step in range(steps + 60):
        legal = [m for m in game.legal_moves(one) if m.kind is not MoveKind.REDEAL]
        if not legal or (step >= steps and len(legal) >= 2):
            break
        move = rng.choice(legal)
        dealt += move.kind in (MoveKind.DEAL, MoveKind.STOCK)
        one = game.play(one, move)[0]
        moves.append(move)
    places = _hidden_places(game, deck, dealt)
    other_deck = list(deck)
    shuffled = [deck[i] for i in places]
    rng.shuffle(shuffled)
    for i, c in zip(places, shuffled, strict=True):
        other_deck[i] = c
    other = game.deal_from(other_deck)
    for move in moves:
        other = game.play(other, move)[0]
    return game, one, other


@settings(max_examples=20, deadline=None)
@given(
    variant=st.sampled_from(["tribunal", "captives", "sultan-52"]),
    seed=st.binary(min_size=32, max_size=32),
    steps=st.integers(0, 30),
)
def test_two_deals_that_differ_only_in_hidden_cards_get_the_same_hint(variant: str, seed: bytes, steps: int) -> None:
    game, one, other = twins(variant, seed, steps)
    assert player_view(game, one) == player_view(game, other) and one.fresh == other.fresh
    small = {"samples": 3, "sample_states": 100}
    first = hint(game, one, seed=seed, **small)
    assert hint(game, other, seed=seed, **small) == first
    if first.move is not None:
        assert game.is_legal(one, first.move)
    path = {position_key(game, one)}
    assert hint_on_path(game, one, path, seed=seed, **small) == hint_on_path(game, other, path, seed=seed, **small)


@pytest.mark.parametrize("variant", ["tribunal", "captives", "sultan-52"])
def test_twin_deals_really_differ(variant: str) -> None:
    """The twins of the property above are not the same deal (else it would prove nothing)."""
    game, one, other = twins(variant, hashlib.sha256(variant.encode()).digest(), 12)
    assert one != other and hidden_cards(game, one) != hidden_cards(game, other)
