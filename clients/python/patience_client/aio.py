"""The asyncio client: the same methods as :class:`~patience_client.PatienceClient`, awaited.

>>> async with AsyncPatienceClient(ClientSettings(target="localhost:50051")) as client:   # doctest: +SKIP
...     started = await client.new_game("cats-tail")
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from types import TracebackType
from typing import TypeVar, cast

import grpc
import grpc.aio
from google.protobuf.message import Message
from patience.v1 import patience_pb2 as pb

from . import _api, channels, watching
from ._api import OptionValues
from .certificates import CertificateCheck, PublicKeys, keys_from_proto, verify_certificate
from .config import ClientSettings
from .leaderboards import BoardCheck, check_pages
from .moves import MoveLike

# The channel, stubs and retry loop are channels' (shared with the blocking client); AsyncGameSession lives in
# session.py beside GameSession, and is still importable from here.
from .session import AsyncGameSession as AsyncGameSession

R = TypeVar("R", bound=Message)


class AsyncPatienceClient:
    """A ``grpc.aio`` client for ``patience.v1.PatienceService``; see PatienceClient for each method.

    Create it inside the event loop that uses it (grpc.aio channels belong to one loop).
    """

    def __init__(self, settings: ClientSettings | None = None, *, channel: grpc.aio.Channel | None = None) -> None:
        self.settings = settings or ClientSettings()
        self.credentials = _api.Credentials(self.settings)
        self._own_channel = channel is None
        self.channel = channels.open_aio_channel(self.settings) if channel is None else channel
        self._stubs = channels.unary_stubs(self.channel)
        #: Called before each pause with (rpc name, failed attempt number, pause in seconds, error).
        self.on_retry: channels.OnRetry | None = None

    async def close(self) -> None:
        if self._own_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncPatienceClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def remember(self, game_id: str, token: str) -> None:
        """Use ``token`` for every later call on ``game_id``."""
        self.credentials.remember(game_id, token)

    async def _call(
        self,
        rpc: _api.Rpc,
        request: Message,
        response_type: type[R],
        *,
        timeout: float | None,
        metadata: Sequence[tuple[str, str]] = (),
        safe: bool | None = None,
    ) -> R:
        answer = await channels.call_async(
            self._stubs, self.settings, rpc, request, timeout, metadata, safe, self.on_retry
        )
        return cast(R, answer)

    async def list_variants(self, *, timeout: float | None = None) -> list[pb.Variant]:
        resp = await self._call(_api.LIST_VARIANTS, pb.ListVariantsRequest(), pb.ListVariantsResponse, timeout=timeout)
        return list(resp.variants)

    async def prepare_game(self, *, timeout: float | None = None) -> pb.PrepareGameResponse:
        """Step one of a deal the server cannot choose alone: its seed's hash, before you pick a client seed.
        Pass ``prepared_id`` with your ``client_seed`` to :meth:`new_game`; keep ``server_seed_commitment`` and
        check it against the ``server_seed`` the game reveals when it is over (docs/fairness.md)."""
        return await self._call(_api.PREPARE_GAME, pb.PrepareGameRequest(), pb.PrepareGameResponse, timeout=timeout)

    async def new_game(
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
        resp = await self._call(_api.NEW_GAME, req, pb.NewGameResponse, timeout=timeout, metadata=md)
        self.credentials.remember(resp.game.game_id, resp.game_token)
        return resp

    async def watch(
        self, game_id: str, *, after_version: int = 0, token: str | None = None, spectator: bool = False
    ) -> AsyncIterator[pb.Game]:
        """The game now and after every change, until it is over (as :meth:`PatienceClient.watch`)."""
        metadata = () if spectator else self.credentials.game_metadata(game_id, token)
        async for game in watching.follow_async(self.channel, game_id, after_version, metadata, self.settings.retry):
            yield game

    async def get_game(
        self, game_id: str, *, include_moves: bool = False, token: str | None = None, timeout: float | None = None
    ) -> pb.Game:
        req = pb.GetGameRequest(game_id=game_id, include_moves=include_moves)
        md = self.credentials.game_metadata(game_id, token)
        return (await self._call(_api.GET_GAME, req, pb.GetGameResponse, timeout=timeout, metadata=md)).game

    async def apply_move(
        self,
        game_id: str,
        move: MoveLike,
        *,
        expected_version: int,
        token: str | None = None,
        timeout: float | None = None,
    ) -> pb.ApplyMoveResponse:
        req = _api.apply_move_request(game_id, move, expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return await self._call(_api.APPLY_MOVE, req, pb.ApplyMoveResponse, timeout=timeout, metadata=md)

    async def undo_move(
        self, game_id: str, *, expected_version: int, token: str | None = None, timeout: float | None = None
    ) -> pb.UndoMoveResponse:
        req = pb.UndoMoveRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return await self._call(_api.UNDO_MOVE, req, pb.UndoMoveResponse, timeout=timeout, metadata=md)

    async def legal_moves(
        self, game_id: str, *, token: str | None = None, timeout: float | None = None
    ) -> pb.LegalMovesResponse:
        req = pb.LegalMovesRequest(game_id=game_id)
        md = self.credentials.game_metadata(game_id, token)
        return await self._call(_api.LEGAL_MOVES, req, pb.LegalMovesResponse, timeout=timeout, metadata=md)

    async def hint(self, game_id: str, *, token: str | None = None, timeout: float | None = None) -> pb.HintResponse:
        """See :meth:`PatienceClient.hint <patience_client.client.PatienceClient.hint>`."""
        req = pb.HintRequest(game_id=game_id)
        md = self.credentials.game_metadata(game_id, token)
        return await self._call(_api.HINT, req, pb.HintResponse, timeout=timeout, metadata=md)

    async def autoplay(
        self, game_id: str, *, expected_version: int, token: str | None = None, timeout: float | None = None
    ) -> pb.AutoPlayResponse:
        """See :meth:`PatienceClient.autoplay <patience_client.client.PatienceClient.autoplay>`."""
        req = pb.AutoPlayRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        return await self._call(_api.AUTO_PLAY, req, pb.AutoPlayResponse, timeout=timeout, metadata=md)

    async def resign(
        self, game_id: str, *, expected_version: int = 0, token: str | None = None, timeout: float | None = None
    ) -> pb.Game:
        req = pb.ResignRequest(game_id=game_id, expected_version=expected_version)
        md = self.credentials.game_metadata(game_id, token)
        safe = expected_version > 0
        resp = await self._call(_api.RESIGN, req, pb.ResignResponse, timeout=timeout, metadata=md, safe=safe)
        return resp.game

    async def refresh(self, game_id: str, *, token: str | None = None, timeout: float | None = None) -> pb.Game:
        return await self.get_game(game_id, token=token, timeout=timeout)

    async def session(self, game: pb.Game | str, *, token: str | None = None) -> AsyncGameSession:
        if token is not None:
            self.remember(game if isinstance(game, str) else game.game_id, token)
        if isinstance(game, str):
            game = await self.get_game(game)
        return AsyncGameSession(self, game)

    async def submit_solution(
        self,
        moves: Iterable[MoveLike] | str,
        *,
        game_id: str | None = None,
        deal_ticket: str | None = None,
        token: str | None = None,
        timeout: float | None = None,
    ) -> pb.SubmitSolutionResponse:
        req = _api.submit_request(moves, game_id, deal_ticket)
        md = self.credentials.game_metadata(game_id, token) if game_id is not None else ()
        return await self._call(_api.SUBMIT_SOLUTION, req, pb.SubmitSolutionResponse, timeout=timeout, metadata=md)

    async def mint_deal(
        self,
        variant: str,
        options: OptionValues | None = None,
        *,
        valid_seconds: int = 0,
        label: str = "",
        operator_key: str | None = None,
        timeout: float | None = None,
    ) -> pb.MintDealResponse:
        req = pb.MintDealRequest(
            variant=variant, options=_api.options_text(options), valid_seconds=valid_seconds, label=label
        )
        md = self.credentials.operator_metadata(operator_key)
        return await self._call(_api.MINT_DEAL, req, pb.MintDealResponse, timeout=timeout, metadata=md)

    async def verify_certificate(
        self, certificate: bytes | pb.Certificate, *, replay: bool = False, timeout: float | None = None
    ) -> pb.VerifyCertificateResponse:
        encoded = certificate.encoded if isinstance(certificate, pb.Certificate) else certificate
        req = pb.VerifyCertificateRequest(certificate=encoded, replay=replay)
        return await self._call(_api.VERIFY_CERTIFICATE, req, pb.VerifyCertificateResponse, timeout=timeout)

    async def get_signing_keys(self, *, timeout: float | None = None) -> list[pb.SigningKey]:
        resp = await self._call(
            _api.GET_SIGNING_KEYS, pb.GetSigningKeysRequest(), pb.GetSigningKeysResponse, timeout=timeout
        )
        return list(resp.keys)

    async def verify_offline(
        self, certificate: bytes | pb.Certificate, *, keys: PublicKeys | None = None, replay: bool = False
    ) -> CertificateCheck:
        """Check a certificate locally; the replay (if asked) runs in a worker thread."""
        encoded = certificate.encoded if isinstance(certificate, pb.Certificate) else certificate
        if keys is None:
            keys = keys_from_proto(await self.get_signing_keys())
        return await asyncio.to_thread(verify_certificate, encoded, keys, replay=replay)

    # -- players: see PatienceClient's

    async def create_guest(self, display_name: str, *, timeout: float | None = None) -> pb.CreateGuestResponse:
        req = pb.CreateGuestRequest(display_name=display_name)
        resp = await self._call(_api.CREATE_GUEST, req, pb.CreateGuestResponse, timeout=timeout)
        self.credentials.identity = resp.token
        return resp

    async def get_player(self, *, timeout: float | None = None) -> pb.Player:
        req, md = pb.GetPlayerRequest(), self.credentials.identity_metadata()
        return (await self._call(_api.GET_PLAYER, req, pb.GetPlayerResponse, timeout=timeout, metadata=md)).player

    async def update_player(self, display_name: str, *, timeout: float | None = None) -> pb.Player:
        req, md = pb.UpdatePlayerRequest(display_name=display_name), self.credentials.identity_metadata()
        resp = await self._call(_api.UPDATE_PLAYER, req, pb.UpdatePlayerResponse, timeout=timeout, metadata=md)
        return resp.player

    async def erase_player(self, *, timeout: float | None = None) -> int:
        req, md = pb.ErasePlayerRequest(), self.credentials.identity_metadata()
        resp = await self._call(_api.ERASE_PLAYER, req, pb.ErasePlayerResponse, timeout=timeout, metadata=md)
        return resp.games_unlinked

    async def list_games(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListGamesResponse:
        req, md = pb.ListGamesRequest(page_size=page_size, page_token=page_token), self.credentials.identity_metadata()
        return await self._call(_api.LIST_GAMES, req, pb.ListGamesResponse, timeout=timeout, metadata=md)

    # -- daily deals and leaderboards (docs/competition.md) ------------------------

    async def daily_deal(
        self,
        variant: str,
        options: OptionValues | None = None,
        *,
        date: str = "",
        timeout: float | None = None,
    ) -> pb.GetDailyDealResponse:
        req = _api.daily_request(variant, options, date)
        md = self.credentials.identity_metadata()
        return await self._call(_api.GET_DAILY_DEAL, req, pb.GetDailyDealResponse, timeout=timeout, metadata=md)

    async def leaderboard(
        self,
        board: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> pb.GetLeaderboardResponse:
        req = pb.GetLeaderboardRequest(board=board, page_size=page_size, page_token=page_token)
        md = self.credentials.identity_metadata()
        return await self._call(_api.GET_LEADERBOARD, req, pb.GetLeaderboardResponse, timeout=timeout, metadata=md)

    async def leaderboard_pages(
        self, board: str, *, page_size: int = 50, timeout: float | None = None
    ) -> list[pb.GetLeaderboardResponse]:
        pages = [await self.leaderboard(board, page_size=page_size, timeout=timeout)]
        while pages[-1].next_page_token:
            pages.append(await self.leaderboard(board, page_size=page_size, page_token=pages[-1].next_page_token))
        return pages

    async def verify_leaderboard(
        self, board: str, *, keys: PublicKeys | None = None, replay: bool = False, page_size: int = 50
    ) -> BoardCheck:
        """Check a whole board locally; the checks (and replays, if asked) run in a worker thread."""
        pages = await self.leaderboard_pages(board, page_size=page_size)
        if keys is None:
            keys = keys_from_proto(await self.get_signing_keys())
        return await asyncio.to_thread(check_pages, pages, keys, replay=replay)
