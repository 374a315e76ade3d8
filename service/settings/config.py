"""Settings of the server: command-line flags, else ``PATIENCE_*`` environment variables, else defaults.

Every setting is listed once, in ``_SPECS``; the flag parser, the environment
reader and docs/configuration.md (checked by a test) all come from that one list.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.settings import config_values as values
from service.settings.config_values import Spec

DAY = 86400


@dataclass(frozen=True)
class Settings:
    """Everything the server needs to start; tests build it directly."""

    listen: str = "0.0.0.0:50051"
    redis_url: str | None = None
    store_prefix: str = "pat"
    idle_timeout: int = 7 * DAY
    fresh_timeout: int = 3600
    reveal_retention: int = 30 * DAY
    max_message_bytes: int = 1 << 20
    max_moves: int = 2_000  # docs/security.md, "Long games": 4x the longest median winning line
    max_client_seed_bytes: int = 64
    prepare_validity: int = 900
    operator_key: str | None = None
    operator_key_file: Path | None = None
    keys_dir: Path | None = None
    generate_keys: bool = False
    ticket_validity: int = 7 * DAY
    max_ticket_validity: int = 366 * DAY
    grace: float = 10.0
    reflection: bool = True
    local_redis_dir: Path | None = None
    local_redis_maxmemory: str = "256mb"
    log_level: str = "INFO"
    log_format: str = "json"
    http_listen: str | None = None
    cors_origins: tuple[str, ...] = ()
    http_max_connections: int = 4096
    http_head_timeout: float = 10.0
    http_body_timeout: float = 30.0
    http_keepalive_timeout: int = 5
    grpc_max_connections: int = 2048
    grpc_max_streams: int = 100
    grpc_max_calls: int = 2000
    grpc_handshake_timeout: float = 10.0
    grpc_min_ping_interval: float = 30.0
    grpc_pings_without_calls: bool = True
    grpc_max_ping_strikes: int = 2
    grpc_max_connection_age: float = 1800.0
    grpc_max_connection_age_grace: float = 60.0
    metrics_listen: str | None = None
    workers: int = 1
    rate_limits: bool = True
    limit_new_game: str = "20/minute;300/hour"
    limit_prepare_game: str = "20/minute;300/hour"
    limit_submit_solution: str = "20/minute;300/hour"
    limit_verify_certificate: str = "60/minute;1000/hour"
    limit_hint: str = "30/minute;600/hour"
    limit_create_guest: str = "20/minute;300/hour"
    guest_lifetime_days: int = 365
    oidc_issuer: tuple[str, ...] = ()
    oidc_audience: tuple[str, ...] = ()
    oidc_jwks_url: tuple[str, ...] = ()
    board_retention_days: int = 400
    limit_winnable: str = "5/minute;30/hour"
    limit_watch: str = "30/minute;600/hour"
    watch_streams: int = 1000
    watch_per_client: int = 8
    watch_max_seconds: float = 600.0
    hint_processes: int = 1
    hint_queue: int = 4
    hint_per_client: int = 1
    hint_states: int = 4800
    hint_cpu_seconds: float = 4.0
    front_end_key: str | None = None
    durability: str = "primary"
    durability_timeout: float = 1.0
    redis_client: str = "pipelined"
    json_mapping: str = "compiled"
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    tls_client_ca_file: Path | None = None
    operator_listen: str | None = None
    redis_ca_file: Path | None = None
    redis_cert_file: Path | None = None
    redis_key_file: Path | None = None
    winnable_filler: str = "embedded"
    winnable_pool_target: int = 20
    winnable_wait: float = 3.0
    winnable_max_states: int = 20_000
    winnable_max_seconds: float = 10.0
    winnable_pools: tuple[str, ...] = ()

    def rate_limits_by_rpc(self) -> dict[str, str]:
        """RPC -> its limits (service.security.ratelimit), when rate limits are on."""
        return {
            "NewGame": self.limit_new_game,
            "PrepareGame": self.limit_prepare_game,
            "SubmitSolution": self.limit_submit_solution,
            "VerifyCertificate": self.limit_verify_certificate,
            "Hint": self.limit_hint,
            "CreateGuest": self.limit_create_guest,
            "WatchGame": self.limit_watch,
        }

    def tls_problem(self) -> str | None:
        """Why the TLS settings cannot work together, or None (checked at start, before anything listens)."""
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            return "--tls-cert-file and --tls-key-file go together"
        if self.tls_client_ca_file is not None and self.tls_cert_file is None:
            return "--tls-client-ca-file needs --tls-cert-file and --tls-key-file (client certificates need TLS)"
        if self.operator_listen and self.tls_client_ca_file is None:
            return "--operator-listen needs --tls-client-ca-file (the port exists for client certificates)"
        if (self.redis_cert_file is None) != (self.redis_key_file is None):
            return "--redis-cert-file and --redis-key-file go together"
        redis_tls = self.redis_ca_file or self.redis_cert_file
        if redis_tls and not (self.redis_url or "").lower().startswith(("rediss://", "rediss+cluster://")):
            return "--redis-ca-file, --redis-cert-file and --redis-key-file need a rediss:// URL"
        return None

    def redis_tls_options(self) -> dict[str, str]:
        """redis-py's TLS options for a ``rediss://`` URL (empty without them: redis-py then trusts the system's
        roots)."""
        options: dict[str, str] = {}
        if self.redis_ca_file is not None:
            options["ssl_ca_certs"] = str(self.redis_ca_file)
        if self.redis_cert_file is not None and self.redis_key_file is not None:
            options["ssl_certfile"] = str(self.redis_cert_file)
            options["ssl_keyfile"] = str(self.redis_key_file)
        return options

    def resolved_operator_key(self) -> str | None:
        """The operator key itself: given inline, or read from its file (stripped)."""
        if self.operator_key:
            return self.operator_key
        if self.operator_key_file is not None:
            return self.operator_key_file.read_text().strip() or None
        return None


_SPECS: tuple[Spec, ...] = (
    Spec("listen", "--listen", "gRPC address HOST:PORT (port 0 picks a free port)", str, "HOST:PORT"),
    Spec(
        "redis_url",
        "--redis-url",
        "Redis URL: redis://, rediss://, unix:// or redis+cluster:// for Redis Cluster. "
        "Unset: a local redis-server is started for this process (development only)",
        str,
        "URL",
    ),
    Spec("store_prefix", "--store-prefix", "prefix of every Redis key", str, "TEXT"),
    Spec(
        "durability",
        "--durability",
        "primary: a write is acknowledged once the Redis primary has it; replica: only once a replica has it too "
        "(WAIT, pipelined with the write), so an acknowledged move survives a failover",
        values.choice("primary", "replica"),
        "LEVEL",
    ),
    Spec(
        "durability_timeout",
        "--durability-timeout",
        "with --durability replica: seconds a write waits for a replica before it is answered UNAVAILABLE",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "redis_client",
        "--redis-client",
        "how a single Redis is spoken to: pipelined (the service's own connection, one write per loop turn) or "
        "redis-py (the library's client: more CPU a move, docs/service-benchmark.md); a cluster always uses redis-py",
        values.choice("pipelined", "redis-py"),
        "CLIENT",
    ),
    Spec(
        "idle_timeout",
        "--idle-timeout",
        "seconds without a change after which a game expires (its seed is then revealed)",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "fresh_timeout",
        "--fresh-timeout",
        "seconds a game nobody has moved yet lives before it expires (at most --idle-timeout): a client that "
        "deals games and leaves them costs Redis this long, not the idle timeout",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "reveal_retention",
        "--reveal-retention",
        "seconds a finished or expired game stays readable (with its seed) before Redis drops it",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "max_message_bytes",
        "--max-message-bytes",
        "largest request accepted (bigger ones get RESOURCE_EXHAUSTED); also the largest response",
        values.positive(int),
        "BYTES",
    ),
    Spec(
        "max_moves",
        "--max-moves",
        "most moves a game holds (beyond: GAME_TOO_LONG; a longer SubmitSolution: TOO_MANY_MOVES)",
        values.positive(int),
        "N",
    ),
    Spec("max_client_seed_bytes", "--max-client-seed-bytes", "longest client seed", values.positive(int), "BYTES"),
    Spec(
        "prepare_validity",
        "--prepare-validity",
        "seconds a PrepareGame server seed waits for its NewGame before it is dropped unused",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "operator_key",
        "--operator-key",
        "the operator key MintDeal requires (x-operator-key); unset and no file: MintDeal is refused",
        str,
        "KEY",
    ),
    Spec("operator_key_file", "--operator-key-file", "a file holding the operator key", Path, "PATH"),
    Spec(
        "keys_dir",
        "--keys-dir",
        "directory of the certificate signing keys and the deal-ticket key (see service.security.keys)",
        Path,
        "DIR",
    ),
    Spec(
        "generate_keys",
        "--generate-keys",
        "create missing keys in --keys-dir on start (local runs; production mounts them)",
        values.boolean,
        "BOOL",
    ),
    Spec(
        "ticket_validity",
        "--ticket-validity",
        "default lifetime of a minted deal ticket in seconds",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "max_ticket_validity",
        "--max-ticket-validity",
        "longest lifetime MintDeal accepts, in seconds",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "grace", "--grace", "seconds in-flight calls get to finish on SIGTERM/SIGINT", values.positive(float), "SECONDS"
    ),
    Spec("reflection", "--reflection", "register gRPC server reflection", values.boolean, "BOOL"),
    Spec(
        "local_redis_dir",
        "--local-redis-dir",
        "where the local redis-server keeps its socket and data when no Redis URL is given",
        Path,
        "DIR",
    ),
    Spec(
        "local_redis_maxmemory",
        "--local-redis-maxmemory",
        "maxmemory of that local redis-server (256mb, 1gb...): past it writes are refused (STORE_FULL)",
        values.memory,
        "SIZE",
    ),
    Spec("log_level", "--log-level", "DEBUG, INFO, WARNING or ERROR", str.upper, "LEVEL"),
    Spec("log_format", "--log-format", "json (one object a line) or text", values.choice("json", "text"), "FORMAT"),
    Spec(
        "http_listen",
        "--http-listen",
        "REST/JSON address HOST:PORT (service.rest.app); unset: no HTTP listener",
        str,
        "HOST:PORT",
    ),
    Spec(
        "cors_origins",
        "--cors-origins",
        "web origins allowed to call the REST API from a browser (comma-separated, or *); unset: same origin only",
        values.origins,
        "ORIGINS",
    ),
    Spec(
        "http_max_connections",
        "--http-max-connections",
        "REST connections open at once per process; past it a new one closes the one waiting longest for a "
        "request, or is answered 503 when all are busy. Lowered at start to fit the file-descriptor limit",
        values.positive(int),
        "N",
    ),
    Spec(
        "http_head_timeout",
        "--http-head-timeout",
        "seconds a REST request's head (request line and headers) may take to arrive, from the connection's start "
        "or the previous answer; then the connection is closed",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "http_body_timeout",
        "--http-body-timeout",
        "seconds a REST request's body may take to arrive after its head; then the connection is closed",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "json_mapping",
        "--json-mapping",
        "how REST answers become JSON: compiled (protobuf's JSON mapping compiled per message type) or json_format "
        "(protobuf's own: more CPU a call, docs/service-benchmark.md); the same JSON either way",
        values.choice("compiled", "json_format"),
        "MODE",
    ),
    Spec(
        "http_keepalive_timeout",
        "--http-keepalive-timeout",
        "seconds an idle REST keep-alive connection stays open after an answer",
        values.positive(int),
        "SECONDS",
    ),
    Spec(
        "grpc_max_connections",
        "--grpc-max-connections",
        "gRPC connections open at once per gRPC port (the operator port has its own); more are closed as they come. "
        "Lowered at start to fit the file-descriptor limit",
        values.positive(int),
        "N",
    ),
    Spec(
        "grpc_max_streams",
        "--grpc-max-streams",
        "concurrent gRPC calls one connection may carry (HTTP/2 MAX_CONCURRENT_STREAMS); more wait in the client",
        values.positive(int),
        "N",
    ),
    Spec(
        "grpc_max_calls",
        "--grpc-max-calls",
        "concurrent gRPC calls per process over all connections; more are refused (RESOURCE_EXHAUSTED)",
        values.positive(int),
        "N",
    ),
    Spec(
        "grpc_handshake_timeout",
        "--grpc-handshake-timeout",
        "seconds a new gRPC connection has to finish its TLS and HTTP/2 handshake; then it is closed",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "grpc_min_ping_interval",
        "--grpc-min-ping-interval",
        "shortest interval between a client's keepalive pings when it sends no data; faster pings are strikes",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "grpc_pings_without_calls",
        "--grpc-pings-without-calls",
        "accept keepalive pings on a connection with no call in flight (at --grpc-min-ping-interval at most)",
        values.boolean,
        "BOOL",
    ),
    Spec(
        "grpc_max_ping_strikes",
        "--grpc-max-ping-strikes",
        "pings that break the rules above before the connection is closed (GOAWAY ENHANCE_YOUR_CALM)",
        values.positive(int),
        "N",
    ),
    Spec(
        "grpc_max_connection_age",
        "--grpc-max-connection-age",
        "seconds after which a gRPC connection is asked to go away (clients reconnect, to any replica)",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "grpc_max_connection_age_grace",
        "--grpc-max-connection-age-grace",
        "seconds the calls in flight on such a connection get to finish before it is closed",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "metrics_listen",
        "--metrics-listen",
        "Prometheus /metrics address HOST:PORT; unset: no metrics endpoint",
        str,
        "HOST:PORT",
    ),
    Spec(
        "rate_limits",
        "--rate-limits",
        "count NewGame, PrepareGame, SubmitSolution, VerifyCertificate, Hint and WatchGame per client address in "
        "Redis and refuse the calls beyond the limits (RESOURCE_EXHAUSTED, RATE_LIMITED; HTTP 429 with "
        "Retry-After), and each address's share of every winnable pool (--limit-winnable)",
        values.boolean,
        "BOOL",
    ),
    Spec("limit_new_game", "--limit-new-game", "NewGame calls per client address", values.rate_limits, "LIMITS"),
    Spec(
        "limit_prepare_game",
        "--limit-prepare-game",
        "PrepareGame calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_submit_solution",
        "--limit-submit-solution",
        "SubmitSolution calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_verify_certificate",
        "--limit-verify-certificate",
        "VerifyCertificate calls per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_hint",
        "--limit-hint",
        "Hint calls per client address (each costs up to --hint-cpu-seconds of CPU)",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_create_guest",
        "--limit-create-guest",
        "CreateGuest calls (new guest identities) per client address",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "guest_lifetime_days",
        "--guest-lifetime-days",
        "days a guest identity stays valid (docs/players.md); retired guest keys are kept this long",
        values.positive(int),
        "DAYS",
    ),
    Spec(
        "oidc_issuer",
        "--oidc-issuer",
        "OpenID Connect providers whose identity tokens players may sign in with: their issuers (iss), "
        "comma-separated; --oidc-audience and --oidc-jwks-url give each one's audience and key set, in the same order",
        values.names,
        "ISSUERS",
    ),
    Spec(
        "oidc_audience",
        "--oidc-audience",
        "the audience (aud) each provider's tokens name for this service, comma-separated, one per --oidc-issuer",
        values.names,
        "AUDIENCES",
    ),
    Spec(
        "oidc_jwks_url",
        "--oidc-jwks-url",
        "the URL of each provider's JSON Web Key Set, comma-separated, one per --oidc-issuer",
        values.names,
        "URLS",
    ),
    Spec(
        "board_retention_days",
        "--board-retention-days",
        "days a leaderboard is kept (a daily board after its day, a public board after its latest entry), and a "
        "daily deal's seed with it (docs/competition.md)",
        values.positive(int),
        "DAYS",
    ),
    Spec(
        "limit_winnable",
        "--limit-winnable",
        "proven deals one client address may take from each winnable pool (NewGame with winnable); beyond: "
        "RESOURCE_EXHAUSTED, WINNABLE_SHARE_USED",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "limit_watch",
        "--limit-watch",
        "WatchGame streams one client address may open (each reconnection counts)",
        values.rate_limits,
        "LIMITS",
    ),
    Spec(
        "watch_streams",
        "--watch-streams",
        "WatchGame streams open at once per process, gRPC and REST together; more are refused (RESOURCE_EXHAUSTED, "
        "WATCH_STREAMS_FULL). Keep it below --grpc-max-calls and --http-max-connections: the other calls need room",
        values.positive(int),
        "N",
    ),
    Spec(
        "watch_per_client",
        "--watch-per-client",
        "WatchGame streams one client address may hold open at once per process; more are refused "
        "(RESOURCE_EXHAUSTED, WATCH_STREAMS_PER_CLIENT)",
        values.positive(int),
        "N",
    ),
    Spec(
        "watch_max_seconds",
        "--watch-max-seconds",
        "seconds a WatchGame stream stays open; then it ends and the client reconnects with the last version it saw",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "hint_processes",
        "--hint-processes",
        "solver processes for Hint, per server process (each --workers worker has its own); started on the first hint",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_queue",
        "--hint-queue",
        "hints that may wait for a solver process beyond those running; more are refused at once "
        "(UNAVAILABLE, HINTS_BUSY)",
        values.non_negative(int),
        "N",
    ),
    Spec(
        "hint_per_client",
        "--hint-per-client",
        "hints one client address may have running or waiting at once, per server process; one more is refused at "
        "once (RESOURCE_EXHAUSTED, HINTS_IN_PROGRESS)",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_states",
        "--hint-states",
        "positions one hint may expand in all (the same hint on every run): one search with every card face up, "
        "else six guesses of the hidden cards sharing them",
        values.positive(int),
        "N",
    ),
    Spec(
        "hint_cpu_seconds",
        "--hint-cpu-seconds",
        "CPU seconds one hint may take at most (a guard: --hint-states bounds it first on a usual machine)",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "front_end_key",
        "--front-end-key",
        "a key that lets a trusted front end name its end user's address in x-client-address (sent with "
        "x-front-end-key); unset: that header is refused",
        str,
        "KEY",
    ),
    Spec(
        "workers",
        "--workers",
        "server processes sharing the port (SO_REUSEPORT); each is stateless",
        values.positive(int),
        "N",
    ),
    Spec(
        "tls_cert_file",
        "--tls-cert-file",
        "PEM certificate chain (server certificate first): gRPC and REST then speak TLS only; "
        "re-read when the file changes",
        Path,
        "PATH",
    ),
    Spec("tls_key_file", "--tls-key-file", "PEM private key of that certificate (unencrypted)", Path, "PATH"),
    Spec(
        "tls_client_ca_file",
        "--tls-client-ca-file",
        "PEM CA certificates that sign operators' client certificates: MintDeal then needs one "
        "(gRPC on --operator-listen; REST on its own port)",
        Path,
        "PATH",
    ),
    Spec(
        "operator_listen",
        "--operator-listen",
        "gRPC address HOST:PORT for operator calls, requiring a client certificate (mutual TLS)",
        str,
        "HOST:PORT",
    ),
    Spec(
        "redis_ca_file",
        "--redis-ca-file",
        "PEM CA certificates that sign the Redis server's certificate (rediss:// URLs)",
        Path,
        "PATH",
    ),
    Spec("redis_cert_file", "--redis-cert-file", "PEM client certificate for Redis (rediss://)", Path, "PATH"),
    Spec("redis_key_file", "--redis-key-file", "PEM private key of the Redis client certificate", Path, "PATH"),
    Spec(
        "winnable_filler",
        "--winnable-filler",
        "embedded: the service starts one filler process beside itself (one per host, whatever --workers) that "
        "keeps the winnable pools full; off: the fillers run apart (python -m service.solving.filler, production)",
        values.choice("embedded", "off"),
        "MODE",
    ),
    Spec(
        "winnable_pool_target",
        "--winnable-pool-target",
        "proven deals the filler keeps ready in each configuration's winnable pool",
        values.positive(int),
        "N",
    ),
    Spec(
        "winnable_wait",
        "--winnable-wait",
        "seconds NewGame with winnable waits for an empty pool before it answers UNAVAILABLE WINNABLE_POOL_EMPTY",
        values.non_negative(float),
        "SECONDS",
    ),
    Spec(
        "winnable_max_states",
        "--winnable-max-states",
        "the filler's budget per attempted seed, in positions the solver expands; deals not won within it are dropped",
        values.positive(int),
        "N",
    ),
    Spec(
        "winnable_max_seconds",
        "--winnable-max-seconds",
        "the filler's budget per attempted seed, in CPU seconds",
        values.positive(float),
        "SECONDS",
    ),
    Spec(
        "winnable_pools",
        "--winnable-pools",
        "the pools a filler fills, comma-separated (cats-tail,cats-tail:sequence_moves=false ...); unset: all",
        values.names,
        "POOLS",
    ),
)

#: The settings the filler reads (python -m service.solving.filler): where the pools are, how full, what a seed may
#: cost, and its logs and metrics.
FILLER_SETTINGS = (
    "redis_url", "store_prefix", "redis_ca_file", "redis_cert_file", "redis_key_file", "log_level", "log_format",
    "metrics_listen", "winnable_pool_target", "winnable_max_states", "winnable_max_seconds", "winnable_pools",
)  # fmt: skip


def providers_problem(settings: Settings) -> str | None:
    from service.security.providers import settings_problem

    return settings_problem(settings.oidc_issuer, settings.oidc_audience, settings.oidc_jwks_url)


def specs() -> tuple[Spec, ...]:
    """Every setting (docs/configuration.md is checked against this)."""
    return _SPECS


def parser(
    prog: str = "python -m service",
    description: str = "The patience gRPC service.",
    only: Sequence[str] | None = None,
    helps: Mapping[str, str] | None = None,
) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=description + " Every flag can also be set by its PATIENCE_* environment variable; "
        "a flag wins over the variable.",
    )
    for spec in _chosen(only):
        text = (helps or {}).get(spec.name, spec.help)
        p.add_argument(spec.flag, dest=spec.name, metavar=spec.metavar or None, help=f"{text} [{spec.env}]")
    return p


def _chosen(only: Sequence[str] | None) -> tuple[Spec, ...]:
    return _SPECS if only is None else tuple(spec for spec in _SPECS if spec.name in only)


def load(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    prog: str = "python -m service",
    description: str = "The patience gRPC service.",
    only: Sequence[str] | None = None,
    helps: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from flags and the environment (``only`` these settings: the filler's); SystemExit(2) with a
    message on a bad value."""
    env = os.environ if environ is None else environ
    p = parser(prog, description, only, helps)
    args = p.parse_args(list(argv) if argv is not None else None)
    values: dict[str, object] = {}
    for spec in _chosen(only):
        given = getattr(args, spec.name)
        source = spec.flag
        if given is None and spec.env in env:
            given, source = env[spec.env], spec.env
        if given is None:
            continue
        try:
            values[spec.name] = spec.parse(given)
        except ValueError as exc:
            p.error(f"{source}: {exc}")
    settings = dataclasses.replace(Settings(), **values)  # type: ignore[arg-type]
    if settings.reveal_retention < 1 or settings.idle_timeout < 1:
        p.error("timeouts must be positive")
    problem = settings.tls_problem() or providers_problem(settings)
    if problem:
        p.error(problem)
    return settings
