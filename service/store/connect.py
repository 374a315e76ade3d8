"""A store from a URL: one Redis server (``redis://``, ``rediss://``, ``unix://``) or a Redis Cluster
(``redis+cluster://``, ``rediss+cluster://``, given by any one of its nodes)."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from service.store.redis_store import RedisGameStore
from service.store.redispipe import PipelinedRedis

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def open_store(
    url: str,
    *,
    idle_seconds: float,
    retain_seconds: float | None = None,
    key_prefix: str = "patience",
    fresh_seconds: float | None = None,
    replicas: int = 0,
    replica_timeout_ms: int = 1000,
    pipelined: bool = True,
    **client_options: Any,
) -> RedisGameStore:
    """A store for ``url``: ``redis://``, ``rediss://``, ``unix://`` for one server, ``redis+cluster://HOST:PORT``
    (or ``rediss+cluster://``) for a cluster, given by any one of its nodes. ``client_options`` go to redis-py
    (e.g. ``socket_timeout``, ``max_connections``). ``pipelined``: a single Redis's scripts go through the pipelined
    connection (service.store.redispipe) where it speaks the URL and options, else through redis-py
    (``--redis-client``)."""
    scheme = url.split("://", 1)[0].lower()
    client: aioredis.Redis | RedisCluster
    pipe: PipelinedRedis | None = None
    node_url = ""
    if scheme in CLUSTER_SCHEMES:
        plain = url.replace("+cluster", "", 1)
        client = RedisCluster.from_url(plain, **client_options)
        node_url = plain  # how to reach one node directly, for writes that WAIT on the node's own connection
    else:
        client = aioredis.Redis.from_url(url, **client_options)
        if pipelined:  # None for options it does not speak: redis-py then
            pipe = PipelinedRedis.from_url(url, **client_options)
    return RedisGameStore(
        client,
        idle_seconds=idle_seconds,
        retain_seconds=retain_seconds,
        key_prefix=key_prefix,
        pipe=pipe,
        fresh_seconds=fresh_seconds,
        replicas=replicas,
        replica_timeout_ms=replica_timeout_ms,
        node_url=node_url,
        node_options=client_options,
    )


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES
