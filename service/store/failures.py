"""Which Redis errors mean "not now" (the caller may retry: UNAVAILABLE) and which mean "full" (STORE_FULL), as
the store's own errors."""

from __future__ import annotations

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

from service.store.interface import StoreFull, StoreUnavailable

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


def unavailable(exc: BaseException) -> StoreUnavailable | None:
    """StoreUnavailable for what means "Redis cannot answer now" (connection, timeout, cluster trouble), and
    StoreFull when it is at its maxmemory."""
    if isinstance(exc, OutOfMemoryError):
        return StoreFull(f"Redis is full: {exc}")
    if isinstance(exc, NOT_NOW) or ("CLUSTERDOWN" in str(exc) or "LOADING" in str(exc) or "TRYAGAIN" in str(exc)):
        return StoreUnavailable(f"Redis is unavailable: {exc}")
    return None
