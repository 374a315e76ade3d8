"""The position vectors (docs/certificate-vectors/final-state.json's layout, positions.json, played-positions.json):
the engine's encoding of a position cut into its fields, every variant's opening position, and positions whose
``redeals`` and ``fresh`` bytes show what the two mean. Written by tools/certificate_vectors.py."""

from __future__ import annotations

from typing import Any

from engine import get_game
from engine.catalogue import GAME_CLASSES, variant_index
from engine.encoding import encode_state, state_hash
from engine.game import Game
from engine.moves import PileKind
from engine.state import State
from engine.verify import replay


def layout(game: Game, state: State) -> list[str]:
    """The encoding cut into its fields: "hex  meaning" rows, in order (docs/certificates.md, "The position")."""
    opts = game.options_text().encode("ascii")
    rows = [
        ["5031", "magic 'P1'"],
        [f"{variant_index(game.id):02x}", f"variant index {variant_index(game.id)} ({game.id})"],
        [f"{len(opts):02x}" + opts.hex(), f"options text {game.options_text()!r} (length byte, ASCII)"],
        [f"{state.redeals:02x}", "redeals used"],
        [f"{int(state.fresh):02x}", "fresh flag"],
    ]

    def pile(cards: tuple[int, ...]) -> str:
        return f"{len(cards):02x}" + bytes(255 if c < 0 else c for c in cards).hex()

    for name, group in (("columns", state.columns), ("foundations", state.foundations)):
        rows.append([f"{len(group):02x}", f"{name}: {len(group)} piles"])
        rows += [[pile(p), f"{name}[{i}]: {len(p)} cards"] for i, p in enumerate(group)]
    for name, flat in (
        ("cells", state.cells),
        ("stock", state.stock),
        ("waste", state.waste),
        ("captives", state.captives),
        ("fixed", state.fixed),
    ):
        rows.append([pile(flat), f"{name}: {len(flat)} entries"])
    assert "".join(r[0] for r in rows) == encode_state(game, state).hex()
    return [f"{h}  {meaning}" for h, meaning in rows]


def positions() -> list[dict[str, Any]]:
    """Every variant's opening position for one seed: its encoding and hash."""
    seed = bytes(range(32))
    out = []
    for cls in GAME_CLASSES:
        game = get_game(cls.info.id)
        state = game.deal(seed)
        out.append(
            {
                "variant": game.id,
                "variant_index": variant_index(game.id),
                "options": game.options_text(),
                "seed": seed.hex(),
                "encoding_hex": encode_state(game, state).hex(),
                "state_hash": state_hash(game, state),
            }
        )
    return out


def _played(game: Game, seed: bytes, moves: list[str], why: str) -> dict[str, Any]:
    """A position reached by ``moves`` from ``seed``'s deal, with its encoding and the two bytes it shows."""
    result = replay(game, game.deal(seed), moves)
    assert result.verdict.error_index is None and [m.text() for m in result.moves] == moves
    encoded = encode_state(game, result.state)
    at = 4 + encoded[3]  # after the magic, the variant and the options text
    return {
        "variant": game.id,
        "seed": seed.hex(),
        "moves": moves,
        "why": why,
        "redeals": encoded[at],
        "fresh": encoded[at + 1],
        "encoding_hex": encoded.hex(),
        "state_hash": state_hash(game, result.state),
    }


def played_positions() -> list[dict[str, Any]]:
    """Positions whose ``redeals`` and ``fresh`` bytes show what the two mean (docs/certificates.md, "Layout"):
    picture-gallery's ``fresh`` is "no card from the stock yet", not "a lone king"; ``redeals`` counts ``rd`` moves."""
    seed = bytes(range(32))
    gallery = get_game("picture-gallery")
    out: list[dict[str, Any]] = []
    wanted = {
        "first-card": "the first d put a card from the stock on the lone king: fresh 0",
        "next-king": "a d dealt a king, which starts a column of its own: fresh 1 again",
        "moved-onto-fresh-king": "a card moved from another column onto the newest king, which has had no card from "
        "the stock yet: fresh stays 1 although the king is no longer alone",
        "cut-back-to-lone-king": "the newest column's card from the stock moved away: a lone king again, fresh stays 0",
    }
    found: dict[str, dict[str, Any]] = {}
    moves: list[str] = []
    state = gallery.deal(seed)
    while state.stock:
        before = len(state.columns)
        state, _ = gallery.play(state, "d")
        moves.append("d")
        if "first-card" not in found and len(state.columns) == before:
            found["first-card"] = _played(gallery, seed, list(moves), wanted["first-card"])
        if "next-king" not in found and len(state.columns) > before:
            found["next-king"] = _played(gallery, seed, list(moves), wanted["next-king"])
        newest = len(state.columns)
        for move in gallery.legal_moves(state):
            target, sources = move.target, move.sources
            if target is None or len(sources) != 1:
                continue
            onto = state.fresh and target.kind is PileKind.COLUMN and target.index == newest
            away = not state.fresh and len(state.columns[-1]) == 2 and sources[0].index == newest
            name = "moved-onto-fresh-king" if onto else "cut-back-to-lone-king" if away else ""
            if name and name not in found:
                found[name] = _played(gallery, seed, [*moves, move.text()], wanted[name])
    assert set(found) == set(wanted), sorted(set(wanted) - set(found))
    out += [found[name] for name in wanted]
    gathered = "rd gathered the columns: redeals 1, fresh 1 (column 1's king alone again, no card from the stock yet)"
    out.append(_played(gallery, seed, [*moves, "rd"], gathered))
    for variant in ("captives", "sultan-36"):
        game = get_game(variant)
        state, turned = game.deal(seed), []
        while state.stock:
            state, _ = game.play(state, "s")
            turned.append("s")
        once = "the stock turned out card by card, the waste not yet turned over: redeals 0 (no rd yet)"
        out.append(_played(game, seed, turned, once))
        out.append(_played(game, seed, [*turned, "rd"], "the waste turned over once (one rd): redeals 1"))
    return out
