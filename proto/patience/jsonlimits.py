"""How deeply a JSON text nests, found without parsing it.

Python's ``json`` parser recurses once per nesting level and raises ``RecursionError`` somewhere near a thousand
levels: bad input must get a 400 (REST) or INVALID_ARGUMENT (gRPC) with a reason before it gets there. No
request or certificate of this API nests deeper than a few levels, so a small limit refuses nothing real.
"""

from __future__ import annotations

import re

#: Deeper than any request body or certificate of the API (a request nests at most four levels).
MAX_JSON_DEPTH = 32

# A JSON string (its escapes included), or one bracket: strings are skipped so that "[[[" inside one is text.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``raw`` opens more than ``limit`` arrays or objects inside each other (cheap when it has few
    brackets at all, as every real body has)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    depth = 0
    for match in _TOKENS.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False
