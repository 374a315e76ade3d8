"""A gRPC health probe for the container's HEALTHCHECK, so the image needs no grpc_health_probe binary.

    python -m service.grpc.healthcheck [--address HOST:PORT] [--service NAME] [--timeout SECONDS] [--tls-cert-file PATH]

Exits 0 when the server answers SERVING, 1 otherwise (Docker's "unhealthy"). With no ``--address`` it probes
the port of ``PATIENCE_LISTEN`` (the same variable the server reads) on loopback, so the image's HEALTHCHECK
follows the server when an operator moves the port.

When the server speaks TLS (``PATIENCE_TLS_CERT_FILE`` set, as the server reads it) the probe does too, and
trusts exactly the certificate chain in that file, checked against one of the certificate's own names: no CA
bundle to configure, and a probe that still verifies whom it talks to. No client certificate is needed: the
players' port asks for none.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

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


def certificate_name(chain: bytes) -> str:
    """A name the chain's first certificate is valid for (a DNS name, else an IP address, else its CN)."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    leaf = x509.load_pem_x509_certificates(chain)[0]
    try:
        names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        names = None
    if names is not None:
        for dns in names.get_values_for_type(x509.DNSName):
            if "*" not in dns:
                return str(dns)
        for ip in names.get_values_for_type(x509.IPAddress):
            return str(ip)
    common = leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not common:
        raise ValueError("the certificate has no name to check the server against")
    return str(common[0].value)


def check(address: str, service: str = "", timeout: float = 3.0, *, tls_chain: bytes | None = None) -> str:
    """The serving status's name ("SERVING", "NOT_SERVING", ...) or the gRPC error's code name. With
    ``tls_chain`` (PEM) the probe speaks TLS and trusts that chain only."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    if tls_chain is None:
        channel = grpc.insecure_channel(address)
    else:
        credentials = grpc.ssl_channel_credentials(root_certificates=tls_chain)
        override = [("grpc.ssl_target_name_override", certificate_name(tls_chain))]
        channel = grpc.secure_channel(address, credentials, options=override)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as e:
            return str(e.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.grpc.healthcheck", description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="HOST:PORT to probe (default: the port of PATIENCE_LISTEN on loopback)")
    parser.add_argument("--service", default="", help='health service name ("" is the whole server)')
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument(
        "--tls-cert-file",
        default=os.environ.get("PATIENCE_TLS_CERT_FILE") or None,
        help="the server's certificate chain: probe over TLS trusting it (default: PATIENCE_TLS_CERT_FILE)",
    )
    args = parser.parse_args(argv)
    address = args.address or probe_address(os.environ.get("PATIENCE_LISTEN", DEFAULT_LISTEN))
    try:
        chain = Path(args.tls_cert_file).read_bytes() if args.tls_cert_file else None
    except OSError as exc:
        print(f"{args.tls_cert_file}: {exc.strerror}", file=sys.stderr)
        return 1
    status = check(address, args.service, args.timeout, tls_chain=chain)
    if status != "SERVING":
        print(f"{address}: {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
