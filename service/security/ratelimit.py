"""Rate limits per client address on the calls that cost the service: NewGame, PrepareGame, SubmitSolution,
VerifyCertificate and Hint.

Each limited RPC has its own limits and its own counters: a Hint costs a solver's CPU (up to
``--hint-cpu-seconds``, hundreds of times a move), so it is counted apart from everything else, under
``--limit-hint``, and a client that spends its hints can still play.

The limits are settings (service.settings.config: ``--limit-new-game`` ...). The counters live in the game store's
Redis (``limits``' sliding-window counters through redis-py's asyncio client, on a single Redis or on Redis
Cluster), so every replica counts the same calls. The limits are set far
above what a person playing meets (a new deal every few seconds for a minute on end) and far below what a
script can send.

The address is the caller's, the IP address of its connection, which each transport puts in the call's context
(``service.games.ports.Credentials``) from its own form (gRPC's peer string, the HTTP client). A front end that
calls on behalf of its users (a web server, a bot) may name the end user's address in ``x-client-address`` if it
also sends the configured key in ``x-front-end-key``; an address header without the right key is refused, so
that no client picks the address it is counted under.

Should Redis fail to answer the limiter, the call goes through (logged at warning level once a minute): the
limits guard the store, and a store that does not answer refuses the call anyway.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import math
import time
from collections.abc import Mapping

from limits import RateLimitItem, parse_many
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string

from service import errors
from service.observe import metrics

log = logging.getLogger(__name__)

CLIENT_ADDRESS = "x-client-address"
FRONT_END_KEY = "x-front-end-key"


def storage_url(redis_url: str) -> str:
    """The game store's Redis URL in ``limits``' scheme (``async+redis://``, ``async+redis+cluster://``...)."""
    scheme, sep, rest = redis_url.partition("://")
    scheme = scheme.lower()
    mapped = {
        "redis": "async+redis",
        "rediss": "async+rediss",
        "unix": "async+redis+unix",
        "redis+cluster": "async+redis+cluster",
        "rediss+cluster": "async+redis+cluster",
    }.get(scheme)
    if mapped is None or not sep:
        raise ValueError(f"no rate-limit storage for {redis_url.split('://')[0]!r}")
    return f"{mapped}://{rest}"


def address_key(address: str) -> str:
    """What one client is counted under: an IPv4 address, or an IPv6 address's /64 (one host gets a whole /64
    as easily as one address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def client_address(ip: str, address: str | None, key: str | None, front_end_key: str | None) -> str:
    """Who a call counts against: the caller's IP address (as its transport gives it in the call's context,
    ``service.games.ports.Credentials.peer``), or the end user a trusted front end names (PERMISSION_DENIED
    ``UNTRUSTED_CLIENT_ADDRESS`` for an address without the front end's key)."""
    if address is None:
        return address_key(ip)
    if not front_end_key or not key or not hmac.compare_digest(key.encode(), front_end_key.encode()):
        raise errors.untrusted_client_address(CLIENT_ADDRESS, FRONT_END_KEY)
    try:
        return address_key(str(ipaddress.ip_address(address.strip())))
    except ValueError as exc:
        raise errors.bad_client_address(CLIENT_ADDRESS) from exc


class RateLimiter:
    """The limits of each limited RPC, counted in Redis per client address."""

    def __init__(
        self,
        redis_url: str,
        limits_by_rpc: Mapping[str, str],
        *,
        key_prefix: str,
        front_end_key: str | None,
        shares: Mapping[str, str] | None = None,
    ) -> None:
        self.storage = storage_from_string(
            storage_url(redis_url), implementation="redispy", key_prefix=key_prefix, wrap_exceptions=True
        )
        self.strategy = SlidingWindowCounterRateLimiter(self.storage)
        self.items: dict[str, list[RateLimitItem]] = {rpc: parse_many(text) for rpc, text in limits_by_rpc.items()}
        self.shares: dict[str, list[RateLimitItem]] = {name: parse_many(text) for name, text in (shares or {}).items()}
        self.front_end_key = front_end_key or None
        self._warned = 0.0

    def client(self, ip: str, address: str | None, key: str | None) -> str:
        """Who the call counts against: the caller's IP address, or the end user a trusted front end names."""
        return client_address(ip, address, key, self.front_end_key)

    async def check(self, rpc: str, client: str) -> None:
        """Count one call of ``rpc`` by ``client``; RESOURCE_EXHAUSTED ``RATE_LIMITED`` (with when to retry) if
        that is one too many."""
        over = await self._hit(self.items.get(rpc, []), rpc, client)
        if over is not None:
            metrics.RATE_LIMITED.labels(rpc).inc()
            raise errors.rate_limited(rpc, *over)

    async def take_share(self, name: str, client: str, scope: str) -> tuple[str, int] | None:
        """Take one of ``client``'s share ``name`` of ``scope`` (one deal of a winnable pool): None when taken, else
        the limit it is over and the seconds until it holds one again. Counted when asked, before the thing is
        taken, so that calls at once cannot all pass."""
        return await self._hit(self.shares.get(name, []), name, scope, client)

    async def _hit(self, items: list[RateLimitItem], *identifiers: str) -> tuple[str, int] | None:
        """Count one hit on each of ``items``: None if all allow it, else (the first refused, seconds to wait)."""
        for item in items:
            try:
                allowed = await self.strategy.hit(item, *identifiers)
                if allowed:
                    continue
                stats = await self.strategy.get_window_stats(item, *identifiers)
            except Exception as exc:  # the limiter's storage: a limit must not take the service down
                self._storage_failed(exc)
                return None
            return str(item), max(1, math.ceil(stats.reset_time - time.time()))
        return None

    def _storage_failed(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned >= 60:
            self._warned = now
            log.warning("rate limits not counted (their Redis failed): %s", str(exc)[:200])

    async def close(self) -> None:
        """Release the limiter's Redis connections (the storage's redis-py client, if it made one)."""
        client = getattr(getattr(self.storage, "bridge", None), "storage", None)
        if client is not None:
            with contextlib.suppress(Exception):  # closing on the way out: nothing left to report to
                await client.aclose()
