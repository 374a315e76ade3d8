"""The REST/JSON transport as one ASGI application: the ``/v1/`` gateway (``service.rest.gateway``: HTTP in, the
same ``GameService`` call as gRPC, JSON out), ``/openapi.json`` (generated from the proto) and the web client
(``clients/web``) at ``/``, with the security headers and CORS; and ``start_http``, which serves it in the gRPC
server's loop (``service.rest.serving``).

The names callers import from here (the gateway's, the server's) stay importable from here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from patience.v1 import patience_pb2
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from service import errors
from service.rest import events
from service.rest.connections import Limits
from service.rest.descriptors import accept_backlog, open_files_limit
from service.rest.gateway import (
    FORWARDED_HEADERS,
    SERVICES,
    Invoker,
    RestGateway,
    encode_json,
    game_service_invoker,
    game_service_streams,
    rpc_attribute,
    service_error,
)
from service.rest.openapi import load_comments, openapi_document
from service.rest.serving import HttpServer, httptools_protocol
from service.security import tls

#: Where the web client lives in a source checkout (and in the container image, which copies the tree).
WEB_DIR = Path(__file__).resolve().parents[2] / "clients" / "web"


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
        return service_error(errors.no_such_route(request.url.path))

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
        backlog=accept_backlog(open_files_limit()),
    )
    return await server.start()


__all__: Sequence[str] = (
    "CORS_HEADERS",
    "FORWARDED_HEADERS",
    "SERVICES",
    "WEB_DIR",
    "HttpServer",
    "Invoker",
    "RestGateway",
    "create_app",
    "encode_json",
    "game_service_invoker",
    "game_service_streams",
    "httptools_protocol",
    "openapi_for",
    "rpc_attribute",
    "start_http",
)
