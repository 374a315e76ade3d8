#!/usr/bin/env bash
# What takes the room in a built image: its largest layers (with the step that made each) and the largest
# packages of its virtualenv. deploy/build-image.sh prints it after each build; run it alone on any image:
#
#   bash deploy/image-report.sh IMAGE [docker|buildah]
#
# Output: `layer: SIZE MB  STEP` for the $PATIENCE_REPORT_TOP (default 5) largest layers, then
# `package: SIZE MB  NAME` for as many of the largest entries of /opt/venv's site-packages (sizes include the
# compiled .pyc files).
set -euo pipefail
image=${1:?an image name}
engine=${2:-}
top=${PATIENCE_REPORT_TOP:-5}
if [ -z "$engine" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker; else engine=buildah; fi
fi

# The layers with the step that made each (history entries without a layer are skipped), largest first.
layers() {
  python3 -c '
import json, sys
top = int(sys.argv[1])
rows = [json.loads(line) for line in sys.stdin if line.strip()]
for size, step in sorted(((r["size"], " ".join(r["step"].split())) for r in rows), reverse=True)[:top]:
    print(f"layer: {size / 1e6:6.1f} MB  {step[:110]}")
' "$top"
}

# The largest entries of the virtualenv's site-packages, read inside the image.
packages_command="du -sk /opt/venv/lib/python3*/site-packages/* | sort -rn | head -n $top \
| awk '{ n = split(\$2, p, \"/\"); printf \"package: %6.1f MB  %s\\n\", \$1 / 1024, p[n] }'"

if [ "$engine" = docker ]; then
  docker history --no-trunc --format '{"size": {{.Size}}, "step": {{json .CreatedBy}}}' --human=false "$image" \
    | layers
  docker run --rm --entrypoint sh "$image" -c "$packages_command"
else
  # The manifest lists the layers with their sizes, in the order of the history entries that made a layer.
  buildah inspect --type image "$image" | python3 -c '
import json, sys
data = json.load(sys.stdin)
sizes = [layer["size"] for layer in json.loads(data["Manifest"])["layers"]]
steps = [h.get("created_by", "") for h in data["Docker"]["history"] if not h.get("empty_layer")]
for size, step in zip(sizes, steps):
    print(json.dumps({"size": size, "step": step}))
' | layers
  ctr=$(buildah from --pull-never --quiet "$image")
  trap 'buildah rm "$ctr" >/dev/null' EXIT
  buildah run --isolation chroot "$ctr" -- sh -c "$packages_command"
fi
