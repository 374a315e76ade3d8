"""The compiled part of patience-core: cffi builds engine/solver/_kingchain.c and _salic.c (everything else is in
pyproject.toml)."""

from setuptools import setup

setup(
    cffi_modules=[
        "engine/solver/kingchain_build.py:ffibuilder",
        "engine/solver/salic_build.py:ffibuilder",
        "engine/solver/captives_build.py:ffibuilder",
    ]
)
