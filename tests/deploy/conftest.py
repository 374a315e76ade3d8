"""The built image and the keys compose's `keys` job makes with it, shared by the image's test modules (one build
a session: tests/image_support.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from image_support import APP_UID, COMPOSE, KEYS_IN_IMAGE, Container, Image, build, compose_env, load_yaml


@pytest.fixture(scope="session")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    return build(tmp_path_factory.getbasetemp().parent / "image")


@pytest.fixture(scope="session")
def keys_dir(image: Image, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keys made by compose's `keys` job, its exact command, in a container of the image (twice, as on every `up`)."""
    directory = tmp_path_factory.mktemp("image-keys")
    os.chown(directory, APP_UID, APP_UID)
    directory.chmod(0o700)
    job = load_yaml(COMPOSE)["services"]["keys"]
    assert job["volumes"] == [f"keys:{KEYS_IN_IMAGE}"]
    container = Container(image)
    try:
        for _ in range(2):
            result = container.exec(
                [str(c) for c in job["entrypoint"]], compose_env(), [f"{directory}:{KEYS_IN_IMAGE}"], timeout=120
            )
            assert result.returncode == 0, result.stdout + result.stderr
    finally:
        container.remove()
    assert (directory / "signing-key.pem").stat().st_uid == APP_UID, "the job wrote the keys as the image's user"
    return directory
