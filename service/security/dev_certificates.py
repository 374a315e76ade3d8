"""A private CA with a server certificate and an operator's client certificate, for local runs and compose.

    python -m service.security.dev_certificates --out DIR [--name HOST ...] [--days N]

writes ``ca.crt`` (give it to clients: ``PATIENCE_CA_FILE``), ``tls.crt`` + ``tls.key`` (the server's:
``--tls-cert-file``, ``--tls-key-file``), ``operator.crt`` + ``operator.key`` (an operator's client
certificate for mutual TLS; ``ca.crt`` is then also ``--tls-client-ca-file``). The CA's key is not kept: nothing
more can be issued from it, so a leaked directory cannot mint trust elsewhere. Existing files are never
overwritten. Production certificates come from your own CA, cert-manager or ACME (docs/operations.md).
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

FILES = ("ca.crt", "tls.crt", "tls.key", "operator.crt", "operator.key")


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _alt_names(names: Sequence[str]) -> x509.SubjectAlternativeName:
    alt: list[x509.GeneralName] = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(alt)


def issue(names: Sequence[str], days: int) -> dict[str, bytes]:
    """The five files' contents: a CA (ECDSA P-256), a server certificate for ``names``, a client certificate."""
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("patience development CA")
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    out = {"ca.crt": ca.public_bytes(serialization.Encoding.PEM)}
    for stem, common, usage, alt in (
        ("tls", names[0], ExtendedKeyUsageOID.SERVER_AUTH, _alt_names(names)),
        ("operator", "operator", ExtendedKeyUsageOID.CLIENT_AUTH, None),
    ):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if alt is not None:
            builder = builder.add_extension(alt, critical=False)
        out[f"{stem}.crt"] = builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
        out[f"{stem}.key"] = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.security.dev_certificates", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True, help="directory to write into (created if missing)")
    parser.add_argument(
        "--name",
        action="append",
        help="a host name or IP address the server certificate is valid for (repeatable; "
        "default: localhost, 127.0.0.1, patience)",
    )
    parser.add_argument("--days", type=int, default=90, help="validity in days (default 90)")
    args = parser.parse_args(argv)
    names = args.name or ["localhost", "127.0.0.1", "patience"]
    existing = [f for f in FILES if (args.out / f).exists()]
    if existing:
        print(f"{args.out}: {', '.join(existing)} already there; nothing written", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in issue(names, args.days).items():
        mode = 0o600 if name.endswith(".key") else 0o644
        fd = os.open(args.out / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    print(f"wrote {', '.join(FILES)} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
