"""Builds the compiled king-chain search (``_kingchain.c``) as ``engine.solver._kingchain_c`` with cffi's API
mode: setup.py names it in ``cffi_modules``, so installing the distribution (editable or as a wheel) compiles
it. ``python engine/solver/kingchain_build.py`` builds it in place by hand.
"""

from __future__ import annotations

import os
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

CDEF = """
#define KC_ORDER_MAX 16
#define KC_GROUP_END 255
#define KC_WON ...
#define KC_NO_WIN ...
#define KC_UNKNOWN_STATES ...
#define KC_UNKNOWN_SECONDS ...
#define KC_BAD ...
#define KC_NOMEM ...
typedef struct {
    uint8_t order[16];
    int order_len;
    uint32_t seed;
    int scored;
    int weights[4];
    int slices;
    int late_slices;
    int on_visit;
    int best_first;
} kc_scan_config;
typedef struct {
    long long expanded;
    uint8_t *steps;
    int nsteps;
    int *entry_ends;
    int nentries;
} kc_result;
int kc_solve(const uint8_t *cards, const int *lens, int ncols, const uint8_t *cells, int ncells, const uint8_t *fnd,
             int runs, const kc_scan_config *cfgs, int nscans, int nfirst, long long late_after,
             long long max_states, int slice, double deadline, kc_result *out);
void kc_free(kc_result *r);
"""

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
