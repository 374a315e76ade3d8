"""The nine games by id: names, summaries, options, and their rules classes."""

from __future__ import annotations

from collections.abc import Mapping

from .errors import Reason, VariantError
from .game import Game, VariantInfo
from .games.captives import Captives
from .games.royal_retinue import CatsTail, RoyalRetinue, RoyalRetinueAces, RoyalRetinueKingsLast
from .games.salic_law import PictureGallery, Tribunal
from .games.sultan import Sultan36, Sultan52

#: In a fixed order: the binary state encoding stores a variant as its index here.
GAME_CLASSES: tuple[type[Game], ...] = (
    RoyalRetinue,
    RoyalRetinueAces,
    RoyalRetinueKingsLast,
    CatsTail,
    Tribunal,
    PictureGallery,
    Captives,
    Sultan36,
    Sultan52,
)
_BY_ID: dict[str, type[Game]] = {cls.info.id: cls for cls in GAME_CLASSES}
VARIANT_IDS: tuple[str, ...] = tuple(_BY_ID)


def variants() -> list[VariantInfo]:
    """The catalogue, in its fixed order."""
    return [cls.info for cls in GAME_CLASSES]


def configurations() -> list[tuple[str, dict[str, object]]]:
    """Every variant with every option set worth telling apart: its defaults, then each option at each of its
    other values (one option changed at a time), in catalogue order. Benchmarks and tests iterate this, so a new
    option is covered without editing them."""
    found: list[tuple[str, dict[str, object]]] = []
    for cls in GAME_CLASSES:
        found.append((cls.info.id, {}))
        for spec in cls.info.options:
            found.extend((cls.info.id, {spec.name: value}) for value in spec.allowed if value != spec.default)
    return found


def variant_info(variant_id: str) -> VariantInfo:
    return _game_class(variant_id).info


def get_game(variant_id: str, options: Mapping[str, object] | None = None) -> Game:
    """The rules of ``variant_id`` with ``options``; VariantError if either is bad."""
    return _game_class(variant_id)(options)


def variant_index(variant_id: str) -> int:
    return VARIANT_IDS.index(_game_class(variant_id).info.id)


def _game_class(variant_id: str) -> type[Game]:
    cls = _BY_ID.get(variant_id) if isinstance(variant_id, str) else None
    if cls is None:
        shown = variant_id[:40] if isinstance(variant_id, str) else type(variant_id).__name__
        raise VariantError(Reason.UNKNOWN_VARIANT, f"no game {shown!r}; the games are {', '.join(VARIANT_IDS)}")
    return cls
