"""The compiled salic-law late scans (engine/solver/compiled_salic.py, _salic.c) against the Python ones.

Each late scan of tribunal and picture-gallery (``search.LATE_BY_KIND``, and a few other seeds and ways of drawing)
must expand as many positions as its Python twin in every call and answer the same: the same line move for move, the
same exhaustion. They run side by side in slices of varying length from deals and from positions part-way through
random play; ``solve`` with the late scans joining early gives the same ``Solution`` with either; the children the C
sees (moves, safe moves, kinds, scores, keys) are Python's on random positions; every won line is replayed.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import State, get_game
from engine.game import Game
from engine.moves import Move
from engine.solver import Finding, compiled, compiled_salic, search, solve
from engine.solver.playouts import Exhausted, Playouts, free_columns, kind_of
from engine.solver.profiles import profile_for
from engine.solver.safe import autoplay
from engine.verify import Outcome, replay

#: deploy/test.sh sets PATIENCE_SOLVER=c. Read when the module is collected: tests/conftest.py then clears every
#: PATIENCE_* variable for the session.
REQUIRED = os.environ.get(compiled.ENV) == "c"
needs_core = pytest.mark.skipif(not compiled_salic.built(), reason="the compiled salic-law scans are not built")

GAMES = [("tribunal", {}), ("picture-gallery", {}), ("picture-gallery", {"deals": 3})]
#: The late phase's scans, and others the compiled ones must take as well (other seeds, shares, chances).
SCANS: tuple[search.LateScan, ...] = (
    *search.LATE_BY_KIND,
    ("playout", (7, 0.5, False, 0.0), 1),
    ("playout", (2**32 - 1, 1.0, True, 0.0), 1),
    ("playout", (0, 0.25, False, 1.0), 1),
)
Scan = Playouts | search._DepthFirst | compiled_salic.Playouts | compiled_salic.DepthFirst


def seed(i: int) -> bytes:
    return hashlib.sha256(b"salic-compiled-%d" % i).digest()


def walk(game: Game, state: State, rng: random.Random, steps: int, deal_share: float = 0.0) -> State:
    """``steps`` random legal moves into a game (a deal with chance ``deal_share`` whenever there is one)."""
    for _ in range(steps):
        moves = list(game.legal_moves(state))
        if not moves:
            break
        deals = [m for m in moves if m.text() == "d"]
        move = deals[0] if deals and rng.random() < deal_share else rng.choice(moves)
        state = game.play(state, move)[0]
    return state


def dealt_out(game: Game, state: State, rng: random.Random) -> State:
    """Random play until the stock is dealt out with no redeal left (or no move is)."""
    while state.stock or state.redeals < game.redeals_allowed():
        state = walk(game, state, rng, 1, deal_share=0.6)
        if not game.has_legal_move(state):
            break
    return state


def pair(game: Game, root: State, kind: str, spec: tuple[int, float, bool, float] | bool) -> tuple[Scan, Scan]:
    """The Python scan and its compiled twin, as ``search._late_scan`` makes them."""
    prof = profile_for(game)
    if kind == "playout":
        assert isinstance(spec, tuple)
        s, stock_last, by_kind, next_kind = spec
        noise = search.PLAYOUT_NOISE
        return (
            Playouts(game, prof, root, s, noise, stock_last, by_kind, next_kind),
            compiled_salic.Playouts(game, prof, root, s, noise, stock_last, by_kind, next_kind),
        )
    return (
        search._DepthFirst(game, prof, root, by_kind=True, on_visit=bool(spec)),
        compiled_salic.DepthFirst(game, prof, root, by_kind=True, on_visit=bool(spec)),
    )


def call(scan: Scan, n: int) -> tuple[Move, ...] | str | None:
    try:
        return scan.run(n)
    except Exhausted:
        return "exhausted"


def lockstep(game: Game, root: State, scans: tuple[Scan, Scan], slices: Iterator[int], budget: int) -> str:
    """Both scans in the same slices until one wins or runs out or ``budget`` positions are spent, compared after
    every call: ``won``, ``exhausted`` or ``more``."""
    theirs, ours = scans
    while theirs.expanded < budget:
        n = next(slices)
        expected = call(theirs, n)
        got = call(ours, n)
        assert got == expected, (n, theirs.expanded)
        assert ours.expanded == theirs.expanded
        if expected == "exhausted":
            assert call(ours, 5) == call(theirs, 5) == "exhausted"  # and it stays so
            return "exhausted"
        if expected is not None:
            assert not isinstance(expected, str)
            assert replay(game, root, expected).verdict.outcome is Outcome.WON
            with pytest.raises(RuntimeError):
                ours.run(1)  # a compiled scan ends with its win
            return "won"
    return "more"


def slices(rng: random.Random) -> Iterator[int]:
    while True:
        yield rng.choice((0, 1, 2, 5, 31, 128, 128, 300))


def test_the_compiled_scans_are_built_where_the_set_up_promises_them() -> None:
    """deploy/test.sh sets PATIENCE_SOLVER=c: there, missing compiled scans fail here (and the late phase raises)."""
    if not REQUIRED:
        pytest.skip("PATIENCE_SOLVER=c is not set (only the README's set-up promises the build)")
    assert compiled_salic.built()
    assert compiled_salic.active()


@needs_core
@pytest.mark.parametrize(("variant", "options"), GAMES, ids=str)
def test_every_late_scan_answers_the_same_in_every_slice(variant: str, options: dict[str, object]) -> None:
    """Deals and positions 20 to 150 random moves in, every scan for up to 700 positions: most are won (the
    playouts win many salic-law deals within a few hundred positions)."""
    game = get_game(variant, options)
    rng = random.Random(variant + str(options))
    roots = [autoplay(game, game.deal(seed(i)))[0] for i in range(2)]
    roots += [autoplay(game, walk(game, game.deal(seed(10 + i)), rng, rng.randrange(20, 150)))[0] for i in range(2)]
    answers = []
    for root in roots:
        for kind, spec, _ in SCANS:
            answers.append(lockstep(game, root, pair(game, root, kind, spec), slices(rng), 700))
    assert answers.count("won") >= 10, answers


@needs_core
@pytest.mark.parametrize("on_visit", [False, True])
def test_depth_first_scans_run_out_after_the_same_positions(on_visit: bool) -> None:
    """With the stock dealt out and no redeal left, few positions are left: both scans see every one of them before
    they give up, after as many positions (72 and 928 on two of these tribunal positions)."""
    rng = random.Random(5)
    answers = []
    for variant, options in GAMES:
        game = get_game(variant, options)
        for i in range(4):
            root = autoplay(game, dealt_out(game, game.deal(seed(20 + i)), rng))[0]
            scans = pair(game, root, "by-kind", on_visit)
            answers.append((lockstep(game, root, scans, slices(rng), 3000), scans[0].expanded))
    assert sum(1 for answer, expanded in answers if answer == "exhausted" and expanded >= 50) >= 2, answers


@needs_core
@pytest.mark.parametrize(("variant", "options"), GAMES, ids=str)
def test_solve_gives_the_same_solution_with_either_core(
    variant: str, options: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The late scans joining after 300 positions: the same outcome, line and count, up to budgets past them."""
    monkeypatch.setattr(search, "LATE_AFTER", 300)
    game = get_game(variant, options)
    deals = [(seed(30), 1500), (seed(31), 3000)]
    if variant == "tribunal":  # tuning deals where the late scans win (tune-14) or the budget runs out (tune-2)
        deals += [(hashlib.sha256(label).digest(), 4000) for label in (b"tune-14", b"tune-2")]
    for deal, budget in deals:
        state = game.deal(deal)
        monkeypatch.delenv(compiled.ENV, raising=False)
        fast = solve(game, state, max_states=budget)
        monkeypatch.setenv(compiled.ENV, "python")
        slow = solve(game, state, max_states=budget)
        assert (fast.outcome, fast.moves, fast.states) == (slow.outcome, slow.moves, slow.states)
        # the answer says which ran: compiled once the late scans joined (past 300 positions here)
        assert (fast.core, slow.core) == ("c" if fast.states > 300 else "python", "python")
        if fast.outcome is Finding.WON:
            assert replay(game, state, fast.moves).verdict.outcome is Outcome.WON


@needs_core
def test_the_late_phase_takes_the_compiled_scans_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("tribunal")
    root = game.deal(seed(0))
    prof = profile_for(game)
    monkeypatch.delenv(compiled.ENV, raising=False)
    made = [search._late_scan(game, prof, root, kind, spec) for kind, spec, _ in search.LATE_BY_KIND]
    assert all(isinstance(s, compiled_salic.Playouts | compiled_salic.DepthFirst) for s in made)
    monkeypatch.setenv(compiled.ENV, "python")
    made = [search._late_scan(game, prof, root, kind, spec) for kind, spec, _ in search.LATE_BY_KIND]
    assert all(isinstance(s, Playouts | search._DepthFirst) for s in made)
    sultan = get_game("sultan-52")  # no compiled scans of its own: the Python ones, whatever the variable
    monkeypatch.delenv(compiled.ENV)
    made = [
        search._late_scan(sultan, profile_for(sultan), sultan.deal(seed(0)), kind, spec)
        for kind, spec, _ in search.LATE_SCORED
    ]
    assert all(isinstance(s, Playouts | search._DepthFirst) for s in made)


@needs_core
@settings(max_examples=80, deadline=None)
@given(
    config=st.sampled_from(GAMES),
    deal=st.binary(min_size=32, max_size=32),
    draws=st.integers(0, 2**32),
    steps=st.integers(0, 300),
    deal_share=st.sampled_from([0.0, 0.5, 0.95]),
)
def test_the_children_are_pythons_on_random_positions(
    config: tuple[str, dict[str, object]], deal: bytes, draws: int, steps: int, deal_share: float
) -> None:
    """After every move of a random game: the children in order, each with its move and safe moves, kind, score,
    whether won, key and foundations, are what the profile, ``autoplay`` and ``kind_of`` give."""
    variant, options = config
    game = get_game(variant, options)
    prof = profile_for(game)
    rng = random.Random(draws)
    state = game.deal(deal)
    for _ in range(steps):
        expected = []
        free = free_columns(state)
        for child, explicit in prof.children(state):
            kind = kind_of(game, state, child, explicit, free)
            child, settled = autoplay(game, child)
            lengths = tuple(map(len, child.foundations))
            expected.append(
                ((explicit, *settled), kind, prof.score(child), game.is_won(child), prof.key(child), lengths)
            )
        assert [tuple(c) for c in compiled_salic.children(game, state)] == expected
        state = walk(game, state, rng, 1, deal_share)


@needs_core
def test_a_bad_position_or_scan_raises_instead_of_crashing() -> None:
    game = get_game("tribunal")
    prof = profile_for(game)
    good = game.deal(seed(0))
    kings = good.columns[0] * 105
    bad = [
        good._replace(columns=((60, 1),)),  # not a card
        good._replace(columns=()),  # no column
        good._replace(columns=((good.columns[0][0],),) * 10),  # ten columns
        good._replace(columns=(kings,)),  # 105 cards in play
        good._replace(foundations=((1,), *good.foundations[1:])),  # a two alone on a foundation
        good._replace(foundations=good.foundations[:7]),  # seven foundations
        good._replace(redeals=-1),
    ]
    for state in bad:
        with pytest.raises(ValueError):
            compiled_salic.children(game, state)
        with pytest.raises(ValueError):
            compiled_salic.DepthFirst(game, prof, state)
    for spec in ((1, 0.0, False, 0.0, 0), (-1, 0.0, False, 0.0, 13), (1, 1.5, False, 0.0, 13), (1, 0, True, -2, 13)):
        s, stock_last, by_kind, next_kind, noise = spec
        with pytest.raises(ValueError):
            compiled_salic.Playouts(game, prof, good, s, noise, stock_last, by_kind, next_kind)
    with pytest.raises(ValueError):
        compiled_salic.DepthFirst(game, prof, good, noise=3)
    captives = get_game("captives")
    with pytest.raises(ValueError):
        compiled_salic.DepthFirst(captives, profile_for(captives), captives.deal(seed(0)))
