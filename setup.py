"""The compiled part of patience-core: cffi builds engine/solver/_kingchain.c and _salic.c (everything else is in
pyproject.toml)."""

from setuptools import setup

setup(
    cffi_modules=[
        "engine/solver/cffi_build.py:kingchain",
        "engine/solver/cffi_build.py:salic",
        "engine/solver/cffi_build.py:captives",
    ]
)
