"""patience-cli's commands against a real service: new, show, move, undo, legal, resign, submit, verify-cert, keys.

Each test runs the command line's ``main`` as a fresh invocation, so the state
file is what carries the game from one command to the next -- as for a player
who stops and comes back.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
from pathlib import Path

import pytest
from client_harness import OPERATOR_KEY, ServiceThread, refused_move, seed_for, service, solution_for, ticket_seed
from patience_client import cli, statefile

from engine.catalogue import get_game
from engine.solver import autoplay

__all__ = ["service"]


@pytest.fixture
def env(service: ServiceThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATIENCE_TARGET and a state file of the test's own; the working directory is a temp one."""
    state = tmp_path / "state" / "current.json"
    monkeypatch.setenv("PATIENCE_TARGET", service.target)
    monkeypatch.setenv("PATIENCE_STATE_FILE", str(state))
    for var in ("PATIENCE_TOKEN", "PATIENCE_GAME", "PATIENCE_TLS", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return state


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def legal_at_deal(variant: str, seed: bytes) -> list[str]:
    game = get_game(variant)
    return [m.text() for m in game.legal_moves(game.deal(seed))]


def test_new_keeps_the_game_in_a_private_state_file(env: Path) -> None:
    code, out = run("new", "cats-tail")
    assert code == 0
    saved = statefile.load(env)
    assert saved is not None and saved.variant == "cats-tail" and saved.version == 1 and saved.token
    assert stat.S_IMODE(os.stat(env).st_mode) == 0o600
    assert f"new game {saved.game_id}" in out and "commitment" in out
    assert "♠" in out or "♣" in out
    assert "\x1b[" not in out  # not a terminal: no colour unless asked


def test_show_draws_the_table_in_colour_when_asked(env: Path) -> None:
    run("new", "cats-tail")
    code, out = run("--color", "always", "show")
    assert code == 0 and "\x1b[31m" in out and ("♥" in out or "♦" in out)
    code, plain = run("show", "--moves")
    assert code == 0 and "moves: (none)" in plain and "\x1b[" not in plain


def test_move_undo_and_legal(env: Path) -> None:
    run("new", "cats-tail")
    legal = legal_at_deal("cats-tail", seed_for(0))
    code, out = run("legal")
    assert code == 0 and f"{len(legal)} legal:" in out and all(m in out for m in legal)
    code, out = run("move", legal[0])
    assert code == 0 and "played" in out
    saved = statefile.load(env)
    assert saved is not None and saved.version == 2
    code, out = run("undo")
    assert code == 0 and "took back" in out
    saved = statefile.load(env)
    assert saved is not None and saved.version == 3


def test_a_refused_move_is_explained_and_exits_1(env: Path) -> None:
    run("new", "cats-tail")
    text, rule = refused_move("cats-tail", seed_for(0))
    code, out = run("move", text)
    assert code == 1
    assert f"✗ {text!r} refused: {rule}" in out and "why:" in out
    code, out = run("move", "3~7")
    assert code == 1 and "BAD_NOTATION" in out and "Moves look like" in out


def test_resign_shows_the_seed_that_matches_the_commitment(env: Path) -> None:
    run("new", "cats-tail")
    code, out = run("resign")
    assert code == 0 and f"seed {seed_for(0).hex()}" in out and "resigned" in out
    assert "SHA-256(seed) matches the commitment" in out


def test_a_client_seed_game_is_prepared_first_and_checked_at_the_end(env: Path) -> None:
    code, out = run("new", "cats-tail", "--client-seed", "c0ffee")
    assert code == 0
    committed = out.split("server seed commitment")[1].splitlines()[1].strip()
    assert len(committed) == 64 and out.index("server seed commitment") < out.index("new game")
    code, out = run("resign")
    assert code == 0 and f"SHA-256 matches the server seed commitment {committed[:16]}..." in out
    revealed = bytes.fromhex(out.split("server seed ")[1].split()[0])
    assert hashlib.sha256(revealed).hexdigest() == committed


def test_options_and_environment_override_the_state_file(env: Path, service: ServiceThread) -> None:
    run("new", "cats-tail")
    first = statefile.load(env)
    assert first is not None
    other_state = env.parent / "other.json"
    code, _ = run("--state-file", str(other_state), "new", "sultan-36")
    assert code == 0
    second = statefile.load(other_state)
    assert second is not None
    # --game and --token reach the other game while the default state file still names the first
    # (ids and tokens may start with "-": the "=" form keeps argparse from reading them as options)
    code, out = run(f"--game={second.game_id}", f"--token={second.token}", "show")
    assert code == 0 and "sultan-36" in out and second.game_id in out
    code, out = run(f"--game={second.game_id}", "--token=wrong", "show")
    assert code == 1 and "refused: WRONG_TOKEN" in out


def test_no_game_and_no_server_are_usage_errors(env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("show")
    assert code == 2 and "no current game" in capsys.readouterr().err
    code, _ = run("--target", "127.0.0.1:1", "--timeout", "2", "variants")
    assert code == 2 and "cannot reach 127.0.0.1:1" in capsys.readouterr().err


def test_submit_then_verify_the_certificate_offline_and_online(
    env: Path, tmp_path: Path, service: ServiceThread
) -> None:
    moves = solution_for("sultan-36", seed_for(0))
    service.seeds.preset.extend([seed_for(0)] * 2)
    run("new", "sultan-36")
    solution = tmp_path / "solution.txt"
    solution.write_text("\n".join(moves) + "\n")
    bad = tmp_path / "bad.txt"
    bad.write_text(" ".join([*moves[:2], "9-f", *moves[2:]]))
    code, out = run("submit", str(bad))
    assert code == 1 and "illegal after 2 moves" in out and "move 3 '9-f' refused" in out
    assert "the game is over (forfeited)" in out and f"seed {seed_for(0).hex()}" in out  # a submission is final

    run("new", "sultan-36")
    saved = statefile.load(env)
    assert saved is not None
    code, out = run("submit", str(solution))
    assert code == 0 and "won after" in out
    cert = tmp_path / f"patience-{saved.game_id}.cert"
    assert cert.exists() and json.loads(cert.read_bytes())["key_id"]

    code, out = run("verify-cert", str(cert), "--replay")  # keys fetched from the server, checked here
    assert code == 0 and "✓ certificate valid" in out and "replayed with the engine" in out
    assert "submitted whole" in out and "0 hints" in out
    keys = tmp_path / "keys.json"
    assert run("keys", "--out", str(keys))[0] == 0
    code, out = run("--target", "127.0.0.1:1", "verify-cert", str(cert), "--keys", str(keys))  # fully offline
    assert code == 0 and "✓ certificate valid" in out
    code, out = run("verify-cert", str(cert), "--server")
    assert code == 0 and "server says: valid" in out

    tampered = tmp_path / "tampered.cert"
    doc = json.loads(cert.read_bytes())
    doc["signature"] = ("A" if doc["signature"][0] != "A" else "B") + doc["signature"][1:]
    tampered.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")))
    code, out = run("verify-cert", str(tampered), "--keys", str(keys))
    assert code == 1 and "NOT valid: BAD_SIGNATURE" in out
    code, out = run("verify-cert", str(tampered), "--server")
    assert code == 1 and "NOT valid" in out


def test_mint_and_submit_for_a_ticket(env: Path, tmp_path: Path, service: ServiceThread) -> None:
    code, out = run("--operator-key", OPERATOR_KEY, "mint", "sultan-36", "--label", "daily")
    assert code == 0
    ticket = out.strip()
    code, _ = run("new", f"--ticket={ticket}")
    assert code == 0
    code, out = run("resign")
    assert code == 0 and "seed" not in out  # a ticket's seed stays secret until the ticket expires
    seed = ticket_seed(service, ticket)
    solution = tmp_path / "s.txt"
    solution.write_text(" ".join(solution_for("sultan-36", seed)))
    code, out = run("submit", str(solution), f"--ticket={ticket}")
    assert code == 1 and "TICKET_DEAL_SECRET" in out  # the deal hides cards: played through `new --ticket`
    assert run("new", f"--ticket={ticket}")[0] == 0
    code, out = run("submit", str(solution), "--cert-out", str(tmp_path / "t.cert"))
    assert code == 0 and "won" in out and (tmp_path / "t.cert").exists()


def test_replay_deals_the_ended_game_again_and_new_takes_a_seed_or_a_deal_number(env: Path) -> None:
    run("new", "cats-tail", "--no-undo")
    code, out = run("replay")
    assert code == 2  # the first game is not over: its seed is still secret
    run("resign")
    first = statefile.load(env)
    code, out = run("replay")
    assert code == 0 and "replay" in out and "no fairness claim" in out
    again = statefile.load(env)
    assert first is not None and again is not None and again.game_id != first.game_id
    seed = seed_for(0)
    assert hashlib.sha256(seed).hexdigest() in out  # the commitment of the same deal
    code, out = run("undo")  # a replay of a no-undo game forbids undo too
    assert code == 1 and "UNDO_FORBIDDEN" in out
    code, out = run("new", "cats-tail", "--replay", seed.hex())
    assert code == 0 and hashlib.sha256(seed).hexdigest() in out
    code, out = run("new", "sultan-36", "--deal", "7")
    assert code == 0 and "public deal #7" in out and "sultan-36 deal #7  game " in out  # and in the header
    assert hashlib.sha256(hashlib.sha256(b"patience-public-deal|7").digest()).hexdigest() in out
    assert run("new", "cats-tail", "--replay", "abc")[0] == 2
    assert run("new", "cats-tail", "--deal", "7", "--replay", seed.hex())[0] == 2
    assert run("new", "cats-tail", "--deal", "7", "--client-seed", "00")[0] == 2
    code, out = run("new", "cats-tail", "--deal", "0")
    assert code == 1 and "BAD_DEAL_NUMBER" in out


def test_hint_marks_the_move_and_auto_sends_the_safe_cards_home(env: Path) -> None:
    run("new", "sultan-36")
    game = get_game("sultan-36")
    start = game.deal(seed_for(0))
    code, out = run("hint")
    assert code == 0 and "hints in this game: 1" in out
    line = next(x for x in out.splitlines() if x.startswith("hint: "))
    assert line.split()[1] in [m.text() for m in game.legal_moves(start)]
    assert "<- from" in out and "\x1b[" not in out  # marked in words without colour
    _, safe = autoplay(game, start)
    code, out = run("auto")
    assert code == 0
    assert (f"played {' '.join(m.text() for m in safe)}" if safe else "no card can safely go home now") in out
    saved = statefile.load(env)
    assert saved is not None and saved.version == 1 + len(safe)
    code, out = run("auto")
    assert code == 0 and "no card can safely go home now" in out
    run("resign")
    code, out = run("hint")
    assert code == 1 and "GAME_OVER" in out
