"""docs/certificates.md, "The final position": an encoder written from the documented layout alone agrees with the
engine on random positions of every variant, and each family fills exactly the piles the table says."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.cards import RANK, card
from engine.catalogue import VARIANT_IDS
from engine.deal import shuffle
from engine.encoding import encode_state
from engine.game import Game
from engine.state import State

KC, KD, KH, KS, AH = card(13, 0), card(13, 1), card(13, 2), card(13, 3), card(1, 2)
#: The catalogue order, as the documentation lists it.
DOCUMENTED_ORDER = [
    "royal-retinue",
    "royal-retinue-aces",
    "royal-retinue-kings-last",
    "cats-tail",
    "tribunal",
    "picture-gallery",
    "captives",
    "sultan-36",
    "sultan-52",
]


def documented_encoding(variant: str, options_text: str, s: State) -> bytes:
    """The bytes as the documentation lays them out (independent of engine/encoding.py)."""

    def row(cards: tuple[int, ...]) -> bytes:
        return bytes([len(cards), *(0xFF if c == -1 else c for c in cards)])

    def group(piles: tuple[tuple[int, ...], ...]) -> bytes:
        return bytes([len(piles)]) + b"".join(row(p) for p in piles)

    out = b"P1" + bytes([DOCUMENTED_ORDER.index(variant), len(options_text)]) + options_text.encode("ascii")
    out += bytes([s.redeals, 1 if s.fresh else 0]) + group(s.columns) + group(s.foundations)
    return out + b"".join(row(p) for p in (s.cells, s.stock, s.waste, s.captives, s.fixed))


def check_family(game: Game, s: State) -> None:
    """The table "Which fields each family fills"."""
    family = game.info.family
    if family == "king-chain":
        assert len(s.columns) == (9 if game.id == "cats-tail" else 8)
        assert len(s.cells) == 8 and len(s.foundations) == 8
        assert s.stock == s.waste == s.captives == s.fixed == () and (s.redeals, s.fresh) == (0, False)
    elif family == "salic-law":
        assert 1 <= len(s.columns) <= 8 and len(s.foundations) == 8
        assert s.cells == s.waste == s.captives == () and len(s.fixed) == 8
        assert all(RANK[c] == 12 for c in s.fixed)
        assert game.id == "picture-gallery" or not s.fresh
    elif family == "captives":
        assert len(s.columns) == 8 and len(s.foundations) == 8 and len(s.captives) == 7
        assert s.cells == s.fixed == () and not s.fresh
    else:
        assert family == "sultan"
        assert s.columns == () and len(s.cells) == (6 if game.id == "sultan-36" else 8)
        assert [f[0] for f in s.foundations] == [KC, KC, KD, KD, KH, KS, KS, AH]
        assert s.fixed == (KH,) and s.captives == () and not s.fresh


def test_the_documented_catalogue_order() -> None:
    assert list(VARIANT_IDS) == DOCUMENTED_ORDER


@pytest.mark.parametrize("variant", VARIANT_IDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk=st.integers(0, 2**32), plain=st.booleans())
def test_an_encoder_written_from_the_docs_agrees(variant: str, seed: bytes, walk: int, plain: bool) -> None:
    options = {} if plain else {o.name: o.allowed[-1] for o in get_game(variant).info.options}
    game = get_game(variant, options)
    choices = random.Random(walk)
    state = game.deal(seed)
    for _ in range(150):
        check_family(game, state)
        assert documented_encoding(variant, game.options_text(), state) == encode_state(game, state)
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state = game.play(state, choices.choice(moves))[0]


@settings(max_examples=30, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32))
def test_royal_retinue_aces_start_the_foundations_in_deck_order(seed: bytes) -> None:
    game = get_game("royal-retinue-aces")
    deck = shuffle(seed, game.id, 104).cards
    aces = [c for c in deck if RANK[c] == 1]  # index 0 = the top of the shuffled deck
    assert [f for f in game.deal(seed).foundations] == [(a,) for a in aces]
