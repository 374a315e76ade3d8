"""What the sync and asyncio clients share: the RPC table, request builders and credentials.

Each client owns only its transport loop (blocking or awaiting); everything
that decides *what* is sent -- the request, its metadata, whether a retry is
safe -- lives here once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from patience.v1 import patience_pb2 as pb

from engine.moves import Move

from .config import ClientSettings
from .moves import MoveLike, move_to_proto

SERVICE = "patience.v1.PatienceService"

OptionValues = Mapping[str, str | int | bool]


@dataclass(frozen=True)
class Rpc:
    """One RPC of the service. ``safe`` = may be sent again after UNAVAILABLE (see RetryPolicy)."""

    name: str
    request: type[Message]
    response: type[Message]
    safe: bool

    @property
    def path(self) -> str:
        return f"/{SERVICE}/{self.name}"


LIST_VARIANTS = Rpc("ListVariants", pb.ListVariantsRequest, pb.ListVariantsResponse, True)
PREPARE_GAME = Rpc("PrepareGame", pb.PrepareGameRequest, pb.PrepareGameResponse, True)  # a repeat only wastes one
NEW_GAME = Rpc("NewGame", pb.NewGameRequest, pb.NewGameResponse, False)
GET_GAME = Rpc("GetGame", pb.GetGameRequest, pb.GetGameResponse, True)
APPLY_MOVE = Rpc("ApplyMove", pb.ApplyMoveRequest, pb.ApplyMoveResponse, True)  # guarded by expected_version
UNDO_MOVE = Rpc("UndoMove", pb.UndoMoveRequest, pb.UndoMoveResponse, True)  # guarded by expected_version
LEGAL_MOVES = Rpc("LegalMoves", pb.LegalMovesRequest, pb.LegalMovesResponse, True)
HINT = Rpc("Hint", pb.HintRequest, pb.HintResponse, True)  # counted once per version: a repeat costs nothing
AUTO_PLAY = Rpc("AutoPlay", pb.AutoPlayRequest, pb.AutoPlayResponse, True)  # guarded by expected_version
RESIGN = Rpc("Resign", pb.ResignRequest, pb.ResignResponse, False)  # safe only with a version: see resign_safe
SUBMIT_SOLUTION = Rpc("SubmitSolution", pb.SubmitSolutionRequest, pb.SubmitSolutionResponse, False)
MINT_DEAL = Rpc("MintDeal", pb.MintDealRequest, pb.MintDealResponse, False)
VERIFY_CERTIFICATE = Rpc("VerifyCertificate", pb.VerifyCertificateRequest, pb.VerifyCertificateResponse, True)
GET_SIGNING_KEYS = Rpc("GetSigningKeys", pb.GetSigningKeysRequest, pb.GetSigningKeysResponse, True)
CREATE_GUEST = Rpc("CreateGuest", pb.CreateGuestRequest, pb.CreateGuestResponse, False)  # a repeat: a second guest
GET_PLAYER = Rpc("GetPlayer", pb.GetPlayerRequest, pb.GetPlayerResponse, True)
UPDATE_PLAYER = Rpc("UpdatePlayer", pb.UpdatePlayerRequest, pb.UpdatePlayerResponse, True)  # the same name twice
ERASE_PLAYER = Rpc("ErasePlayer", pb.ErasePlayerRequest, pb.ErasePlayerResponse, True)  # a repeat erases nothing more
LIST_GAMES = Rpc("ListGames", pb.ListGamesRequest, pb.ListGamesResponse, True)
#: A server stream (not in ALL_RPCS, which are unary): resumed from the last version seen, so always safe.
WATCH_GAME = Rpc("WatchGame", pb.WatchGameRequest, pb.WatchGameResponse, True)
#: The trailer of a WatchGame stream that ended because the game is over (without it, a stream that ends was
#: only at the end of its lifetime: resume it).
GAME_OVER_TRAILER = "x-game-over"
#: The statuses of a game that is over.
OVER = frozenset({pb.GAME_STATUS_WON, pb.GAME_STATUS_RESIGNED, pb.GAME_STATUS_EXPIRED, pb.GAME_STATUS_FORFEITED})


def stream_over(trailers: Any) -> bool:
    """Whether a WatchGame stream's trailing metadata says the game is over."""
    return any(key == GAME_OVER_TRAILER and value == "true" for key, value in trailers or ())


ALL_RPCS: tuple[Rpc, ...] = (
    LIST_VARIANTS,
    PREPARE_GAME,
    NEW_GAME,
    GET_GAME,
    APPLY_MOVE,
    UNDO_MOVE,
    LEGAL_MOVES,
    HINT,
    AUTO_PLAY,
    RESIGN,
    SUBMIT_SOLUTION,
    MINT_DEAL,
    VERIFY_CERTIFICATE,
    GET_SIGNING_KEYS,
    CREATE_GUEST,
    GET_PLAYER,
    UPDATE_PLAYER,
    ERASE_PLAYER,
    LIST_GAMES,
)


def serializer(rpc: Rpc) -> Any:
    return rpc.request.SerializeToString


def deserializer(rpc: Rpc) -> Any:
    return rpc.response.FromString


def option_text(value: str | int | bool) -> str:
    """An option value in the API's text form (``True`` -> ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def options_text(options: OptionValues | None) -> dict[str, str]:
    return {k: option_text(v) for k, v in (options or {}).items()}


def new_game_request(
    variant: str,
    options: OptionValues | None,
    client_seed: bytes | None,
    deal_ticket: str | None,
    allow_undo: bool | None,
    prepared_id: str | None = None,
    replay_seed: bytes | None = None,
    deal_number: int | None = None,
    winnable: bool | None = None,
    watchable: bool | None = None,
) -> pb.NewGameRequest:
    req = pb.NewGameRequest(variant=variant, options=options_text(options))
    if watchable is not None:
        req.watchable = watchable
    if replay_seed is not None:
        req.replay_seed = replay_seed
    if deal_number is not None:
        if isinstance(deal_number, bool) or not isinstance(deal_number, int) or not 0 <= deal_number < 1 << 32:
            raise ValueError(f"a deal number is 1 to 4294967295, not {deal_number!r}")
        req.deal_number = deal_number  # 0 goes to the server, which refuses it with its reason
    if client_seed is not None:
        req.client_seed = client_seed
    if deal_ticket is not None:
        req.deal_ticket = deal_ticket
    if allow_undo is not None:
        req.allow_undo = allow_undo
    if prepared_id is not None:
        req.prepared_id = prepared_id
    if winnable is not None:
        req.winnable = winnable
    return req


def apply_move_request(game_id: str, move: MoveLike, expected_version: int) -> pb.ApplyMoveRequest:
    if isinstance(move, str):
        return pb.ApplyMoveRequest(game_id=game_id, expected_version=expected_version, text=move)
    structured = move_to_proto(move) if isinstance(move, Move) else move
    return pb.ApplyMoveRequest(game_id=game_id, expected_version=expected_version, structured=structured)


def submit_request(
    moves: Iterable[MoveLike] | str, game_id: str | None, deal_ticket: str | None
) -> pb.SubmitSolutionRequest:
    if (game_id is None) == (deal_ticket is None):
        raise ValueError("submit a solution for a game_id or for a deal_ticket, one of the two")
    texts = [moves] if isinstance(moves, str) else [m if isinstance(m, str) else _text(m) for m in moves]
    if game_id is not None:
        return pb.SubmitSolutionRequest(game_id=game_id, moves=texts)
    return pb.SubmitSolutionRequest(deal_ticket=deal_ticket, moves=texts)


def _text(move: Move | pb.Move) -> str:
    from .moves import move_text

    return move_text(move)


class Credentials:
    """Game tokens by game id (learnt from NewGame or given), the default token, the player's identity token and
    the operator key. On a game, the first of: the token given for the call, the game's own, the default token,
    the identity (which the server accepts on the player's own games)."""

    def __init__(self, settings: ClientSettings) -> None:
        self.default_token = settings.token
        self.operator_key = settings.operator_key
        self.identity = settings.identity
        self.tokens: dict[str, str] = {}

    def remember(self, game_id: str, token: str) -> None:
        if game_id and token:
            self.tokens[game_id] = token

    def token_for(self, game_id: str | None, token: str | None) -> str | None:
        if token is not None:
            return token
        if game_id and game_id in self.tokens:
            return self.tokens[game_id]
        return self.default_token or self.identity

    def game_metadata(self, game_id: str | None, token: str | None) -> tuple[tuple[str, str], ...]:
        """``authorization: Bearer <token>``, or nothing (the server then answers UNAUTHENTICATED)."""
        t = self.token_for(game_id, token)
        return (("authorization", f"Bearer {t}"),) if t else ()

    def identity_metadata(self) -> tuple[tuple[str, str], ...]:
        """``authorization: Bearer <identity token>``, or nothing (anonymous)."""
        return (("authorization", f"Bearer {self.identity}"),) if self.identity else ()

    def operator_metadata(self, operator_key: str | None) -> tuple[tuple[str, str], ...]:
        key = operator_key if operator_key is not None else self.operator_key
        return (("x-operator-key", key),) if key else ()
