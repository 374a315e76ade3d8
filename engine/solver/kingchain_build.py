"""Builds the compiled king-chain search (``_kingchain.c``) as ``engine.solver._kingchain_c`` with cffi's API
mode: setup.py names it in ``cffi_modules``, so installing the distribution (editable or as a wheel) compiles
it. ``python engine/solver/kingchain_build.py`` builds it in place by hand.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _declarations(header: str) -> str:
    """The header's declarations as cffi's ``cdef`` takes them (one text for the C compiler and for cffi, so the
    two never disagree): without the include guard and the includes, and a constant that is not a plain number
    as ``...`` (cffi then takes its value from the compiler)."""
    skip = ("#ifndef", "#endif", "#include", "#define PATIENCE_")
    lines = []
    for line in header.splitlines():
        if line.startswith(skip):
            continue
        match = re.fullmatch(r"#define (\w+) (.+?)\s*(/\*.*)?", line)
        if match and not match.group(2).isdigit():
            line = f"#define {match.group(1)} ..."
        lines.append(line)
    return "\n".join(lines)


CDEF = _declarations((HERE / "_kingchain.h").read_text())

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
# Paths relative to the repository's root, where setup.py runs (setuptools refuses absolute source paths).
_rel = os.path.relpath(HERE, ROOT)
ffibuilder.set_source(
    "engine.solver._kingchain_c",
    '#include "_kingchain.h"',
    sources=[os.path.join(_rel, "_kingchain.c")],
    # the parts _kingchain.c includes: a change to one rebuilds the module
    depends=sorted(os.path.join(_rel, p.name) for p in HERE.glob("_kingchain*.h")),
    include_dirs=[_rel],
    extra_compile_args=["-O2"],
)

if __name__ == "__main__":
    os.chdir(ROOT)
    built = Path(ffibuilder.compile(verbose=False))
    for leftover in (HERE / "_kingchain_c.c", HERE / "_kingchain_c.o", HERE / "_kingchain.o"):
        leftover.unlink(missing_ok=True)  # only the module stays, as an installation leaves it
    print(built.relative_to(ROOT))
