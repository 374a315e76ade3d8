#!/usr/bin/env bash
# One-time set-up on a fresh Debian/Ubuntu machine: system packages, Freecell Solver, the virtualenv.
# Idempotent; every other script calls it. Set PATIENCE_SKIP_APT=1 to skip apt-get (no root).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
retry() { for i in 1 2 3; do "$@" && return 0; sleep $((i * 5)); done; return 1; }

if [ "${PATIENCE_SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  need=()
  for p in redis-server redis-tools python3-venv chromium; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  # Node.js runs the web client's deal module and the reference certificate verifier in the tests.
  command -v node >/dev/null || need+=(nodejs)
  if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    retry $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
    retry $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need[@]}" >/dev/null
  fi
fi

# Freecell Solver with room for 104-card columns: the tests' independent oracle (tools/build-fc-solve.sh).
if [ -z "${FC_SOLVE:-}" ] && [ ! -x "$HOME/.cache/fc-solve/bin/fc-solve" ]; then
  if [ "${PATIENCE_SKIP_APT:-0}" = 1 ]; then
    echo "setup.sh: no fc-solve, and PATIENCE_SKIP_APT=1 forbids building it (run tools/build-fc-solve.sh)" >&2
  else
    bash tools/build-fc-solve.sh >/dev/null
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=.venv/.installed-$(cat pyproject.toml clients/python/pyproject.toml 2>/dev/null | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  # The build backend's deprecation warnings would bury the test output: keep pip's log, show it on failure.
  pip_log=.venv/pip-install.log
  quiet_pip() { .venv/bin/pip install -q "$@" >>"$pip_log" 2>&1 || { cat "$pip_log" >&2; return 1; }; }
  : >"$pip_log"
  retry quiet_pip --upgrade pip
  retry quiet_pip -e '.[test]'
  if [ -f clients/python/pyproject.toml ]; then retry quiet_pip -e clients/python; fi
  rm -f .venv/.installed-*; touch "$stamp"
fi
