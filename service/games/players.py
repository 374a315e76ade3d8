"""Players: CreateGuest and GetPlayer (docs/players.md). The identity itself is checked in ``Steps.identify``."""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import messages
from service.games.ports import Credentials
from service.games.steps import Steps, unavailable
from service.security.players import Player, clean_display_name
from service.store import StoreUnavailable


def player_message(player: Player) -> pb.Player:
    return pb.Player(id=player.id, display_name=player.display_name, kind=player.kind)


class Players:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps

    async def create_guest(self, request: pb.CreateGuestRequest, credentials: Credentials) -> pb.CreateGuestResponse:
        """A new guest identity with the name the player chose; counted like NewGame (per client address)."""
        name = clean_display_name(request.display_name)
        identities, players = self.steps.identities, self.steps.players
        if identities is None or identities.guests is None or players is None:
            raise errors.guests_unavailable()
        await self.steps.limit("CreateGuest", credentials)
        token, identity = identities.guests.issue(name)
        pid = identities.player_of(identity)
        try:
            await players.put(pid, name, identity.kind)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return pb.CreateGuestResponse(
            token=token,
            player=player_message(Player(pid, name, identity.kind)),
            expires_at=messages.ts(identity.expires_at * 1000),
        )

    async def get_player(self, request: pb.GetPlayerRequest, credentials: Credentials) -> pb.GetPlayerResponse:
        return pb.GetPlayerResponse(player=player_message(await self.steps.player(credentials)))
