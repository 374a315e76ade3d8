"""The ``patience`` command line, run as the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import VARIANT_IDS, get_game
from engine.cards import TEXT
from engine.deal import shuffle, shuffled_deck

SEED = "ab" * 32
EXE = shutil.which("patience", path=str(Path(sys.executable).parent))


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert EXE, "the patience console script is installed with the package"
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_variants_lists_all_nine() -> None:
    out = run("variants").stdout
    for v in VARIANT_IDS:
        assert v in out
    doc = json.loads(run("variants", "--json").stdout)
    assert [v["id"] for v in doc] == list(VARIANT_IDS)
    assert any(o["name"] == "deals" for v in doc for o in v["options"])


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_deal_json_holds_the_whole_shuffled_list_and_layout(variant: str) -> None:
    doc = json.loads(run("deal", variant, "--seed", SEED, "--json").stdout)
    game = get_game(variant)
    assert doc["shuffled"] == [TEXT[c] for c in shuffled_deck(bytes.fromhex(SEED), variant, game.info.deck_size)]
    state = game.deal(bytes.fromhex(SEED))
    assert doc["state"]["columns"] == [[TEXT[c] for c in col] for col in state.columns]
    assert doc["state"]["stock"] == [TEXT[c] for c in state.stock]  # offline tool: hidden cards shown
    assert doc["algorithm"] == "deal-v2"
    shuffled = shuffle(bytes.fromhex(SEED), variant, game.info.deck_size)
    if variant in ("royal-retinue", "royal-retinue-aces", "tribunal", "picture-gallery"):
        assert doc["pulled"] == {"m": 8, "k": shuffled.random.uniform(8)}
    elif variant.startswith("sultan"):
        assert doc["pulled"] == {"m": 2, "k": shuffled.random.uniform(2)}
    else:
        assert doc["pulled"] is None


def test_deal_text_shows_hidden_cards() -> None:
    out = run("deal", "captives", "--seed", SEED).stdout
    game = get_game("captives")
    state = game.deal(bytes.fromhex(SEED))
    assert TEXT[state.captives[0]] in out and "stock (65" in out


def test_deal_with_option_and_bad_input() -> None:
    assert run("deal", "picture-gallery", "--seed", SEED, "--option", "deals=3").returncode == 0
    bad = run("deal", "picture-gallery", "--seed", SEED, "--option", "deals=7")
    assert bad.returncode == 2 and "deals" in bad.stderr
    assert run("deal", "freecell", "--seed", SEED).returncode == 2
    assert run("deal", "cats-tail", "--seed", "xyz").returncode == 2


def test_verify_exit_codes(tmp_path: Path) -> None:
    game = get_game("captives")
    state = game.deal(bytes.fromhex(SEED))
    first = next(iter(game.legal_moves(state))).text()
    unfinished = run("verify", "captives", "--seed", SEED, "-", stdin=f"{first}\n s s")
    assert unfinished.returncode == 1 and "unfinished" in unfinished.stdout
    f = tmp_path / "moves.txt"
    f.write_text("s s bogus s")
    illegal = run("verify", "captives", "--seed", SEED, str(f), "--json")
    doc = json.loads(illegal.stdout)
    assert illegal.returncode == 1
    assert (doc["outcome"], doc["error_index"], doc["error_reason"]) == ("illegal", 2, "BAD_NOTATION")


FCS = Path(__file__).resolve().parents[1] / "data" / "fcs"


@pytest.mark.parametrize("path", sorted(FCS.glob("cats-tail-*.txt"))[:2], ids=lambda p: p.stem[:20])
def test_verify_win_exits_zero(path: Path) -> None:
    seed = path.stem.rpartition("-")[2]
    assert run("verify", "cats-tail", "--seed", seed, str(path)).returncode == 0
