"""Players: CreateGuest, GetPlayer, UpdatePlayer and ErasePlayer (docs/players.md). The identity itself is checked
in ``Steps.identify``; a player's games are ``my_games``'."""

from __future__ import annotations

from patience.v1 import patience_pb2 as pb

from service import errors
from service.games import messages
from service.games.my_games import MyGames
from service.games.ports import Credentials
from service.games.steps import Steps, unavailable
from service.security.players import Player, clean_display_name
from service.store import StoreUnavailable


def player_message(player: Player) -> pb.Player:
    return pb.Player(id=player.id, display_name=player.display_name, kind=player.kind)


class Players:
    def __init__(self, steps: Steps, games: MyGames) -> None:
        self.steps = steps
        self.games = games

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

    async def update_player(self, request: pb.UpdatePlayerRequest, credentials: Credentials) -> pb.UpdatePlayerResponse:
        """A new display name (CreateGuest's rules). Games dealt before keep the name they were dealt under."""
        name = clean_display_name(request.display_name)
        player = await self.steps.player(credentials)
        try:
            await self.games.records.put(player.id, name, player.kind)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return pb.UpdatePlayerResponse(player=player_message(Player(player.id, name, player.kind)))

    async def erase_player(self, request: pb.ErasePlayerRequest, credentials: Credentials) -> pb.ErasePlayerResponse:
        """What the service keeps about the player goes, step by step (docs/players.md, "Erasing"): their games are
        unlinked, then their list of games and their record are deleted. The identity is verified but not
        recorded first (the record is what goes)."""
        found = await self.steps.identify(credentials)
        if found is None:
            raise errors.missing_identity()
        pid = found[1]
        try:
            unlinked = await self.games.unlink(pid, await self.games.records.all_games(pid))
            await self.games.records.delete(pid)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return pb.ErasePlayerResponse(games_unlinked=unlinked)
