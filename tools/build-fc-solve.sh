#!/usr/bin/env bash
# Build Freecell Solver, the tests' independent oracle for the king-chain games, from Debian's source package.
#
# Debian's freecell-solver-bin is compiled for at most 8 cards in a starting column, too few for a Cat's Tail or
# Royal Retinue deal (columns of 40 cards and more). This rebuilds the release Debian ships (5.0.0 on bookworm)
# from its original source tarball with MAX_NUM_INITIAL_CARDS_IN_A_STACK=104, linked to its own static library.
#
#   bash tools/build-fc-solve.sh [PREFIX]        (PREFIX defaults to ~/.cache/fc-solve)
#
# Installs PREFIX/bin/fc-solve and, where that binary looks for them, the presets (PREFIX/share/freecell-solver:
# the tests run '-l cj'). Does nothing when PREFIX/bin/fc-solve already runs. Needs root (or sudo) for apt-get:
# the build tools come from Debian, and the source from the deb-src twin of the machine's own Debian sources,
# through a private apt configuration that leaves the system's lists alone. About a minute on 2 cores.
set -euo pipefail
PREFIX=${1:-$HOME/.cache/fc-solve}
if [ -x "$PREFIX/bin/fc-solve" ] && "$PREFIX/bin/fc-solve" --version >/dev/null 2>&1; then
  echo "$PREFIX/bin/fc-solve"
  exit 0
fi
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
retry() { for i in 1 2 3; do "$@" && return 0; sleep $((i * 5)); done; return 1; }

tools=(cmake make gcc gperf perl libpath-tiny-perl libtemplate-perl xz-utils)
missing=()
for p in "${tools[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  retry $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
  retry $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/sources" "$work/apt/lists/partial" "$work/src" "$work/build"
# deb-src entries for the suites and mirrors the machine already uses (deb822 or one-line format).
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -n '/^Types:/s/.*/Types: deb-src/p; /^Types:/!p' "$f" >"$work/apt/sources/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >"$work/apt/sources/from-list.list"
fi
apt_src=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/apt/sources"
  -o "Dir::State::Lists=$work/apt/lists")
# as root, download as root too: apt's _apt user cannot write into this private folder
[ "$(id -u)" != 0 ] || apt_src+=(-o APT::Sandbox::User=root)
retry apt-get "${apt_src[@]}" update -qq
# The .orig tarball is the upstream release; Debian's packaging tarball is not needed to build the program.
(cd "$work/src" && apt-get "${apt_src[@]}" source --download-only freecell-solver >/dev/null 2>&1) || true
orig=$(find "$work/src" -name 'freecell-solver_*.orig.tar.*' | head -n 1)
[ -n "$orig" ] || { echo "build-fc-solve.sh: no freecell-solver source from the Debian mirror" >&2; exit 1; }
tar -xf "$orig" -C "$work/src"
source_dir=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'freecell-solver-*' | head -n 1)

# From inside the build folder: the configure step writes generated sources (patsolve's param.c) into the current
# directory and looks for them there.
cd "$work/build"
cmake "$source_dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DMAX_NUM_INITIAL_CARDS_IN_A_STACK=104 -DBUILD_STATIC_LIBRARY=ON -DFCS_LINK_TO_STATIC=ON \
  -DFCS_WITH_TEST_SUITE=OFF -DFCS_BUILD_DOCS=OFF -DFCS_AVOID_TCMALLOC=ON >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log" >&2; exit 1; }
make -j"$(nproc)" fc-solve >"$work/make.log" 2>&1 || { tail -n 40 "$work/make.log" >&2; exit 1; }

# The binary reads PREFIX/share/freecell-solver/presetrc (compiled in), which names the presets' folder.
share="$PREFIX/share/freecell-solver"
mkdir -p "$PREFIX/bin" "$share/presets"
cp "$source_dir"/Presets/presets/*.sh "$share/presets/"
cp "$work/build/Presets/presetrc" "$share/presetrc"
install -m 755 "$work/build/fc-solve" "$PREFIX/bin/fc-solve.new"
mv "$PREFIX/bin/fc-solve.new" "$PREFIX/bin/fc-solve"
"$PREFIX/bin/fc-solve" --version >/dev/null
echo "$PREFIX/bin/fc-solve"
