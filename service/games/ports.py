"""What the use cases are given: the call's context (``Credentials``), and the adapters they call besides the store
(``service.store.GameStore``): certificate signing, deal tickets and rate limits. Each is a small protocol, so
a server without keys or limits passes None and a test can pass its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple, Protocol

from service.security.ratelimit import CLIENT_ADDRESS, FRONT_END_KEY

if TYPE_CHECKING:
    from patience.certificates import CertificateContents, Verification

    from service.security.tickets import Ticket


class Credentials(NamedTuple):
    """The call's context, the same whichever transport brought it: what the caller presented
    (``authorization: Bearer <token>``, ``x-operator-key``), who calls (the address of its connection, or the end
    user a trusted front end names: service.security.ratelimit). Each transport turns its own forms into these
    plain values (service.grpc.servicer gRPC's peer, service.rest.app the ASGI client), so no use case reads a
    transport's format. No deadline: a hint, the one call that may wait, is computed once for every caller at its
    version and kept for the retry of one who stopped waiting. A named tuple: built on every call, and five
    times cheaper than a frozen dataclass."""

    game_token: str | None = None
    operator_key: str | None = None
    #: The caller's IP address ("203.0.113.9", "2001:db8::1"), "unix" over a Unix socket, "" when unknown; the
    #: gRPC transport reads it only for the calls that need it (rate limits, streams).
    peer: str = ""
    client_address: str | None = None  # x-client-address
    front_end_key: str | None = None  # x-front-end-key


#: The headers a call's credentials come in, the same names in gRPC metadata and in HTTP headers (a front end's
#: two, CLIENT_ADDRESS and FRONT_END_KEY, are the rate limits').
AUTHORIZATION = "authorization"
OPERATOR_KEY = "x-operator-key"
_BEARER = "bearer "


def credentials_from(headers: Iterable[tuple[str, str | bytes]] | None, peer: str = "") -> Credentials:
    """``authorization: Bearer <token>``, ``x-operator-key`` and a front end's ``x-client-address`` and
    ``x-front-end-key`` from a call's headers (gRPC metadata or HTTP headers, names in lower case); ``peer`` is
    the caller's IP address, already in the context's form (the transport's to convert). Both transports build
    the call's context with this."""
    token: str | None = None
    operator: str | None = None
    address: str | None = None
    front_end: str | None = None
    for key, value in headers or ():
        if isinstance(value, bytes):
            continue
        if key == AUTHORIZATION and value[: len(_BEARER)].lower() == _BEARER:
            token = value[len(_BEARER) :].strip() or None
        elif key == OPERATOR_KEY:
            operator = value.strip() or None
        elif key == CLIENT_ADDRESS:
            address = value.strip()
        elif key == FRONT_END_KEY:
            front_end = value.strip() or None
    return Credentials(token, operator, peer, address, front_end)


class KeyRing(Protocol):
    """Certificate signing (service.security.signing.KeyRing)."""

    def sign(self, contents: CertificateContents) -> bytes: ...
    def verify(self, encoded: bytes | str, *, replay: bool = False) -> Verification: ...
    def public_keys(self) -> list[tuple[str, bytes, bool]]: ...


class Tickets(Protocol):
    """Deal tickets (service.security.tickets.TicketMinter)."""

    def mint(
        self, variant: str, options: Mapping[str, str], *, expires_at: int, label: str = ""
    ) -> tuple[str, Ticket]: ...
    def open(self, text: str, *, now: int) -> Ticket: ...
    def seed(self, ticket: Ticket) -> bytes: ...


class Limiter(Protocol):
    """Rate limits per client (service.security.ratelimit.RateLimiter)."""

    def client(self, ip: str, address: str | None, key: str | None) -> str: ...
    async def check(self, rpc: str, client: str) -> None: ...
    async def take_share(self, name: str, client: str, scope: str) -> tuple[str, int] | None: ...
    async def close(self) -> None: ...


class Changes(Protocol):
    """The games' change notifications (service.store.changes.GameChanges): a listener called with each version a
    game is written at, or 0 when it may have missed one (read the game again)."""

    async def follow(self, game_id: str, listener: Callable[[int], None]) -> None: ...
    async def unfollow(self, game_id: str, listener: Callable[[int], None]) -> None: ...
    async def close(self) -> None: ...
