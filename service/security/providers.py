"""OpenID Connect providers: a front end's identity tokens, verified with the provider's published keys (JWKS).

Each provider is configured by its issuer, the audience its tokens name for this service, and the URL of its JSON
Web Key Set (``--oidc-issuer``, ``--oidc-audience``, ``--oidc-jwks-url``: comma-separated lists, one entry per
provider, in the same order). Keys are fetched with PyJWT's :class:`jwt.PyJWKClient`, whose fetch blocks, so it
runs in a worker thread with a timeout; this module keeps the keys and decides when to fetch:

- on first use, and again when the keys are older than :data:`MAX_AGE` (keys the provider dropped go then);
- when a token names a key id (``kid``) that is not known: at most once per :data:`UNKNOWN_KEY_INTERVAL` per
  provider, so that tokens with made-up key ids cannot make the service hammer the provider (a provider that
  rotates publishes the new key before it signs with it: the periodic fetch finds it too);
- never more than one fetch at a time per provider, and after a failed fetch not again for
  :data:`UNKNOWN_KEY_INTERVAL` (the keys fetched before go on verifying meanwhile).

Only asymmetric algorithms verify (:data:`ALGORITHMS`): never ``none``, never HS* (an HMAC keyed with a public
key is the classic forgery), and when a published key names its ``alg`` the token must use that one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jwt
from jwt import PyJWK, PyJWKClient

from service import errors
from service.security.players import GUEST_ISSUER, Identity, decode

log = logging.getLogger("patience.players")

#: The algorithms a provider's token may be signed with (RFC 7518 and RFC 8037): RSA, RSA-PSS, ECDSA, EdDSA.
ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)  # fmt: skip
#: Keys are fetched again when older than this (seconds).
MAX_AGE = 600.0
#: At most one fetch for an unknown key id, and none after a failed fetch, within this many seconds.
UNKNOWN_KEY_INTERVAL = 60.0
#: A fetch of the key set gives up after this many seconds.
FETCH_TIMEOUT = 5.0


def settings_problem(issuers: Sequence[str], audiences: Sequence[str], jwks_urls: Sequence[str]) -> str | None:
    """Why the three provider lists cannot work together, or None (checked at start)."""
    if not (len(issuers) == len(audiences) == len(jwks_urls)):
        return (
            "--oidc-issuer, --oidc-audience and --oidc-jwks-url are lists of the same length, one entry per provider "
            f"(given {len(issuers)}, {len(audiences)} and {len(jwks_urls)})"
        )
    if len(set(issuers)) != len(issuers):
        return "--oidc-issuer names an issuer twice"
    if GUEST_ISSUER in issuers:
        return f"--oidc-issuer: {GUEST_ISSUER} is the service's own guest issuer"
    for url in jwks_urls:
        if not url.lower().startswith(("https://", "http://")):
            return f"--oidc-jwks-url: {url!r} is not an http(s) URL"
    return None


#: A published key as the provider wrote it (one member of the set's ``keys``).
JWK = dict[str, Any]


@dataclass
class ProviderKeys:
    """A provider's signing keys by key id, fetched from its JWKS URL as the module docstring says."""

    jwks_url: str
    max_age: float = MAX_AGE
    unknown_key_interval: float = UNKNOWN_KEY_INTERVAL
    timeout: float = FETCH_TIMEOUT
    clock: Callable[[], float] = time.monotonic
    keys: dict[str, JWK] = field(default_factory=dict, init=False)
    fetches: int = field(default=0, init=False)  # attempts, for the logs and the tests
    _fetched_at: float | None = field(default=None, init=False)  # the last fetch that worked
    _tried_at: float | None = field(default=None, init=False)  # the last attempt, whatever came of it
    _unknown_at: float | None = field(default=None, init=False)  # the last fetch for an unknown key id
    _built: dict[tuple[str, str], PyJWK] = field(default_factory=dict, init=False, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)
    _client: PyJWKClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # No cache of PyJWKClient's own: every fetch_data() is a fetch, and this class decides when one is due.
        self._client = PyJWKClient(self.jwks_url, cache_jwk_set=False, timeout=self.timeout)

    async def key(self, kid: str) -> JWK:
        """The published key ``kid``; UNAUTHENTICATED ``IDENTITY_UNKNOWN_KEY`` when the provider does not publish it,
        UNAVAILABLE ``IDENTITY_PROVIDER_UNAVAILABLE`` when its keys could never be fetched."""
        if self._fetched_at is None or self.clock() - self._fetched_at >= self.max_age:
            await self._refresh(self._may_refresh)
        found = self.keys.get(kid)
        if found is None:
            await self._refresh(self._may_look_for_unknown)
            found = self.keys.get(kid)
        if found is not None:
            return found
        if self._fetched_at is None:
            raise errors.identity_provider_unavailable(round(self.unknown_key_interval))
        raise errors.identity_refused("IDENTITY_UNKNOWN_KEY", "the token's key is not one its issuer publishes")

    def for_algorithm(self, kid: str, jwk: JWK, algorithm: str) -> PyJWK:
        """The key ``kid`` for ``algorithm`` (built once per pair); IDENTITY_ALGORITHM when it cannot be (an EC key
        for RS256, a P-384 key for ES256 ...)."""
        built = self._built.get((kid, algorithm))
        if built is None:
            try:
                built = PyJWK(jwk, algorithm)
            except (jwt.PyJWKError, jwt.InvalidKeyError, TypeError, ValueError) as exc:
                raise errors.identity_refused("IDENTITY_ALGORITHM", "the algorithm does not fit the key") from exc
            self._built[(kid, algorithm)] = built
        return built

    def _failed_last(self) -> bool:
        return self._tried_at is not None and (self._fetched_at is None or self._fetched_at < self._tried_at)

    def _may_refresh(self, now: float) -> bool:
        """Keys never fetched or old: due, unless the last attempt failed less than the interval ago."""
        stale = self._fetched_at is None or now - self._fetched_at >= self.max_age
        pause = self._failed_last() and self._tried_at is not None and now - self._tried_at < self.unknown_key_interval
        return stale and not pause

    def _may_look_for_unknown(self, now: float) -> bool:
        """An unknown key id: due once per interval, and not within the interval after a failed attempt."""
        if self._failed_last() and self._tried_at is not None and now - self._tried_at < self.unknown_key_interval:
            return False
        if self._unknown_at is not None and now - self._unknown_at < self.unknown_key_interval:
            return False
        self._unknown_at = now
        return True

    async def _refresh(self, due: Callable[[float], bool]) -> None:
        """Fetch the keys if ``due(now)`` says so once this caller holds the lock (a caller that waited for another's
        fetch is then told by ``due`` that none is due any more)."""
        async with self._lock:
            if not due(self.clock()):
                return
            self._tried_at = self.clock()
            self.fetches += 1
            try:
                data = await asyncio.wait_for(asyncio.to_thread(self._client.fetch_data), self.timeout + 1)
                keys = data.get("keys") if isinstance(data, dict) else None
                if not isinstance(keys, list):
                    raise ValueError("the key set has no list of keys")
            except (jwt.PyJWKClientError, TimeoutError, OSError, ValueError) as exc:
                log.warning("identity provider keys not fetched from %s: %s", self.jwks_url, exc)
                return
            self.keys = {k["kid"]: k for k in keys if _signing_key(k)}
            self._built = {}
            self._fetched_at = self.clock()
            log.info("identity provider keys fetched from %s: %d", self.jwks_url, len(self.keys))


def _signing_key(jwk: object) -> bool:
    """A published key that may verify tokens: named (``kid``), for signatures, and asymmetric (never ``oct``)."""
    return (
        isinstance(jwk, dict)
        and isinstance(jwk.get("kid"), str)
        and bool(jwk["kid"])
        and jwk.get("use", "sig") == "sig"
        and jwk.get("kty") in ("RSA", "EC", "OKP")
    )


@dataclass
class Provider:
    """One OpenID Connect provider: its issuer, the audience its tokens must name, and its keys."""

    issuer: str
    audience: str
    keys: ProviderKeys

    async def verify(self, token: str, header: Mapping[str, Any]) -> Identity:
        """The identity a token of this provider proves, or UNAUTHENTICATED with the reason."""
        algorithm = str(header.get("alg", ""))
        if algorithm not in ALGORITHMS:
            raise errors.identity_refused("IDENTITY_ALGORITHM", f"the algorithm {algorithm[:16]!r} is not accepted")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid or len(kid) > 256:
            raise errors.identity_refused("IDENTITY_UNKNOWN_KEY", "the identity token names no key (kid)")
        jwk = await self.keys.key(kid)
        if jwk.get("alg", algorithm) != algorithm:
            raise errors.identity_refused("IDENTITY_ALGORITHM", "the token's algorithm is not the one its key names")
        claims = decode(token, self.keys.for_algorithm(kid, jwk, algorithm), [algorithm], self.issuer, self.audience)
        name = claims.get("name") or claims.get("preferred_username") or ""
        name = name if isinstance(name, str) else ""
        return Identity(self.issuer, str(claims["sub"]), name, "oidc", int(claims["exp"]))


def providers_from(issuers: Sequence[str], audiences: Sequence[str], jwks_urls: Sequence[str]) -> dict[str, Provider]:
    """The providers of the settings' three lists (already checked: :func:`settings_problem`), by issuer."""
    return {
        issuer: Provider(issuer, audience, ProviderKeys(url))
        for issuer, audience, url in zip(issuers, audiences, jwks_urls, strict=True)
    }
