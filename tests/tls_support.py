"""Throwaway certificate authorities for the TLS tests, made with ``cryptography`` in the test itself.

``Authority("test CA")`` is a self-signed CA; ``server_pair()`` and ``client_pair()`` issue an ECDSA P-256
certificate and key (PEM) for loopback (``localhost``, ``127.0.0.1``) or for an operator. ``write_pair`` puts
them where a server reads its files, replacing them the way a rotation does (a new file renamed over the old),
so the server's change detection is tested as it runs in production.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import socket
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LOOPBACK_NAMES = ("localhost", "127.0.0.1")


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@dataclass
class Pair:
    """A certificate (PEM) and its private key (PEM)."""

    cert: bytes
    key: bytes

    @property
    def serial(self) -> int:
        return x509.load_pem_x509_certificate(self.cert).serial_number


@dataclass
class Authority:
    """A self-signed CA that lives for the test."""

    common_name: str = "patience test CA"
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    cert_pem: bytes = b""

    def __post_init__(self) -> None:
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(self.common_name))
            .issuer_name(_name(self.common_name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=2))
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
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        self.cert_pem = cert.public_bytes(serialization.Encoding.PEM)
        self._cert = cert

    def _issue(self, common: str, usage: tuple[x509.ObjectIdentifier, ...], names: tuple[str, ...]) -> Pair:
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common))
            .issuer_name(self._cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(list(usage)), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
        )
        if names:
            alt: list[x509.GeneralName] = []
            for n in names:
                try:
                    alt.append(x509.IPAddress(ipaddress.ip_address(n)))
                except ValueError:
                    alt.append(x509.DNSName(n))
            builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        return Pair(cert.public_bytes(serialization.Encoding.PEM), _key_pem(key))

    def server_pair(self, names: tuple[str, ...] = LOOPBACK_NAMES) -> Pair:
        return self._issue(names[0], (ExtendedKeyUsageOID.SERVER_AUTH,), names)

    def client_pair(self, common: str = "operator") -> Pair:
        return self._issue(common, (ExtendedKeyUsageOID.CLIENT_AUTH,), ())

    def peer_pair(self, names: tuple[str, ...] = LOOPBACK_NAMES) -> Pair:
        """For a server that also connects to its peers with it (Redis Cluster's bus)."""
        return self._issue(names[0], (ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH), names)


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as a rotation does: a new file renamed over the old one (atomic)."""
    fresh = path.with_name(path.name + ".new")
    fresh.write_bytes(data)
    os.replace(fresh, path)


def write_pair(pair: Pair, cert_file: Path, key_file: Path) -> None:
    replace_file(key_file, pair.key)
    replace_file(cert_file, pair.cert)


def served_certificate(port: int, *, alpn: str = "h2", client: Pair | None = None, tmp: Path | None = None) -> int:
    """The serial number of the certificate a fresh TLS handshake with ``127.0.0.1:port`` is shown (unverified:
    this only reads what is served)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols([alpn])
    if client is not None and tmp is not None:
        cert, key = tmp / "probe-client.pem", tmp / "probe-client.key"
        write_pair(client, cert, key)
        context.load_cert_chain(cert, key)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, context.wrap_socket(raw) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).serial_number


def client_context(ca: bytes | None, client: Pair | None = None, tmp: Path | None = None) -> ssl.SSLContext:
    """A verifying HTTPS client context trusting ``ca`` only (None: the system's roots), optionally with a client
    certificate."""
    context = ssl.create_default_context(cadata=ca.decode() if ca else None)
    if client is not None:
        assert tmp is not None
        cert, key = tmp / "client.pem", tmp / "client.key"
        write_pair(client, cert, key)
        context.load_cert_chain(cert, key)
    return context


class RecordingProxy:
    """A TCP proxy on loopback that copies bytes both ways and keeps every byte it saw."""

    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        self.upstream = (upstream_host, upstream_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.seen = bytearray()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                with self._lock:
                    self.seen += chunk
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()
        for s in self._sockets:
            s.close()
