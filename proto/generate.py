"""Generate the Python code for proto/patience/v1/patience.proto (never edit the output by hand).

Usage: ``python proto/generate.py`` (writes next to the .proto files) or
``python proto/generate.py --out DIR`` (the freshness test compares the two).
Needs grpcio-tools (the ``test`` extra); google/api/*.proto come from
googleapis-common-protos, google/protobuf/*.proto from grpcio-tools.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
SOURCES = ("patience/v1/patience.proto",)


def include_dirs() -> list[str]:
    """The import roots: ours, googleapis-common-protos' and protobuf's well-known types."""
    import google.api  # googleapis-common-protos ships the .proto files next to the modules
    import grpc_tools

    google_api = Path(next(iter(google.api.__path__)))
    well_known = Path(str(resources.files(grpc_tools) / "_proto"))
    return [str(PROTO_ROOT), str(google_api.parent.parent), str(well_known)]


def generate(out: Path) -> None:
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    args = ["grpc_tools.protoc", *(f"-I{d}" for d in include_dirs())]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}", *SOURCES]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PROTO_ROOT, help="output root (default: proto/)")
    generate(parser.parse_args(argv).out)


if __name__ == "__main__":
    main(sys.argv[1:])
