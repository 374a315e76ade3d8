"""The gRPC transport: metadata in, ``GameService`` call, message out, errors as rich statuses
(``service.observe.calls``).

The call's context (``service.games.ports.Credentials``) is built here from gRPC's own forms: the metadata, the
peer string turned into a plain IP address (:func:`peer_ip`).

Nothing here decides anything about games; every method is the same three
steps, so a new RPC is one line in ``_RPCS``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import unquote

import grpc
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc

from service.games import GameService
from service.games.ports import Credentials, credentials_from
from service.grpc.operations import abort
from service.observe import tracing
from service.observe.calls import failure
from service.security import tls

#: The trailer of a WatchGame stream that ended because the game is over (one that ends without it: reconnect).
GAME_OVER_TRAILER = "x-game-over"
#: The use cases that count calls per client address (service.security.ratelimit).
LIMITED = frozenset({"new_game", "prepare_game", "submit_solution", "verify_certificate", "hint", "create_guest"})


def peer_ip(peer: str) -> str:
    """The caller's IP address in a gRPC peer string: ``ipv4:1.2.3.4:5`` -> ``1.2.3.4``, ``ipv6:%5B::1%5D:5``
    (grpc writes the brackets escaped, as in a URI) -> ``::1``; ``unix`` for any Unix socket, "" for none."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return unquote(rest).rpartition(":")[0].strip("[]")
    return kind


def context_of(context: grpc.aio.ServicerContext[Any, Any], *, with_peer: bool) -> Credentials:
    """The call's context from gRPC's: read while the call is alive (the peer of a cancelled call is freed
    memory: see operations.py); the peer only ``with_peer``, since reading it costs a string from grpc's core."""
    return credentials_from(context.invocation_metadata(), peer_ip(context.peer()) if with_peer else "")


def _rpc(name: str) -> Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
    limited = name in LIMITED  # only these read the peer (rate limits): not a cost on every move
    span_name = f"GameService.{name}"

    async def method(self: PatienceServicer, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        call = getattr(self.games, name)
        try:
            if tracing.on and tracing.recording():
                return await tracing.in_span(span_name, call(request, context_of(context, with_peer=limited)))
            return await call(request, context_of(context, with_peer=limited))
        except Exception as exc:  # a refusal, or a bug (logged): as a rich status either way (service.observe.calls)
            await abort(context, failure(exc, name))

    method.__name__ = name
    return method


_RPCS = {
    "ListVariants": "list_variants",
    "PrepareGame": "prepare_game",
    "NewGame": "new_game",
    "GetGame": "get_game",
    "ApplyMove": "apply_move",
    "UndoMove": "undo_move",
    "LegalMoves": "legal_moves",
    "Hint": "hint",
    "AutoPlay": "auto_play",
    "Resign": "resign",
    "SubmitSolution": "submit_solution",
    "MintDeal": "mint_deal",
    "VerifyCertificate": "verify_certificate",
    "GetSigningKeys": "get_signing_keys",
    "CreateGuest": "create_guest",
    "GetPlayer": "get_player",
    "UpdatePlayer": "update_player",
    "ErasePlayer": "erase_player",
    "ListGames": "list_games",
    "GetDailyDeal": "get_daily_deal",
    "GetLeaderboard": "get_leaderboard",
}


class PatienceServicer(patience_pb2_grpc.PatienceServiceServicer):  # type: ignore[misc]  # generated, untyped
    """``patience.v1.PatienceService`` over a :class:`GameService`."""

    def __init__(self, games: GameService, *, operator_needs_client_certificate: bool = False) -> None:
        self.games = games
        if operator_needs_client_certificate:  # only these methods pay for the check, and only when it is on
            for name in tls.OPERATOR_RPCS:
                setattr(self, name, _needs_client_certificate(name, getattr(self, name)))

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """The server stream: a refusal before the first message, or the game after every change until it ends."""
        try:
            # With the peer: streams are counted per client address.
            watch = await self.games.watch_game(request, context_of(context, with_peer=True))
        except Exception as exc:  # a refusal, or a bug (logged): as a rich status either way
            await abort(context, failure(exc, "watch_game"))
            return
        try:
            async for update in watch:
                yield update
        except Exception as exc:  # the store failed mid-stream: the client reconnects with its last version
            await abort(context, failure(exc, "watch_game"))
        finally:
            await watch.aclose()
        if watch.over:  # ended for good, not for its lifetime: a stream that sent nothing says so in its trailer
            context.set_trailing_metadata((*context.trailing_metadata(), (GAME_OVER_TRAILER, "true")))


def _needs_client_certificate(
    name: str, method: Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
    """Mutual TLS for an operator call: served only over a connection whose client certificate grpc verified
    (the operator port's); on the players' port it is refused before the use case runs."""

    async def guarded(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if not tls.has_client_certificate(context.auth_context()):
            await abort(context, tls.client_certificate_required(name))
        return await method(request, context)

    guarded.__name__ = name
    return guarded


for _rpc_name, _method in _RPCS.items():
    setattr(PatienceServicer, _rpc_name, _rpc(_method))
