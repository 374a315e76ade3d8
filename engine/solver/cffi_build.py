"""Builds the solver's C parts with cffi's API mode: the king-chain search (``_kingchain.c`` as
``engine.solver._kingchain_c``) and the late scans of the salic-law games (``_salic.c``) and of captives
(``_captives.c``). setup.py names each builder here in ``cffi_modules`` (``cffi_build.py:kingchain`` ...), so
installing the distribution (editable or as a wheel) compiles them; ``python engine/solver/cffi_build.py [NAME...]``
builds them in place by hand. setuptools runs this file by its path, outside the package: it imports only cffi.
"""

from __future__ import annotations

import os
import re
import sys
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


def _builder(stem: str, shared: tuple[str, ...] = ()) -> FFI:
    """``engine.solver._<stem>_c`` from ``_<stem>.c``, its interface ``_<stem>.h`` and the parts it includes (its own
    ``_<stem>*.h`` and ``shared``, another core's): a change to one rebuilds the module."""
    ffi = FFI()
    ffi.cdef(_declarations((HERE / f"_{stem}.h").read_text()))
    # Paths relative to the repository's root, where setup.py runs (setuptools refuses absolute source paths).
    rel = os.path.relpath(HERE, ROOT)
    parts = sorted({p.name for p in HERE.glob(f"_{stem}*.h")} | set(shared))
    ffi.set_source(
        f"engine.solver._{stem}_c",
        f'#include "_{stem}.h"',
        sources=[os.path.join(rel, f"_{stem}.c")],
        depends=[os.path.join(rel, p) for p in parts],
        include_dirs=[rel],
        extra_compile_args=["-O2"],
    )
    return ffi


kingchain = _builder("kingchain")
# the late scans draw from CPython's generator as the king-chain core's scans do (_kingchain_random.h)
salic = _builder("salic", ("_kingchain_random.h",))
captives = _builder("captives", ("_kingchain_random.h",))
BUILDERS = {"kingchain": kingchain, "salic": salic, "captives": captives}

if __name__ == "__main__":
    os.chdir(ROOT)
    for name in sys.argv[1:] or list(BUILDERS):
        built = Path(BUILDERS[name].compile(verbose=False))
        for leftover in (HERE / f"_{name}_c.c", HERE / f"_{name}_c.o", HERE / f"_{name}.o"):
            leftover.unlink(missing_ok=True)  # only the module stays, as an installation leaves it
        print(built.relative_to(ROOT))
