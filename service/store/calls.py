"""How the store's commands reach Redis: a script on the pipelined connection where there is one, else through
redis-py (the same scripts, called by SHA-1 and loaded when missing); a write confirmed by replicas first when
the durability setting asks (``durability.replicated``); inside a client span named after the script when traces
are on; and Redis's failures as the store's own errors (``failures.unavailable``: StoreUnavailable, StoreFull)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from opentelemetry.trace import SpanKind
from redis.commands.core import AsyncScript

from service.observe import tracing
from service.store import durability
from service.store.failures import REDIS_FAILURES, guarded, unavailable

_T = TypeVar("_T")


class Runner(durability.Durable, Protocol):
    """What running a script needs of the store: its clients and durability settings, and its scripts' names."""

    script_names: dict[str, str]


async def run_script(
    store: Runner,
    script: AsyncScript,
    keys: list[str],
    args: Sequence[Any],
    *,
    durable: bool = False,
    span: bool = True,
) -> Any:
    """Run one of the store's registered scripts (``script.sha``/``script.script``) on its pipe, else via redis-py;
    a ``durable`` one (a write) is confirmed by ``store.replicas`` replicas first when the setting asks. With
    traces on, inside a client span named after the script."""
    if span and tracing.on and tracing.recording():
        name = store.script_names.get(script.sha, "script")
        attributes = {"db.system.name": "redis", "db.operation.name": "EVALSHA", "db.stored_procedure.name": name}
        with tracing.span(f"EVALSHA {name}", SpanKind.CLIENT, **attributes):
            return await run_script(store, script, keys, args, durable=durable, span=False)
    if durable and store.replicas:
        return await durability.replicated(store, script, keys, args)
    if store.pipe is None:
        return await guarded(script(keys=keys, args=args))
    try:  # guarded's mapping, inline: one coroutine less on the path of every move
        return await store.pipe.evalsha(script.sha, script.script, keys, args)
    except REDIS_FAILURES as exc:
        error = unavailable(exc)
        if error is None:
            raise
        raise error from exc
