"""Building and running the gRPC server.

``create_server(settings)`` builds everything without binding a fixed port in
tests (``--listen 127.0.0.1:0``) and returns ``(server, port)``; ``serve()``
runs it until SIGTERM/SIGINT, then stops gracefully: health NOT_SERVING, the
in-flight calls get ``settings.grace`` seconds, the store is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from patience.v1 import patience_pb2, patience_pb2_grpc

from service import metrics
from service.config import Settings
from service.games import GameService
from service.operations import Operations
from service.servicer import PatienceServicer
from service.store import GameStore, StoreError, open_store

log = logging.getLogger(__name__)

SERVICE_NAME = patience_pb2.DESCRIPTOR.services_by_name["PatienceService"].full_name


@dataclass
class Server:
    """A built server: the grpc.aio server, its port, the use cases and what they hold."""

    grpc: grpc.aio.Server
    port: int
    games: GameService
    store: GameStore
    health: health_aio.HealthServicer
    settings: Settings
    http: Any = None
    http_port: int | None = None
    health_interval: float = 5.0
    _stopped: bool = field(default=False, repr=False)
    _watcher: asyncio.Task[None] | None = field(default=None, repr=False)

    async def start(self) -> None:
        """Start serving; health turns SERVING once the store answers."""
        await self.grpc.start()
        if self.settings.http_listen:
            http = importlib.import_module("service.http")
            self.http = await _maybe_await(http.start_http(self.games, self.settings.http_listen))
            self.http_port = getattr(self.http, "port", None)
        await self._check_store()
        self._watcher = asyncio.get_running_loop().create_task(self._watch_store())

    async def _check_store(self) -> None:
        """The API's health follows the store's ping; the overall ``""`` says only that this process serves
        (a liveness probe must not restart every replica while Redis is away: restarting cannot fix that)."""
        await self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        try:
            await self.store.ping()
        except (StoreError, OSError) as exc:
            log.warning("the store does not answer: %s", exc)
            await self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.NOT_SERVING)
            metrics.observe_health(ready=False, store_up=False)
            return
        if self._stopped:  # the ping came back after SIGTERM: the service stays NOT_SERVING
            metrics.observe_health(ready=False, store_up=True)
            return
        await self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        metrics.observe_health(ready=True, store_up=True)

    async def _watch_store(self) -> None:
        while not self._stopped:
            await asyncio.sleep(self.health_interval)
            if not self._stopped:
                await self._check_store()

    async def stop(self, grace: float | None = None) -> None:
        """Refuse new calls, let in-flight ones finish for ``grace`` seconds, close the store."""
        if self._stopped:
            return
        self._stopped = True
        if self._watcher is not None:
            self._watcher.cancel()
        await self.health.enter_graceful_shutdown()
        metrics.observe_health(ready=False)
        if self.http is not None:
            await _maybe_await(self.http.stop())
        await self.grpc.stop(self.settings.grace if grace is None else grace)
        await self.store.close()

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def _maybe_await(value: Any) -> Any:
    if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
        return await value
    return value


class _GenericHandlersOnly:
    """Registers services through one :class:`service.operations.Operations` generic handler, leaving out the
    *registered* methods.

    The generated ``add_*_to_server`` functions register every method both ways. grpc.aio (1.85) then keeps one
    pending request per registered method (15 here) and, after every call, ``asyncio.wait``s on all of them:
    about 60 k instructions a call, more than the rest of the call's Python code outside the use case. Through
    the generic handler a call is one dict lookup by method name, exactly as the benchmark's echo server serves;
    ``Operations`` adds metrics, the request id and the access line to every method it finds.
    """

    def __init__(self, server: grpc.aio.Server) -> None:
        self._operations = Operations()
        server.add_generic_rpc_handlers((self._operations,))

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._operations.add(handlers)

    def add_registered_method_handlers(
        self, service_name: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        """Left out on purpose: the generic handler registered alongside serves these methods."""


def load_crypto(settings: Settings) -> tuple[Any, Any]:
    """The certificate key ring and the deal-ticket minter (service.keys), or (None, None) without keys."""
    try:
        keys = importlib.import_module("service.keys")
    except ImportError:
        log.warning("service.keys is missing: no certificates, no deal tickets")
        return None, None
    return keys.load_service_keys(settings)  # type: ignore[no-any-return]


async def create_server(
    settings: Settings,
    *,
    seed_source: Callable[[], bytes] | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    store: GameStore | None = None,
    crypto: tuple[Any, Any] | None = None,
    reuse_port: bool = False,
    health_interval: float = 5.0,
) -> tuple[Server, int]:
    """Build the server bound to ``settings.listen`` (port 0: a free one); start it with ``await server.start()``."""
    if store is None:
        if not settings.redis_url:
            raise ValueError("no Redis URL (python -m service starts a local redis-server when none is given)")
        store = open_store(
            settings.redis_url,
            idle_seconds=settings.idle_timeout,
            retain_seconds=settings.reveal_retention,
            key_prefix=settings.store_prefix,
        )
    key_ring, tickets = crypto if crypto is not None else load_crypto(settings)
    games = GameService(settings, store, key_ring, tickets, seed_source=seed_source)
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", max(settings.max_message_bytes, 4 << 20)),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
    ]
    server = grpc.aio.server(interceptors=list(interceptors) or None, options=options)
    generic = _GenericHandlersOnly(server)
    patience_pb2_grpc.add_PatienceServiceServicer_to_server(PatienceServicer(games), generic)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, generic)
    for name in ("", SERVICE_NAME):
        await health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    if settings.reflection:
        names = (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)
        # What reflection.enable_server_reflection does for an asyncio server, through the same proxy.
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflection.aio.ReflectionServicer(names), generic)
    port = server.add_insecure_port(settings.listen)
    if port == 0:
        raise OSError(f"cannot listen on {settings.listen}")
    built = Server(
        grpc=server,
        port=port,
        games=games,
        store=store,
        health=health,
        settings=settings,
        health_interval=health_interval,
    )
    return built, port


# A call allocates a few hundred short-lived objects, nearly all freed by reference counting; the cyclic
# collector still ran every ~45 calls and, now and then, walked every object built at startup (modules, protobuf
# descriptors, the engine's tables: ~55,000): about 9 µs a call. Startup's objects are moved out of its reach
# once, and the youngest generation is collected ten times less often.
GC_YOUNG_THRESHOLD = 7000


def settle_garbage_collector() -> None:
    """Once the server is built: collect, freeze what survives (never scanned again), collect the young less often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


async def serve(settings: Settings, *, reuse_port: bool = False) -> int:
    """Run until SIGTERM or SIGINT, then stop gracefully; the exit status."""
    with contextlib.suppress(ImportError, AttributeError):
        importlib.import_module("service.logs").configure(settings.log_level, settings.log_format)
    server, port = await create_server(settings, reuse_port=reuse_port)
    await server.start()
    settle_garbage_collector()
    if settings.metrics_listen:
        with contextlib.suppress(ImportError):
            importlib.import_module("service.metrics").start_http_server(settings.metrics_listen)
    log.info("serving", extra={"listen": settings.listen, "port": port, "http_port": server.http_port})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.ensure_future(server.wait())
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait((waiter, stopper), return_when=asyncio.FIRST_COMPLETED)
    log.info("stopping", extra={"grace": settings.grace})
    await server.stop()
    stopper.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiter
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(sig)
    log.info("stopped")
    return 0
