"""File descriptors: the process's limit, raised to its hard limit, and the connection caps that fit under it.

Every REST and gRPC connection holds a descriptor; past the limit ``accept()`` fails for everyone. So the caps
(``--http-max-connections``, ``--grpc-max-connections``) are lowered to fit, with a reserve for everything else
and room for one accept batch (the REST listen backlog, sized here too). The server applies them at start
(``service.server``).
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

#: Descriptors kept for everything but client connections: Redis pools, the hint processes' pipes, log and
#: metrics sockets, gRPC's own (epoll, wake-up pipes), the listening sockets.
FD_RESERVE = 128


@dataclass(frozen=True)
class FdBudget:
    """What :func:`fd_budget` decided: the descriptor limit and the caps that fit under it."""

    limit: int
    http_connections: int
    grpc_connections: int
    backlog: int
    lowered: bool


def accept_backlog(limit: int) -> int:
    """The REST listen backlog: asyncio accepts up to this many connections in one go before any is looked at."""
    return max(64, min(2048, limit // 8))


def fd_budget(limit: int, http_connections: int, grpc_connections: int, grpc_ports: int = 1) -> FdBudget:
    """Caps that fit under ``limit`` descriptors: the reserve and one accept batch kept free, the rest shared by
    REST and gRPC in proportion to their configured caps (lowered, never raised). gRPC's cap holds per port."""
    backlog = accept_backlog(limit)
    room = max(2, limit - FD_RESERVE - backlog)
    grpc_all = grpc_connections * grpc_ports
    wanted = http_connections + grpc_all
    if wanted <= room:
        return FdBudget(limit, http_connections, grpc_connections, backlog, lowered=False)
    http = room * http_connections // wanted
    return FdBudget(limit, http, max(1, (room - http) // grpc_ports), backlog, lowered=True)


def raise_fd_limit() -> int:
    """Raise this process's soft ``RLIMIT_NOFILE`` to its hard limit (an unprivileged process may); the new soft
    limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft if soft != resource.RLIM_INFINITY else target
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def open_files_limit() -> int:
    """The process's soft limit of open files (the accept backlog is sized from it)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1 << 20
