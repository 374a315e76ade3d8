"""A lean Redis connection for the store's scripts: one socket, every command pipelined, replies parsed by hiredis
(the protocol and the socket in ``service.store.resp``; here the URL, the options, AUTH and SELECT, reconnection).

Why it exists: an ApplyMove is one Lua script call, and redis-py's asyncio client spends 100-150 µs of CPU on
each (connection-pool checkout and release, the retry and observability wrappers, command packing, one ``send``
per command) -- more than the engine's whole move. Here a call is: pack the arguments, queue a future, and one
``write`` per event-loop turn for every command queued in that turn; replies come back in order (Redis answers
a connection's commands in the order sent) and resolve the futures in turn. Under load, N concurrent moves cost
one ``write`` and one ``read`` instead of N of each, on the service's side and on Redis's.

What stays as with redis-py: its public exception classes (``redis.exceptions``: ConnectionError, TimeoutError,
DataError; an error reply is a ResponseError carrying the reply whole, its code word first: ``service.store.failures``
reads the codes the store acts on, for this connection and for redis-py alike); a 5 s connect and reply timeout unless
told otherwise; reconnection on the next call after Redis went away (calls in flight then fail with ConnectionError:
their fate is unknown, as with redis-py, and the store's version check makes a retry safe). Nothing is retried here.

Only what a single-node URL needs is spoken (TCP, TLS for ``rediss://`` with the CA and client certificate
options, or a Unix socket; AUTH, SELECT); :meth:`from_url` returns None for anything else (cluster, RESP3, other
client options), and the store then keeps redis-py. TLS is verified as redis-py verifies it: the system's roots
plus ``ssl_ca_certs``, the host name checked.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from redis.exceptions import AuthenticationError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError

from service.store.resp import Connection, pack_command


def _is(reply: ResponseError, code: str) -> bool:
    """Whether an error reply has this code (its first word: NOSCRIPT, WRONGPASS...)."""
    return str(reply).startswith(code + " ")


__all__ = ["PipelinedRedis", "pack_command"]

#: redis-py's defaults for its asyncio connections (seconds).
DEFAULT_TIMEOUT = 5.0
#: The client options this connection honours; any other option keeps redis-py.
SUPPORTED_OPTIONS = frozenset({"socket_timeout", "socket_connect_timeout"})
#: The TLS options it honours for ``rediss://`` (redis-py's names).
TLS_OPTIONS = frozenset({"ssl_ca_certs", "ssl_certfile", "ssl_keyfile"})


def tls_context(
    ssl_ca_certs: str | None = None, ssl_certfile: str | None = None, ssl_keyfile: str | None = None
) -> ssl.SSLContext:
    """The client context redis-py would build from these options: system roots plus the CA, host name checked."""
    context = ssl.create_default_context()
    if ssl_certfile or ssl_keyfile:
        context.load_cert_chain(certfile=ssl_certfile or "", keyfile=ssl_keyfile)
    if ssl_ca_certs:
        context.load_verify_locations(cafile=ssl_ca_certs)
    return context


class PipelinedRedis:
    """The commands of one single-node Redis over one pipelined connection (opened on first use)."""

    def __init__(
        self,
        *,
        host: str = "localhost",
        port: int = 6379,
        path: str | None = None,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        socket_timeout: float | None = DEFAULT_TIMEOUT,
        socket_connect_timeout: float | None = DEFAULT_TIMEOUT,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.ssl_context = ssl_context
        self.host = host
        self.port = port
        self.path = path
        self.db = db
        self.username = username
        self.password = password
        self.timeout = socket_timeout
        self.connect_timeout = socket_connect_timeout
        self._conn: Connection | None = None
        self._connecting: asyncio.Future[Connection] | None = None
        self._heads: dict[tuple[Any, ...], bytes] = {}  # (sha, *keys) -> EVALSHA's packed command up to the args

    @classmethod
    def from_url(cls, url: str, **options: Any) -> PipelinedRedis | None:
        """For ``redis://``, ``rediss://`` and ``unix://`` URLs with nothing but a db, credentials, timeouts and (for
        ``rediss://``) the CA and client certificate; else None. Read as redis-py reads them: credentials unquoted,
        the db from ``?db=`` or the path."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        tls = scheme == "rediss"
        allowed = SUPPORTED_OPTIONS | (TLS_OPTIONS if tls else frozenset())
        if scheme not in ("redis", "unix", "rediss") or set(options) - allowed:
            return None
        kwargs: dict[str, Any] = {}
        try:
            for name, value in parse_qsl(parts.query):
                if name == "db":
                    kwargs["db"] = int(value)
                elif name in SUPPORTED_OPTIONS:
                    kwargs[name] = float(value)
                else:
                    return None  # an option of redis-py's that this connection does not speak
            if parts.username:
                kwargs["username"] = unquote(parts.username)
            if parts.password:
                kwargs["password"] = unquote(parts.password)
            if scheme == "unix":
                kwargs["path"] = unquote(parts.path)
            else:
                if parts.hostname:
                    kwargs["host"] = unquote(parts.hostname)
                if parts.port:
                    kwargs["port"] = parts.port
                db = unquote(parts.path).replace("/", "")
                if db and "db" not in kwargs:
                    kwargs["db"] = int(db)
        except ValueError:  # a port or a db that is not a number: redis-py's to refuse
            return None
        kwargs.update(options)
        if tls:
            kwargs["ssl_context"] = tls_context(**{k: kwargs.pop(k) for k in TLS_OPTIONS if k in kwargs})
        return cls(**kwargs)

    # -- commands ------------------------------------------------------------------------

    async def execute(self, *args: Any) -> Any:
        """One command's reply; an error reply raises as redis-py would raise it."""
        packed = pack_command(args)
        conn = self._conn
        # A closed loop (asyncio.run again) means a new connection. Not asyncio.get_running_loop() here: it makes
        # a getpid() system call every time. One store serves one event loop at a time, as redis-py's clients do.
        if conn is None or conn.closed or conn.loop.is_closed():
            conn = await self._connection()
        reply = await conn.send(packed)
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    _HEADS = 4096

    def pack_evalsha(self, sha: str, keys: Sequence[Any], args: Sequence[Any]) -> bytes:
        """``pack_command(("EVALSHA", sha, len(keys), *keys, *args))``. The part up to the arguments is the same
        for every call on one game (the script's SHA and the game's keys), so it is packed once and kept."""
        key = (sha, *keys)
        head = self._heads.get(key)
        if head is None:
            if len(self._heads) >= self._HEADS:
                self._heads.clear()
            head = self._heads[key] = pack_command(("EVALSHA", sha, len(keys), *keys)).split(b"\r\n", 1)[1]
        if not args:
            return b"*%d\r\n%b" % (len(keys) + 3, head)
        body = pack_command(args)
        return b"".join((b"*%d\r\n" % (len(keys) + 3 + len(args)), head, memoryview(body)[body.index(b"\r\n") + 2 :]))

    async def evalsha(
        self, sha: str, script: str | bytes | memoryview, keys: Sequence[Any], args: Sequence[Any]
    ) -> Any:
        """Run a Lua script by its SHA-1; a server without it in its cache (restarted, flushed) gets it whole."""
        packed = self.pack_evalsha(sha, keys, args)
        conn = self._conn
        if conn is None or conn.closed or conn.loop.is_closed():
            conn = await self._connection()
        reply = await conn.send(packed)
        if isinstance(reply, ResponseError):
            if _is(reply, "NOSCRIPT"):
                return await self.execute("EVAL", script, len(keys), *keys, *args)
            raise reply
        return reply

    async def evalsha_wait(
        self,
        sha: str,
        script: str | bytes | memoryview,
        keys: Sequence[Any],
        args: Sequence[Any],
        replicas: int,
        timeout_ms: int,
    ) -> tuple[Any, int]:
        """The script's reply, and how many replicas confirmed it (``WAIT replicas timeout_ms``).

        Both commands leave in one ``write``: the ``WAIT`` rides with the write it guards and costs no round
        trip of its own. Redis answers it once ``replicas`` replicas have every write this connection sent so
        far, or after ``timeout_ms`` with how many have.
        """
        packed = self.pack_evalsha(sha, keys, args)
        conn = self._conn
        if conn is None or conn.closed or conn.loop.is_closed():
            conn = await self._connection()
        written = conn.send(packed)
        waited = conn.send(pack_command(("WAIT", replicas, timeout_ms)))
        reply = await written
        acked = await waited
        if isinstance(reply, ResponseError):
            if not _is(reply, "NOSCRIPT"):
                raise reply
            reply = await self.execute("EVAL", script, len(keys), *keys, *args)
            acked = await self.execute("WAIT", replicas, timeout_ms)
        return reply, int(acked)

    async def ping(self) -> None:
        await self.execute("PING")

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    # -- the connection -------------------------------------------------------------------

    async def _connection(self) -> Connection:
        loop = asyncio.get_running_loop()
        pending = self._connecting
        if pending is None or pending.get_loop() is not loop:
            old, self._conn = self._conn, None
            if old is not None:
                old.close()
            pending = self._connecting = loop.create_task(self._open(loop))
        try:
            return await asyncio.shield(pending)
        finally:
            if pending.done() and self._connecting is pending:
                self._connecting = None

    async def _open(self, loop: asyncio.AbstractEventLoop) -> Connection:
        def factory() -> Connection:
            return Connection(loop, self.timeout)

        try:
            async with asyncio.timeout(self.connect_timeout):
                if self.path is not None:
                    _, conn = await loop.create_unix_connection(factory, self.path)
                else:
                    _, conn = await loop.create_connection(factory, self.host, self.port, ssl=self.ssl_context)
        except TimeoutError as exc:  # the builtin (asyncio.timeout), not redis's
            raise RedisConnectionError(f"Timeout connecting to {self._where()}") from exc
        except ssl.SSLError as exc:  # an OSError too: the handshake failed (an unknown CA, no client certificate)
            raise RedisConnectionError(f"TLS handshake with {self._where()} failed: {exc}") from exc
        except OSError as exc:
            raise RedisConnectionError(f"Error {exc.errno} connecting to {self._where()}. {exc.strerror}.") from exc
        handshake = []
        if self.password is not None:
            auth = ("AUTH", self.username, self.password) if self.username else ("AUTH", self.password)
            handshake.append(conn.send(pack_command(auth)))
        if self.db:
            handshake.append(conn.send(pack_command(("SELECT", self.db))))
        for reply in handshake:
            result = await reply
            if isinstance(result, ResponseError):
                conn.close()
                if any(_is(result, code) for code in ("WRONGPASS", "NOAUTH", "NOPERM")) or str(result).startswith(
                    "ERR invalid password"
                ):
                    raise AuthenticationError(str(result))
                raise RedisConnectionError(f"Redis refused the connection setup: {result}")
        self._conn = conn
        return conn

    def _where(self) -> str:
        return f"unix socket {self.path}" if self.path is not None else f"{self.host}:{self.port}"
