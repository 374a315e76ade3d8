#!/usr/bin/env bash
# Build the service image from deploy/Dockerfile, the way CI does (tests/deploy/test_image.py runs this script).
#
#   bash deploy/build-image.sh [TAG...]     (default tags: patience-service:local and patience-service:VERSION)
#
# Engine: $PATIENCE_IMAGE_ENGINE (docker or buildah) if set; else docker when a Docker engine answers
# `docker info`; otherwise buildah (no daemon, chroot isolation, Docker image format so that the HEALTHCHECK
# is kept: the OCI format has no place for it).
# Base (the Dockerfile's PYTHON_IMAGE): $PATIENCE_PYTHON_IMAGE if set; otherwise the official
# python:3.11-slim-bookworm when a registry serves it; otherwise a Debian bookworm base made with mmdebstrap
# (Debian's python3, also 3.11), kept in local image storage and rebuilt when its recipe changes or it is older
# than $PATIENCE_BASE_MAX_AGE_DAYS (default 7) days, so security updates arrive.
# CA bundle: $PATIENCE_BUILD_CA, else $PIP_CERT, else /etc/ssl/certs/ca-certificates.crt, if the file exists,
# is passed to pip inside the build as the build secret `pip-ca`: mounted for the RUN steps that use pip,
# never stored in a layer (a package index behind a TLS-inspecting proxy needs it).
# Output: the build log on stderr; on stdout the figures, one `name: value` a line (image, engine, base, size,
# layers, build seconds, then the largest layers and packages: deploy/image-report.sh);
# $PATIENCE_IMAGE_REPORT=FILE also writes the figures as JSON.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

OFFICIAL_BASE=python:3.11-slim-bookworm
DEBIAN_SUITE=bookworm
DEBIAN_PACKAGES=python3,python3-venv,python-is-python3,ca-certificates,passwd
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' service/pyproject.toml | head -n 1)
if [ $# -gt 0 ]; then tags=("$@"); else tags=("patience-service:local" "patience-service:$VERSION"); fi

say() { echo "build-image: $*" >&2; }
die() { say "$*"; exit 1; }

if [ -n "${PATIENCE_IMAGE_ENGINE:-}" ]; then
  engine=$PATIENCE_IMAGE_ENGINE
  case $engine in docker | buildah) ;; *) die "PATIENCE_IMAGE_ENGINE is docker or buildah, not $engine" ;; esac
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
elif command -v buildah >/dev/null; then
  engine=buildah
else
  die "neither a Docker engine nor buildah is available (deploy/setup.sh installs buildah)"
fi

image_exists() {
  if [ "$engine" = docker ]; then docker image inspect "$1" >/dev/null 2>&1; else buildah inspect --type image "$1" >/dev/null 2>&1; fi
}

pull() {
  if [ "$engine" = docker ]; then timeout 300 docker pull -q "$1" >/dev/null 2>&1; else timeout 300 buildah pull -q "$1" >/dev/null 2>&1; fi
}

# A Debian base with Python made by mmdebstrap: what an official base would give, where no registry is reachable.
# Merged /usr without the usrmerge package (which pulls in perl), no documentation, manual pages or
# translations; apt stays, as in the official slim image.
debian_base() {
  local recipe hash tag created age max_age tmp ctr
  recipe="mmdebstrap --variant=apt --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr $DEBIAN_SUITE $DEBIAN_PACKAGES"
  recipe+=" no-docs updates+security"
  hash=$(printf '%s' "$recipe" | sha256sum | cut -c1-12)
  tag="localhost/patience-python-base:$DEBIAN_SUITE-$hash"
  max_age=${PATIENCE_BASE_MAX_AGE_DAYS:-7}
  if image_exists "$tag"; then
    created=$(buildah inspect --type image --format '{{.Docker.Created.Unix}}' "$tag" 2>/dev/null || echo 0)
    age=$(( ($(date +%s) - created) / 86400 ))
    if [ "$age" -lt "$max_age" ]; then echo "$tag"; return; fi
    say "the Debian base $tag is $age days old: rebuilding it"
  fi
  command -v mmdebstrap >/dev/null || die "no registry and no mmdebstrap to make a Debian base (deploy/setup.sh installs it)"
  [ "$engine" = buildah ] || die "the mmdebstrap base is imported with buildah; install buildah or reach a registry"
  tmp=$(mktemp -d)
  say "making a Debian $DEBIAN_SUITE base with mmdebstrap ($tag)"
  mmdebstrap --quiet --variant=apt --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --include="$DEBIAN_PACKAGES" "$DEBIAN_SUITE" "$tmp/base.tar" \
    "deb http://deb.debian.org/debian $DEBIAN_SUITE main" \
    "deb http://deb.debian.org/debian $DEBIAN_SUITE-updates main" \
    "deb http://deb.debian.org/debian-security $DEBIAN_SUITE-security main" >&2
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$tmp/base.tar" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env LANG=C.UTF-8 \
    --cmd python3 --label "org.opencontainers.image.description=Debian $DEBIAN_SUITE with python3 (mmdebstrap)" \
    "$ctr"
  buildah commit --quiet --format docker --rm "$ctr" "$tag" >/dev/null
  rm -rf "$tmp"
  echo "$tag"
}

if [ -n "${PATIENCE_PYTHON_IMAGE:-}" ]; then
  base=$PATIENCE_PYTHON_IMAGE
elif image_exists "$OFFICIAL_BASE" || image_exists "docker.io/library/$OFFICIAL_BASE" || pull "docker.io/library/$OFFICIAL_BASE"; then
  base=docker.io/library/$OFFICIAL_BASE
else
  say "no registry serves $OFFICIAL_BASE here: using a Debian base made with mmdebstrap"
  base=$(debian_base)
fi

ca=${PATIENCE_BUILD_CA:-${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}}
secret=()
if [ -s "$ca" ]; then secret=(--secret "id=pip-ca,src=$ca"); else say "no CA bundle at $ca: pip uses the base's own"; fi

tag_args=()
for t in "${tags[@]}"; do tag_args+=(-t "$t"); done

started=$(date +%s.%N)
if [ "$engine" = docker ]; then
  DOCKER_BUILDKIT=1 docker build -f deploy/Dockerfile --build-arg "PYTHON_IMAGE=$base" "${secret[@]}" \
    "${tag_args[@]}" . >&2
  size=$(docker image inspect --format '{{.Size}}' "${tags[0]}")
  layers=$(docker image inspect --format '{{len .RootFS.Layers}}' "${tags[0]}")
  image_id=$(docker image inspect --format '{{.Id}}' "${tags[0]}")
else
  # --layers: one layer per instruction as docker makes them, and a cache keyed by content for the next build;
  # --force-rm: a failed build leaves no working container behind.
  buildah bud --isolation chroot --format docker --layers --force-rm -f deploy/Dockerfile \
    --build-arg "PYTHON_IMAGE=$base" "${secret[@]}" "${tag_args[@]}" . >&2
  # The manifest lists every layer with its uncompressed size: the image's size as `docker images` shows it.
  read -r size layers < <(buildah inspect --type image --format '{{.Manifest}}' "${tags[0]}" \
    | python3 -c 'import json, sys; m = json.load(sys.stdin)["layers"]; print(sum(x["size"] for x in m), len(m))')
  image_id=$(buildah inspect --type image --format '{{.FromImageID}}' "${tags[0]}")
fi
seconds=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)")

cat <<EOF
image: ${tags[*]}
id: $image_id
engine: $engine
base: $base
size: $size bytes ($(( (size + 500000) / 1000000 )) MB)
layers: $layers
build seconds: $seconds
EOF
# The largest layers and packages (deploy/image-report.sh): what to look at when the size grows.
bash "$ROOT/deploy/image-report.sh" "${tags[0]}" "$engine" || say "no report of the image's layers and packages"
if [ -n "${PATIENCE_IMAGE_REPORT:-}" ]; then
  python3 - "$PATIENCE_IMAGE_REPORT" "$engine" "$base" "$size" "$layers" "$seconds" "$image_id" "${tags[@]}" <<'PY'
import json
import sys

path, engine, base, size, layers, seconds, image_id, *tags = sys.argv[1:]
report = {"tags": tags, "id": image_id, "engine": engine, "base": base, "size_bytes": int(size),
          "layers": int(layers), "build_seconds": float(seconds)}
with open(path, "w", encoding="utf-8") as out:
    json.dump(report, out, indent=2)
PY
fi
