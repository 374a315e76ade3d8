"""Server streams over REST: Server-Sent Events (``text/event-stream``), by sse-starlette's ``EventSourceResponse``.

A server-streaming RPC (WatchGame, ``GET /v1/games/{game_id}:watch``) answers its refusals before the stream as
every call does (JSON, the HTTP status of the code); once open, each message of the stream is one event::

    id: 7
    data: {"game":{...}}            the message in the API's JSON (the same mapping as every answer)

``id`` is the game's version: a browser's ``EventSource`` sends it back as ``Last-Event-ID`` when it reconnects, and
the stream goes on from there (it takes the place of ``after_version``). A comment line (``: ping``) every
:data:`HEARTBEAT` seconds keeps proxies from closing a quiet stream. A stream with nothing to send (the game was
over at the caller's version) is answered 204 No Content, which tells ``EventSource`` not to reconnect; a failure
after the stream started (the store went away) is a last event ``event: error`` whose data is the
``google.rpc.Status`` JSON of a refused call. A client that takes no event for :data:`SEND_TIMEOUT` seconds is cut
off (it reconnects with its last id): it holds nothing back for anyone else meanwhile.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from google.protobuf.message import Message
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from service import errors
from service.observe.calls import failure, http_answer
from service.rest.routes import HttpRoute
from service.rest.transcode import JSON_MAPPINGS, response_json, status_json

#: Seconds between heartbeats (SSE comment lines) on a quiet stream: well inside the idle timeouts of common proxies.
HEARTBEAT = 15.0
#: Seconds one event may take to go out before the client is taken for gone (its socket buffers full).
SEND_TIMEOUT = 30.0
#: The header an ``EventSource`` resends on reconnection: the id of the last event it received.
LAST_EVENT_ID = "last-event-id"


class Stream(Protocol):
    """What a streaming use case gives (``service.games.Watch``): messages, then ``aclose()`` whatever happened."""

    empty: bool

    def __aiter__(self) -> AsyncIterator[Message]: ...
    async def aclose(self) -> None: ...


#: Opens one server stream: (route's method, request message, the call's context) -> the stream; raises ServiceError.
Opener = Callable[[Any, Message, Any], Awaitable[Stream]]
Encode = Callable[[Any], bytes]


def resume_from(request: Message, last_event_id: str | None) -> None:
    """``Last-Event-ID`` (an ``EventSource`` reconnecting) as the request's ``after_version``: it wins over the
    query's, being the client's latest word. INVALID_ARGUMENT ``BAD_LAST_EVENT_ID`` unless it is a version."""
    if last_event_id is None or "after_version" not in request.DESCRIPTOR.fields_by_name:
        return
    text = last_event_id.strip()
    if not text.isdigit() or len(text) > 18:
        raise errors.bad_last_event_id(text)
    request.after_version = int(text)  # type: ignore[attr-defined]  # checked above: the request has the field


def event_id(message: Message) -> str | None:
    """A message's event id: the version of the game it carries."""
    game = getattr(message, "game", None)
    return str(game.version) if game is not None else None


class EventStream:
    """One open stream as an ASGI answer: its events, then ``done(code)`` (the call's access line and metrics)."""

    def __init__(
        self,
        route: HttpRoute,
        stream: Stream,
        headers: list[tuple[bytes, bytes]],
        encode: Encode,
        done: Callable[[str], None],
        to_json: Callable[[Message], Any] = JSON_MAPPINGS["compiled"],
    ) -> None:
        self.route = route
        self.to_json = to_json  # the gateway's writer of JSON (--json-mapping)
        self.stream = stream
        self.headers = headers
        self.encode = encode
        self.done = done
        self.code = "OK"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            if self.stream.empty:
                await send({"type": "http.response.start", "status": 204, "headers": self.headers})
                await send({"type": "http.response.body", "body": b""})
                return
            response = EventSourceResponse(
                self._events(),
                headers={k.decode("latin-1"): v.decode("latin-1") for k, v in self.headers},
                ping=HEARTBEAT,
                send_timeout=SEND_TIMEOUT,
                sep="\n",
            )
            await response(scope, receive, send)
        except BaseException:
            self.code = "CANCELLED" if self.code == "OK" else self.code
            raise
        finally:
            await self.stream.aclose()  # the stream's slot, whether its events were read or not
            self.done(self.code)

    async def _events(self) -> AsyncIterator[ServerSentEvent]:
        try:
            async for message in self.stream:
                data = self.encode(response_json(self.route, message, self.to_json)).decode()
                yield ServerSentEvent(data=data, id=event_id(message))
        except Exception as exc:  # after the stream started: a last event says why it ends
            error = failure(exc, self.route.rpc_name)
            self.code = error.code.name
            status, _, _ = http_answer(error)
            yield ServerSentEvent(data=self.encode(status_json(status)).decode(), event="error")
