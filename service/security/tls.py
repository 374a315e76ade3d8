"""Transport security: the server's certificate and key, and the operators' client CA, read from files and read
again when the files change, so a rotated certificate reaches new connections without a restart.

One :class:`CertificateFiles` watches the files; every transport asks it for the current material as each new
connection shakes hands (a few ``stat`` calls, no read unless something changed):

- gRPC gets *dynamic* SSL server credentials whose fetcher grpc calls on each handshake
  (:func:`grpc_server_credentials`);
- REST gets an :class:`ssl.SSLContext` whose server-name callback, run on every TLS handshake (with or
  without SNI), swaps in the newest context (:func:`rest_ssl_context`).

A half-written rotation (the new certificate beside the old key) does not match: it is refused with a warning
and the previous material keeps serving until the pair matches again. Established connections keep the
certificate they shook hands with.

Operators' client certificates (mutual TLS for MintDeal): grpc's Python API can either require a verified client
certificate on a port or not ask for one at all, nothing in between. So gRPC operator calls get a port of their
own (``--operator-listen``) that requires one, while the players' port asks for none and refuses operator calls
when a client CA is configured. REST can ask for a certificate without requiring it: its port requests one
(``CERT_OPTIONAL``, verified against the client CA when given) and only the operator calls demand it.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.errors import Code, ServiceError

log = logging.getLogger(__name__)

#: The RPCs only an operator may call; with a client CA configured they need a verified client certificate.
OPERATOR_RPCS = frozenset({"MintDeal"})

CLIENT_CERTIFICATE_REQUIRED = "CLIENT_CERTIFICATE_REQUIRED"


class TlsError(ValueError):
    """Certificate files that cannot serve: missing, unreadable, not PEM, or a key that does not match."""


@dataclass(frozen=True)
class Material:
    """One consistent reading of the files: PEM bytes for gRPC, a ready :class:`ssl.SSLContext` for REST."""

    version: int
    certificate_chain: bytes
    private_key: bytes
    client_ca: bytes | None
    ssl_context: ssl.SSLContext


_Signature = tuple[tuple[int, int, int], ...]


class CertificateFiles:
    """The server certificate chain, its key and optionally the client CA (PEM files), reloaded on change.

    A change is seen through each file's (inode, size, mtime): a Kubernetes Secret volume swaps a symlink, an
    operator or cert-manager rewrites or renames the file; either way ``os.stat`` sees a new triple.
    """

    def __init__(self, cert_file: Path, key_file: Path, client_ca_file: Path | None = None) -> None:
        self.paths = tuple(p for p in (cert_file, key_file, client_ca_file) if p is not None)
        self.cert_file, self.key_file, self.client_ca_file = cert_file, key_file, client_ca_file
        self._lock = threading.Lock()  # grpc calls the fetcher from its own threads
        self._unreadable = False  # logged once per episode, not at every handshake
        self._signature_seen = self._signature()
        self._material = self._read(1)  # the first reading must be good: the server does not start otherwise

    def _signature(self) -> _Signature:
        try:
            stats = [os.stat(p) for p in self.paths]
        except OSError as exc:
            raise TlsError(f"cannot read {exc.filename}: {exc.strerror}") from exc
        return tuple((s.st_ino, s.st_size, s.st_mtime_ns) for s in stats)

    def _read(self, version: int) -> Material:
        """Read the bytes and build the REST context from the same files, twice if a write slipped in between."""
        for _ in range(3):
            before = self._signature()
            try:
                chain = self.cert_file.read_bytes()
                key = self.key_file.read_bytes()
                client_ca = self.client_ca_file.read_bytes() if self.client_ca_file is not None else None
            except OSError as exc:
                raise TlsError(f"cannot read {exc.filename}: {exc.strerror}") from exc
            context = _server_context(self.cert_file, self.key_file, client_ca)
            if self._signature() == before:
                return Material(version, chain, key, client_ca, context)
        raise TlsError("the TLS files kept changing while they were read")

    def current(self) -> Material:
        """The newest good material: re-read when the files changed since the last look, else the cached one."""
        try:
            signature = self._signature()
        except TlsError as exc:  # a file briefly missing during a rename: keep serving what we have
            if not self._unreadable:
                self._unreadable = True
                log.warning("TLS files unreadable, keeping the current certificate: %s", exc)
            return self._material
        self._unreadable = False
        if signature == self._signature_seen:
            return self._material
        with self._lock:
            if signature == self._signature_seen:
                return self._material
            self._signature_seen = signature  # a refused pair is not tried again until a file changes once more
            try:
                material = self._read(self._material.version + 1)
            except TlsError as exc:
                log.warning("new TLS files refused, keeping the current certificate: %s", exc)
                return self._material
            self._material = material
            log.info("TLS certificate reloaded", extra={"tls_version": material.version})
            return material


def _server_context(cert_file: Path, key_file: Path, client_ca: bytes | None) -> ssl.SSLContext:
    """A server context (TLS 1.2 or newer); loading it checks that the key matches the certificate."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert_file, key_file)
    except (ssl.SSLError, OSError) as exc:
        raise TlsError(f"the certificate chain and key do not make a usable pair: {exc}") from exc
    if client_ca is not None:
        try:
            context.load_verify_locations(cadata=client_ca.decode("ascii"))
        except (ssl.SSLError, UnicodeDecodeError, ValueError) as exc:
            raise TlsError(f"the client CA is not PEM certificates: {exc}") from exc
        # Ask every client for a certificate, require none: players have none, operators' calls demand one.
        context.verify_mode = ssl.CERT_OPTIONAL
    context.set_alpn_protocols(["http/1.1"])
    return context


# ------------------------------------------------------------------------------------------------ gRPC


def grpc_server_credentials(files: CertificateFiles, *, require_client_certificate: bool = False) -> Any:
    """Dynamic SSL credentials for a gRPC port: grpc asks for the current certificate on every new handshake.

    ``require_client_certificate``: the operator port; only clients with a certificate from the client CA shake
    hands at all."""
    import grpc

    if require_client_certificate and files.client_ca_file is None:
        raise TlsError("a port that requires client certificates needs a client CA")
    seen = files.current()

    def config(material: Material) -> Any:
        roots = material.client_ca if require_client_certificate else None
        return grpc.ssl_server_certificate_configuration(
            [(material.private_key, material.certificate_chain)], root_certificates=roots
        )

    def fetch() -> Any:
        nonlocal seen
        material = files.current()
        if material.version == seen.version:
            return None  # unchanged: grpc keeps the configuration it has
        seen = material
        return config(material)

    return grpc.dynamic_ssl_server_credentials(
        config(seen), fetch, require_client_authentication=require_client_certificate
    )


def has_client_certificate(auth_context: Mapping[str, Iterable[bytes]]) -> bool:
    """True when the call came over a connection whose client presented a certificate grpc verified (only the
    operator port asks for one, and it refuses the handshake unless the client CA signed it)."""
    return bool(auth_context.get("x509_pem_cert"))


# ------------------------------------------------------------------------------------------------ REST


def rest_ssl_context(files: CertificateFiles) -> ssl.SSLContext:
    """The context the REST listener starts with; each handshake switches to the newest one."""
    first = files.current().ssl_context

    def newest(connection: ssl.SSLObject | ssl.SSLSocket, _server_name: str | None, _ctx: ssl.SSLContext) -> None:
        context = files.current().ssl_context
        if context is not connection.context:
            connection.context = context
        return None

    first.sni_callback = newest
    return first


def scope_has_client_certificate(scope: Any) -> bool:
    """True when the REST connection carried a verified client certificate (service.rest.connections adds it to the
    scope as ASGI's TLS extension, which uvicorn itself does not fill in)."""
    return bool(scope.get("extensions", {}).get("tls", {}).get("client_cert_chain"))


def client_certificate_required(rpc: str) -> ServiceError:
    """The refusal of an operator call that came without a verified client certificate."""
    return ServiceError(
        Code.UNAUTHENTICATED,
        CLIENT_CERTIFICATE_REQUIRED,
        f"{rpc} needs a client certificate signed by the operators' CA (gRPC: call it on the operator port)",
        {"rpc": rpc},
    )
