"""The ``/v1/`` gateway: HTTP in, the same ``GameService`` call as gRPC, JSON out.

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

A module of its own because it is the per-call path: everything a ``/v1/`` call runs through is here, apart
from the Starlette app around it (``service.rest.app``) and the server (``service.rest.serving``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import orjson
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from patience.v1 import patience_pb2
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from service import errors
from service.errors import ServiceError
from service.games import GameService
from service.games.ports import Credentials, credentials_from
from service.observe import tracing
from service.observe.calls import REST, Calls, failure, http_answer, request_id_of
from service.observe.logs import request_id
from service.rest import events
from service.rest.routes import HttpRoute, Router, routes_for_services
from service.rest.transcode import JSON_MAPPINGS, TranscodeError, build_request, response_json, status_json
from service.security import tls

log = logging.getLogger(__name__)

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


def service_error(error: ServiceError, headers: dict[str, str] | None = None) -> Response:
    """A refusal as the Starlette response REST answers it with (the status as JSON, Google's HTTP status)."""
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


#: The W3C trace context headers (read when traces are on: service.observe.tracing).
TRACE_HEADERS = ("traceparent", "tracestate")
#: The request headers the gateway reads (as ASGI gives their names: lower case bytes): those of the call's
#: context, the trace context, and the body's length and type.
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
                return as_answer(service_error(errors.no_such_route(path)))
            allow = ", ".join(found)
            return as_answer(service_error(errors.method_not_allowed(method, allow), {"allow": allow}))
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
            return as_answer(service_error(tls.client_certificate_required(route.rpc_name), headers))
        try:
            body = await _read_body(receive, seen.get("content-length"), self.max_body_bytes)
        except _BodyTooLarge:
            return as_answer(service_error(errors.request_too_large(self.max_body_bytes), headers))
        if body.strip() and not _is_json(seen.get("content-type", "")):
            return as_answer(service_error(errors.unsupported_media_type(), headers))
        query: bytes = scope.get("query_string", b"")
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True) if query else []
        try:
            message_in = build_request(route, found.path_params, pairs, body)
        except TranscodeError as exc:
            return as_answer(service_error(errors.bad_request(exc.reason, exc.message, exc.field or ""), headers))
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
                return as_answer(service_error(error, headers))
            finally:
                request_id.reset(token)
        code, response = "OK", None
        try:
            response = await self.invoke(route.method, message_in, credentials)
        except Exception as exc:  # a refusal, or a bug (logged): the same statuses as over gRPC (service.observe.calls)
            error = failure(exc, route.rpc_name)
            code = error.code.name
            return as_answer(service_error(error, headers))
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


def as_answer(response: Response) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
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
