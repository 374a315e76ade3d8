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
  # buildah + mmdebstrap + uidmap: deploy/build-image.sh builds and tests/deploy/test_image.py runs the image without a
  # Docker engine (docs/deployment.md).
  # gcc + libc6-dev + python3-dev: installing patience-core compiles the king-chain search (engine/solver/_kingchain.c).
  for p in redis-server redis-tools python3-venv python3-dev gcc libc6-dev chromium buildah mmdebstrap uidmap; do
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

# Node.js tools for the checks (tools/package.json: buf for the API's lint and breaking-change checks, axe-core
# for the web client's accessibility scan in the browser tests).
if ! command -v npm >/dev/null && [ "${PATIENCE_SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive retry $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq nodejs npm >/dev/null
fi
if [ ! -x tools/node_modules/.bin/buf ] || [ ! -f tools/node_modules/axe-core/axe.min.js ] \
  || [ tools/package-lock.json -nt tools/node_modules/.package-lock.json ]; then
  (cd tools && retry npm ci --silent --no-audit --no-fund)
fi

# Freecell Solver with room for 104-card columns: the tests' independent oracle (tools/build-fc-solve.sh).
if [ -z "${FC_SOLVE:-}" ] && [ ! -x "$HOME/.cache/fc-solve/bin/fc-solve" ]; then
  if [ "${PATIENCE_SKIP_APT:-0}" = 1 ]; then
    echo "setup.sh: no fc-solve, and PATIENCE_SKIP_APT=1 forbids building it (run tools/build-fc-solve.sh)" >&2
  else
    bash tools/build-fc-solve.sh >/dev/null
  fi
fi

# promtool checks and unit-tests the alerting rules (tests/deploy/test_monitoring.py). Debian ships it in the
# `prometheus` package, whose server we do not want installed or started: only the binary is taken, into the
# virtualenv below, from the downloaded package.
promtool_into() {
  local target=$1 tmp
  [ -x "$target/promtool" ] && return 0
  command -v apt-get >/dev/null || { echo "setup.sh: no apt-get: install promtool by hand" >&2; return 0; }
  tmp=$(mktemp -d)
  (cd "$tmp" && retry apt-get download -qq prometheus >/dev/null 2>&1) \
    && dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb | tar -x -C "$tmp" ./usr/bin/promtool \
    && install -m 0755 "$tmp/usr/bin/promtool" "$target/promtool" \
    || echo "setup.sh: could not take promtool from Debian's prometheus package" >&2
  rm -rf "$tmp"
}

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# The stamp covers the compiled search's sources too: the editable install builds it in place, once.
stamp=.venv/.installed-$(cat pyproject.toml service/pyproject.toml clients/python/pyproject.toml setup.py \
  engine/solver/_kingchain*.[ch] engine/solver/_salic*.[ch] engine/solver/_captives*.[ch] \
  engine/solver/cffi_build.py | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  # The build backend's deprecation warnings would bury the test output: keep pip's log, show it on failure.
  pip_log=.venv/pip-install.log
  quiet_pip() { .venv/bin/pip install -q "$@" >>"$pip_log" 2>&1 || { cat "$pip_log" >&2; return 1; }; }
  : >"$pip_log"
  retry quiet_pip --upgrade pip
  # A virtualenv made before the split into three distributions holds a patience-service built from the root,
  # whose uninstall (pip replacing it) would take patience-core's `patience` command with it: remove it first.
  if .venv/bin/pip show patience-service 2>/dev/null | grep -qx "Editable project location: $ROOT"; then
    .venv/bin/pip uninstall -y -q patience-service >>"$pip_log" 2>&1
  fi
  # The three distributions (README.md), editable, in one command so that pip takes patience-core from the
  # checkout, and the development tools (pyproject.toml's dependency group `test`: pip >= 25.1).
  retry quiet_pip --group test -e . -e ./service -e ./clients/python
  rm -f .venv/.installed-*; touch "$stamp"
fi
promtool_into .venv/bin
