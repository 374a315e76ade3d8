#!/usr/bin/env bash
# The README's run command: set up, start a private redis-server unless PATIENCE_REDIS_URL
# (or --redis-url) is given, then run the service in the foreground. Extra arguments go to the service.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash deploy/setup.sh

redis_given=${PATIENCE_REDIS_URL:-}
for a in "$@"; do case "$a" in --redis-url|--redis-url=*) redis_given=yes ;; esac; done

if [ -z "$redis_given" ]; then
  DATA=${PATIENCE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/patience}
  mkdir -p "$DATA/redis"
  PORT=${PATIENCE_LOCAL_REDIS_PORT:-6399}
  if ! redis-cli -p "$PORT" ping >/dev/null 2>&1; then
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$DATA/redis" --appendonly yes \
      --daemonize yes --pidfile "$DATA/redis/redis.pid" --logfile "$DATA/redis/redis.log"
    for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  export PATIENCE_REDIS_URL="redis://127.0.0.1:$PORT/0"
  echo "Using local redis-server at $PATIENCE_REDIS_URL (data in $DATA/redis)" >&2
fi
export PATIENCE_KEYS_DIR=${PATIENCE_KEYS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/patience/keys}
exec .venv/bin/python -m service "$@"
