"""Who a player is: identity tokens (JWTs) in, a pseudonymous player out.

The service keeps no accounts and no passwords. A caller proves who they are with a JWT in
``authorization: Bearer <jwt>``: an OpenID Connect provider's (configured by issuer, audience and JWKS URL) or a
**guest identity** the service issued itself (CreateGuest). A game token (``pgt_...``) in the same header is
told apart by its form: a JWT is three base64url segments separated by dots.

A player is ``issuer + subject``. What the service stores and shows is never the raw subject or token but a
pseudonymous id, ``"p_"`` and 26 base32 characters of HMAC-SHA256(player-id key, ``issuer | subject``): stable
for as long as the key is (docs/keys.md: it is never rotated), and unlinkable to the provider's subject by
anyone without the key.

Tokens are checked with PyJWT: an allow-list of asymmetric algorithms (never ``none``, never HS*), ``iss``,
``aud``, ``exp`` and ``nbf`` with a small leeway. Every refusal is UNAUTHENTICATED with a stable reason
(service.errors, ``IDENTITY_*``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service import errors

#: The ``iss`` of guest identities (not a URL: nothing is fetched for it; the service holds the keys).
GUEST_ISSUER = "urn:patience:guest"
#: The ``aud`` of guest identities.
GUEST_AUDIENCE = "patience"
#: Seconds of clock difference tolerated on ``exp``, ``nbf`` and ``iat``.
LEEWAY = 60
#: The longest identity token read at all (a JWT with a few claims is well under 2 KB).
MAX_TOKEN_LENGTH = 8192
#: Display names: characters after normalisation.
MAX_NAME_LENGTH = 32
#: Verified identity tokens one replica remembers (about 200 bytes each).
VERIFIED_CACHE = 10_000
#: Guest identities live a year unless configured otherwise (``--guest-lifetime-days``).
GUEST_LIFETIME_SECONDS = 365 * 86400


class Player(NamedTuple):
    """A player as the service shows them (``patience.v1.Player``)."""

    id: str
    display_name: str
    kind: str  # "guest" or "oidc"


class Identity(NamedTuple):
    """A verified identity token: whose (``issuer``, ``subject``), the name it claims, its kind and its expiry
    (Unix seconds)."""

    issuer: str
    subject: str
    name: str
    kind: str
    expires_at: int = 0


def looks_like_jwt(token: str) -> bool:
    """A JWT's compact form: three base64url segments; a game token (``pgt_...``) never has a dot."""
    return token.count(".") == 2 and not token.startswith("pgt_")


def player_id(key: bytes, issuer: str, subject: str) -> str:
    """The pseudonymous id of ``issuer + subject``: 128 bits of an HMAC, in lower-case base32 (26 characters)."""
    digest = hmac.new(key, f"patience-player|{issuer}|{subject}".encode(), hashlib.sha256).digest()[:16]
    return "p_" + base64.b32encode(digest).decode("ascii").rstrip("=").lower()


def is_player_id(text: str) -> bool:
    return len(text) == 28 and text.startswith("p_") and all(c in "abcdefghijklmnopqrstuvwxyz234567" for c in text[2:])


# --------------------------------------------------------------------------- display names

#: Unicode categories a name may not hold: controls, formatting (bidi overrides and isolates, zero-width
#: joiners), surrogates, private use, unassigned, line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_display_name(text: str) -> str:
    """A display name as stored and shown: NFKC-normalised (so that look-alike compatibility forms fold), runs of
    spaces made one, trimmed; refused (INVALID_ARGUMENT ``BAD_DISPLAY_NAME``) when empty, longer than
    :data:`MAX_NAME_LENGTH`, holding a control or formatting character, or shaped like a player id."""
    if len(text) > 4 * MAX_NAME_LENGTH:
        raise errors.bad_display_name(f"at most {MAX_NAME_LENGTH} characters")
    name = unicodedata.normalize("NFKC", text)
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise errors.bad_display_name(f"no control or formatting characters (U+{ord(char):04X})")
    name = " ".join(name.split())
    if not name:
        raise errors.bad_display_name("a name needs at least one visible character")
    if len(name) > MAX_NAME_LENGTH:
        raise errors.bad_display_name(f"at most {MAX_NAME_LENGTH} characters")
    if is_player_id(name.lower()):
        raise errors.bad_display_name("a name may not look like a player id")
    return name


def fallback_name(pid: str) -> str:
    """The name of a player who never chose one (an OpenID identity without a name claim)."""
    return "Player " + pid[2:8]


# --------------------------------------------------------------------------- guest identities


def guest_key_id(key: Ed25519PublicKey) -> str:
    """A guest key's public name: the first 16 hex digits of SHA-256 of its raw 32 bytes (the ``kid`` header)."""
    return hashlib.sha256(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


@dataclass
class GuestIssuer:
    """Issues and verifies guest identity tokens: EdDSA (Ed25519) JWTs signed with the guest key.

    Retired guest keys verify the tokens they signed until those expire (docs/keys.md, "Rotating")."""

    signing_key: Ed25519PrivateKey | None
    retired: Sequence[Ed25519PublicKey] = ()
    lifetime_seconds: int = GUEST_LIFETIME_SECONDS
    _public: dict[str, Ed25519PublicKey] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for key in self.retired:
            self._public[guest_key_id(key)] = key
        if self.signing_key is not None:
            self._public[guest_key_id(self.signing_key.public_key())] = self.signing_key.public_key()

    @classmethod
    def generate(cls) -> GuestIssuer:
        """A throwaway key (tests, and servers started without a keys directory: guests then last a process)."""
        return cls(Ed25519PrivateKey.generate())

    @property
    def key_ids(self) -> list[str]:
        return list(self._public)

    def issue(self, display_name: str, *, now: int | None = None) -> tuple[str, Identity]:
        """A new guest: its token and identity. ``display_name`` is already clean."""
        if self.signing_key is None:
            raise errors.guests_unavailable()
        issued = int(time.time()) if now is None else now
        subject = "g_" + secrets.token_urlsafe(16)
        expires = issued + self.lifetime_seconds
        claims = {
            "iss": GUEST_ISSUER,
            "aud": GUEST_AUDIENCE,
            "sub": subject,
            "name": display_name,
            "iat": issued,
            "nbf": issued,
            "exp": expires,
        }
        kid = guest_key_id(self.signing_key.public_key())
        token = jwt.encode(claims, self.signing_key, algorithm="EdDSA", headers={"kid": kid})
        return token, Identity(GUEST_ISSUER, subject, display_name, "guest", expires)

    def verify(self, token: str, header: dict[str, Any]) -> Identity:
        """A guest token's identity, or UNAUTHENTICATED with the reason."""
        if header.get("alg") != "EdDSA":
            raise errors.identity_refused("IDENTITY_ALGORITHM", "guest identities are signed with EdDSA")
        key = self._public.get(str(header.get("kid", "")))
        if key is None:
            raise errors.identity_refused("IDENTITY_UNKNOWN_KEY", "the guest identity's key is not known here")
        claims = decode(token, key, ["EdDSA"], GUEST_ISSUER, GUEST_AUDIENCE)
        return Identity(GUEST_ISSUER, str(claims["sub"]), str(claims.get("name", "")), "guest", int(claims["exp"]))


# --------------------------------------------------------------------------- reading a token


def unverified_header(token: str) -> dict[str, Any]:
    """The token's header, read before any key is chosen (its ``alg`` and ``kid``); MALFORMED if unreadable."""
    if len(token) > MAX_TOKEN_LENGTH:
        raise errors.identity_refused("IDENTITY_MALFORMED", f"an identity token is at most {MAX_TOKEN_LENGTH} bytes")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise errors.identity_refused("IDENTITY_MALFORMED", "the identity token is not a readable JWT") from exc
    if str(header.get("alg", "")).lower() == "none":
        raise errors.identity_refused("IDENTITY_ALGORITHM", "unsigned tokens (alg none) are never accepted")
    return header


def unverified_issuer(token: str) -> str:
    """The ``iss`` claim before verification: only to pick the issuer whose keys then verify the token."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise errors.identity_refused("IDENTITY_MALFORMED", "the identity token is not a readable JWT") from exc
    issuer = claims.get("iss")
    if not isinstance(issuer, str) or not issuer:
        raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "the identity token names no issuer")
    return issuer


def decode(
    token: str, key: Any, algorithms: Sequence[str], issuer: str, audience: str | Sequence[str]
) -> dict[str, Any]:
    """The verified claims: signature, ``iss``, ``aud``, ``exp``, ``nbf``, ``iat`` (with :data:`LEEWAY`) and a
    ``sub``; every failure as its reason."""
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=list(algorithms),
            audience=audience,
            issuer=issuer,
            leeway=LEEWAY,
            options={"require": ["exp", "iss", "sub", "aud"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise errors.identity_refused("IDENTITY_EXPIRED", "the identity token has expired") from exc
    except jwt.ImmatureSignatureError as exc:
        raise errors.identity_refused("IDENTITY_NOT_YET_VALID", "the identity token is not valid yet") from exc
    except jwt.InvalidAudienceError as exc:
        raise errors.identity_refused("IDENTITY_WRONG_AUDIENCE", "the identity token is for another audience") from exc
    except jwt.InvalidIssuerError as exc:
        raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "the identity token's issuer is not trusted") from exc
    except jwt.InvalidAlgorithmError as exc:
        raise errors.identity_refused("IDENTITY_ALGORITHM", "the identity token's algorithm is not allowed") from exc
    except jwt.InvalidSignatureError as exc:
        raise errors.identity_refused("IDENTITY_BAD_SIGNATURE", "the token's signature does not verify") from exc
    except jwt.PyJWTError as exc:
        raise errors.identity_refused("IDENTITY_MALFORMED", f"the identity token is not acceptable ({exc})") from exc
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject or len(subject) > 255:
        raise errors.identity_refused("IDENTITY_MALFORMED", "the identity token's subject is missing or too long")
    return claims


class IssuerVerifier(Protocol):
    """What verifies the tokens of one issuer (service.security.providers.Provider)."""

    async def verify(self, token: str, header: dict[str, Any]) -> Identity: ...


@dataclass
class Identities:
    """Every identity the service accepts: its own guests, and OpenID Connect providers by issuer
    (service.security.providers).

    ``id_key`` derives the pseudonymous player ids (:func:`player_id`)."""

    id_key: bytes
    guests: GuestIssuer | None = None
    providers: Mapping[str, IssuerVerifier] = field(default_factory=dict)
    #: Tokens this replica verified, by SHA-256, until they expire: a player plays a game with the same token
    #: call after call, and verifying it (three JSON decodes and a signature) costs about half an ApplyMove.
    _verified: dict[bytes, Identity] = field(default_factory=dict, init=False, repr=False)

    async def verify(self, token: str) -> Identity:
        """The identity of a bearer JWT, or UNAUTHENTICATED with the reason. A token verified before is taken
        from this replica's cache until its ``exp`` (with the leeway) passes; a refused token is never kept."""
        key = hashlib.sha256(token.encode()).digest()
        known = self._verified.get(key)
        if known is not None:
            if time.time() <= known.expires_at + LEEWAY:
                return known
            del self._verified[key]  # expired: verified again below, which refuses it with its reason
        identity = await self._verify(token)
        if len(self._verified) >= VERIFIED_CACHE:
            del self._verified[next(iter(self._verified))]  # the oldest entry
        self._verified[key] = identity
        return identity

    async def _verify(self, token: str) -> Identity:
        header = unverified_header(token)
        issuer = unverified_issuer(token)
        if issuer == GUEST_ISSUER and self.guests is not None:
            return self.guests.verify(token, header)
        provider = self.providers.get(issuer)
        if provider is not None:
            return await provider.verify(token, header)
        raise errors.identity_refused("IDENTITY_UNKNOWN_ISSUER", "the identity token's issuer is not trusted")

    def player_of(self, identity: Identity) -> str:
        return player_id(self.id_key, identity.issuer, identity.subject)
