"""Connection settings and the retry policy, shared by the sync and asyncio clients."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

#: Where the client connects when nothing says otherwise (the service's default listen address).
DEFAULT_TARGET = "localhost:50051"


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff for UNAVAILABLE, applied only to calls that are safe to send twice.

    Safe: the reads (ListVariants, GetGame, LegalMoves, GetSigningKeys, VerifyCertificate) and the writes
    guarded by ``expected_version`` (ApplyMove, UndoMove, and Resign with a version): if the first attempt
    did land, the repeat is refused with ABORTED instead of playing the move twice. Never retried: NewGame,
    SubmitSolution and MintDeal, which would create a second game or ticket.

    Attempt ``n`` (1-based) that fails waits ``min(max_backoff, initial_backoff * multiplier**(n-1))``,
    scaled by a random factor in ``[1 - jitter, 1]``, before attempt ``n + 1``.
    """

    max_attempts: int = 5
    initial_backoff: float = 0.2
    max_backoff: float = 3.0
    multiplier: float = 2.0
    jitter: float = 0.2
    retry_codes: frozenset[grpc.StatusCode] = frozenset({grpc.StatusCode.UNAVAILABLE})

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts is at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.multiplier < 1 or not 0 <= self.jitter <= 1:
            raise ValueError("backoffs are >= 0, the multiplier >= 1 and the jitter in [0, 1]")

    def backoffs(self, rng: random.Random | None = None) -> Iterator[float]:
        """The pauses between attempts: ``max_attempts - 1`` of them."""
        rand = rng or random
        for n in range(self.max_attempts - 1):
            base = min(self.max_backoff, self.initial_backoff * self.multiplier**n)
            yield base * (1 - self.jitter * rand.random())


#: No retries at all.
NO_RETRY = RetryPolicy(max_attempts=1)


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to connect.

    ``target`` is a gRPC target (``host:port``, ``dns:///host:port``, ``unix:/path``). With ``tls`` the channel
    is a secure one, checked against ``root_certificates`` (PEM; None = the system's roots) and, for mutual
    TLS, presenting ``certificate_chain`` and ``private_key``. ``timeout`` is the default deadline of every
    attempt in seconds (None = no deadline); each method also takes its own ``timeout``. ``token`` is the
    default game token sent as ``authorization: Bearer``, ``operator_key`` the ``x-operator-key`` for MintDeal.
    ``identity`` is the player's identity token (a JWT: a guest's from ``create_guest``, or the one a front end's
    OpenID Connect provider issued): sent with NewGame (the game is then the player's), with the player's calls
    (``get_player``, ``list_games`` ...), and on any game whose token the client does not know.
    """

    target: str = DEFAULT_TARGET
    tls: bool = False
    root_certificates: bytes | None = None
    certificate_chain: bytes | None = None
    private_key: bytes | None = None
    server_name_override: str | None = None
    timeout: float | None = 10.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    token: str | None = None
    operator_key: str | None = None
    identity: str | None = None
    #: Extra channel arguments; the defaults keep gRPC's own reconnect backoff short so that a retry after
    #: the server comes back finds the channel trying again rather than still waiting.
    channel_options: Sequence[tuple[str, int | str]] = (
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 1000),
    )
    user_agent: str = "patience-client/0.1"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ClientSettings:
        """Settings from ``PATIENCE_*`` variables (see the quick start), then ``overrides`` (None ones ignored).

        PATIENCE_TARGET, PATIENCE_TOKEN, PATIENCE_OPERATOR_KEY, PATIENCE_TLS (1/true), PATIENCE_CA_FILE,
        PATIENCE_CERT_FILE, PATIENCE_KEY_FILE, PATIENCE_TIMEOUT (seconds; 0 = none), PATIENCE_IDENTITY (an identity
        token) or PATIENCE_IDENTITY_FILE (a file holding one).
        """
        e = os.environ if env is None else env
        values: dict[str, object] = {}
        if e.get("PATIENCE_TARGET"):
            values["target"] = e["PATIENCE_TARGET"]
        if e.get("PATIENCE_TOKEN"):
            values["token"] = e["PATIENCE_TOKEN"]
        if e.get("PATIENCE_OPERATOR_KEY"):
            values["operator_key"] = e["PATIENCE_OPERATOR_KEY"]
        if e.get("PATIENCE_TLS"):
            values["tls"] = e["PATIENCE_TLS"].strip().lower() in ("1", "true", "yes", "on")
        for var, key in (
            ("PATIENCE_CA_FILE", "root_certificates"),
            ("PATIENCE_CERT_FILE", "certificate_chain"),
            ("PATIENCE_KEY_FILE", "private_key"),
        ):
            if e.get(var):
                values[key] = Path(e[var]).read_bytes()
                values.setdefault("tls", True)
        if e.get("PATIENCE_IDENTITY"):
            values["identity"] = e["PATIENCE_IDENTITY"].strip()
        elif e.get("PATIENCE_IDENTITY_FILE"):
            values["identity"] = read_identity(Path(e["PATIENCE_IDENTITY_FILE"]).expanduser())
        if e.get("PATIENCE_TIMEOUT"):
            seconds = float(e["PATIENCE_TIMEOUT"])
            values["timeout"] = seconds if seconds > 0 else None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def credentials(self) -> grpc.ChannelCredentials | None:
        """The channel credentials for ``tls``; None for a plain-text channel."""
        if not self.tls:
            return None
        return grpc.ssl_channel_credentials(
            root_certificates=self.root_certificates,
            private_key=self.private_key,
            certificate_chain=self.certificate_chain,
        )

    def options(self) -> list[tuple[str, int | str]]:
        opts: list[tuple[str, int | str]] = [*self.channel_options, ("grpc.primary_user_agent", self.user_agent)]
        if self.server_name_override:
            opts.append(("grpc.ssl_target_name_override", self.server_name_override))
        return opts


#: The longest identity token read from a file (a JWT with a few claims is well under 2 KB).
MAX_IDENTITY_BYTES = 8192


def read_identity(path: Path) -> str:
    """The identity token a file holds (surrounding white space dropped); ValueError if it holds none."""
    text = path.read_text()[: MAX_IDENTITY_BYTES + 1].strip()
    if not text or len(text) > MAX_IDENTITY_BYTES or text.count(".") != 2:
        raise ValueError(f"{path} holds no identity token (a JWT: three parts separated by dots)")
    return text
