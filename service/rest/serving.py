"""Serving the REST app: uvicorn inside the gRPC server's asyncio loop, on a socket bound here.

Apart from the app (``service.rest.app``) because it is about the process, not the calls: the listening socket
(TCP_NODELAY, SO_REUSEPORT for ``--workers``), uvicorn's public ``Config`` and ``Server.serve()``, and the
connection guard of ``service.rest.connections`` around uvicorn's httptools protocol.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from service.rest.connections import Connections, Limits

log = logging.getLogger(__name__)


def _bind(listen: str, *, reuse_port: bool = False) -> socket.socket:
    host, sep, port_text = listen.rpartition(":")
    if not sep or not port_text.isdigit():
        raise ValueError(f"--http-listen takes HOST:PORT, not {listen!r}")
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted connections only for such sockets; without it a
    # keep-alive response written in two parts waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port and hasattr(socket, "SO_REUSEPORT"):
        # Several worker processes (--workers N) share the port the way their gRPC servers do.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, int(port_text)))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


async def _no_app(scope: Any, receive: Any, send: Any) -> None:
    """The probe's app: never called."""


def httptools_protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol for ``http="httptools"``, as its own Config resolves the name (no import of
    uvicorn's protocol modules)."""
    probe = uvicorn.Config(app=_no_app, http="httptools", lifespan="off", log_config=None)
    probe.load()
    protocol: type[asyncio.Protocol] = probe.http_protocol_class
    return protocol


class HttpServer:
    """uvicorn serving the app inside the running asyncio loop (the gRPC server's loop)."""

    def __init__(
        self,
        app: ASGIApp,
        listen: str,
        *,
        grace: float = 5.0,
        reuse_port: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        limits: Limits | None = None,
        keepalive_timeout: int = 5,
        backlog: int = 2048,
    ) -> None:
        self.app = app
        self.connections = Connections(limits or Limits(), tls=ssl_context is not None)
        self.keepalive_timeout = keepalive_timeout
        self.backlog = backlog
        self.reuse_port = reuse_port
        self.ssl_context = ssl_context
        self.listen = listen
        self.grace = grace
        self.port = 0
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._serving: asyncio.Task[None] | None = None

    async def start(self) -> HttpServer:
        """Serve in a task of the running loop (uvicorn's ``Server.serve``), once it listens."""
        self._socket = _bind(self.listen, reuse_port=self.reuse_port)
        self.port = int(self._socket.getsockname()[1])
        context = self.ssl_context
        config = uvicorn.Config(
            self.connections.app(self.app),
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            proxy_headers=False,
            timeout_graceful_shutdown=max(int(self.grace), 1),
            timeout_keep_alive=self.keepalive_timeout,
            backlog=self.backlog,
            ws="none",  # the service has no WebSocket route: an upgrade request is an ordinary request
            # uvicorn's httptools protocol (what http="httptools" names) inside the connection cap, the head's bound
            # and the head and body deadlines (service.rest.connections), which over TLS also add the client
            # certificate to the scope.
            http=self.connections.protocol_class(httptools_protocol()),
            # service.security.tls's context, which follows the certificate files
            ssl_context_factory=(lambda config, default: context) if context is not None else None,
        )
        server = uvicorn.Server(config)
        # serve() catches SIGINT and SIGTERM only while it runs, and hands them on to the handlers it found (the
        # service's, installed before: server.serve) when it stops.
        task = asyncio.get_running_loop().create_task(server.serve(sockets=[self._socket]))
        while not server.started:
            if task.done():
                task.result()  # the reason it could not start
                raise RuntimeError("the HTTP server stopped before it started")
            await asyncio.sleep(0.01)
        self._server, self._serving = server, task
        log.info("http listening", extra={"listen": self.listen, "http_port": self.port})
        return self

    async def stop(self) -> None:
        """Stop accepting, let the requests in flight finish (``grace``), close the connections."""
        server, self._server = self._server, None
        if server is None or self._serving is None:
            return
        server.should_exit = True
        await self._serving
