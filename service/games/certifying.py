"""Certificates: VerifyCertificate and GetSigningKeys (certificates are signed where games are won: ``steps``)."""

from __future__ import annotations

import asyncio

from patience.jsonlimits import MAX_JSON_DEPTH, too_deep
from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import messages
from service.games.ports import Credentials
from service.games.steps import Steps


class Certifying:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def verify_certificate(
        self, request: pb.VerifyCertificateRequest, credentials: Credentials
    ) -> pb.VerifyCertificateResponse:
        await self.steps.limit("VerifyCertificate", credentials)
        if self.steps.key_ring is None:
            raise errors.signing_unavailable()
        if too_deep(request.certificate):
            raise errors.json_too_deep(MAX_JSON_DEPTH)
        if request.replay:  # a long replay must not stall the event loop
            checked = await asyncio.to_thread(self.steps.key_ring.verify, request.certificate, replay=True)
        else:
            checked = self.steps.key_ring.verify(request.certificate)
        response = pb.VerifyCertificateResponse(valid=checked.valid, reason=checked.reason, message=checked.message)
        if checked.contents is not None:
            response.certificate.CopyFrom(messages.certificate_message(request.certificate, checked.contents, checked))
        return response

    async def get_signing_keys(
        self, request: pb.GetSigningKeysRequest, credentials: Credentials
    ) -> pb.GetSigningKeysResponse:
        if self.steps.key_ring is None:
            return pb.GetSigningKeysResponse()
        return pb.GetSigningKeysResponse(
            keys=[
                pb.SigningKey(key_id=key_id, algorithm="Ed25519", public_key=public, active=active)
                for key_id, public, active in self.steps.key_ring.public_keys()
            ]
        )
