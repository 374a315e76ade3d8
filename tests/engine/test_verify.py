"""The replay verifier: verdicts, first illegal move, robustness on any input."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Reason, VariantError, get_game
from engine.encoding import state_hash
from engine.verify import Outcome, replay, verify

SEED = bytes(range(32))
FCS = Path(__file__).resolve().parents[1] / "data" / "fcs"


def legal_prefix(variant: str, n: int, seed: bytes = SEED) -> list[str]:
    game = get_game(variant)
    state = game.deal(seed)
    rnd = random.Random(1)
    out = []
    for _ in range(n):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        move = rnd.choice(legal)
        out.append(move.text())
        state = game.play(state, move)[0]
    return out


def test_empty_list_is_unfinished() -> None:
    v = verify("cats-tail", {}, SEED, [])
    assert v.outcome is Outcome.UNFINISHED and v.move_count == 0 and v.error_index is None
    game = get_game("cats-tail")
    assert v.final_hash == state_hash(game, game.deal(SEED))


@pytest.mark.parametrize("variant", ["cats-tail", "tribunal", "captives", "sultan-52"])
def test_first_illegal_move_is_named(variant: str) -> None:
    prefix = legal_prefix(variant, 10)
    v = verify(variant, {}, SEED, [*prefix, "nonsense", "1-2"])
    assert v.outcome is Outcome.ILLEGAL
    assert v.error_index == len(prefix) == v.move_count
    assert v.error_reason is Reason.BAD_NOTATION and v.error_text == "nonsense"
    legal = verify(variant, {}, SEED, prefix)
    assert legal.outcome is Outcome.UNFINISHED and legal.move_count == len(prefix)
    assert legal.final_hash == v.final_hash  # the position before the illegal move


def test_illegal_reason_comes_from_the_rules() -> None:
    v = verify("tribunal", {}, SEED, ["1-f"])  # column 1 holds only its king
    assert v.outcome is Outcome.ILLEGAL and v.error_index == 0
    assert v.error_reason is Reason.KING_CANNOT_MOVE
    assert "K" in v.error_message


def test_explicit_moves_are_returned() -> None:
    prefix = legal_prefix("captives", 20)
    game = get_game("captives")
    r = replay(game, game.deal(SEED), prefix)
    assert [m.text() for m in r.moves] == prefix


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=12) | st.integers() | st.none(), max_size=30))
def test_any_input_gives_a_verdict(moves: list[object]) -> None:
    v = verify("captives", {}, SEED, moves)  # type: ignore[arg-type]
    assert v.outcome in (Outcome.UNFINISHED, Outcome.ILLEGAL)
    if v.outcome is Outcome.ILLEGAL:
        assert v.error_index is not None and 0 <= v.error_index < len(moves)


def test_hundred_thousand_moves() -> None:
    v = verify("cats-tail", {}, SEED, ["1-2"] * 100_000)
    assert v.outcome is Outcome.ILLEGAL and v.error_index is not None and v.error_index <= 1
    many = ["s"] * 100_000  # captives: 65 turns a pass, 3 passes, then the stock is empty
    v = verify("captives", {}, SEED, many)
    assert v.outcome is Outcome.ILLEGAL and v.error_reason is Reason.STOCK_EMPTY and v.error_index == 65


def test_bad_variant_and_option_are_typed_errors() -> None:
    with pytest.raises(VariantError) as info:
        verify("freecell", {}, SEED, [])
    assert info.value.reason is Reason.UNKNOWN_VARIANT
    with pytest.raises(VariantError) as info:
        verify("picture-gallery", {"deals": 5}, SEED, [])
    assert info.value.reason is Reason.BAD_OPTION
    with pytest.raises(VariantError):
        verify("cats-tail", {"colour": "red"}, SEED, [])


@pytest.mark.parametrize("path", sorted(FCS.glob("*.txt")), ids=lambda p: p.stem[:24])
def test_freecell_solver_solutions_verify_as_wins(path: Path) -> None:
    variant, _, seed = path.stem.rpartition("-")
    moves = path.read_text().split()
    v = verify(variant, {}, bytes.fromhex(seed), moves)
    assert v.outcome is Outcome.WON, v.describe()
    assert v.move_count == len(moves)
    truncated = verify(variant, {}, bytes.fromhex(seed), moves[:-1])
    assert truncated.outcome is Outcome.UNFINISHED
