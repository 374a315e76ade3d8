import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_IN_PROGRESS: _ClassVar[GameStatus]
    GAME_STATUS_WON: _ClassVar[GameStatus]
    GAME_STATUS_STUCK: _ClassVar[GameStatus]
    GAME_STATUS_RESIGNED: _ClassVar[GameStatus]
    GAME_STATUS_EXPIRED: _ClassVar[GameStatus]
    GAME_STATUS_FORFEITED: _ClassVar[GameStatus]

class PileKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PILE_KIND_UNSPECIFIED: _ClassVar[PileKind]
    PILE_KIND_COLUMN: _ClassVar[PileKind]
    PILE_KIND_RESERVE: _ClassVar[PileKind]
    PILE_KIND_FOUNDATION: _ClassVar[PileKind]
    PILE_KIND_WASTE: _ClassVar[PileKind]
    PILE_KIND_CAPTIVE: _ClassVar[PileKind]
    PILE_KIND_KING_ROW: _ClassVar[PileKind]

class MoveKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_KIND_UNSPECIFIED: _ClassVar[MoveKind]
    MOVE_KIND_TRANSFER: _ClassVar[MoveKind]
    MOVE_KIND_DEAL: _ClassVar[MoveKind]
    MOVE_KIND_STOCK: _ClassVar[MoveKind]
    MOVE_KIND_REDEAL: _ClassVar[MoveKind]

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    OUTCOME_WON: _ClassVar[Outcome]
    OUTCOME_UNFINISHED: _ClassVar[Outcome]
    OUTCOME_ILLEGAL: _ClassVar[Outcome]
    OUTCOME_NOT_WON: _ClassVar[Outcome]
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_IN_PROGRESS: GameStatus
GAME_STATUS_WON: GameStatus
GAME_STATUS_STUCK: GameStatus
GAME_STATUS_RESIGNED: GameStatus
GAME_STATUS_EXPIRED: GameStatus
GAME_STATUS_FORFEITED: GameStatus
PILE_KIND_UNSPECIFIED: PileKind
PILE_KIND_COLUMN: PileKind
PILE_KIND_RESERVE: PileKind
PILE_KIND_FOUNDATION: PileKind
PILE_KIND_WASTE: PileKind
PILE_KIND_CAPTIVE: PileKind
PILE_KIND_KING_ROW: PileKind
MOVE_KIND_UNSPECIFIED: MoveKind
MOVE_KIND_TRANSFER: MoveKind
MOVE_KIND_DEAL: MoveKind
MOVE_KIND_STOCK: MoveKind
MOVE_KIND_REDEAL: MoveKind
OUTCOME_UNSPECIFIED: Outcome
OUTCOME_WON: Outcome
OUTCOME_UNFINISHED: Outcome
OUTCOME_ILLEGAL: Outcome
OUTCOME_NOT_WON: Outcome

class VariantOption(_message.Message):
    __slots__ = ("name", "type", "default_value", "allowed_values", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    default_value: str
    allowed_values: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default_value: _Optional[str] = ..., allowed_values: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class Variant(_message.Message):
    __slots__ = ("id", "name_en", "name_ru", "family", "summary", "deck_size", "options")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_EN_FIELD_NUMBER: _ClassVar[int]
    NAME_RU_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name_en: str
    name_ru: str
    family: str
    summary: str
    deck_size: int
    options: _containers.RepeatedCompositeFieldContainer[VariantOption]
    def __init__(self, id: _Optional[str] = ..., name_en: _Optional[str] = ..., name_ru: _Optional[str] = ..., family: _Optional[str] = ..., summary: _Optional[str] = ..., deck_size: _Optional[int] = ..., options: _Optional[_Iterable[_Union[VariantOption, _Mapping]]] = ...) -> None: ...

class ListVariantsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListVariantsResponse(_message.Message):
    __slots__ = ("variants",)
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    def __init__(self, variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ...) -> None: ...

class Pile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("variant", "columns", "cells", "foundations", "stock_count", "stock_visible", "stock", "waste", "captives", "fixed", "redeals_used", "redeals_left", "status")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    FOUNDATIONS_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    STOCK_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    STOCK_FIELD_NUMBER: _ClassVar[int]
    WASTE_FIELD_NUMBER: _ClassVar[int]
    CAPTIVES_FIELD_NUMBER: _ClassVar[int]
    FIXED_FIELD_NUMBER: _ClassVar[int]
    REDEALS_USED_FIELD_NUMBER: _ClassVar[int]
    REDEALS_LEFT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    columns: _containers.RepeatedCompositeFieldContainer[Pile]
    cells: _containers.RepeatedScalarFieldContainer[str]
    foundations: _containers.RepeatedCompositeFieldContainer[Pile]
    stock_count: int
    stock_visible: bool
    stock: _containers.RepeatedScalarFieldContainer[str]
    waste: _containers.RepeatedScalarFieldContainer[str]
    captives: _containers.RepeatedScalarFieldContainer[str]
    fixed: _containers.RepeatedScalarFieldContainer[str]
    redeals_used: int
    redeals_left: int
    status: GameStatus
    def __init__(self, variant: _Optional[str] = ..., columns: _Optional[_Iterable[_Union[Pile, _Mapping]]] = ..., cells: _Optional[_Iterable[str]] = ..., foundations: _Optional[_Iterable[_Union[Pile, _Mapping]]] = ..., stock_count: _Optional[int] = ..., stock_visible: _Optional[bool] = ..., stock: _Optional[_Iterable[str]] = ..., waste: _Optional[_Iterable[str]] = ..., captives: _Optional[_Iterable[str]] = ..., fixed: _Optional[_Iterable[str]] = ..., redeals_used: _Optional[int] = ..., redeals_left: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ...) -> None: ...

class PileRef(_message.Message):
    __slots__ = ("kind", "index")
    KIND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    kind: PileKind
    index: int
    def __init__(self, kind: _Optional[_Union[PileKind, str]] = ..., index: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("kind", "sources", "target", "count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: MoveKind
    sources: _containers.RepeatedCompositeFieldContainer[PileRef]
    target: PileRef
    count: int
    def __init__(self, kind: _Optional[_Union[MoveKind, str]] = ..., sources: _Optional[_Iterable[_Union[PileRef, _Mapping]]] = ..., target: _Optional[_Union[PileRef, _Mapping]] = ..., count: _Optional[int] = ...) -> None: ...

class NotatedMove(_message.Message):
    __slots__ = ("text", "move")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    text: str
    move: Move
    def __init__(self, text: _Optional[str] = ..., move: _Optional[_Union[Move, _Mapping]] = ...) -> None: ...

class Game(_message.Message):
    __slots__ = ("game_id", "variant", "options", "version", "status", "view", "move_count", "undo_count", "allow_undo", "deal_algorithm", "commitment", "client_seed", "ticket_id", "seed", "server_seed", "created_at", "updated_at", "finished_at", "expires_at", "moves", "certificate", "server_seed_commitment", "dealt", "deal_number", "hint_count", "solution", "player", "watchable")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    MOVE_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNDO_COUNT_FIELD_NUMBER: _ClassVar[int]
    ALLOW_UNDO_FIELD_NUMBER: _ClassVar[int]
    DEAL_ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HINT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    WATCHABLE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    options: _containers.ScalarMap[str, str]
    version: int
    status: GameStatus
    view: View
    move_count: int
    undo_count: int
    allow_undo: bool
    deal_algorithm: str
    commitment: bytes
    client_seed: bytes
    ticket_id: str
    seed: bytes
    server_seed: bytes
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    moves: _containers.RepeatedScalarFieldContainer[str]
    certificate: Certificate
    server_seed_commitment: bytes
    dealt: str
    deal_number: int
    hint_count: int
    solution: _containers.RepeatedScalarFieldContainer[str]
    player: Player
    watchable: bool
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., move_count: _Optional[int] = ..., undo_count: _Optional[int] = ..., allow_undo: _Optional[bool] = ..., deal_algorithm: _Optional[str] = ..., commitment: _Optional[bytes] = ..., client_seed: _Optional[bytes] = ..., ticket_id: _Optional[str] = ..., seed: _Optional[bytes] = ..., server_seed: _Optional[bytes] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., moves: _Optional[_Iterable[str]] = ..., certificate: _Optional[_Union[Certificate, _Mapping]] = ..., server_seed_commitment: _Optional[bytes] = ..., dealt: _Optional[str] = ..., deal_number: _Optional[int] = ..., hint_count: _Optional[int] = ..., solution: _Optional[_Iterable[str]] = ..., player: _Optional[_Union[Player, _Mapping]] = ..., watchable: _Optional[bool] = ...) -> None: ...

class PrepareGameRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PrepareGameResponse(_message.Message):
    __slots__ = ("prepared_id", "server_seed_commitment", "expires_at")
    PREPARED_ID_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    prepared_id: str
    server_seed_commitment: bytes
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, prepared_id: _Optional[str] = ..., server_seed_commitment: _Optional[bytes] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("variant", "options", "client_seed", "deal_ticket", "allow_undo", "prepared_id", "winnable", "replay_seed", "deal_number", "watchable")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    DEAL_TICKET_FIELD_NUMBER: _ClassVar[int]
    ALLOW_UNDO_FIELD_NUMBER: _ClassVar[int]
    PREPARED_ID_FIELD_NUMBER: _ClassVar[int]
    WINNABLE_FIELD_NUMBER: _ClassVar[int]
    REPLAY_SEED_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WATCHABLE_FIELD_NUMBER: _ClassVar[int]
    variant: str
    options: _containers.ScalarMap[str, str]
    client_seed: bytes
    deal_ticket: str
    allow_undo: bool
    prepared_id: str
    winnable: bool
    replay_seed: bytes
    deal_number: int
    watchable: bool
    def __init__(self, variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., client_seed: _Optional[bytes] = ..., deal_ticket: _Optional[str] = ..., allow_undo: _Optional[bool] = ..., prepared_id: _Optional[str] = ..., winnable: _Optional[bool] = ..., replay_seed: _Optional[bytes] = ..., deal_number: _Optional[int] = ..., watchable: _Optional[bool] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("game", "game_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: Game
    game_token: str
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., game_token: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id", "include_moves")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_MOVES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    include_moves: bool
    def __init__(self, game_id: _Optional[str] = ..., include_moves: _Optional[bool] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class ApplyMoveRequest(_message.Message):
    __slots__ = ("game_id", "expected_version", "text", "structured")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_version: int
    text: str
    structured: Move
    def __init__(self, game_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., text: _Optional[str] = ..., structured: _Optional[_Union[Move, _Mapping]] = ...) -> None: ...

class ApplyMoveResponse(_message.Message):
    __slots__ = ("game", "applied")
    GAME_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    game: Game
    applied: NotatedMove
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., applied: _Optional[_Union[NotatedMove, _Mapping]] = ...) -> None: ...

class UndoMoveRequest(_message.Message):
    __slots__ = ("game_id", "expected_version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_version: int
    def __init__(self, game_id: _Optional[str] = ..., expected_version: _Optional[int] = ...) -> None: ...

class UndoMoveResponse(_message.Message):
    __slots__ = ("game", "undone")
    GAME_FIELD_NUMBER: _ClassVar[int]
    UNDONE_FIELD_NUMBER: _ClassVar[int]
    game: Game
    undone: NotatedMove
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., undone: _Optional[_Union[NotatedMove, _Mapping]] = ...) -> None: ...

class LegalMovesRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class LegalMovesResponse(_message.Message):
    __slots__ = ("moves", "version")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[NotatedMove]
    version: int
    def __init__(self, moves: _Optional[_Iterable[_Union[NotatedMove, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class HintResponse(_message.Message):
    __slots__ = ("move", "reason", "reason_code", "wins", "tried", "moves_to_end", "version", "hint_count")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REASON_CODE_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    TRIED_FIELD_NUMBER: _ClassVar[int]
    MOVES_TO_END_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HINT_COUNT_FIELD_NUMBER: _ClassVar[int]
    move: NotatedMove
    reason: str
    reason_code: str
    wins: int
    tried: int
    moves_to_end: int
    version: int
    hint_count: int
    def __init__(self, move: _Optional[_Union[NotatedMove, _Mapping]] = ..., reason: _Optional[str] = ..., reason_code: _Optional[str] = ..., wins: _Optional[int] = ..., tried: _Optional[int] = ..., moves_to_end: _Optional[int] = ..., version: _Optional[int] = ..., hint_count: _Optional[int] = ...) -> None: ...

class AutoPlayRequest(_message.Message):
    __slots__ = ("game_id", "expected_version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_version: int
    def __init__(self, game_id: _Optional[str] = ..., expected_version: _Optional[int] = ...) -> None: ...

class AutoPlayResponse(_message.Message):
    __slots__ = ("game", "applied")
    GAME_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    game: Game
    applied: _containers.RepeatedCompositeFieldContainer[NotatedMove]
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ..., applied: _Optional[_Iterable[_Union[NotatedMove, _Mapping]]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("game_id", "expected_version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_version: int
    def __init__(self, game_id: _Optional[str] = ..., expected_version: _Optional[int] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class Verdict(_message.Message):
    __slots__ = ("outcome", "move_count", "final_state_hash", "final_status", "error_index", "error_reason", "error_message", "error_move_text")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    MOVE_COUNT_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_REASON_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MOVE_TEXT_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    move_count: int
    final_state_hash: str
    final_status: GameStatus
    error_index: int
    error_reason: str
    error_message: str
    error_move_text: str
    def __init__(self, outcome: _Optional[_Union[Outcome, str]] = ..., move_count: _Optional[int] = ..., final_state_hash: _Optional[str] = ..., final_status: _Optional[_Union[GameStatus, str]] = ..., error_index: _Optional[int] = ..., error_reason: _Optional[str] = ..., error_message: _Optional[str] = ..., error_move_text: _Optional[str] = ...) -> None: ...

class SubmitSolutionRequest(_message.Message):
    __slots__ = ("game_id", "deal_ticket", "moves")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_TICKET_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    deal_ticket: str
    moves: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., deal_ticket: _Optional[str] = ..., moves: _Optional[_Iterable[str]] = ...) -> None: ...

class SubmitSolutionResponse(_message.Message):
    __slots__ = ("verdict", "certificate", "game_id", "game")
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    verdict: Verdict
    certificate: Certificate
    game_id: str
    game: Game
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., certificate: _Optional[_Union[Certificate, _Mapping]] = ..., game_id: _Optional[str] = ..., game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...

class Certificate(_message.Message):
    __slots__ = ("encoded", "key_id", "signature", "game_id", "variant", "options", "seed", "commitment", "moves", "move_count", "undo_count", "started_at", "finished_at", "ticket_id", "final_state_hash", "played", "dealt", "deal_number", "hint_count")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENCODED_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    MOVE_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNDO_COUNT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HINT_COUNT_FIELD_NUMBER: _ClassVar[int]
    encoded: bytes
    key_id: str
    signature: bytes
    game_id: str
    variant: str
    options: _containers.ScalarMap[str, str]
    seed: bytes
    commitment: bytes
    moves: _containers.RepeatedScalarFieldContainer[str]
    move_count: int
    undo_count: int
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    ticket_id: str
    final_state_hash: str
    played: str
    dealt: str
    deal_number: int
    hint_count: int
    def __init__(self, encoded: _Optional[bytes] = ..., key_id: _Optional[str] = ..., signature: _Optional[bytes] = ..., game_id: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[bytes] = ..., commitment: _Optional[bytes] = ..., moves: _Optional[_Iterable[str]] = ..., move_count: _Optional[int] = ..., undo_count: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ticket_id: _Optional[str] = ..., final_state_hash: _Optional[str] = ..., played: _Optional[str] = ..., dealt: _Optional[str] = ..., deal_number: _Optional[int] = ..., hint_count: _Optional[int] = ...) -> None: ...

class VerifyCertificateRequest(_message.Message):
    __slots__ = ("certificate", "replay")
    CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    certificate: bytes
    replay: bool
    def __init__(self, certificate: _Optional[bytes] = ..., replay: _Optional[bool] = ...) -> None: ...

class VerifyCertificateResponse(_message.Message):
    __slots__ = ("valid", "reason", "message", "certificate")
    VALID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    reason: str
    message: str
    certificate: Certificate
    def __init__(self, valid: _Optional[bool] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., certificate: _Optional[_Union[Certificate, _Mapping]] = ...) -> None: ...

class SigningKey(_message.Message):
    __slots__ = ("key_id", "algorithm", "public_key", "active")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    algorithm: str
    public_key: bytes
    active: bool
    def __init__(self, key_id: _Optional[str] = ..., algorithm: _Optional[str] = ..., public_key: _Optional[bytes] = ..., active: _Optional[bool] = ...) -> None: ...

class GetSigningKeysRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetSigningKeysResponse(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[SigningKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[SigningKey, _Mapping]]] = ...) -> None: ...

class MintDealRequest(_message.Message):
    __slots__ = ("variant", "options", "valid_seconds", "label")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VALID_SECONDS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    variant: str
    options: _containers.ScalarMap[str, str]
    valid_seconds: int
    label: str
    def __init__(self, variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., valid_seconds: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class MintDealResponse(_message.Message):
    __slots__ = ("deal_ticket", "ticket_id", "variant", "options", "commitment", "expires_at")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DEAL_TICKET_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    deal_ticket: str
    ticket_id: str
    variant: str
    options: _containers.ScalarMap[str, str]
    commitment: bytes
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, deal_ticket: _Optional[str] = ..., ticket_id: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., commitment: _Optional[bytes] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("id", "display_name", "kind")
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_name: str
    kind: str
    def __init__(self, id: _Optional[str] = ..., display_name: _Optional[str] = ..., kind: _Optional[str] = ...) -> None: ...

class CreateGuestRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class CreateGuestResponse(_message.Message):
    __slots__ = ("token", "player", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    player: Player
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., player: _Optional[_Union[Player, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class UpdatePlayerRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class UpdatePlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class ErasePlayerRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ErasePlayerResponse(_message.Message):
    __slots__ = ("games_unlinked",)
    GAMES_UNLINKED_FIELD_NUMBER: _ClassVar[int]
    games_unlinked: int
    def __init__(self, games_unlinked: _Optional[int] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "variant", "options", "status", "move_count", "created_at", "updated_at", "finished_at", "expires_at", "board")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MOVE_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    options: _containers.ScalarMap[str, str]
    status: GameStatus
    move_count: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    board: str
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., move_count: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., board: _Optional[str] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "after_version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    after_version: int
    def __init__(self, game_id: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: Game
    def __init__(self, game: _Optional[_Union[Game, _Mapping]] = ...) -> None: ...
