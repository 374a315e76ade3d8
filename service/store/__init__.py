"""Where games live: a small storage interface (``interface``, over the ``records`` and ``errors`` every store
shares) and its Redis implementation (``redis_store``, its Lua in ``scripts``); the move log is packed by the
engine (``engine.movelog``).

Everything a caller needs is importable from here: ``from service.store import GameStore, open_store``.
"""

from __future__ import annotations

from service.store.connect import CLUSTER_SCHEMES, is_cluster_url, open_store
from service.store.errors import (
    AlreadyExists,
    GameClosed,
    GameExpired,
    NotFound,
    NothingToUndo,
    NotReplicated,
    StoreError,
    StoreFull,
    StoreUnavailable,
    VersionConflict,
)
from service.store.interface import GameStore
from service.store.records import (
    Dealt,
    GameRecord,
    HintBase,
    HintTrail,
    NewGameRecord,
    Played,
    SignedWin,
    StoreStatus,
    UndoBase,
    dealt_of,
)
from service.store.redis_store import RedisGameStore

__all__ = [
    "CLUSTER_SCHEMES",
    "AlreadyExists",
    "Dealt",
    "GameClosed",
    "GameExpired",
    "GameRecord",
    "GameStore",
    "HintBase",
    "HintTrail",
    "NewGameRecord",
    "NotFound",
    "NotReplicated",
    "NothingToUndo",
    "Played",
    "RedisGameStore",
    "SignedWin",
    "StoreError",
    "StoreFull",
    "StoreStatus",
    "StoreUnavailable",
    "UndoBase",
    "VersionConflict",
    "dealt_of",
    "is_cluster_url",
    "open_store",
]
