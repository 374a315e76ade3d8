#!/usr/bin/env bash
# The README's test command: set everything up on a fresh machine, then run the whole suite.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash deploy/setup.sh
export FC_SOLVE=${FC_SOLVE:-$HOME/.cache/fc-solve/bin/fc-solve}
# The compiled king-chain search must be built: without it the solver would quietly run in Python, and
# tests/engine/test_solver_compiled.py fails instead (engine/solver/compiled.py).
export PATIENCE_SOLVER=c
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python tools/check_proto.py
# In parallel, one worker per core (pytest-xdist); the tests start their own servers on free ports.
exec .venv/bin/pytest -q -n auto "$@"
