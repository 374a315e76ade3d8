"""The comments of the ``.proto`` source by element: the descriptions of the OpenAPI document.

The compiled descriptor drops the comments, so they are read from the source text shipped next to the generated
code; a reader of its own because it knows nothing of OpenAPI (the document, ``service.rest.openapi``, only looks
names up in what it returns).
"""

from __future__ import annotations

import re
from pathlib import Path

_DECL = re.compile(r"^\s*(message|enum|service|oneof)\s+(\w+)\s*\{")
_RPC = re.compile(r"^\s*rpc\s+(\w+)\s*\(")
_FIELD = re.compile(r"^\s*(?:optional\s+|repeated\s+)?(?:map\s*<[^>]*>|[\w.]+)\s+(\w+)\s*=\s*\d+")
_ENUM_VALUE = re.compile(r"^\s*(\w+)\s*=\s*-?\d+")


def proto_comments(source: str) -> dict[str, str]:
    """Leading (else trailing) ``//`` comments by element full name: ``patience.v1.View.stock_count``.

    A small reader for the layout protoc's style guide uses (one declaration a line); it is only used for
    descriptions, so anything it does not recognise simply has none.
    """
    comments: dict[str, str] = {}
    package = ""
    scopes: list[tuple[str | None, str, int]] = []  # (name or None, kind, brace depth inside it)
    pending: list[str] = []
    depth = 0

    def full(name: str) -> str:
        names = [s[0] for s in scopes if s[0] is not None]
        return ".".join([p for p in (package, *names, name) if p])

    for raw in source.splitlines():
        code, _, trailing = raw.partition("//")
        stripped = raw.strip()
        if stripped.startswith("//"):
            pending.append(stripped[2:].strip())
            continue
        if not stripped:
            pending = []
            continue
        text = "\n".join(pending).strip() or trailing.strip()
        pending = []
        kind = scopes[-1][1] if scopes else ""
        m_pkg = re.match(r"^\s*package\s+([\w.]+)\s*;", code)
        if m_pkg:
            package = m_pkg.group(1)
        elif m := _DECL.match(code):
            if m.group(1) != "oneof" and text:
                comments[full(m.group(2))] = text
        elif (m := _RPC.match(code)) or (kind == "message" and (m := _FIELD.match(code))):
            if text and not code.lstrip().startswith("option"):
                comments[full(m.group(1))] = text
        elif kind == "enum" and (m := _ENUM_VALUE.match(code)) and text:
            comments[full(m.group(1))] = text
        for ch in code:
            if ch == "{":
                depth += 1
                decl = _DECL.match(code)
                if decl and not any(s[2] == depth for s in scopes):
                    name = None if decl.group(1) == "oneof" else decl.group(2)
                    kind_of = "message" if decl.group(1) == "oneof" else decl.group(1)
                    scopes.append((name, kind_of, depth))
                elif not any(s[2] == depth for s in scopes):
                    scopes.append((None, "block", depth))
            elif ch == "}":
                if scopes and scopes[-1][2] == depth:
                    scopes.pop()
                depth -= 1
    return comments


def load_comments(proto_path: Path | None) -> dict[str, str]:
    """The comments of the ``.proto`` file at ``proto_path``: none when there is no such file."""
    if proto_path is None or not proto_path.is_file():
        return {}
    return proto_comments(proto_path.read_text(encoding="utf-8"))
