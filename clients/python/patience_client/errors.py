"""Exceptions for the service's errors: one tree, one class per cause, the server's details kept.

The service sends every error as a ``google.rpc.Status`` whose ``ErrorInfo``
detail (domain ``patience.v1``) carries a stable ``reason`` (UPPER_SNAKE_CASE;
for a refused move the engine's own reason code) and metadata such as
``move_index``, ``move_text`` and ``current_version``. :func:`error_from_rpc`
reads it with grpcio-status' ``rpc_status.from_call`` and picks the class by
the status code, so callers write ``except IllegalMove as e: e.reason`` and
never parse messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from patience.v1 import patience_pb2 as pb

from engine.errors import Reason

#: The ErrorInfo domain of the service's own errors.
DOMAIN = "patience.v1"


class PatienceClientError(Exception):
    """Base of everything this package raises on purpose."""


class ServiceError(PatienceClientError):
    """An RPC that ended with a non-OK status.

    ``reason`` is the stable code from ``ErrorInfo`` ("DOES_NOT_FIT", "VERSION_MISMATCH" ...; empty when the
    server sent none, e.g. a transport failure), ``message`` the text for people, ``metadata`` the rest of the
    ErrorInfo metadata. ``move_index`` (0-based, into a submitted move list or the game's log) and
    ``move_text`` are set when the error concerns one move.
    """

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        message: str,
        *,
        code: grpc.StatusCode | None = None,
        reason: str = "",
        domain: str = "",
        metadata: Mapping[str, str] | None = None,
        method: str = "",
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata: dict[str, str] = dict(metadata or {})
        self.method = method
        self.attempts = attempts

    @property
    def move_index(self) -> int | None:
        return _int(self.metadata.get("move_index"))

    @property
    def move_text(self) -> str | None:
        return self.metadata.get("move_text")

    @property
    def engine_reason(self) -> Reason | None:
        """The engine's :class:`~engine.errors.Reason` behind a refused move (``metadata["rule"]``, else the reason).

        ``DOES_NOT_FIT`` -> ``Reason.DOES_NOT_FIT``; None when the error is not the engine's.
        """
        for code in (self.metadata.get("rule", ""), self.reason):
            try:
                return Reason(code)
            except ValueError:
                continue
        return None

    def __str__(self) -> str:
        parts = [self.code.name]
        if self.reason:
            parts.append(self.reason)
        if self.move_index is not None:
            parts.append(f"move {self.move_index}")
        if self.move_text:
            parts.append(repr(self.move_text))
        return f"{' '.join(parts)}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code.name}, reason={self.reason!r})"


class InvalidRequest(ServiceError):
    """INVALID_ARGUMENT: bad notation, an unknown variant or option, a malformed request."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class IllegalMove(ServiceError):
    """FAILED_PRECONDITION: the rules refuse the move here (or the game is over); nothing changed."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class VersionConflict(ServiceError):
    """ABORTED: the game is no longer at ``expected_version``; nothing changed.

    ``current_version`` is the server's version when it said so. The helpers that re-read the game after a
    conflict (:meth:`patience_client.GameSession.move`) attach the fresh game as ``game``.
    """

    code = grpc.StatusCode.ABORTED
    #: The game as re-read after the conflict, when a helper did so.
    game: pb.Game | None = None

    @property
    def current_version(self) -> int | None:
        return _int(self.metadata.get("current_version"))


class GameNotFound(ServiceError):
    """NOT_FOUND: no such game (or it has expired and its keys are gone); reason ``PREPARED_NOT_FOUND``: no such
    PrepareGame answer (unknown, already used, or expired)."""

    code = grpc.StatusCode.NOT_FOUND


class Unauthenticated(ServiceError):
    """UNAUTHENTICATED: no game token (or operator key) was sent."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(ServiceError):
    """PERMISSION_DENIED: the token or operator key is wrong."""

    code = grpc.StatusCode.PERMISSION_DENIED


class LimitExceeded(ServiceError):
    """RESOURCE_EXHAUSTED: the request is over a configured limit (size, move-list length), this address made
    too many calls of its kind (reason ``RATE_LIMITED``: try again after :attr:`retry_after` seconds), or the
    server's store is full (``STORE_FULL``)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED

    @property
    def retry_after(self) -> int | None:
        """Seconds to wait before the call may succeed (``RATE_LIMITED``), else None."""
        return _int(self.metadata.get("retry_after_seconds"))


class ServiceUnavailable(ServiceError):
    """UNAVAILABLE: the server could not be reached (after the retries the call was allowed)."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(ServiceError):
    """DEADLINE_EXCEEDED: the call's deadline passed."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


_BY_CODE: dict[grpc.StatusCode, type[ServiceError]] = {
    cls.code: cls
    for cls in (
        InvalidRequest,
        IllegalMove,
        VersionConflict,
        GameNotFound,
        Unauthenticated,
        PermissionDenied,
        LimitExceeded,
        ServiceUnavailable,
        DeadlineExceeded,
    )
}


def error_from_rpc(err: grpc.RpcError, *, method: str = "", attempts: int = 1) -> ServiceError:
    """The typed exception for a failed call (sync ``grpc.RpcError`` or ``grpc.aio.AioRpcError``)."""
    call = cast(grpc.Call, err)  # every RpcError the channel raises is also a Call
    code = call.code() or grpc.StatusCode.UNKNOWN
    message = call.details() or code.name
    reason = domain = ""
    metadata: dict[str, str] = {}
    try:
        status = rpc_status.from_call(call)
    except ValueError:  # code or message in the details disagree with the call's: keep the call's
        status = None
    if status is not None:
        message = status.message or message
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason, domain = info.reason, info.domain
                metadata.update(info.metadata)
                break
    cls = _BY_CODE.get(code, ServiceError)
    return cls(message, code=code, reason=reason, domain=domain, metadata=metadata, method=method, attempts=attempts)


def _int(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        return None
