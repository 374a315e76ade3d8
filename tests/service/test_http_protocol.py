"""The REST listener's HTTP protocol: uvicorn's httptools inside service.rest.connections, with h11's bound on a
request head.

Driven over raw sockets against a live server, since the bound is about bytes as they arrive: a head under the
bound is served, one over it is refused (400, connection closed) whether it arrives in one piece or dribbles in,
and the count starts again with every request of a keep-alive connection.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Iterator

import pytest
from http_support import LiveServer, live_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from service.rest.app import HttpServer, httptools_protocol
from service.rest.connections import INVALID_REQUEST, MAX_HEAD_BYTES


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(redis_url, tmp_path_factory.mktemp("keys")) as live:
        yield live


def request(filler: int, *, close: bool = False) -> bytes:
    """``GET /v1/variants`` with an ``x-filler`` header of ``filler`` bytes."""
    head = f"GET /v1/variants HTTP/1.1\r\nhost: t\r\nx-filler: {'a' * filler}\r\n"
    return (head + ("connection: close\r\n" if close else "") + "\r\n").encode()


def connect(server: LiveServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_answers(sock: socket.socket) -> list[tuple[int, bytes]]:
    """Every answer until the server closes the connection: (status, body)."""
    data = b""
    while chunk := sock.recv(1 << 16):
        data += chunk
    answers = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(line.split(b":")[1]) for line in lines[1:] if line.lower().startswith(b"content-length:"))
        answers.append((int(lines[0].split()[1]), rest[:length]))
        data = rest[length:]
    return answers


def test_the_listener_speaks_httptools_bounded(server: LiveServer) -> None:
    http_server = server.server.http  # the running uvicorn's protocol, as created from its config
    assert isinstance(http_server, HttpServer) and http_server._server is not None
    protocol_class = http_server._server.config.http_protocol_class  # the connection guard around httptools
    httptools = httptools_protocol()  # what uvicorn's Config names "httptools"
    assert getattr(protocol_class, "inner_class", None) is httptools
    assert not issubclass(protocol_class, httptools)  # composition: uvicorn's class is not subclassed


def test_a_head_under_the_bound_is_served_and_one_over_it_refused(server: LiveServer) -> None:
    with connect(server) as sock:
        sock.sendall(request(MAX_HEAD_BYTES - 1024, close=True))
        ((status, body),) = read_answers(sock)
    assert status == 200 and b"variants" in body
    with connect(server) as sock:
        sock.sendall(request(MAX_HEAD_BYTES + 1024))  # no connection: close: the server closes it itself
        ((status, body),) = read_answers(sock)
    assert (status, body) == (400, INVALID_REQUEST.encode())


def test_a_head_that_dribbles_in_is_refused_before_it_ends(server: LiveServer) -> None:
    """Sent in 1 kB pieces and never finished: refused once past the bound, not held open waiting for its end."""
    with connect(server) as sock:
        sock.sendall(b"GET /v1/variants HTTP/1.1\r\nhost: t\r\nx-filler: ")
        sent, refused = 0, False
        while sent < 4 * MAX_HEAD_BYTES:
            try:
                sock.sendall(b"a" * 1024)
            except (BrokenPipeError, ConnectionResetError):
                refused = True
                break
            sent += 1024
            time.sleep(0.0005)
        answers = read_answers(sock) if not refused else [(400, INVALID_REQUEST.encode())]
    assert sent <= MAX_HEAD_BYTES + 64 * 1024, sent  # within a read of the bound
    assert answers == [(400, INVALID_REQUEST.encode())]


def test_the_count_starts_again_with_each_request_of_a_connection(server: LiveServer) -> None:
    """Ten heads of 20 kB on one keep-alive connection (200 kB in all, each far under the bound) are all served."""
    with connect(server) as sock:
        for i in range(10):
            sock.sendall(request(20 * 1024, close=i == 9))
            if i < 9:  # read each answer before the next request, as a browser does
                head = b""
                while b"\r\n\r\n" not in head:
                    head += sock.recv(1)
                assert head.startswith(b"HTTP/1.1 200"), head
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                body = b""
                while len(body) < length:
                    body += sock.recv(length - len(body))
        ((status, _),) = read_answers(sock)
    assert status == 200


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(0, 48 * 1024), min_size=2, max_size=3), cuts=st.lists(st.integers(1, 1 << 17)))
def test_pipelined_heads_cut_anywhere_are_all_served(server: LiveServer, sizes: list[int], cuts: list[int]) -> None:
    """Requests sent back to back, the bytes cut at arbitrary places: each head is under the bound (together they
    may be far over it), so each is answered 200, in order."""
    data = b"".join(request(size, close=i == len(sizes) - 1) for i, size in enumerate(sizes))
    points = sorted({c % len(data) for c in cuts} - {0})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    with connect(server) as sock:
        for piece in pieces:
            sock.sendall(piece)
        answers = read_answers(sock)
    assert [status for status, _ in answers] == [200] * len(sizes)


def test_the_tls_listener_keeps_the_bound() -> None:
    """Over HTTPS the same guard serves; it also adds the client certificate to the scope (test_tls.py)."""
    server = HttpServer(Starlette(), "127.0.0.1:0", ssl_context=ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER))
    assert server.connections.tls and server.connections.limits.max_connections > 0
