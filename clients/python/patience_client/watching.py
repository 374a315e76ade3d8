"""Following a game live (WatchGame, a server stream): the loops behind ``PatienceClient.watch`` and
``AsyncPatienceClient.watch``.

A stream ends for good once the game is over: its last message is the final state, or (when the caller had that
already) its trailer says so (``x-game-over``). Any other end -- the server's stream lifetime, a server that
stops, UNAVAILABLE for a moment -- is resumed from the last version seen, with the retry policy's pauses; the
server then sends the latest game, not every version missed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import grpc
import grpc.aio
from patience.v1 import patience_pb2 as pb

from . import _api
from .config import RetryPolicy
from .errors import error_from_rpc

Metadata = Sequence[tuple[str, str]]


def _stream(channel: Any) -> Any:
    return channel.unary_stream(
        _api.WATCH_GAME.path,
        request_serializer=_api.serializer(_api.WATCH_GAME),
        response_deserializer=_api.deserializer(_api.WATCH_GAME),
    )


def _pause(err: grpc.RpcError, pauses: Iterator[float], retry: RetryPolicy) -> float:
    """The pause before resuming after ``err``, or the error raised (not one to retry, or no attempts left)."""
    error = error_from_rpc(err, method="WatchGame")
    pause = next(pauses, None) if error.code in retry.retry_codes else None
    if pause is None:
        raise error from None
    return pause


def follow(
    channel: grpc.Channel, game_id: str, after: int, metadata: Metadata, retry: RetryPolicy
) -> Iterator[pb.Game]:
    """The game after every change from version ``after`` on, until it is over (blocking)."""
    stream = _stream(channel)
    pauses = retry.backoffs()
    while True:
        call: Any = stream(pb.WatchGameRequest(game_id=game_id, after_version=after), metadata=tuple(metadata))
        try:
            for reply in call:
                after, pauses = reply.game.version, retry.backoffs()
                yield reply.game
                if reply.game.status in _api.OVER:
                    return
            if _api.stream_over(call.trailing_metadata()):
                return
        except grpc.RpcError as err:
            time.sleep(_pause(err, pauses, retry))
        finally:
            call.cancel()


async def follow_async(
    channel: grpc.aio.Channel, game_id: str, after: int, metadata: Metadata, retry: RetryPolicy
) -> AsyncIterator[pb.Game]:
    """The game after every change from version ``after`` on, until it is over (asyncio)."""
    stream = _stream(channel)
    pauses = retry.backoffs()
    while True:
        call: Any = stream(pb.WatchGameRequest(game_id=game_id, after_version=after), metadata=tuple(metadata))
        try:
            async for reply in call:
                after, pauses = reply.game.version, retry.backoffs()
                yield reply.game
                if reply.game.status in _api.OVER:
                    return
            if _api.stream_over(await call.trailing_metadata()):
                return
        except grpc.RpcError as err:
            await asyncio.sleep(_pause(err, pauses, retry))
        finally:
            call.cancel()
