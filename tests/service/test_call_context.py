"""The call's context (service.games.ports.Credentials) as each transport builds it from its own forms: a plain IP
address for the caller whether it came over gRPC (its peer string) or HTTP (the ASGI client), the same values
either way; over real ports, IPv4 and IPv6."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import grpc
import httpx
from hypothesis import given
from hypothesis import strategies as st

from service.games.ports import Credentials
from service.grpc.servicer import context_of, peer_ip
from service.rest.app import HttpServer, create_app


def _grpc_peer(address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> str:
    """A peer string the way grpc writes it (as a URI: an IPv6 address's brackets escaped)."""
    if address.version == 4:
        return f"ipv4:{address}:{port}"
    return f"ipv6:%5B{address}%5D:{port}"


@given(st.ip_addresses(), st.integers(0, 65535))
def test_a_grpc_peer_gives_back_its_address(address: Any, port: int) -> None:
    assert ipaddress.ip_address(peer_ip(_grpc_peer(address, port))) == address


def test_the_forms_of_grpc_peers() -> None:
    assert peer_ip("ipv4:203.0.113.9:5501") == "203.0.113.9"
    assert peer_ip("ipv6:%5B2001:db8::1%5D:443") == "2001:db8::1"
    assert peer_ip("ipv6:[2001:db8::1]:443") == "2001:db8::1"  # older grpc versions did not escape them
    assert peer_ip("unix:/tmp/sock") == peer_ip("unix:") == "unix"  # every Unix-socket caller counts as one
    assert peer_ip("") == ""


async def _grpc_contexts(host: str) -> list[Credentials]:
    """The contexts a real grpc.aio server builds for a call with a deadline and one without, over ``host``."""
    seen: list[Credentials] = []

    async def handle(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        seen.append(context_of(context, with_peer=True))
        seen.append(context_of(context, with_peer=False))
        return b""

    server = grpc.aio.server()
    methods = {"Call": grpc.unary_unary_rpc_method_handler(handle)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.Context", methods),))
    port = server.add_insecure_port(f"{host}:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"{host}:{port}") as channel:
            call = channel.unary_unary("/test.Context/Call")
            await call(b"", timeout=300, metadata=(("authorization", "Bearer pgt_x"), ("x-operator-key", "k")))
            await call(b"")
    finally:
        await server.stop(None)
    return seen


def test_grpc_gives_the_use_cases_a_plain_address() -> None:
    timed, unpeered, untimed, _ = asyncio.run(_grpc_contexts("127.0.0.1"))
    assert timed == Credentials("pgt_x", "k", "127.0.0.1")  # a deadline changes nothing
    assert unpeered == Credentials("pgt_x", "k", "")  # the peer only for the calls that need it
    assert untimed == Credentials(None, None, "127.0.0.1")
    assert asyncio.run(_grpc_contexts("[::1]"))[0].peer == "::1"


async def _rest_contexts(host: str) -> list[Credentials]:
    """The contexts the REST gateway builds for two calls over a real uvicorn on ``host``."""
    seen: list[Credentials] = []

    async def invoke(method: Any, request: Any, credentials: Credentials) -> Any:
        seen.append(credentials)
        return request.__class__()

    server = await HttpServer(create_app(invoke, web_dir=None), f"{host}:0", grace=1).start()
    try:
        async with httpx.AsyncClient(base_url=f"http://{host}:{server.port}", timeout=30) as client:
            headers = {"authorization": "Bearer pgt_x", "x-client-address": "192.0.2.1", "x-front-end-key": "f"}
            assert (await client.get("/v1/variants", headers=headers)).status_code == 200
    finally:
        await server.stop()
    return seen


def test_rest_gives_the_use_cases_the_same_context() -> None:
    (over_v4,) = asyncio.run(_rest_contexts("127.0.0.1"))
    assert over_v4 == Credentials("pgt_x", None, "127.0.0.1", "192.0.2.1", "f")
    (over_v6,) = asyncio.run(_rest_contexts("[::1]"))
    assert over_v6.peer == "::1"
