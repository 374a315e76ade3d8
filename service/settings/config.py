"""Settings of the server: command-line flags, else ``PATIENCE_*`` environment variables, else defaults.

Every setting is listed once, in the module of its part of docs/configuration.md (``serving``, ``storage``,
``solving``, ``limits``, ``credentials``), put together in ``_SPECS``; the flag parser, the environment reader and
docs/configuration.md (checked by a test) all come from that one list. The settings themselves are one frozen
dataclass, :class:`Settings`, which tests build directly.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.settings import credentials, limits, serving, solving, storage
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


#: Every setting, in the order of docs/configuration.md: each part in the module named after what it holds.
_SPECS: tuple[Spec, ...] = (*serving.SPECS, *storage.SPECS, *solving.SPECS, *limits.SPECS, *credentials.SPECS)

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
