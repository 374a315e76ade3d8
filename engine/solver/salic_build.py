"""Builds the compiled salic-law late scans (``_salic.c``) as ``engine.solver._salic_c`` with cffi's API mode, as
kingchain_build.py builds the king-chain search: setup.py names it in ``cffi_modules``, and
``python engine/solver/salic_build.py`` builds it in place by hand.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _header_declarations() -> Callable[[str], str]:
    """kingchain_build's reading of a header for cffi, loaded by path: setuptools runs this file on its own,
    where the ``engine`` package need not be importable."""
    spec = importlib.util.spec_from_file_location("_kingchain_build", HERE / "kingchain_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    declarations: Callable[[str], str] = module._declarations
    return declarations


CDEF = _header_declarations()((HERE / "_salic.h").read_text())

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
# Paths relative to the repository's root, where setup.py runs (setuptools refuses absolute source paths).
_rel = os.path.relpath(HERE, ROOT)
ffibuilder.set_source(
    "engine.solver._salic_c",
    '#include "_salic.h"',
    sources=[os.path.join(_rel, "_salic.c")],
    # the parts _salic.c includes (the king-chain core's generator among them): a change to one rebuilds the module
    depends=sorted(os.path.join(_rel, p.name) for p in (*HERE.glob("_salic*.h"), HERE / "_kingchain_random.h")),
    include_dirs=[_rel],
    extra_compile_args=["-O2"],
)

if __name__ == "__main__":
    os.chdir(ROOT)
    built = Path(ffibuilder.compile(verbose=False))
    for leftover in (HERE / "_salic_c.c", HERE / "_salic_c.o", HERE / "_salic.o"):
        leftover.unlink(missing_ok=True)  # only the module stays, as an installation leaves it
    print(built.relative_to(ROOT))
