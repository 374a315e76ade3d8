"""The settings of the game store: which Redis, its keys' prefix, how durable a write is, which client speaks to
it, how long games live, and the local Redis of a development run (docs/configuration.md, "Storage").

One module per part of docs/configuration.md; ``service.settings.config`` puts the parts together.
"""

from __future__ import annotations

from pathlib import Path

from service.settings import config_values as values
from service.settings.config_values import Spec

SPECS: tuple[Spec, ...] = (
    Spec(
        "redis_url",
        "--redis-url",
        "Redis URL: redis://, rediss://, unix:// or redis+cluster:// for Redis Cluster. "
        "Unset: a local redis-server is started for this process (development only)",
        str,
        "URL",
    ),
    Spec(
        "local_redis_dir",
        "--local-redis-dir",
        "where the local redis-server keeps its socket and data when no Redis URL is given",
        Path,
        "DIR",
    ),
    Spec(
        "local_redis_maxmemory",
        "--local-redis-maxmemory",
        "maxmemory of that local redis-server (256mb, 1gb...): past it writes are refused (STORE_FULL)",
        values.memory,
        "SIZE",
    ),
    Spec("store_prefix", "--store-prefix", "prefix of every Redis key", str, "TEXT"),
    Spec(
        "durability",
        "--durability",
        "primary: a write is acknowledged once the Redis primary has it; replica: only once a replica has it too "
        "(WAIT, pipelined with the write), so an acknowledged move survives a failover",
        values.choice("primary", "replica"),
        "LEVEL",
    ),
    Spec(
        "durability_timeout",
        "--durability-timeout",
        "with --durability replica: seconds a write waits for a replica before it is answered UNAVAILABLE",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "redis_client",
        "--redis-client",
        "how a single Redis is spoken to: pipelined (the service's own connection, one write per loop turn) or "
        "redis-py (the library's client: more CPU a move, docs/service-benchmark.md); a cluster always uses redis-py",
        values.choice("pipelined", "redis-py"),
        "CLIENT",
    ),
    Spec(
        "idle_timeout",
        "--idle-timeout",
        "seconds without a change after which a game expires (its seed is then revealed)",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "fresh_timeout",
        "--fresh-timeout",
        "seconds a game nobody has moved yet lives before it expires (at most --idle-timeout): a client that "
        "deals games and leaves them costs Redis this long, not the idle timeout",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "reveal_retention",
        "--reveal-retention",
        "seconds a finished or expired game stays readable (with its seed) before Redis drops it",
        values.positive(int),
        "SECONDS",
    ),
)
