"""Python client for the patience game service (``patience.v1``): sync and asyncio clients, typed errors,
offline certificate verification, and the ``patience-cli`` terminal client.

Start with :class:`PatienceClient` (or :class:`AsyncPatienceClient`) and :class:`ClientSettings`; errors are
:class:`ServiceError` subclasses; :func:`verify_certificate` checks a certificate without the service.
"""

from .aio import AsyncGameSession, AsyncPatienceClient
from .certificates import CertificateCheck, CertificateContents, keys_from_proto, verify_certificate
from .client import PatienceClient
from .config import NO_RETRY, ClientSettings, RetryPolicy
from .errors import (
    DeadlineExceeded,
    GameNotFound,
    IllegalMove,
    InvalidRequest,
    LimitExceeded,
    PatienceClientError,
    PermissionDenied,
    ServiceError,
    ServiceUnavailable,
    Unauthenticated,
    VersionConflict,
)
from .moves import move_from_proto, move_text, move_to_proto
from .session import GameSession

__version__ = "0.1.0"

__all__ = [
    "NO_RETRY",
    "AsyncGameSession",
    "AsyncPatienceClient",
    "CertificateCheck",
    "CertificateContents",
    "ClientSettings",
    "DeadlineExceeded",
    "GameNotFound",
    "GameSession",
    "IllegalMove",
    "InvalidRequest",
    "LimitExceeded",
    "PatienceClient",
    "PatienceClientError",
    "PermissionDenied",
    "RetryPolicy",
    "ServiceError",
    "ServiceUnavailable",
    "Unauthenticated",
    "VersionConflict",
    "keys_from_proto",
    "move_from_proto",
    "move_text",
    "move_to_proto",
    "verify_certificate",
]
