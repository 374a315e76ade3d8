#!/usr/bin/env bash
# The README's run command: set up, then run the service in the foreground for a person at a terminal.
#
# With no PATIENCE_REDIS_URL (or --redis-url) the service starts its own redis-server on a Unix socket, with
# append-only persistence under $PATIENCE_DATA_DIR/redis, and stops it on exit; games survive restarts.
# Signing keys and the ticket key are generated on first start under $PATIENCE_DATA_DIR/keys (outside the
# repository). gRPC listens on 127.0.0.1:50051, REST and the web client on http://127.0.0.1:8080/.
# Every PATIENCE_* variable (docs/configuration.md) and every flag (extra arguments) still wins.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash deploy/setup.sh

DATA=${PATIENCE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/patience}
mkdir -p "$DATA"
export PATIENCE_LOCAL_REDIS_DIR=${PATIENCE_LOCAL_REDIS_DIR:-$DATA/redis}
export PATIENCE_KEYS_DIR=${PATIENCE_KEYS_DIR:-$DATA/keys}
export PATIENCE_GENERATE_KEYS=${PATIENCE_GENERATE_KEYS:-true}
export PATIENCE_LISTEN=${PATIENCE_LISTEN:-127.0.0.1:50051}
export PATIENCE_HTTP_LISTEN=${PATIENCE_HTTP_LISTEN:-127.0.0.1:8080}
export PATIENCE_LOG_FORMAT=${PATIENCE_LOG_FORMAT:-text}
# The local Redis refuses writes past this (the service then answers STORE_FULL) rather than fill the disk.
export PATIENCE_LOCAL_REDIS_MAXMEMORY=${PATIENCE_LOCAL_REDIS_MAXMEMORY:-256mb}

echo "patience: gRPC on $PATIENCE_LISTEN, REST and the web client on http://$PATIENCE_HTTP_LISTEN/" >&2
echo "patience: keys in $PATIENCE_KEYS_DIR; Redis: ${PATIENCE_REDIS_URL:-local, data in $PATIENCE_LOCAL_REDIS_DIR}" >&2
exec .venv/bin/python -m service "$@"
