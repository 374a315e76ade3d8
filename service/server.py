"""Building and running the gRPC server.

``create_server(settings)`` builds everything without binding a fixed port in
tests (``--listen 127.0.0.1:0``) and returns ``(server, port)``; ``serve()``
runs it until SIGTERM/SIGINT, then stops gracefully: health NOT_SERVING, the
in-flight calls get ``settings.grace`` seconds, the store is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from patience.v1 import patience_pb2, patience_pb2_grpc

from service.games import GameService
from service.games.steps import Steps
from service.grpc import reflection_v1
from service.grpc.operations import Operations
from service.grpc.servicer import PatienceServicer
from service.observe import logs, metrics, tracing
from service.rest import app as http
from service.rest.descriptors import fd_budget, raise_fd_limit
from service.rest.log_throttle import throttle_logs
from service.security import tls
from service.security.identity_keys import load_service_identities
from service.security.keys import load_service_keys
from service.security.players import Identities
from service.security.signing import KeyRing
from service.security.tickets import TicketMinter
from service.settings.config import Settings
from service.solving.hints import HintPool
from service.solving.hints import derive_key as derive_hint_key
from service.store import GameStore, RedisGameStore, StoreError, open_store
from service.store.boards import Boards
from service.store.daily import DailyDeals
from service.store.players import PlayerRecords

log = logging.getLogger(__name__)

SERVICE_NAME = patience_pb2.DESCRIPTOR.services_by_name["PatienceService"].full_name
HEALTH = health_pb2.DESCRIPTOR.services_by_name["Health"]


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
    operator_port: int | None = None
    tls_files: tls.CertificateFiles | None = None
    health_interval: float = 5.0
    _stopped: bool = field(default=False, repr=False)
    _watcher: asyncio.Task[None] | None = field(default=None, repr=False)

    async def start(self) -> None:
        """Start serving; health turns SERVING once the store answers."""
        await self.grpc.start()
        if self.settings.http_listen:
            self.http = await _maybe_await(
                http.start_http(self.games, self.settings.http_listen, tls_files=self.tls_files)
            )
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
        await self.games.watching.close()  # the streams end now: their clients reconnect to another replica
        if self.http is not None:
            await _maybe_await(self.http.stop())
        await self.grpc.stop(self.settings.grace if grace is None else grace)
        await self.store.close()
        if self.games.limiter is not None:
            await self.games.limiter.close()
        if self.games.hints is not None:
            await self.games.hints.close()

    async def wait(self) -> None:
        await self.grpc.wait_for_termination()


async def _maybe_await(value: Any) -> Any:
    if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
        return await value
    return value


def load_crypto(settings: Settings) -> tuple[KeyRing | None, TicketMinter | None]:
    """The certificate key ring and the deal-ticket minter (service.security.keys), or (None, None) without keys."""
    return load_service_keys(settings)


async def create_server(
    settings: Settings,
    *,
    seed_source: Callable[[], bytes] | None = None,
    dealer: Callable[[Any, bytes], Any] | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    store: GameStore | None = None,
    crypto: tuple[Any, Any] | None = None,
    identities: Identities | None = None,
    reuse_port: bool = False,
    health_interval: float = 5.0,
    clock: Callable[[], float] | None = None,
) -> tuple[Server, int]:
    """Build the server bound to ``settings.listen`` (port 0: a free one); start it with ``await server.start()``.

    With a TLS certificate every port speaks TLS only (``service.security.tls``); a client CA adds the operator port."""
    problem = settings.tls_problem()
    if problem:
        raise ValueError(problem)
    tls_files = (
        tls.CertificateFiles(settings.tls_cert_file, settings.tls_key_file, settings.tls_client_ca_file)
        if settings.tls_cert_file is not None and settings.tls_key_file is not None
        else None
    )
    if store is None:
        if not settings.redis_url:
            raise ValueError("no Redis URL (python -m service starts a local redis-server when none is given)")
        store = open_store(
            settings.redis_url,
            idle_seconds=settings.idle_timeout,
            fresh_seconds=settings.fresh_timeout,
            retain_seconds=settings.reveal_retention,
            key_prefix=settings.store_prefix,
            replicas=1 if settings.durability == "replica" else 0,
            replica_timeout_ms=max(1, round(settings.durability_timeout * 1000)),
            pipelined=settings.redis_client == "pipelined",
            **settings.redis_tls_options(),
        )
    key_ring, tickets = crypto if crypto is not None else load_crypto(settings)
    if identities is None:
        identities = load_service_identities(settings)
    limiter = None
    if settings.rate_limits and settings.redis_url:
        from service.security.ratelimit import RateLimiter

        limiter = RateLimiter(
            settings.redis_url,
            settings.rate_limits_by_rpc(),
            key_prefix=f"{settings.store_prefix}:rl",
            front_end_key=settings.front_end_key,
            shares={"Winnable": settings.limit_winnable},
        )
    hints = HintPool(
        derive_hint_key(tickets.key if isinstance(tickets, TicketMinter) else None),
        processes=settings.hint_processes,
        queue=settings.hint_queue,
        per_client=settings.hint_per_client,
        states=settings.hint_states,
        cpu_seconds=settings.hint_cpu_seconds,
    )
    games = GameService(
        Steps(
            settings,
            store,
            key_ring,
            tickets,
            seed_source=seed_source,
            dealer=dealer,
            limiter=limiter,
            hints=hints,
            identities=identities,
            players=PlayerRecords(store.client, settings.store_prefix) if isinstance(store, RedisGameStore) else None,
            daily=DailyDeals(store.client, settings.store_prefix) if isinstance(store, RedisGameStore) else None,
            boards=Boards(store.client, settings.store_prefix) if isinstance(store, RedisGameStore) else None,
            clock=clock or time.time,
        ),
        store.changes() if isinstance(store, RedisGameStore) else None,
    )
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", max(settings.max_message_bytes, 4 << 20)),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        *connection_options(settings),
    ]
    # One interceptor records every call (metrics, the request id, the access line); the services are registered
    # by their generated code.
    server = grpc.aio.server(
        interceptors=[Operations(), *interceptors], options=options, maximum_concurrent_rpcs=settings.grpc_max_calls
    )
    health = health_aio.HealthServicer()
    for name in ("", SERVICE_NAME):
        await health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    servicer = PatienceServicer(games, operator_needs_client_certificate=settings.tls_client_ca_file is not None)
    patience_pb2_grpc.add_PatienceServiceServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    if settings.reflection:  # v1 (what tools ask first) and v1alpha, one servicer behind both
        names = (SERVICE_NAME, HEALTH.full_name, reflection.SERVICE_NAME, reflection_v1.SERVICE_NAME)
        v1alpha = reflection.aio.ReflectionServicer(names)
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(v1alpha, server)
        server.add_generic_rpc_handlers((reflection_v1.handler(reflection_v1.ReflectionV1(v1alpha)),))
    operator_port: int | None = None
    if tls_files is None:
        port = server.add_insecure_port(settings.listen)
    else:
        port = server.add_secure_port(settings.listen, tls.grpc_server_credentials(tls_files))
        if settings.operator_listen:
            operator = tls.grpc_server_credentials(tls_files, require_client_certificate=True)
            operator_port = server.add_secure_port(settings.operator_listen, operator)
            if operator_port == 0:
                raise OSError(f"cannot listen on {settings.operator_listen}")
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
        operator_port=operator_port,
        tls_files=tls_files,
    )
    return built, port


def connection_options(settings: Settings) -> list[tuple[str, int]]:
    """The gRPC server's bounds on connections, streams and pings (grpc core's channel arguments): how many
    connections and streams a client may hold, how long a handshake may take, how often a client may ping, and how
    long a connection lives before clients are asked to reconnect (docs/security.md)."""

    def ms(seconds: float) -> int:
        return max(1, round(seconds * 1000))

    return [
        ("grpc.max_allowed_incoming_connections", settings.grpc_max_connections),
        ("grpc.max_concurrent_streams", settings.grpc_max_streams),
        ("grpc.server_handshake_timeout_ms", ms(settings.grpc_handshake_timeout)),
        ("grpc.http2.min_ping_interval_without_data_ms", ms(settings.grpc_min_ping_interval)),
        ("grpc.keepalive_permit_without_calls", 1 if settings.grpc_pings_without_calls else 0),
        ("grpc.http2.max_ping_strikes", settings.grpc_max_ping_strikes),
        ("grpc.max_connection_age_ms", ms(settings.grpc_max_connection_age)),
        ("grpc.max_connection_age_grace_ms", ms(settings.grpc_max_connection_age_grace)),
    ]


def fit_to_fd_limit(settings: Settings) -> Settings:
    """Raise the descriptor limit as far as the process may, and lower the connection caps to fit under it, so the
    process refuses connections before ``accept`` fails for everyone (service.rest.descriptors.fd_budget)."""
    limit = raise_fd_limit()
    grpc_ports = 2 if settings.operator_listen else 1  # gRPC's connection cap holds per port
    budget = fd_budget(
        limit, settings.http_max_connections if settings.http_listen else 0, settings.grpc_max_connections, grpc_ports
    )
    fields = {
        "fd_limit": limit,
        "http_max_connections": budget.http_connections,
        "grpc_max_connections": budget.grpc_connections,
    }
    if budget.lowered:
        log.warning("connection caps lowered to fit the file-descriptor limit", extra=fields)
    else:
        log.info("file-descriptor limit", extra=fields)
    return dataclasses.replace(
        settings,
        http_max_connections=max(1, budget.http_connections),
        grpc_max_connections=budget.grpc_connections,
    )


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
    logs.configure(settings.log_level, settings.log_format)
    tracing.configure()  # by the OTEL_* variables: off unless an OTLP endpoint is set
    throttle_logs(asyncio.get_running_loop())
    settings = fit_to_fd_limit(settings)
    server, port = await create_server(settings, reuse_port=reuse_port)
    # The handlers first: the HTTP server (uvicorn's serve()) takes the signals over while it runs and hands them
    # on to the handlers it found when it stops.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    settle_garbage_collector()
    if settings.metrics_listen:
        metrics.start_http_server(settings.metrics_listen)
    log.info(
        "serving",
        extra={
            "listen": settings.listen,
            "port": port,
            "http_port": server.http_port,
            "operator_port": server.operator_port,
            "tls": server.tls_files is not None,
        },
    )
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
    tracing.flush()
    log.info("stopped")
    return 0
