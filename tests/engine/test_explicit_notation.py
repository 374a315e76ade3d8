"""The explicit move notation of certificates (docs/certificates.md, "Moves"), checked against the engine.

The documented rule, per family: every move the engine hands back (``Game.resolve``, the move log, a
certificate's ``moves``) has exactly one of the shapes below, is its own explicit form, and every short form
the player may type resolves to one of them.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.catalogue import VARIANT_IDS
from engine.errors import MoveError
from engine.game import Game
from engine.state import State

C, F, R, CAP = r"[1-9]", r"f[1-8]", r"r[1-8]", r"c[1-7]"
N = r"[1-9][0-9]?"
#: The explicit shapes by family, exactly as docs/certificates.md lists them.
SHAPES = {
    "king-chain": [f"{C}-{C}/{N}", f"{C}-{F}", f"{C}-{R}", f"{R}-{C}", f"{R}-{F}", f"{F}-{F}/{N}"],
    "salic-law": [f"{C}-{F}", f"{C}-{C}/1", "d", "rd"],
    "captives": [f"{C}-{C}/{N}", f"{C}-{F}", f"{C}-k", f"w-{C}", f"w-{F}", "w-k", f"{CAP}-{F}", f"{CAP}-k", "s", "rd"],
    "sultan": [f"w-{F}", f"{R}-{F}", f"w-{R}", "s", "rd"],
}
MULTI_RESERVE = re.compile(rf"{C}(,{C})+-r")


def explicit(game: Game, text: str) -> bool:
    return any(re.fullmatch(shape, text) for shape in SHAPES[game.info.family])


def short_forms(text: str) -> list[str]:
    """What a player may type for ``text``: without the run length, without the target's or the cell's number."""
    forms = [re.sub(r"/\d+$", "", text)]
    forms.append(re.sub(r"-([fr])\d+(/\d+)?$", r"-\1\2", text))
    forms.append(re.sub(r"-([fr])\d+(/\d+)?$", r"-\1", text))
    return [f for f in forms if f != text]


def walk(game: Game, seed: bytes, choices: random.Random, steps: int) -> list[State]:
    state = game.deal(seed)
    seen = [state]
    for _ in range(steps):
        moves = list(game.legal_moves(state))
        if not moves:
            break
        state = game.play(state, choices.choice(moves))[0]
        seen.append(state)
    return seen


def test_every_family_has_its_shapes() -> None:
    assert {get_game(v).info.family for v in VARIANT_IDS} == set(SHAPES)


@pytest.mark.parametrize("variant", VARIANT_IDS)
@settings(max_examples=12, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk_seed=st.integers(0, 2**32))
def test_the_engine_hands_back_only_the_documented_shapes(variant: str, seed: bytes, walk_seed: int) -> None:
    game = get_game(variant)
    for state in walk(game, seed, random.Random(walk_seed), 120)[::4]:
        for move in game.legal_moves(state):
            text = game.play(state, move)[1].text()
            assert explicit(game, text), (variant, text)
            assert game.play(state, text)[1].text() == text  # explicit is a fixed point
            for short in short_forms(text):
                try:
                    resolved = game.play(state, short)[1]
                except MoveError:
                    continue  # not every short form is legal (e.g. no /n in salic-law is fine, 'r' when full)
                assert explicit(game, resolved.text()), (variant, short, resolved.text())
                assert game.play(state, short)[0] == game.play(state, resolved)[0]


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), walk_seed=st.integers(0, 2**32))
def test_a_multi_card_reserve_move_stays_as_sent(seed: bytes, walk_seed: int) -> None:
    """``3,5,5-r``: the one explicit form without cell numbers; the cards go to the lowest empty cells in order."""
    game = get_game("royal-retinue")
    choices = random.Random(walk_seed)
    for state in walk(game, seed, choices, 40)[::5]:
        filled = [i for i, col in enumerate(state.columns, 1) if col]
        if len(filled) < 2:
            continue
        text = f"{choices.choice(filled)},{choices.choice(filled)}-r"
        try:
            resolved = game.play(state, text)[1]
        except MoveError:
            assert list(state.cells).count(-1) < 2 or any(len(state.columns[int(i) - 1]) < 2 for i in text[:3:2])
            continue
        assert resolved.text() == text and MULTI_RESERVE.fullmatch(text)
        one_by_one = state
        for source in text[:-2].split(","):
            one_by_one = game.play(one_by_one, game.play(one_by_one, f"{source}-r")[1])[0]
        assert game.play(state, text)[0] == one_by_one
