"""The REST/JSON transport: HTTP in, the same ``GameService`` call as gRPC, JSON out.

Routes are not listed here: :mod:`service.rest.routes` reads them from the proto's ``google.api.http``
annotations, :mod:`service.rest.transcode` turns path, query and body into the RPC's request message
(protobuf's JSON mapping), and the call goes to the very ``GameService`` method the gRPC servicer calls,
in the same process and the same asyncio loop (no second copy of the logic, no network hop).
Credentials travel as gRPC metadata does: ``Authorization: Bearer <game token>`` and ``x-operator-key``,
read by the same ``credentials_from`` as the servicer's into the same call context (``service.games.ports``), with
the HTTP client's IP address as ASGI gives it (REST calls have no deadline). Request ids, metrics, the
access line and the errors' statuses are ``service.observe.calls``', as over gRPC: errors are the
``google.rpc.Status`` the gRPC client would get, as JSON (Envoy's transcoder sends the same shape), with the HTTP
status of Google's mapping.

The same listener serves ``/openapi.json`` (generated from the proto) and the web client (``clients/web``)
at ``/``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import orjson
import uvicorn
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from patience.v1 import patience_pb2
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from service import errors
from service.errors import ServiceError
from service.games import GameService
from service.games.ports import Credentials, credentials_from
from service.observe import tracing
from service.observe.calls import REST, Calls, failure, http_answer, request_id_of
from service.observe.logs import request_id
from service.rest import events
from service.rest.connections import Connections, Limits, accept_backlog
from service.rest.openapi import load_comments, openapi_document
from service.rest.routes import HttpRoute, Router, routes_for_services
from service.rest.transcode import JSON_MAPPINGS, TranscodeError, build_request, response_json, status_json
from service.security import tls

log = logging.getLogger(__name__)

#: Where the web client lives in a source checkout (and in the container image, which copies the tree).
WEB_DIR = Path(__file__).resolve().parents[2] / "clients" / "web"
#: The headers the call's context is read from, the names gRPC clients send them under (and the request id).
FORWARDED_HEADERS = ("authorization", "x-operator-key", "x-request-id", "x-client-address", "x-front-end-key")
SERVICES: tuple[ServiceDescriptor, ...] = tuple(patience_pb2.DESCRIPTOR.services_by_name.values())

#: Calls one RPC: (method, request message, the call's context) -> response message; raises ServiceError.
Invoker = Callable[[MethodDescriptor, Message, Credentials], Awaitable[Message]]

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


def rpc_attribute(method: MethodDescriptor) -> str:
    """``ApplyMove`` -> ``apply_move``: the GameService method for an RPC (the servicer's convention)."""
    return _SNAKE.sub("_", method.name).lower()


def game_service_invoker(games: GameService) -> Invoker:
    """Call ``games.<rpc_in_snake_case>(request, credentials)``, as the servicer calls it."""
    calls: dict[str, Any] = {}  # the bound method of each RPC, looked up once

    async def invoke(method: MethodDescriptor, request: Message, credentials: Credentials) -> Message:
        call = calls.get(method.name)
        if call is None:
            call = calls[method.name] = getattr(games, rpc_attribute(method), None)
        if call is None:
            raise errors.not_implemented(method.name)
        if tracing.on and tracing.recording():
            traced: Message = await tracing.in_span(f"GameService.{rpc_attribute(method)}", call(request, credentials))
            return traced
        response: Message = await call(request, credentials)
        return response

    return invoke


def game_service_streams(games: GameService) -> events.Opener:
    """Open ``games.<rpc_in_snake_case>(request, credentials)``, a server stream (WatchGame: ``watch_game``)."""

    async def open_stream(method: MethodDescriptor, request: Message, credentials: Credentials) -> events.Stream:
        call = getattr(games, rpc_attribute(method), None)
        if call is None:
            raise errors.not_implemented(method.name)
        stream: events.Stream = await call(request, credentials)
        return stream

    return open_stream


def _error_response(status: status_pb2.Status, http: int, headers: dict[str, str] | None = None) -> Response:
    return _json(status_json(status), http, headers)


def _service_error(error: ServiceError, headers: dict[str, str] | None = None) -> Response:
    status, http, extra = http_answer(error)
    return _error_response(status, http, {**(headers or {}), **extra} if extra else headers)


def encode_json(data: Any) -> bytes:
    """The API's JSON: compact UTF-8, byte for byte what ``json.dumps(data, ensure_ascii=False,
    separators=(",", ":")).encode()`` gives for the trees of the JSON mapping (a test holds the two equal over
    answers of every message type), written by orjson in C: the standard library's encoder took 0.13 M
    instructions of a REST ApplyMove's 1.69 M (docs/service-benchmark.md)."""
    return orjson.dumps(data)


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = encode_json(data)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


class _BodyTooLarge(Exception):
    pass


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


#: The request headers the gateway reads (as ASGI gives their names: lower case bytes): those of the call's
#: context, and the body's length and type.
#: The W3C trace context headers (read when traces are on: service.observe.tracing).
TRACE_HEADERS = ("traceparent", "tracestate")
_READ_HEADERS = {
    name.encode(): name
    for name in (*FORWARDED_HEADERS, *TRACE_HEADERS, "content-length", "content-type", events.LAST_EVENT_ID)
}


class RestGateway:
    """The ``/v1/...`` routes: match, transcode, invoke, answer.

    A plain ASGI application over the scope and the receive/send calls themselves (no Starlette request or
    response objects on an API call): a call reads the few headers it needs in one pass and answers with two
    messages, so the REST layer adds to uvicorn's work little more than the JSON mapping both ways."""

    def __init__(
        self,
        invoke: Invoker,
        *,
        max_body_bytes: int = 1 << 20,
        client_certificate_rpcs: frozenset[str] = frozenset(),
        json_mapping: str = "compiled",
        open_stream: events.Opener | None = None,
    ) -> None:
        self.routes = routes_for_services(SERVICES)
        #: Writes an answer's JSON (``--json-mapping``: transcode.JSON_MAPPINGS, the same JSON either way).
        self.to_json = JSON_MAPPINGS[json_mapping]
        self.router = Router(self.routes)
        self.invoke = invoke
        self.open_stream = open_stream  # server streams (Server-Sent Events); None: they answer UNIMPLEMENTED
        self.max_body_bytes = max_body_bytes
        self._calls: dict[str, Calls] = {}  # per RPC (routes name only the RPCs of the proto)
        #: RPCs served only over a connection with a verified client certificate (mutual TLS for operators).
        self.client_certificate_rpcs = client_certificate_rpcs
        #: Added to every answer (create_app sets the security headers here when no middleware adds them).
        self.extra_headers: list[tuple[bytes, bytes]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            response = await self.handle(scope, receive)
        except ClientDisconnect:
            # The client hung up before its body arrived: nobody is left to answer (and nothing to log as an
            # error: uvicorn would write a traceback per hung-up request).
            log.debug("client gone before its request body arrived")
            return
        if isinstance(response, events.EventStream):  # a server stream: it answers as its events come
            response.headers += self.extra_headers
            await response(scope, receive, send)
            return
        status, headers, body = response
        await send({"type": "http.response.start", "status": status, "headers": headers + self.extra_headers})
        await send({"type": "http.response.body", "body": body})

    async def handle(
        self, scope: Scope, receive: Receive
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | events.EventStream:
        """The answer to one call: (HTTP status, headers, body), or a server stream's events."""
        method: str = scope["method"]
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
        path = raw_path.decode("latin-1").split("?", 1)[0]
        found = self.router.match(method, path)
        if isinstance(found, list):
            if not found:
                return _answer(_service_error(errors.no_such_route(path)))
            allow = ", ".join(found)
            return _answer(_service_error(errors.method_not_allowed(method, allow), {"allow": allow}))
        route = found.route
        seen: dict[str, str] = {}  # the first value of each header the gateway reads, as Starlette's headers give
        for raw_name, raw_value in scope["headers"]:
            name = _READ_HEADERS.get(raw_name)
            if name is not None and name not in seen:
                seen[name] = raw_value.decode("latin-1")
        given = seen.get("x-request-id")
        rid = request_id_of((("x-request-id", given),) if given is not None else ())
        headers = {"x-request-id": rid, "cache-control": "no-store"}
        if route.rpc_name in self.client_certificate_rpcs and not tls.scope_has_client_certificate(scope):
            return _answer(_service_error(tls.client_certificate_required(route.rpc_name), headers))
        try:
            body = await _read_body(receive, seen.get("content-length"), self.max_body_bytes)
        except _BodyTooLarge:
            return _answer(_service_error(errors.request_too_large(self.max_body_bytes), headers))
        if body.strip() and not _is_json(seen.get("content-type", "")):
            return _answer(_service_error(errors.unsupported_media_type(), headers))
        query: bytes = scope.get("query_string", b"")
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True) if query else []
        try:
            message_in = build_request(route, found.path_params, pairs, body)
        except TranscodeError as exc:
            return _answer(_service_error(errors.bad_request(exc.reason, exc.message, exc.field or ""), headers))
        client = scope.get("client")  # (host, port), as Starlette's request.client; None over a Unix socket
        credentials = credentials_from(seen.items(), peer=client[0] if client else "")
        calls = self._calls.get(route.rpc_name)
        if calls is None:
            calls = self._calls[route.rpc_name] = Calls(route.rpc_name, REST)
        if tracing.on:
            carrier = [(name, seen[name]) for name in TRACE_HEADERS if name in seen]
            span_name = f"{method} {route.template}"
            started, token, span = calls.begin(
                rid, carrier, span_name, **{"http.request.method": method, "http.route": route.template}
            )
        else:
            started, token, span = calls.begin(rid)
        where = f"{client[0]}:{client[1]}" if client else ""
        url_path = scope["path"].replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")  # as Starlette's URL
        if route.method.server_streaming:
            http = f"{method} {url_path}"[:200]

            def done(code: str) -> None:  # the stream ended: its access line and metrics
                calls.end(started, rid, code, None, where, span, http=http)

            try:
                return await self._stream(route, message_in, credentials, seen.get(events.LAST_EVENT_ID), rid, done)
            except Exception as exc:  # refused before the stream starts: an answer like any call's
                error = failure(exc, route.rpc_name)
                calls.end(started, rid, error.code.name, None, where, span, http=f"{method} {url_path}"[:200])
                return _answer(_service_error(error, headers))
            finally:
                request_id.reset(token)
        code, response = "OK", None
        try:
            response = await self.invoke(route.method, message_in, credentials)
        except Exception as exc:  # a refusal, or a bug (logged): the same statuses as over gRPC (service.observe.calls)
            error = failure(exc, route.rpc_name)
            code = error.code.name
            return _answer(_service_error(error, headers))
        finally:
            calls.end(started, rid, code, response, where, span, http=f"{method} {url_path}"[:200])
            request_id.reset(token)
        body_out = encode_json(response_json(route, response, self.to_json))
        return (
            200,
            [
                (b"x-request-id", rid.encode("latin-1")),
                (b"cache-control", b"no-store"),
                (b"content-length", str(len(body_out)).encode("latin-1")),
                (b"content-type", b"application/json"),
            ],
            body_out,
        )

    async def _stream(
        self,
        route: HttpRoute,
        request: Message,
        credentials: Credentials,
        last_event_id: str | None,
        rid: str,
        done: Callable[[str], None],
    ) -> events.EventStream:
        """A server stream's events (``service.rest.events``), once the use case has opened it."""
        if self.open_stream is None:
            raise errors.not_implemented(route.rpc_name)
        events.resume_from(request, last_event_id)
        stream = await self.open_stream(route.method, request, credentials)
        headers = [(b"x-request-id", rid.encode("latin-1")), (b"cache-control", b"no-store")]
        return events.EventStream(route, stream, headers, encode_json, done, self.to_json)


def _answer(response: Response) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """A refusal's Starlette response as the gateway sends answers."""
    return response.status_code, list(response.raw_headers), bytes(response.body)


async def _read_body(receive: Receive, declared: str | None, limit: int) -> bytes:
    """The request's body, up to ``limit`` bytes (ClientDisconnect if the client hangs up, as Starlette's)."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# ------------------------------------------------------------------------------------------- the app

#: The web client loads only its own files; the API is same-origin.
_SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


class _ApiFirst:
    """``/v1/...`` straight to the gateway, everything else through the Starlette app (the OpenAPI document, the
    web client). The API's calls skip Starlette's error and exception middleware and its router, a few frames
    each that the gateway does not need: it answers every refusal itself, and routes by the proto's own table."""

    def __init__(self, gateway: RestGateway, app: ASGIApp) -> None:
        self.gateway = gateway
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            await self.gateway(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class _SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in _SECURITY_HEADERS.items() if k.encode() not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def openapi_for(gateway: RestGateway) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("patience-service")
    except PackageNotFoundError:
        ver = "0"
    proto_path = Path(patience_pb2.__file__).with_name("patience.proto")
    return openapi_document(SERVICES, gateway.routes, comments=load_comments(proto_path), version=ver)


#: What a page on another origin may send and read: the credentials travel in headers, never in cookies.
CORS_HEADERS = ("authorization", "content-type", "x-operator-key", "x-request-id", "last-event-id")


def create_app(
    invoke: Invoker,
    *,
    max_body_bytes: int = 1 << 20,
    web_dir: Path | None = WEB_DIR,
    cors_origins: Sequence[str] = (),
    client_certificate_rpcs: frozenset[str] = frozenset(),
    json_mapping: str = "compiled",
    open_stream: events.Opener | None = None,
) -> ASGIApp:
    """The ASGI application: ``/v1/...`` (transcoded RPCs), ``/openapi.json``, the web client at ``/``.

    ``cors_origins`` lists the web origins (or ``*``) whose pages may call the API from a browser; by default
    none may (the bundled web client is served from the same origin and needs no CORS). ``client_certificate_rpcs``
    are refused (UNAUTHENTICATED ``CLIENT_CERTIFICATE_REQUIRED``) unless the connection carried a verified client
    certificate. ``json_mapping`` names the writer of the answers' JSON (transcode.JSON_MAPPINGS)."""
    gateway = RestGateway(
        invoke,
        max_body_bytes=max_body_bytes,
        client_certificate_rpcs=client_certificate_rpcs,
        json_mapping=json_mapping,
        open_stream=open_stream,
    )
    document = json.dumps(openapi_for(gateway), ensure_ascii=False).encode()

    async def openapi(request: Request) -> Response:
        return Response(document, media_type="application/json", headers={"cache-control": "no-cache"})

    async def not_found(request: Request) -> Response:
        return _service_error(errors.no_such_route(request.url.path))

    routes: list[Any] = [
        Route("/openapi.json", openapi, methods=["GET"]),
        Mount("/v1", app=gateway),
    ]
    if web_dir is not None and (web_dir / "index.html").is_file():
        index = web_dir / "index.html"

        async def home(request: Request) -> Response:
            return FileResponse(index, headers={"cache-control": "no-cache"})

        routes.append(Route("/", home, methods=["GET", "HEAD"]))
        routes.append(Mount("/", app=StaticFiles(directory=web_dir, html=False, follow_symlink=False)))
    else:
        routes.append(Route("/", not_found, methods=["GET", "HEAD"]))
    # The gateway's answers carry the security headers themselves: without CORS, /v1/ calls skip every middleware.
    gateway.extra_headers = [(k.encode(), v.encode()) for k, v in _SECURITY_HEADERS.items()]
    site = Starlette(routes=routes)
    if not cors_origins:
        return _ApiFirst(gateway, _SecurityHeaders(site))
    return _SecurityHeaders(
        CORSMiddleware(
            _ApiFirst(gateway, site),
            allow_origins=list(cors_origins),
            allow_methods=sorted({r.http_method for r in gateway.routes}),  # every method of the API's routes
            allow_headers=list(CORS_HEADERS),
            expose_headers=["x-request-id"],
            allow_credentials=False,  # tokens go in Authorization, which CORS allows without cookies
            max_age=600,
        )
    )


# ------------------------------------------------------------------------------------------- serving


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


async def start_http(
    games: Any,
    listen: str,
    *,
    web_dir: Path | None = WEB_DIR,
    max_body_bytes: int | None = None,
    tls_files: tls.CertificateFiles | None = None,
) -> HttpServer:
    """Serve REST + the web client on ``listen`` (``HOST:PORT``; port 0 picks one) over ``games``; over HTTPS
    only with ``tls_files`` (operator calls then need a client certificate when the files include a client CA)."""
    settings = getattr(games, "settings", None)
    limit = max_body_bytes or int(getattr(settings, "max_message_bytes", 1 << 20))
    grace = float(getattr(settings, "grace", 5.0))
    origins = tuple(getattr(settings, "cors_origins", ()) or ())
    mutual = tls_files is not None and tls_files.client_ca_file is not None
    app = create_app(
        game_service_invoker(games),
        max_body_bytes=limit,
        web_dir=web_dir,
        cors_origins=origins,
        client_certificate_rpcs=tls.OPERATOR_RPCS if mutual else frozenset(),
        json_mapping=str(getattr(settings, "json_mapping", "compiled")),
        open_stream=game_service_streams(games),
    )
    reuse_port = int(getattr(settings, "workers", 1) or 1) > 1
    context = tls.rest_ssl_context(tls_files) if tls_files is not None else None
    defaults = Limits()
    limits = Limits(
        max_connections=int(getattr(settings, "http_max_connections", defaults.max_connections)),
        head_timeout=float(getattr(settings, "http_head_timeout", defaults.head_timeout)),
        body_timeout=float(getattr(settings, "http_body_timeout", defaults.body_timeout)),
        max_body_bytes=limit,
    )
    server = HttpServer(
        app,
        listen,
        grace=grace,
        reuse_port=reuse_port,
        ssl_context=context,
        limits=limits,
        keepalive_timeout=int(getattr(settings, "http_keepalive_timeout", 5)),
        backlog=accept_backlog(_fd_limit()),
    )
    return await server.start()


def _fd_limit() -> int:
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


__all__: Sequence[str] = (
    "HttpServer",
    "Invoker",
    "RestGateway",
    "create_app",
    "game_service_invoker",
    "rpc_attribute",
    "start_http",
)
