"""How a setting's text becomes its value (service.settings.config's flags and ``PATIENCE_*`` variables): each parser
raises ValueError with a message that names what it expected, which the flag parser shows."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


def boolean(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def positive(convert: Callable[[str], int | float]) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        value = convert(text)
        if value <= 0:
            raise ValueError(f"must be positive: {text!r}")
        return value

    return parse


def origins(text: str) -> tuple[str, ...]:
    """``https://a.example,https://b.example`` (or ``*``): the web origins whose pages may call the REST API."""
    origins = tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?", origin):
            raise ValueError(f"{origin!r} is not an origin (scheme://host[:port], or *)")
    return origins


def non_negative(convert: Callable[[str], int | float]) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        value = convert(text)
        if not value >= 0:
            raise ValueError(f"must be 0 or more: {text!r}")
        return value

    return parse


def names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def choice(*allowed: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        low = text.strip().lower()
        if low not in allowed:
            raise ValueError(f"one of {', '.join(allowed)}, not {text!r}")
        return low

    return parse


def memory(text: str) -> str:
    """A Redis memory size: ``268435456``, ``256mb``, ``1gb``."""
    size = text.strip().lower()
    if not re.fullmatch(r"[1-9][0-9]*(k|kb|m|mb|g|gb)?", size):
        raise ValueError(f"a memory size like 256mb, not {text!r}")
    return size


def rate_limits(text: str) -> str:
    """``20/minute;300/hour``: every limit must hold (``limits``' notation: N per second, minute, hour, day)."""
    from limits import parse_many

    try:
        items = parse_many(text)
    except ValueError:
        items = []
    if not items:
        raise ValueError(f"not a rate limit like 20/minute;300/hour: {text!r}")
    return text


@dataclass(frozen=True)
class Spec:
    """One setting: its Settings field, its flag and its ``PATIENCE_*`` variable, and how its text is read."""

    name: str  # the Settings field
    flag: str
    help: str
    parse: Callable[[str], object]
    metavar: str = ""

    @property
    def env(self) -> str:
        return "PATIENCE_" + self.name.upper()
