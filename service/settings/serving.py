"""The settings of how the service serves: its ports (gRPC, REST, metrics, the operator's), the worker processes,
the bounds on connections, TLS (its own and towards Redis), and its logs (docs/configuration.md: "Network",
"Connections", "Transport security (TLS)", "Logs").

One module per part of docs/configuration.md, so that a setting is found where its documentation is;
``service.settings.config`` puts the parts together.
"""

from __future__ import annotations

from pathlib import Path

from service.settings import config_values as values
from service.settings.config_values import Spec

SPECS: tuple[Spec, ...] = (
    Spec("listen", "--listen", "gRPC address HOST:PORT (port 0 picks a free port)", str, "HOST:PORT"),
    Spec(
        "http_listen",
        "--http-listen",
        "REST/JSON address HOST:PORT (service.rest.app); unset: no HTTP listener",
        str,
        "HOST:PORT",
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
        "cors_origins",
        "--cors-origins",
        "web origins allowed to call the REST API from a browser (comma-separated, or *); unset: same origin only",
        values.origins,
        "ORIGINS",
    ),
    Spec(
        "metrics_listen",
        "--metrics-listen",
        "Prometheus /metrics address HOST:PORT; unset: no metrics endpoint",
        str,
        "HOST:PORT",
    ),
    Spec(
        "workers",
        "--workers",
        "server processes sharing the port (SO_REUSEPORT); each is stateless",
        values.positive(int),
        "N",
    ),
    Spec("reflection", "--reflection", "register gRPC server reflection", values.boolean, "BOOL"),
    Spec(
        "grace", "--grace", "seconds in-flight calls get to finish on SIGTERM/SIGINT", values.positive(float), "SECONDS"
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
    Spec("log_level", "--log-level", "DEBUG, INFO, WARNING or ERROR", str.upper, "LEVEL"),
    Spec("log_format", "--log-format", "json (one object a line) or text", values.choice("json", "text"), "FORMAT"),
)
