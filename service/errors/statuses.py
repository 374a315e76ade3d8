"""A ServiceError as a gRPC status (``google.rpc.Status`` with its ErrorInfo, and RetryInfo when it has a
retry delay), and the ErrorInfo read back from one."""

from __future__ import annotations

from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from service.errors.reasons import DOMAIN, ServiceError

__all__ = [
    "error_info",
    "to_status",
]


def to_status(error: ServiceError) -> status_pb2.Status:
    """The ``google.rpc.Status`` for ``error``, with its ErrorInfo detail."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if error.retry_after is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=error.retry_after)))
        details.append(retry)
    return status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message[:1000], details=details)


def error_info(status: status_pb2.Status | None) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo detail of a status read with ``rpc_status.from_call`` (clients and tests)."""
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
