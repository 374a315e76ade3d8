"""The clients' transport: the channel the settings describe, one stub per RPC, and the retry loop around each
call, blocking (:class:`~patience_client.PatienceClient`) and awaited (:class:`~patience_client.AsyncPatienceClient`).

Apart from the clients' methods because this is the one thing the two clients do differently; what is sent (the
request, its metadata, whether a repeat is safe) is decided once in ``_api``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import Message

from . import _api
from .config import NO_RETRY, ClientSettings, RetryPolicy
from .errors import ServiceError, error_from_rpc

#: Called before each pause with (rpc name, failed attempt number, pause in seconds, error).
OnRetry = Callable[[str, int, float, ServiceError], None]


def open_channel(settings: ClientSettings) -> grpc.Channel:
    """A blocking channel to ``settings.target``: TLS when the settings have credentials, else plain text."""
    creds, options = settings.credentials(), settings.options()
    if creds is None:
        return grpc.insecure_channel(settings.target, options=options)
    return grpc.secure_channel(settings.target, creds, options=options)


def open_aio_channel(settings: ClientSettings) -> grpc.aio.Channel:
    """The same channel for grpc.aio (it belongs to the running event loop)."""
    creds, options = settings.credentials(), settings.options()
    if creds is None:
        return grpc.aio.insecure_channel(settings.target, options=options)
    return grpc.aio.secure_channel(settings.target, creds, options=options)


def unary_stubs(channel: grpc.Channel | grpc.aio.Channel) -> dict[str, Callable[..., Any]]:
    """One callable per unary RPC of the service, by name, with its messages' serializers."""
    return {
        rpc.name: channel.unary_unary(
            rpc.path, request_serializer=_api.serializer(rpc), response_deserializer=_api.deserializer(rpc)
        )
        for rpc in _api.ALL_RPCS
    }


def _policy(settings: ClientSettings, rpc: _api.Rpc, safe: bool | None) -> RetryPolicy:
    """The settings' retries for a call that is safe to repeat (the RPC's own word unless ``safe`` says), else none."""
    return settings.retry if (rpc.safe if safe is None else safe) else NO_RETRY


def call(
    stubs: dict[str, Callable[..., Any]],
    settings: ClientSettings,
    rpc: _api.Rpc,
    request: Message,
    timeout: float | None,
    metadata: Sequence[tuple[str, str]],
    safe: bool | None,
    on_retry: OnRetry | None,
) -> Any:
    """One call, blocking: the answer, or the typed error once the retries (if any) are spent."""
    policy = _policy(settings, rpc, safe)
    pauses, stub = policy.backoffs(), stubs[rpc.name]
    deadline = settings.timeout if timeout is None else timeout
    attempt = 0
    while True:
        attempt += 1
        try:
            return stub(request, timeout=deadline, metadata=tuple(metadata))
        except grpc.RpcError as err:
            error = error_from_rpc(err, method=rpc.name, attempts=attempt)
            pause = next(pauses, None) if error.code in policy.retry_codes else None
            if pause is None:
                raise error from None
            if on_retry is not None:
                on_retry(rpc.name, attempt, pause, error)
            time.sleep(pause)


async def call_async(
    stubs: dict[str, Callable[..., Any]],
    settings: ClientSettings,
    rpc: _api.Rpc,
    request: Message,
    timeout: float | None,
    metadata: Sequence[tuple[str, str]],
    safe: bool | None,
    on_retry: OnRetry | None,
) -> Any:
    """One call, awaited: as :func:`call`, pausing without blocking the loop."""
    policy = _policy(settings, rpc, safe)
    pauses, stub = policy.backoffs(), stubs[rpc.name]
    deadline = settings.timeout if timeout is None else timeout
    attempt = 0
    while True:
        attempt += 1
        try:
            return await stub(request, timeout=deadline, metadata=tuple(metadata))
        except grpc.RpcError as err:
            error = error_from_rpc(err, method=rpc.name, attempts=attempt)
            pause = next(pauses, None) if error.code in policy.retry_codes else None
            if pause is None:
                raise error from None
            if on_retry is not None:
                on_retry(rpc.name, attempt, pause, error)
            await asyncio.sleep(pause)
