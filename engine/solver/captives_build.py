"""Builds the compiled captives late scans (``_captives.c``) as ``engine.solver._captives_c`` with cffi's API mode:
setup.py names it in ``cffi_modules``, so installing the distribution (editable or as a wheel) compiles it.
``python engine/solver/captives_build.py`` builds it in place by hand.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# The king-chain builder's reading of a header for cffi (one reading for both modules), loaded by its path: setuptools
# runs this file by its path too, outside the package (and without the engine's dependencies).
_spec = importlib.util.spec_from_file_location("_patience_kingchain_build", HERE / "kingchain_build.py")
assert _spec is not None and _spec.loader is not None
_kingchain_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kingchain_build)

CDEF = _kingchain_build._declarations((HERE / "_captives.h").read_text())

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
# Paths relative to the repository's root, where setup.py runs (setuptools refuses absolute source paths).
_rel = os.path.relpath(HERE, ROOT)
ffibuilder.set_source(
    "engine.solver._captives_c",
    '#include "_captives.h"',
    sources=[os.path.join(_rel, "_captives.c")],
    # the parts _captives.c includes (CPython's generator is the king-chain module's): a change rebuilds the module
    depends=sorted(os.path.join(_rel, p.name) for p in (*HERE.glob("_captives*.h"), HERE / "_kingchain_random.h")),
    include_dirs=[_rel],
    extra_compile_args=["-O2"],
)

if __name__ == "__main__":
    os.chdir(ROOT)
    built = Path(ffibuilder.compile(verbose=False))
    for leftover in (HERE / "_captives_c.c", HERE / "_captives_c.o", HERE / "_captives.o"):
        leftover.unlink(missing_ok=True)  # only the module stays, as an installation leaves it
    print(built.relative_to(ROOT))
