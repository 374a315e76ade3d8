"""``python -m service.solving.filler --redis-url URL ...`` (console script ``patience-filler``; flags or PATIENCE_*
variables, the service's names for the same settings; see --help).

Fills the winnable pools of every configuration (or those ``--winnable-pools`` names) until SIGTERM or SIGINT,
then finishes the seed it is proving and exits 0.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Sequence

from service.settings.config import FILLER_SETTINGS, Settings, load

#: Set by the service for the filler it starts itself (service.solving.filler.embedded): its process id.
PARENT_ENV = "PATIENCE_FILLER_PARENT_PID"


def main(argv: Sequence[str] | None = None) -> int:
    settings = load(
        argv,
        prog="python -m service.solving.filler",
        description="The winnable-deal filler: keeps a pool of proven deals per configuration in Redis.",
        only=FILLER_SETTINGS,
        helps={
            "redis_url": "Redis URL of the service's store: redis://, rediss://, unix://, redis+cluster:// (required)",
            "metrics_listen": "Prometheus /metrics address HOST:PORT of the filler's own metrics; unset: none",
        },
    )
    if not settings.redis_url:
        print("patience-filler: no Redis URL: pass --redis-url or set PATIENCE_REDIS_URL", file=sys.stderr)
        return 2
    from service.solving.winnable import selected_games

    try:
        selected_games(settings.winnable_pools)
    except ValueError as exc:
        print(f"patience-filler: --winnable-pools: {exc}", file=sys.stderr)
        return 2
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit():
        from service.process import lifetime

        # SIGTERM (a graceful stop) when the service goes; gone already, the filler's own look at it stops it.
        lifetime.die_with_parent(int(parent))
        os.nice(10)  # beside the service on one host: the service's calls come first
    return asyncio.run(fill(settings, parent_pid=int(parent) if parent.isdigit() else None))


async def fill(settings: Settings, *, parent_pid: int | None = None) -> int:
    from service.observe import logs
    from service.solving.filler.work import Filler
    from service.solving.winnable import Budget, selected_games
    from service.store import open_store

    logs.configure(settings.log_level, settings.log_format)
    from service.observe import tracing

    tracing.configure("patience-filler")
    if settings.metrics_listen:
        from service.solving.filler.metrics import serve

        serve(settings.metrics_listen)
    assert settings.redis_url
    store = open_store(
        settings.redis_url,
        idle_seconds=settings.idle_timeout,
        retain_seconds=None,
        fresh_seconds=None,
        key_prefix=settings.store_prefix,
        replicas=0,
        replica_timeout_ms=1000,
        pipelined=True,  # the store's default (the filler's pool commands go through redis-py)
        **settings.redis_tls_options(),
    )
    filler = Filler(
        store,
        selected_games(settings.winnable_pools),
        settings.winnable_pool_target,
        Budget(settings.winnable_max_states, settings.winnable_max_seconds),
        parent_pid=parent_pid,
    )
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, filler.stop.set)
    try:
        await filler.run()
    finally:
        await store.close()
        tracing.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
