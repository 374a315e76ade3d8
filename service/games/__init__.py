"""The use cases: the one place of service logic, shared by the gRPC servicer and the REST layer.

:class:`GameService` has one async method per RPC, named as the RPC in snake_case, taking the RPC's request
message and the caller's :class:`Credentials` and returning the response message; refusals are
:class:`~service.errors.ServiceError`, each built in ``service.errors``. Transports only read
credentials and map errors (``service.observe.calls``).

One module per group of RPCs, each use case a few steps over the adapters (``steps``: the store, the engine,
the key ring, the ticket minter, the rate limiter, the replica's caches):

- ``dealing``: ListVariants, PrepareGame, NewGame;
- ``playing``: GetGame, ApplyMove, UndoMove, LegalMoves, Resign;
- ``autoplaying``: AutoPlay;
- ``hinting``: Hint (the solver itself runs in the hint pool, ``service.solving.hints``);
- ``solutions``: SubmitSolution;
- ``minting``: MintDeal;
- ``certifying``: VerifyCertificate, GetSigningKeys.

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
from service.games.playing import Playing
from service.games.ports import Credentials, KeyRing, Limiter, Tickets
from service.games.solutions import Solutions
from service.security.tokens import MIX_LABEL, mix_seed, new_game_id, new_token, token_hash


class GameService(Dealing, Playing, AutoPlaying, Hinting, Solutions, Minting, Certifying):
    """The use cases over a store, a certificate key ring, a ticket minter, a rate limiter and a hint pool."""


__all__ = [
    "MIX_LABEL",
    "Credentials",
    "GameService",
    "KeyRing",
    "Limiter",
    "Tickets",
    "mix_seed",
    "new_game_id",
    "new_token",
    "token_hash",
]
