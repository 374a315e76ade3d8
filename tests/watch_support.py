"""Watchers for the WatchGame tests: a gRPC stream and a Server-Sent Events stream, each read by a thread of its own
into a queue, as a second device or a spectator would read them (real ports, real HTTP, no mocks).

``next()`` is the next message (or raises when the stream ended or failed); ``end()`` waits for the stream's end and
says how it ended. Timeouts are generous: these tests check what arrives, never how fast.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb
from patience.v1 import patience_pb2_grpc as pb_grpc

from service.errors import error_info

WAIT = 30.0  # seconds: what a loaded two-core machine may take to pass a message along, with room to spare


@dataclass
class Ended:
    """How a stream ended: ``code`` ("OK", a gRPC code name, or an HTTP status as text) and the ErrorInfo reason."""

    code: str
    reason: str = ""
    http_status: int = 0


class Stream:
    """A stream read by a thread: messages in ``queue``, then an :class:`Ended`."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Any] = queue.Queue()
        self.arrived: list[float] = []  # time.monotonic() of each message (figures for the report, never asserted)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Stream:
        self.thread.start()
        return self

    def _run(self) -> None:
        raise NotImplementedError

    def _put(self, item: Any) -> None:
        if not isinstance(item, Ended):
            self.arrived.append(time.monotonic())
        self.queue.put(item)

    def next(self, timeout: float = WAIT) -> Any:
        item = self.queue.get(timeout=timeout)
        if isinstance(item, Ended):
            self.queue.put(item)
            raise AssertionError(f"the stream ended ({item}) where a message was expected")
        return item

    def until(self, version: int, timeout: float = WAIT) -> Any:
        """The first message at ``version`` or later (a watcher may skip versions: it gets the latest)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.1, deadline - time.monotonic()))
            if self.version(message) >= version:
                return message

    def end(self, timeout: float = WAIT) -> Ended:
        """Wait for the end; every message left before it is an error."""
        item = self.queue.get(timeout=timeout)
        if not isinstance(item, Ended):
            raise AssertionError(f"a message where the end was expected: {self.version(item)}")
        return item

    def quiet(self, seconds: float) -> bool:
        """Nothing arrived for ``seconds`` (the stream may not send what it must not)."""
        try:
            item = self.queue.get(timeout=seconds)
        except queue.Empty:
            return True
        self.queue.put(item)
        return False

    @staticmethod
    def version(message: Any) -> int:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class GrpcWatch(Stream):
    """``WatchGame`` over gRPC (a sync stub on its own channel)."""

    def __init__(self, address: str, game_id: str, token: str | None = None, after_version: int = 0) -> None:
        super().__init__()
        self.channel = grpc.insecure_channel(address)
        metadata = [("authorization", f"Bearer {token}")] if token else []
        request = pb.WatchGameRequest(game_id=game_id, after_version=after_version)
        self.call = pb_grpc.PatienceServiceStub(self.channel).WatchGame(request, metadata=metadata, timeout=300)
        self.start()

    def _run(self) -> None:
        try:
            for reply in self.call:
                self._put(reply)
        except grpc.RpcError as exc:
            info = error_info(rpc_status.from_call(exc))  # type: ignore[arg-type]
            self._put(Ended(exc.code().name, info.reason if info else ""))  # type: ignore[attr-defined]
            return
        self._put(Ended("OK"))

    @staticmethod
    def version(message: Any) -> int:
        return int(message.game.version)

    def close(self) -> None:
        self.call.cancel()  # type: ignore[attr-defined]
        self.thread.join(10)
        self.channel.close()


@dataclass
class Event:
    """One Server-Sent Event: its id, its type ("message" unless named) and its data as JSON."""

    id: str | None
    event: str
    data: Any = field(repr=False)


class SseWatch(Stream):
    """``GET /v1/games/{id}:watch`` read as an ``EventSource`` reads it (the event stream format, by hand)."""

    def __init__(
        self,
        base_url: str,
        game_id: str,
        token: str | None = None,
        last_event_id: str | None = None,
        after_version: int | None = None,
    ) -> None:
        super().__init__()
        self.headers = {"accept": "text/event-stream"}
        if token:
            self.headers["authorization"] = f"Bearer {token}"
        if last_event_id is not None:
            self.headers["last-event-id"] = last_event_id
        params = {} if after_version is None else {"afterVersion": str(after_version)}
        self.client = httpx.Client(base_url=base_url, timeout=httpx.Timeout(10, read=300))
        self.request = self.client.build_request(
            "GET", f"/v1/games/{game_id}:watch", headers=self.headers, params=params
        )
        self.response: httpx.Response | None = None
        self.comments = 0
        self.start()

    def _run(self) -> None:
        try:
            self.response = self.client.send(self.request, stream=True)
            if self.response.status_code != 200:
                body = self.response.read()
                reason = ""
                if body:
                    details = json.loads(body).get("details") or [{}]
                    reason = details[0].get("reason", "")
                self._put(Ended(str(self.response.status_code), reason, self.response.status_code))
                return
            assert self.response.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            data: list[str] = []
            for line in self.response.iter_lines():
                if line == "":
                    if data:
                        self._put(Event(fields.get("id"), fields.get("event", "message"), json.loads("\n".join(data))))
                    fields, data = {}, []
                elif line.startswith(":"):
                    self.comments += 1
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "data":
                        data.append(value)
                    else:
                        fields[name] = value
            self._put(Ended("OK", http_status=200))
        except (httpx.HTTPError, RuntimeError) as exc:  # closed by the test
            self._put(Ended(f"closed: {type(exc).__name__}"))

    @staticmethod
    def version(message: Any) -> int:
        return int(message.data["game"]["version"])

    def close(self) -> None:
        if self.response is not None:
            self.response.close()
        self.client.close()
        self.thread.join(10)
