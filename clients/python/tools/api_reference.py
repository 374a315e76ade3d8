"""Write the client's API reference (docs/client-api.md) from its docstrings and signatures.

Usage, from the repository root::

    .venv/bin/python clients/python/tools/api_reference.py          # rewrite docs/client-api.md
    .venv/bin/python clients/python/tools/api_reference.py --check  # exit 1 if the file is stale

Markdown rather than a generated HTML site: it reads on any code host, diffs
cleanly in review, and its freshness test (tests/clients/test_client_docs.py) needs no
tool version pinned. Never edit the output by hand.
"""

from __future__ import annotations

import argparse
import enum
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]
OUTPUT = ROOT / "docs" / "client-api.md"

#: The modules of the public API, in reading order.
MODULES = (
    "patience_client.client",
    "patience_client.session",
    "patience_client.aio",
    "patience_client.config",
    "patience_client.errors",
    "patience_client.certificates",
    "patience_client.moves",
    "patience_client.solver",
    "patience_client.statefile",
)


def _doc(obj: object) -> str:
    return _markdown(inspect.cleandoc(obj.__doc__)) if obj.__doc__ else ""


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(module).items()
            if not n.startswith("_")
            and getattr(v, "__module__", None) == module.__name__
            and (inspect.isclass(v) or inspect.isfunction(v))
        ]
    return list(names)


class _Text:
    """An annotation already in text form (``from __future__ import annotations``), shown without quotes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(obj: object, *, drop_self: bool = False, drop_return: bool = False) -> str:
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "(...)"
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    params = [p.replace(annotation=_Text(p.annotation)) if isinstance(p.annotation, str) else p for p in params]
    ret = sig.return_annotation
    if drop_return:
        ret = inspect.Signature.empty
    elif isinstance(ret, str):
        ret = _Text(ret)
    return str(sig.replace(parameters=params, return_annotation=ret))


_ROLE = re.compile(r":(?:class|meth|func|data|attr|mod|exc):`~?([^`]+)`")


def _markdown(text: str) -> str:
    """Sphinx roles and double backquotes as Markdown code."""
    return _ROLE.sub(r"`\1`", text).replace("``", "`")


def _members(cls: type) -> list[tuple[str, object]]:
    """Public methods and properties defined on ``cls`` itself, in source order."""
    out: list[tuple[str, object]] = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if inspect.isfunction(value) or isinstance(value, property | staticmethod | classmethod):
            out.append((name, value))
    return out


def _class(name: str, cls: type) -> list[str]:
    if issubclass(cls, BaseException):
        head = f"### exception `{name}`"
    elif issubclass(cls, enum.Enum):
        head = f"### enum `{name}`"
    else:
        head = f"### class `{name}{_signature(cls, drop_return=True)}`"
    bases = [b.__name__ for b in cls.__bases__ if b is not object]
    lines = [head, ""]
    if bases:
        lines += [f"Bases: {', '.join(f'`{b}`' for b in bases)}", ""]
    if _doc(cls):
        lines += [_doc(cls), ""]
    if issubclass(cls, BaseException) and getattr(cls, "code", None) is not None and "code" in vars(cls):
        lines += [f"Status code: `{cls.code.name}`", ""]  # type: ignore[attr-defined]
    if issubclass(cls, enum.Enum):
        lines += [f"Values: {', '.join(f'`{m.value}`' for m in cls)}", ""]
    for mname, member in _members(cls):
        func: object
        if isinstance(member, property):
            lines += [f"#### property `{mname}`", ""]
            func = member.fget
        else:
            func = member.__func__ if isinstance(member, staticmethod | classmethod) else member
            prefix = "async " if inspect.iscoroutinefunction(func) else ""
            lines += [f"#### {prefix}`{mname}{_signature(func, drop_self=True)}`", ""]
        if func is not None and _doc(func):
            lines += [_doc(func), ""]
    return lines


def _function(name: str, func: object) -> list[str]:
    prefix = "async " if inspect.iscoroutinefunction(func) else ""
    lines = [f"### {prefix}function `{name}{_signature(func)}`", ""]
    if _doc(func):
        lines += [_doc(func), ""]
    return lines


def render() -> str:
    package = importlib.import_module("patience_client")
    lines = [
        "# patience_client API reference",
        "",
        "<!-- Generated by clients/python/tools/api_reference.py from the docstrings; do not edit. -->",
        "",
        _doc(package),
        "",
        "Modules: " + ", ".join(f"[`{m}`](#{m.replace('.', '')})" for m in MODULES),
        "",
    ]
    for modname in MODULES:
        module = importlib.import_module(modname)
        lines += [f"## {modname}", "", _doc(module), ""]
        for name in _public_names(module):
            value = getattr(module, name)
            if inspect.isclass(value):
                lines += _class(name, value)
            elif inspect.isfunction(value):
                lines += _function(name, value)
            elif isinstance(value, str) and name.isupper():
                lines += [f"### constant `{name}`", "", value, ""]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/client-api.md is not up to date")
    parser.add_argument("--out", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
