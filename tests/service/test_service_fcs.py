"""Freecell Solver's solutions (tests/data/fcs) won through the API: move by move, and submitted whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from patience.v1 import patience_pb2 as pb
from service_harness import Client, FixedSeeds, ServerThread, bearer, settings_for

from service.security.signing import KeyRing

FIXTURES = sorted((Path(__file__).parents[1] / "data" / "fcs").glob("*.txt"))
KEY_RING = KeyRing.generate()


def fixture_of(path: Path) -> tuple[str, bytes, list[str]]:
    variant, _, seed_hex = path.stem.rpartition("-")
    return variant, bytes.fromhex(seed_hex), path.read_text().split()


@pytest.fixture(scope="module")
def seeds() -> FixedSeeds:
    return FixedSeeds()


@pytest.fixture(scope="module")
def client(redis_url: str, seeds: FixedSeeds) -> Iterator[Client]:
    server = ServerThread(settings_for(redis_url), seed_source=seeds, crypto=(KEY_RING, None)).start()
    c = Client(server.address)
    yield c
    c.close()
    server.stop()


def deal(client: Client, seeds: FixedSeeds, variant: str, seed: bytes) -> tuple[pb.Game, str]:
    seeds.seeds.insert(0, seed)
    reply = client.NewGame(pb.NewGameRequest(variant=variant))
    return reply.game, reply.game_token


def test_there_are_fixtures_for_both_king_chain_games() -> None:
    assert {fixture_of(p)[0] for p in FIXTURES} >= {"cats-tail", "royal-retinue"}


@pytest.mark.parametrize("variant", ["cats-tail", "royal-retinue"])
def test_a_freecell_solver_solution_played_move_by_move_wins(client: Client, seeds: FixedSeeds, variant: str) -> None:
    path = next(p for p in FIXTURES if fixture_of(p)[0] == variant)
    _, seed, moves = fixture_of(path)
    game, token = deal(client, seeds, variant, seed)
    md = bearer(token)
    version = game.version
    explicit = []
    for i, text in enumerate(moves):
        reply = client.ApplyMove(
            pb.ApplyMoveRequest(game_id=game.game_id, expected_version=version, text=text), metadata=md
        )
        version = reply.game.version
        explicit.append(reply.applied.text)
        expected = pb.GAME_STATUS_WON if i == len(moves) - 1 else pb.GAME_STATUS_IN_PROGRESS
        assert reply.game.status == expected, (i, text)
    assert version == 1 + len(moves)
    assert all(not p.cards for p in reply.game.view.columns) and not any(reply.game.view.cells)
    assert sum(len(f.cards) for f in reply.game.view.foundations) == 104
    cert = reply.game.certificate
    assert list(cert.moves) == explicit and cert.move_count == len(moves) and cert.seed == seed
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=cert.encoded, replay=True))
    assert checked.valid, checked.message


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem[:24])
def test_a_freecell_solver_solution_submitted_whole_wins(client: Client, seeds: FixedSeeds, path: Path) -> None:
    variant, seed, moves = fixture_of(path)
    game, token = deal(client, seeds, variant, seed)
    reply = client.SubmitSolution(
        pb.SubmitSolutionRequest(game_id=game.game_id, moves=[path.read_text()]), metadata=bearer(token)
    )
    assert reply.verdict.outcome == pb.OUTCOME_WON, reply.verdict
    assert reply.verdict.move_count == len(moves) and reply.certificate.move_count == len(moves)
    checked = client.VerifyCertificate(pb.VerifyCertificateRequest(certificate=reply.certificate.encoded, replay=True))
    assert checked.valid, checked.message
