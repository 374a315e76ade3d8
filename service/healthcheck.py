"""A gRPC health probe for the container's HEALTHCHECK, so the image needs no grpc_health_probe binary.

    python -m service.healthcheck [--address HOST:PORT] [--service NAME] [--timeout SECONDS]

Exits 0 when the server answers SERVING, 1 otherwise (Docker's "unhealthy"). With no ``--address`` it probes
the port of ``PATIENCE_LISTEN`` (the same variable the server reads) on loopback, so the image's HEALTHCHECK
follows the server when an operator moves the port.
"""

from __future__ import annotations

import argparse
import os
import sys

DEFAULT_LISTEN = "0.0.0.0:50051"
_WILDCARDS = {"", "0.0.0.0", "::", "[::]", "*"}


def probe_address(listen: str) -> str:
    """The address to probe for a listen address: a wildcard host becomes loopback."""
    host, _, port = listen.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"listen address {listen!r} has no port")
    if host in _WILDCARDS:
        host = "127.0.0.1"
    return f"{host}:{port}"


def check(address: str, service: str = "", timeout: float = 3.0) -> str:
    """The serving status's name ("SERVING", "NOT_SERVING", ...) or the gRPC error's code name."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as e:
            return str(e.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.healthcheck", description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="HOST:PORT to probe (default: the port of PATIENCE_LISTEN on loopback)")
    parser.add_argument("--service", default="", help='health service name ("" is the whole server)')
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    address = args.address or probe_address(os.environ.get("PATIENCE_LISTEN", DEFAULT_LISTEN))
    status = check(address, args.service, args.timeout)
    if status != "SERVING":
        print(f"{address}: {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
