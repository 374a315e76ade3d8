"""Which Redis errors mean "not now" (the caller may retry: UNAVAILABLE) and which mean "full" (STORE_FULL), as
the store's own errors."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    MasterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.errors import StoreFull, StoreUnavailable

#: What Redis raises while it cannot answer for a moment: connection trouble, a timeout, a cluster in failover
#: (the slot's master is down, a write reached a demoted master, redis-py's redirections ran out: "TTL
#: exhausted"), a server still loading its data. redis-py strips the reply's first word from the message
#: ("CLUSTERDOWN", "LOADING"), so the classes are what tells them apart.
NOT_NOW = (
    RedisConnectionError,
    RedisTimeoutError,
    RedisClusterException,
    ClusterError,
    ClusterDownError,
    TryAgainError,
    MasterDownError,
    ReadOnlyError,
    BusyLoadingError,
    OSError,
)


#: Everything a Redis call may raise on purpose, to catch around each call and sort with :func:`unavailable`.
#: redis-py's cluster client raises RedisClusterException (a slot no node covers during a failover, no node
#: reachable), which is *not* a RedisError: caught with the rest, it is UNAVAILABLE, not a bug (INTERNAL).
REDIS_FAILURES = (RedisError, RedisClusterException, OSError)
#: The same, for an error reply read by its code word (Redis's own: the reply's first word), as the store's
#: pipelined connection hands it over (a ResponseError with the reply whole: service.store.redispipe), and as a
#: Lua script passes on the error of a call it made.
NOT_NOW_CODES = ("LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")
#: What Redis answers a connection past its ``maxclients``: no code of its own.
TOO_MANY_CLIENTS = "ERR max number of clients reached"


def unavailable(exc: BaseException) -> StoreUnavailable | None:
    """StoreUnavailable for what means "Redis cannot answer now" (connection, timeout, cluster trouble), and
    StoreFull when it is at its maxmemory; the reply's text without its code word, as redis-py gives it."""
    text = str(exc)
    code, _, rest = text.partition(" ")
    if isinstance(exc, OutOfMemoryError) or code == "OOM":
        return StoreFull(f"Redis is full: {rest if code == 'OOM' else text}")
    if isinstance(exc, NOT_NOW) or text.startswith(TOO_MANY_CLIENTS) or any(c in text for c in NOT_NOW_CODES):
        return StoreUnavailable(f"Redis is unavailable: {rest if code in NOT_NOW_CODES else text}")
    return None


async def guarded(awaitable: Awaitable[Any]) -> Any:
    """Await one Redis call, its failures as the store's: StoreUnavailable / StoreFull, anything else as it is
    (Any: redis-py's replies are typed as unions of every reply a command may give)."""
    try:
        return await awaitable
    except REDIS_FAILURES as exc:
        error = unavailable(exc)
        if error is None:
            raise
        raise error from exc
