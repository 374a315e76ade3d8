"""The settings of secrets and identities: the operator key, the signing and ticket keys' folder, tickets'
validity, and the OpenID Connect providers whose tokens sign players in (docs/configuration.md, "Secrets" and
"Players").

One module per part of docs/configuration.md; ``service.settings.config`` puts the parts together.
"""

from __future__ import annotations

from pathlib import Path

from service.settings import config_values as values
from service.settings.config_values import Spec

SPECS: tuple[Spec, ...] = (
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
        "operator_key",
        "--operator-key",
        "the operator key MintDeal requires (x-operator-key); unset and no file: MintDeal is refused",
        str,
        "KEY",
    ),
    Spec("operator_key_file", "--operator-key-file", "a file holding the operator key", Path, "PATH"),
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
)
