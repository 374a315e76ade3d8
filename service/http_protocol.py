"""The HTTP/1.1 protocol the REST listener speaks: uvicorn's httptools protocol, with h11's bound on a request head.

Why httptools and not h11: h11 parses and writes HTTP in Python, and in a REST ApplyMove it was the largest single
cost after the use case itself; the benchmark's bare Starlette app spends about 130 µs of CPU a call more on h11
than on httptools' C parser (docs/service-benchmark.md). Why the bound: h11 refuses a request head (request line
and headers) that grows past ``h11_max_incomplete_event_size``; httptools has no such limit and would keep
buffering one endless header. Here a head over :data:`MAX_HEAD_BYTES` gets h11's answer (400, "Invalid HTTP
request received.") and the connection is closed: a complete head is measured once parsed, and one still arriving
is refused as soon as the bytes received for it pass the bound.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: The largest request head (request line and headers) accepted: what the service allowed with h11.
MAX_HEAD_BYTES = 64 * 1024

#: The refusal's text: uvicorn's for any request it cannot parse (h11's bound gave the same).
INVALID_REQUEST = "Invalid HTTP request received."


class HeadTooLarge(Exception):
    """Raised from the parser's callback: httptools stops and uvicorn answers 400 (its HttpParserError path)."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head of more than :data:`MAX_HEAD_BYTES`.

    Per request, ``_head_bytes`` counts the bytes received since the previous request ended (or the connection
    opened) while its head is incomplete: cheap, and an over-estimate once the head is complete (the last read may
    hold a body), so only past the bound is the parsed head measured itself. A head still arriving is refused once
    the count passes the bound; the count can miss at most the rest of the read that ended the previous request."""

    max_head_bytes = MAX_HEAD_BYTES
    _in_head = True  # per connection once set: waiting for (the rest of) a request head
    _head_bytes = 0

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._in_head and self._head_bytes > self.max_head_bytes and not self.transport.is_closing():
            self.logger.warning("request head over %d bytes", self.max_head_bytes)
            self.send_400_response(INVALID_REQUEST)

    def on_headers_complete(self) -> None:
        self._in_head = False
        if self._head_bytes > self.max_head_bytes and self._head_size() > self.max_head_bytes:
            raise HeadTooLarge
        super().on_headers_complete()

    def _head_size(self) -> int:
        """The head's bytes as sent: request line, headers (``name: value``, CRLF each), the empty line."""
        line = len(self.parser.get_method()) + len(self.url) + len(" HTTP/1.1\r\n") + 1
        return line + sum(len(name) + len(value) + 4 for name, value in self.headers) + 2

    def on_message_complete(self) -> None:
        self._in_head, self._head_bytes = True, 0
        super().on_message_complete()
