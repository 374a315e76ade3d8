"""The web client over HTTPS, same origin, in a real headless Chromium against the service's own TLS.

Operators' mutual TLS is on, so the REST port asks every client for a certificate; the browser holds none and
plays all the same. The browser trusts exactly the server's key (Chromium's
``--ignore-certificate-errors-spki-list`` pin: trust in one throwaway certificate without touching a system
store), and a browser without the pin is refused: so the page really was fetched over a verified connection.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from http_support import LiveServer, live_server
from tls_support import Authority, Pair, write_pair
from web_support import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Table, chromium_missing


def spki_pin(pair: Pair) -> str:
    public = x509.load_pem_x509_certificate(pair.cert).public_key()
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@pytest.fixture(scope="module")
def pair() -> Pair:
    return Authority().server_pair()


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory, pair: Pair) -> Iterator[LiveServer]:
    directory = tmp_path_factory.mktemp("tls")
    cert, key, operators = directory / "tls.crt", directory / "tls.key", directory / "operators-ca.crt"
    write_pair(pair, cert, key)
    operators.write_bytes(Authority("operators CA").cert_pem)
    # Mutual TLS for operators on: the REST port then asks every client for a certificate, and a player's browser,
    # holding none, must still play without a prompt or an error.
    with live_server(
        redis_url, directory / "keys", tls_cert_file=cert, tls_key_file=key, tls_client_ca_file=operators
    ) as live:
        yield live


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    missing = chromium_missing()
    if missing:
        pytest.fail(missing, pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def origin(server: LiveServer) -> str:
    return f"https://localhost:{server.http_port}"


def test_the_web_client_plays_over_https_on_its_own_origin(
    playwright: Any, server: LiveServer, pair: Pair, tmp_path: Path
) -> None:
    args = [*CHROMIUM_ARGS, f"--ignore-certificate-errors-spki-list={spki_pin(pair)}"]
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
    try:
        context = browser.new_context(viewport=DESKTOP)
        page = context.new_page()
        page.set_default_timeout(15_000)
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        table = Table(page, origin(server)).open()
        table.deal("cats-tail")
        assert table.version >= 1 and table.errors == []
        assert page.evaluate("() => window.isSecureContext") is True
        api = [u for u in requests if "/v1/" in u]
        assert api and all(u.startswith(origin(server) + "/v1/") for u in api), api
        context.close()
    finally:
        browser.close()


def test_a_browser_that_does_not_trust_the_certificate_is_refused(playwright: Any, server: LiveServer) -> None:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        page = browser.new_page()
        with pytest.raises(Exception, match="ERR_CERT"):
            page.goto(origin(server) + "/")
    finally:
        browser.close()
