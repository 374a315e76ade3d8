"""``python -m service --listen HOST:PORT --redis-url URL ...`` (flags or PATIENCE_* variables; see --help).

With no Redis URL a local ``redis-server`` is started for this run (development
only): it listens on a Unix socket in ``--local-redis-dir`` (default
``./var/redis``) with append-only persistence, so games survive a restart.

Nothing that creates gRPC objects is imported before ``--workers`` has forked.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from service.process import lifetime
from service.settings.config import Settings, load


@contextlib.contextmanager
def local_redis(directory: Path, maxmemory: str = "256mb") -> Iterator[str]:
    """A redis-server on a Unix socket in ``directory`` for the duration; its URL."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit(
            "no --redis-url given and no redis-server on PATH: install Redis "
            "(Debian/Ubuntu: apt-get install redis-server) or pass --redis-url redis://HOST:PORT/0"
        )
    # redis-server changes into --dir before it reads --logfile and --unixsocket: give it absolute paths
    directory = directory.resolve()
    directory.mkdir(parents=True, exist_ok=True)
    socket = directory / "redis.sock"
    if len(str(socket)) > 100:  # a Unix socket path is at most ~107 bytes: fall back to a short private dir
        socket = Path(tempfile.mkdtemp(prefix="patience-redis-")) / "redis.sock"
    args = [
        server,
        "--port", "0",
        "--unixsocket", str(socket),
        "--unixsocketperm", "700",
        "--dir", str(directory),
        "--appendonly", "yes",
        "--save", "",
        "--maxmemory", maxmemory,
        "--maxmemory-policy", "noeviction",
        "--logfile", str(directory / "redis.log"),
    ]  # fmt: skip
    # The local Redis stops with the service, even a killed one (service.process.lifetime).
    proc = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lifetime.preexec_die_with_parent
    )
    try:
        deadline = time.monotonic() + 10
        while not socket.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the local redis-server did not start; see {directory / 'redis.log'}")
            time.sleep(0.05)
        print(f"local Redis at unix://{socket} (data in {directory})", file=sys.stderr)
        yield f"unix://{socket}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def serve_one(settings: Settings, *, reuse_port: bool = False) -> int:
    """One server process (a ``--workers`` child passes ``reuse_port=True``)."""
    from service.server import serve

    return asyncio.run(serve(settings, reuse_port=reuse_port))


def main(argv: Sequence[str] | None = None) -> int:
    from service.security.keys import KeyConfigError

    try:
        return _main(argv)
    except KeyConfigError as exc:  # missing or unreadable keys: say what to do, without a traceback
        print(f"patience: {exc}", file=sys.stderr)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    settings = load(argv)
    with contextlib.ExitStack() as stack:
        if not settings.redis_url:
            directory = settings.local_redis_dir or Path.cwd() / "var" / "redis"
            url = stack.enter_context(local_redis(directory, settings.local_redis_maxmemory))
            settings = dataclasses.replace(settings, redis_url=url)
        from service.solving.filler.embedded import embedded_filler  # imports no gRPC

        stack.enter_context(embedded_filler(settings))  # one per host: started here, before the workers fork
        if settings.workers > 1:
            from service.process import workers  # forks before any gRPC import

            if settings.generate_keys:  # once, here: workers generating at once would race (and differ)
                from service.security.keys import load_service_keys

                load_service_keys(settings)
                from service.security.identity_keys import load_service_identities

                load_service_identities(settings)

            return int(workers.run(settings, serve_one))
        return serve_one(settings)


if __name__ == "__main__":
    sys.exit(main())
