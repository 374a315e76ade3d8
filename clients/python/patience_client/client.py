"""The synchronous client: one method per RPC, typed, with retries and typed errors.

>>> with PatienceClient(ClientSettings(target="localhost:50051")) as client:   # doctest: +SKIP
...     started = client.new_game("cats-tail")
...     game = client.apply_move(started.game.game_id, "3-r", expected_version=started.game.version).game

The client remembers the token of every game it created (or that you pass to
:meth:`PatienceClient.remember`), so later calls on that game need only its id. Signed in (an identity token in
``ClientSettings.identity``, or after :meth:`PatienceClient.create_guest`), its new games are the player's, and
the identity opens them on any device (:meth:`PatienceClient.list_games`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import TypeVar, cast

import grpc
from google.protobuf.message import Message
from patience.v1 import patience_pb2 as pb

from . import _api, channels, watching
from ._api import OptionValues
from .certificates import CertificateCheck, PublicKeys, keys_from_proto, verify_certificate
from .config import ClientSettings
from .leaderboards import BoardCheck, check_pages
from .moves import MoveLike
from .session import GameSession

R = TypeVar("R", bound=Message)


class PatienceClient:
    """A blocking client for ``patience.v1.PatienceService``.

    Every method takes ``timeout`` (seconds, for each attempt; default ``settings.timeout``) and raises a
    :class:`~patience_client.errors.ServiceError` subclass when the call fails. Calls that are safe to repeat
    are retried on UNAVAILABLE according to ``settings.retry``.
    """

    def __init__(self, settings: ClientSettings | None = None, *, channel: grpc.Channel | None = None) -> None:
        self.settings = settings or ClientSettings()
        self.credentials = _api.Credentials(self.settings)
        self._own_channel = channel is None
        self.channel = channels.open_channel(self.settings) if channel is None else channel
        self._stubs = channels.unary_stubs(self.channel)
        #: Called before each pause with (rpc name, failed attempt number, pause in seconds, error).
        self.on_retry: channels.OnRetry | None = None

    # -- plumbing -------------------------------------------------------------

    def close(self) -> None:
        """Close the channel (only one the client opened itself)."""
        if self._own_channel:
            self.channel.close()

    def __enter__(self) -> PatienceClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def remember(self, game_id: str, token: str) -> None:
        """Use ``token`` for every later call on ``game_id``."""
        self.credentials.remember(game_id, token)

    def _call(
        self,
        rpc: _api.Rpc,
        request: Message,
        response_type: type[R],
        *,
        timeout: float | None,
        metadata: Sequence[tuple[str, str]] = (),
        safe: bool | None = None,
    ) -> R:
        answer = channels.call(self._stubs, self.settings, rpc, request, timeout, metadata, safe, self.on_retry)
        return cast(R, answer)

    # -- the catalogue --------------------------------------------------------

    def list_variants(self, *, timeout: float | None = None) -> list[pb.Variant]:
        """Every variant with its options."""
        resp = self._call(_api.LIST_VARIANTS, pb.ListVariantsRequest(), pb.ListVariantsResponse, timeout=timeout)
        return list(resp.variants)

    # -- games ------------------------------------------------------------------

    def prepare_game(self, *, timeout: float | None = None) -> pb.PrepareGameResponse:
        """Step one of a deal the server cannot choose alone: its seed's hash, before you pick a client seed.
        Pass ``prepared_id`` with your ``client_seed`` to :meth:`new_game`; keep ``server_seed_commitment`` and
        check it against the ``server_seed`` the game reveals when it is over (docs/fairness.md)."""
        return self._call(_api.PREPARE_GAME, pb.PrepareGameRequest(), pb.PrepareGameResponse, timeout=timeout)

    def new_game(
        self,
        variant: str = "",
        options: OptionValues | None = None,
        *,
        client_seed: bytes | None = None,
        deal_ticket: str | None = None,
        allow_undo: bool | None = None,
        prepared_id: str | None = None,
        replay_seed: bytes | None = None,
        deal_number: int | None = None,
        winnable: bool | None = None,
        watchable: bool | None = None,
        daily: bool | None = None,
        timeout: float | None = None,
    ) -> pb.NewGameResponse:
        """Deal a new game; the response carries the game and its token (remembered by this client).

        ``replay_seed`` (a finished game's 32-byte ``Game.seed``) deals that deal again, and ``deal_number`` N deals
        public deal #N, the same for everyone (docs/deal-v2.md); either one alone (the game says ``dealt``
        "replay" or "public": no fairness claim).

        ``winnable=True``: a deal the server's solver has won, from its pool (nothing else that chooses the deal
        with it); once the game is over, ``Game.solution`` holds the server's winning line. The server answers
        UNAVAILABLE ``WINNABLE_POOL_EMPTY`` when no such deal is ready.

        Signed in (``identity``), the game is the player's: ``Game.player`` names them, and ListGames lists it.
        ``watchable=True`` lets spectators follow the game without its token (:meth:`watch`); default: private.
        ``daily=True`` deals today's daily deal of the variant (docs/competition.md), the same for everyone; signed in,
        it is the player's one ranked game of it: a second call answers with the same game under a new token.

        Never retried: a repeat would deal a second game.
        """
        req = _api.new_game_request(
            variant,
            options,
            client_seed,
            deal_ticket,
            allow_undo,
            prepared_id,
            replay_seed,
            deal_number,
            winnable,
            watchable,
            daily,
        )
        md = self.credentials.identity_metadata()
        resp = self._call(_api.NEW_GAME, req, pb.NewGameResponse, timeout=timeout, metadata=md)
        self.credentials.remember(resp.game.game_id, resp.game_token)
        return resp

    def get_game(
        self, game_id: str, *, include_moves: bool = False, token: str | None = None, timeout: float | None = None
    ) -> pb.Game:
        """The game as the player sees it (with its move log if ``include_moves``)."""
        req = pb.GetGameRequest(game_id=game_id, include_moves=include_moves)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.GET_GAME, req, pb.GetGameResponse, timeout=timeout, metadata=md).game

    def apply_move(
        self,
        game_id: str,
        move: MoveLike,
        *,
        expected_version: int,
        token: str | None = None,
        timeout: float | None = None,
    ) -> pb.ApplyMoveResponse:
        """Play ``move`` (text, engine Move or structured) if the game is at ``expected_version``.

        IllegalMove if the rules refuse it, VersionConflict if the game has moved on (see :meth:`refresh`).
        Retried on UNAVAILABLE: the version guard turns a repeat of a move that did land into ABORTED.
        """
        req = _api.apply_move_request(game_id, move, expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.APPLY_MOVE, req, pb.ApplyMoveResponse, timeout=timeout, metadata=md)

    def undo_move(
        self, game_id: str, *, expected_version: int, token: str | None = None, timeout: float | None = None
    ) -> pb.UndoMoveResponse:
        """Take back the last move (IllegalMove if the game forbids undo or has no move to undo)."""
        req = pb.UndoMoveRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.UNDO_MOVE, req, pb.UndoMoveResponse, timeout=timeout, metadata=md)

    def legal_moves(
        self, game_id: str, *, token: str | None = None, timeout: float | None = None
    ) -> pb.LegalMovesResponse:
        """Every legal move now, with the version they are legal at."""
        req = pb.LegalMovesRequest(game_id=game_id)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.LEGAL_MOVES, req, pb.LegalMovesResponse, timeout=timeout, metadata=md)

    def hint(self, game_id: str, *, token: str | None = None, timeout: float | None = None) -> pb.HintResponse:
        """A move to make now, with a short reason (``reason``) and a stable ``reason_code``; ``move`` is unset
        when no move is left. Counted on the game and in its certificate, once per version (asking again at the
        same version gives the same hint). The server runs a solver for it: allow a second or two. Retried on
        UNAVAILABLE (``HINTS_BUSY``: the server's solvers are all taken)."""
        req = pb.HintRequest(game_id=game_id)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.HINT, req, pb.HintResponse, timeout=timeout, metadata=md)

    def autoplay(
        self, game_id: str, *, expected_version: int, token: str | None = None, timeout: float | None = None
    ) -> pb.AutoPlayResponse:
        """Send every card that can safely go home to the foundations, if the game is at ``expected_version``:
        ``applied`` lists the moves (empty when none was safe), ``game`` is the game after them (the version up
        by one per move; undo takes them back one by one). VersionConflict if the game has moved on."""
        req = pb.AutoPlayRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return self._call(_api.AUTO_PLAY, req, pb.AutoPlayResponse, timeout=timeout, metadata=md)

    def resign(
        self, game_id: str, *, expected_version: int = 0, token: str | None = None, timeout: float | None = None
    ) -> pb.Game:
        """End the game; the returned game carries the seed. Retried only with an ``expected_version``."""
        req = pb.ResignRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        safe = expected_version > 0
        return self._call(_api.RESIGN, req, pb.ResignResponse, timeout=timeout, metadata=md, safe=safe).game

    def refresh(self, game_id: str, *, token: str | None = None, timeout: float | None = None) -> pb.Game:
        """Re-read the game, e.g. after a VersionConflict, to learn its position and version."""
        return self.get_game(game_id, token=token, timeout=timeout)

    def watch(
        self, game_id: str, *, after_version: int = 0, token: str | None = None, spectator: bool = False
    ) -> Iterator[pb.Game]:
        """The game now and after every change (on any replica), until it is over: the last game yielded is its
        final state; one that falls behind gets the latest game. Resumed from the last version seen when the server
        ends the stream early or is UNAVAILABLE (``settings.retry``); other refusals raise. ``spectator=True``
        sends no token (a game dealt ``watchable``); stop early by closing the iterator (``break``)."""
        metadata = () if spectator else self.credentials.game_metadata(game_id, token)
        return watching.follow(self.channel, game_id, after_version, metadata, self.settings.retry)

    def session(self, game: pb.Game | str, *, token: str | None = None) -> GameSession:
        """A :class:`GameSession` on ``game`` (a Game already read, or an id: then it is read now)."""
        if token is not None:
            self.remember(game if isinstance(game, str) else game.game_id, token)
        if isinstance(game, str):
            game = self.get_game(game)
        return GameSession(self, game)

    # -- solutions, tickets, certificates ----------------------------------------

    def submit_solution(
        self,
        moves: Iterable[MoveLike] | str,
        *,
        game_id: str | None = None,
        deal_ticket: str | None = None,
        token: str | None = None,
        timeout: float | None = None,
    ) -> pb.SubmitSolutionResponse:
        """Replay a whole move list from the deal of ``game_id`` (needs its token) or of ``deal_ticket``.

        The verdict says won, unfinished or illegal (with the move's index, reason and text); a win carries
        the certificate. Not retried.
        """
        req = _api.submit_request(moves, game_id, deal_ticket)
        md = self.credentials.game_metadata(game_id, token) if game_id is not None else ()
        return self._call(_api.SUBMIT_SOLUTION, req, pb.SubmitSolutionResponse, timeout=timeout, metadata=md)

    def mint_deal(
        self,
        variant: str,
        options: OptionValues | None = None,
        *,
        valid_seconds: int = 0,
        label: str = "",
        operator_key: str | None = None,
        timeout: float | None = None,
    ) -> pb.MintDealResponse:
        """A signed deal ticket (needs the operator key). Not retried."""
        req = pb.MintDealRequest(
            variant=variant, options=_api.options_text(options), valid_seconds=valid_seconds, label=label
        )
        md = self.credentials.operator_metadata(operator_key)
        return self._call(_api.MINT_DEAL, req, pb.MintDealResponse, timeout=timeout, metadata=md)

    def verify_certificate(
        self, certificate: bytes | pb.Certificate, *, replay: bool = False, timeout: float | None = None
    ) -> pb.VerifyCertificateResponse:
        """Ask the service to check a certificate (see :meth:`verify_offline` to check it yourself)."""
        encoded = certificate.encoded if isinstance(certificate, pb.Certificate) else certificate
        req = pb.VerifyCertificateRequest(certificate=encoded, replay=replay)
        return self._call(_api.VERIFY_CERTIFICATE, req, pb.VerifyCertificateResponse, timeout=timeout)

    def get_signing_keys(self, *, timeout: float | None = None) -> list[pb.SigningKey]:
        """The public keys that sign certificates (old ones included)."""
        resp = self._call(_api.GET_SIGNING_KEYS, pb.GetSigningKeysRequest(), pb.GetSigningKeysResponse, timeout=timeout)
        return list(resp.keys)

    def verify_offline(
        self, certificate: bytes | pb.Certificate, *, keys: PublicKeys | None = None, replay: bool = False
    ) -> CertificateCheck:
        """Check a certificate here, not on the server: with ``keys``, or the service's keys fetched once."""
        encoded = certificate.encoded if isinstance(certificate, pb.Certificate) else certificate
        if keys is None:
            keys = keys_from_proto(self.get_signing_keys())
        return verify_certificate(encoded, keys, replay=replay)

    # -- daily deals and leaderboards (docs/competition.md) ------------------------

    def daily_deal(
        self,
        variant: str,
        options: OptionValues | None = None,
        *,
        date: str = "",
        timeout: float | None = None,
    ) -> pb.GetDailyDealResponse:
        """The daily deal of ``variant`` on ``date`` (YYYY-MM-DD, UTC; default today, at most tomorrow): its board,
        its commitment, and its seed once the day is over. Signed in, ``game_id`` is the player's ranked game of it
        ("" if none)."""
        req = _api.daily_request(variant, options, date)
        md = self.credentials.identity_metadata()
        return self._call(_api.GET_DAILY_DEAL, req, pb.GetDailyDealResponse, timeout=timeout, metadata=md)

    def leaderboard(
        self,
        board: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> pb.GetLeaderboardResponse:
        """One page of a leaderboard (``daily-VARIANT-YYYY-MM-DD`` or ``public-VARIANT-N``): ranked wins, best
        first, each with its certificate (a daily board's once its day is over); ``own`` is the player's entry when
        signed in and on the board."""
        req = pb.GetLeaderboardRequest(board=board, page_size=page_size, page_token=page_token)
        md = self.credentials.identity_metadata()
        return self._call(_api.GET_LEADERBOARD, req, pb.GetLeaderboardResponse, timeout=timeout, metadata=md)

    def leaderboard_pages(
        self, board: str, *, page_size: int = 50, timeout: float | None = None
    ) -> list[pb.GetLeaderboardResponse]:
        """Every page of a board, first to last."""
        pages = [self.leaderboard(board, page_size=page_size, timeout=timeout)]
        while pages[-1].next_page_token:
            pages.append(self.leaderboard(board, page_size=page_size, page_token=pages[-1].next_page_token))
        return pages

    def verify_leaderboard(
        self, board: str, *, keys: PublicKeys | None = None, replay: bool = False, page_size: int = 50
    ) -> BoardCheck:
        """Fetch the whole board and check every entry here, with ``keys`` or the service's keys fetched once
        (patience_client.leaderboards): ``valid`` only when the board and every entry check."""
        pages = self.leaderboard_pages(board, page_size=page_size)
        if keys is None:
            keys = keys_from_proto(self.get_signing_keys())
        return check_pages(pages, keys, replay=replay)

    # -- players (docs/players.md) -------------------------------------------------

    def create_guest(self, display_name: str, *, timeout: float | None = None) -> pb.CreateGuestResponse:
        """A guest identity with this name; the client signs in with it (``credentials.identity``). Keep
        ``token``: it is the only way back to this player. Not retried (a repeat makes a second guest)."""
        req = pb.CreateGuestRequest(display_name=display_name)
        resp = self._call(_api.CREATE_GUEST, req, pb.CreateGuestResponse, timeout=timeout)
        self.credentials.identity = resp.token
        return resp

    def get_player(self, *, timeout: float | None = None) -> pb.Player:
        """Who the identity token says the caller is (Unauthenticated without one)."""
        req, md = pb.GetPlayerRequest(), self.credentials.identity_metadata()
        return self._call(_api.GET_PLAYER, req, pb.GetPlayerResponse, timeout=timeout, metadata=md).player

    def update_player(self, display_name: str, *, timeout: float | None = None) -> pb.Player:
        """A new display name (games dealt before keep theirs); InvalidRequest ``BAD_DISPLAY_NAME``."""
        req, md = pb.UpdatePlayerRequest(display_name=display_name), self.credentials.identity_metadata()
        return self._call(_api.UPDATE_PLAYER, req, pb.UpdatePlayerResponse, timeout=timeout, metadata=md).player

    def erase_player(self, *, timeout: float | None = None) -> int:
        """Erase what the service keeps about the player; how many of their games were unlinked."""
        req, md = pb.ErasePlayerRequest(), self.credentials.identity_metadata()
        return self._call(_api.ERASE_PLAYER, req, pb.ErasePlayerResponse, timeout=timeout, metadata=md).games_unlinked

    def list_games(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListGamesResponse:
        """One page of the player's games, newest first (``page_size`` 0 = the server's 20); pass
        ``next_page_token`` back for the next page (see :meth:`all_games`)."""
        req, md = pb.ListGamesRequest(page_size=page_size, page_token=page_token), self.credentials.identity_metadata()
        return self._call(_api.LIST_GAMES, req, pb.ListGamesResponse, timeout=timeout, metadata=md)

    def all_games(self, *, page_size: int = 100, timeout: float | None = None) -> Iterator[pb.GameSummary]:
        """Every game of the player, newest first, a page at a time."""
        token = ""
        while True:
            page = self.list_games(page_size=page_size, page_token=token, timeout=timeout)
            yield from page.games
            token = page.next_page_token
            if not token:
                return
