"""``--durability replica``: a write acknowledged only once a replica has it.

Redis's ``WAIT n timeout`` answers how many replicas have every write sent *on its own connection* so far, so
the write and its ``WAIT`` must share one connection: on a single Redis they leave together in one ``write`` of
the pipelined connection (no round trip of their own); through redis-py they form one pipeline, on Redis Cluster
on a connection to the key's master. A write no replica confirms in time raises ``NotReplicated``: it is on the
primary, and may or may not survive a failover, so it is not acknowledged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import SlotNotCoveredError

from service.store.errors import NotReplicated, StoreUnavailable
from service.store.failures import REDIS_FAILURES, unavailable
from service.store.redispipe import PipelinedRedis


class Durable(Protocol):
    """What a durable write needs of the store (``RedisGameStore``): its clients and its durability settings."""

    client: aioredis.Redis | RedisCluster
    pipe: PipelinedRedis | None
    replicas: int
    replica_timeout_ms: int
    masters: dict[str, aioredis.Redis]
    node_url: str
    node_options: dict[str, Any]


async def replicated(store: Durable, script: AsyncScript, keys: list[str], args: Sequence[Any]) -> Any:
    """Run the write script, then ``WAIT`` on the same connection; the script's reply once confirmed."""
    n, timeout = store.replicas, store.replica_timeout_ms
    try:
        if store.pipe is not None:
            reply, acked = await store.pipe.evalsha_wait(script.sha, script.script, keys, args, n, timeout)
        else:
            target = await master_for(store, keys[0]) if isinstance(store.client, RedisCluster) else store.client
            async with target.pipeline(transaction=False) as pipeline:
                await script(keys=keys, args=args, client=pipeline)  # queued: the pipeline loads it if needed
                pipeline.execute_command("WAIT", n, timeout)
                reply, acked = await pipeline.execute()
    except REDIS_FAILURES as exc:
        if isinstance(store.client, RedisCluster) and store.masters:
            # A failover or a resharding: forget the masters, and let the cluster client find the key's slot again
            # through a command of its own (its error handling refreshes its view of the cluster).
            store.masters.clear()
            with contextlib.suppress(*REDIS_FAILURES):
                await store.client.exists(keys[0])
        error = unavailable(exc)
        if error is None:
            raise
        raise error from exc
    if isinstance(reply, list) and reply and reply[0] == 1 and int(acked) < n:
        raise NotReplicated(
            f"the write reached the primary but {int(acked)} of {n} replicas confirmed it within {timeout} ms"
        )
    return reply


async def master_for(store: Durable, key: str) -> aioredis.Redis:
    """A client of the master that holds ``key``'s slot now (redis-py's view of the cluster), kept per master."""
    cluster = store.client
    assert isinstance(cluster, RedisCluster)
    try:
        node = cluster.get_node_from_key(key)
    except SlotNotCoveredError:  # the cluster client has not looked at the cluster yet
        await cluster.initialize()
        node = cluster.get_node_from_key(key)
    if node is None:
        raise StoreUnavailable(f"no master holds the slot of {key!r} now")
    client = store.masters.get(node.name)
    if client is None:
        client = aioredis.Redis.from_url(node_url(store.node_url, node.host, int(node.port)), **store.node_options)
        store.masters[node.name] = client
    return client


def node_url(url: str, host: str, port: int) -> str:
    """``url`` (a cluster's, without ``+cluster``) pointed at one of its nodes: the same scheme, credentials and
    options (TLS among them), the node's address, no database (a cluster has only 0)."""
    parts = urlsplit(url)
    credentials, at, _ = parts.netloc.rpartition("@")
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return urlunsplit((parts.scheme, f"{credentials}{at}{where}", "", parts.query, ""))
