"""buf lint, and buf breaking against the last release, on the API in proto/.

Usage: ``python tools/check_proto.py [--proto-root DIR]`` (exit 1 on a finding). CI runs it (deploy/test.sh), as
do the pre-commit hooks.

buf reads descriptor images here rather than the .proto tree: the images are built with the same protoc and the
same import roots as the generated code (proto/generate.py: googleapis-common-protos' google/api, grpcio-tools'
well-known types), so buf needs no registry and no copy of Google's protos. The last release is named in
``proto/RELEASED`` (tag and commit); its .proto files are read from git at that commit.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "proto"))

from generate import SOURCES, include_dirs  # noqa: E402  (proto/generate.py, beside the .proto files)

BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"
CONFIG = ROOT / "proto" / "buf.yaml"


def build_image(proto_root: Path, out: Path) -> Path:
    """A FileDescriptorSet of SOURCES and everything they import, with comments (buf lints those too)."""
    from grpc_tools import protoc

    imports = [d for d in include_dirs() if Path(d).resolve() != (ROOT / "proto").resolve()]
    args = ["protoc", f"-I{proto_root}", *(f"-I{d}" for d in imports)]
    args += [f"--descriptor_set_out={out}", "--include_imports", "--include_source_info", *SOURCES]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc could not read {proto_root}")
    return out


def released_tree(into: Path) -> tuple[str, Path]:
    """The .proto files of the last release, from git."""
    tag, commit = (ROOT / "proto" / "RELEASED").read_text().split()[:2]
    for source in SOURCES:
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:proto/{source}"], capture_output=True, text=True
        )
        if shown.returncode != 0:
            raise SystemExit(f"release {tag} ({commit}) is not in this clone: {shown.stderr.strip()}")
        target = into / source
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(shown.stdout)
    return tag, into


def buf(*args: str) -> int:
    if not BUF.exists():
        raise SystemExit(f"{BUF.relative_to(ROOT)} is missing: run deploy/setup.sh (npm ci in tools/)")
    paths = [f"--path={source}" for source in SOURCES]
    return subprocess.run([str(BUF), *args, "--config", str(CONFIG), *paths]).returncode


def check(proto_root: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        current = build_image(proto_root, work / "current.binpb")
        tag, old_root = released_tree(work / "released")
        released = build_image(old_root, work / "released.binpb")
        failed = 0
        if buf("lint", str(current)) != 0:
            print("buf lint: the API breaks the style rules above", file=sys.stderr)
            failed = 1
        if buf("breaking", str(current), "--against", str(released)) != 0:
            print(f"buf breaking: the API breaks compatibility with release {tag} (above)", file=sys.stderr)
            failed = 1
        return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proto-root", type=Path, default=ROOT / "proto", help="the tree to check (default: proto/)")
    return check(parser.parse_args(argv).proto_root.resolve())


if __name__ == "__main__":
    sys.exit(main())
