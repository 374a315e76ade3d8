"""The use cases: the one place of service logic, shared by the gRPC servicer and the REST layer.

:class:`GameService` has one async method per RPC, named as the RPC in snake_case, taking the RPC's request
message and the caller's :class:`Credentials` and returning the response message; refusals are
:class:`~service.errors.ServiceError`, each built in ``service.errors``. Transports only read
credentials and map errors (``service.observe.calls``).

One object per group of RPCs, each given the adapters and the steps they share (one ``steps.Steps``: the store,
the engine, the key ring, the ticket minter, the rate limiter, the hint pool, the replica's caches) rather than
inheriting them; ``GameService`` builds them and answers each RPC with the method of the one that holds it:

- ``dealing``: ListVariants, PrepareGame, NewGame;
- ``playing``: GetGame, ApplyMove, UndoMove, LegalMoves, Resign;
- ``autoplaying``: AutoPlay;
- ``hinting``: Hint (the solver itself runs in the hint pool, ``service.solving.hints``);
- ``solutions``: SubmitSolution;
- ``minting``: MintDeal;
- ``certifying``: VerifyCertificate, GetSigningKeys;
- ``players``: CreateGuest, GetPlayer, UpdatePlayer, ErasePlayer (who the caller is: ``Steps.identify``,
  docs/players.md);
- ``my_games``: ListGames (a signed-in player's games, listed by NewGame).
- ``watching``: WatchGame (a stream: the game after every change, over the store's change notifications).

Every position goes through the engine's one reducer (``Game.play``), the same one the replay verifier uses;
responses carry the engine's player view only (``engine.view.player_view``), and a game's seed only once the
game is over (``messages``).
"""

from __future__ import annotations

from service.games.autoplaying import AutoPlaying
from service.games.certifying import Certifying
from service.games.dealing import Dealing
from service.games.hinting import Hinting
from service.games.minting import Minting
from service.games.my_games import MyGames
from service.games.players import Players
from service.games.playing import Playing
from service.games.ports import Changes, Credentials, KeyRing, Limiter, Tickets
from service.games.solutions import Solutions
from service.games.steps import Steps
from service.games.watching import Watch, Watching
from service.security.tokens import MIX_LABEL, mix_seed, new_game_id, new_token, token_hash


class GameService:
    """The use cases over a store, a certificate key ring, a ticket minter, a rate limiter and a hint pool: one
    method per RPC (``apply_move`` for ApplyMove), each the method of the use-case object that holds it."""

    def __init__(self, steps: Steps, changes: Changes | None = None) -> None:
        self.steps = steps
        my_games = MyGames(steps)
        dealing, playing, auto, hinting = Dealing(steps, my_games), Playing(steps), AutoPlaying(steps), Hinting(steps)
        solutions, minting, certifying = Solutions(steps), Minting(steps), Certifying(steps)
        self.list_variants, self.prepare_game, self.new_game = (
            dealing.list_variants, dealing.prepare_game, dealing.new_game,
        )  # fmt: skip
        self.get_game, self.apply_move, self.undo_move = playing.get_game, playing.apply_move, playing.undo_move
        self.legal_moves, self.resign = playing.legal_moves, playing.resign
        self.auto_play, self.hint, self.submit_solution = auto.auto_play, hinting.hint, solutions.submit_solution
        self.mint_deal = minting.mint_deal
        self.verify_certificate, self.get_signing_keys = certifying.verify_certificate, certifying.get_signing_keys
        players = Players(steps, my_games)
        self.create_guest, self.get_player = players.create_guest, players.get_player
        self.update_player, self.erase_player = players.update_player, players.erase_player
        self.list_games = my_games.list_games
        self.watching = Watching(steps, changes)  # None: WatchGame is refused (UNAVAILABLE, WATCH_UNAVAILABLE)
        self.watch_game = self.watching.watch_game
        # The adapters, for the server that stops them and for tests that look inside.
        self.settings, self.store, self.key_ring, self.tickets = (
            steps.settings,
            steps.store,
            steps.key_ring,
            steps.tickets,
        )
        self.limiter, self.hints, self.recent = steps.limiter, steps.hints, steps.recent


__all__ = [
    "MIX_LABEL",
    "Changes",
    "Credentials",
    "GameService",
    "KeyRing",
    "Limiter",
    "Tickets",
    "Watch",
    "mix_seed",
    "new_game_id",
    "new_token",
    "token_hash",
]
