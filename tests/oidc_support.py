"""A test OpenID Connect provider: real keys (RSA, EC, Ed25519) that sign real JWTs, and their JSON Web Key Set
served over real HTTP by a small server thread that counts how often it is fetched.

Nothing here is a mock of the service: the service fetches the set with PyJWT's client over a socket, exactly as
it fetches a real provider's.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

ISSUER = "https://id.provider.test/realms/games"
AUDIENCE = "patience-web"


@dataclass
class ProviderKey:
    """One signing key of the provider: its private half signs, its public JWK is published."""

    private: Any
    algorithm: str
    kid: str = field(default_factory=lambda: "k-" + secrets.token_hex(6))
    declare_alg: bool = True  # publish the JWK with its "alg" member

    @classmethod
    def rsa(cls, algorithm: str = "RS256", **kwargs: Any) -> ProviderKey:
        return cls(rsa.generate_private_key(public_exponent=65537, key_size=2048), algorithm, **kwargs)

    @classmethod
    def ec(cls, algorithm: str = "ES256", **kwargs: Any) -> ProviderKey:
        curve = {"ES256": ec.SECP256R1(), "ES384": ec.SECP384R1(), "ES512": ec.SECP521R1()}[algorithm]
        return cls(ec.generate_private_key(curve), algorithm, **kwargs)

    @classmethod
    def ed25519(cls, **kwargs: Any) -> ProviderKey:
        return cls(Ed25519PrivateKey.generate(), "EdDSA", **kwargs)

    def jwk(self) -> dict[str, Any]:
        public = self.private.public_key()
        if self.algorithm.startswith(("RS", "PS")):
            data = RSAAlgorithm.to_jwk(public, as_dict=True)
        elif self.algorithm.startswith("ES"):
            data = ECAlgorithm.to_jwk(public, as_dict=True)
        else:
            data = OKPAlgorithm.to_jwk(public, as_dict=True)
        data.update({"kid": self.kid, "use": "sig"})
        if self.declare_alg:
            data["alg"] = self.algorithm
        return dict(data)

    def sign(self, claims: dict[str, Any], *, algorithm: str | None = None, kid: str | None = None) -> str:
        return jwt.encode(claims, self.private, algorithm=algorithm or self.algorithm, headers={"kid": kid or self.kid})


def claims(issuer: str = ISSUER, audience: str = AUDIENCE, **changes: Any) -> dict[str, Any]:
    """An ID token's claims, valid for an hour; ``changes`` with a None value drop the claim."""
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": issuer,
        "aud": audience,
        "sub": "user-" + secrets.token_hex(4),
        "name": "Ada Lovelace",
        "iat": now,
        "nbf": now,
        "exp": now + 3600,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


class JwksServer:
    """The provider's key set at ``url``, served by a thread; ``fetches`` counts the GETs it answered."""

    def __init__(self, *keys: ProviderKey) -> None:
        self.keys: list[ProviderKey] = list(keys)
        self.fetches = 0
        self.down = False  # answer 503 instead of the set
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with provider._lock:
                    provider.fetches += 1
                    down = provider.down
                    body = json.dumps({"keys": [k.jwk() for k in provider.keys]}).encode()
                if down:
                    self.send_error(503)
                    return
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="jwks", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def publish(self, *keys: ProviderKey) -> None:
        with self._lock:
            self.keys = list(keys)

    def count(self) -> int:
        with self._lock:
            return self.fetches

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@contextmanager
def jwks_server(*keys: ProviderKey) -> Iterator[JwksServer]:
    server = JwksServer(*keys)
    server.thread.start()
    try:
        yield server
    finally:
        server.close()


def provider_settings(*providers: tuple[str, str, str]) -> dict[str, tuple[str, ...]]:
    """live_server overrides for providers given as (issuer, audience, JWKS URL)."""
    return {
        "oidc_issuer": tuple(p[0] for p in providers),
        "oidc_audience": tuple(p[1] for p in providers),
        "oidc_jwks_url": tuple(p[2] for p in providers),
    }
