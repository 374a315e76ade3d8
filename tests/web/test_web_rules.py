"""The rules the web page shows are made from the rules documents, never edited by hand: the generated module is
fresh, and it holds every family's section in both languages."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_web_rules", ROOT / "tools" / "make_web_rules.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_rules_module_is_fresh() -> None:
    tool = _tool()
    assert tool.OUT.read_text(encoding="utf-8") == tool.render(), "run: python tools/make_web_rules.py"
    assert tool.main(["--check"]) == 0


def test_every_family_has_its_rules_in_both_languages() -> None:
    tool = _tool()
    text = tool.render()
    data = json.loads(text[text.index("{") : text.rindex("}") + 1])
    for lang in ("en", "ru"):
        assert set(data[lang]) == {"common", "king-chain", "salic-law", "captives", "sultan", "notation"}
        for section in data[lang].values():
            assert section["blocks"], section["title"]
    # A rule of the specification reaches the page word for word, bold and code spans kept.
    flat = json.dumps(data["en"]["king-chain"], ensure_ascii=False)
    assert "One reserve move may carry one to eight free cards" in flat
    assert '["code", "royal-retinue"]' in flat
    # The engineers' cross-check with Freecell Solver is not a rule for players.
    assert "Freecell Solver" not in flat


def test_a_stale_module_is_caught(tmp_path: Path) -> None:
    tool = _tool()
    tool.OUT = tmp_path / "rules-text.js"
    tool.OUT.write_text("// old\n", encoding="utf-8")
    assert tool.main(["--check"]) == 1
    assert tool.main([]) == 0 and tool.main(["--check"]) == 0
