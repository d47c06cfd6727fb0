"""The VS Code image variant's background build (issue 24 item 7): nobody waits for it, one
build runs at a time, its progress and end are reported, a failure is not retried."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.runtime.builder.base import RuntimeBuilder
from openhands.runtime.impl.docker.vscode_variant import (
    VSCODE_VARIANT,
    VariantState,
    VariantStatus,
    VSCodeVariantBuilds,
)
from openhands.runtime.utils.runtime_build import vscode_variant_name
from openhands.server.routes.vscode_image import get_vscode_image

PLAIN = "openhands-runtime:oh_v0.59.0_lockhash_sourcehash"
TIMEOUT = 30.0


class Images(RuntimeBuilder):
    """A builder whose images are a set (the engine's ``image_exists`` answer)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def build(self, path: Path, tags: list[str], **kwargs: object) -> str:  # type: ignore[override]
        raise AssertionError("the variant is built by the callback, not here")

    def image_exists(self, image_name: str, pull_from_repo: bool = False) -> bool:
        return image_name in self.names

    def image_id(self, image_name: str) -> str | None:
        return image_name if image_name in self.names else None

    def tag(self, source: str, target: str) -> None:
        self.names.add(target)

    def import_rootfs(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        raise AssertionError("not used")


class GatedBuild:
    """A build that reports one progress line, then waits until the test lets it end."""

    def __init__(self, images: Images, fail: str | None = None) -> None:
        self.images = images
        self.fail = fail
        self.calls = 0
        self.reported = threading.Event()
        self.finish = threading.Event()

    def __call__(self, progress: Callable[[str], None]) -> str:
        self.calls += 1
        progress("Step 2/7 : RUN npm install code-server\n")
        self.reported.set()
        assert self.finish.wait(TIMEOUT)
        if self.fail:
            raise RuntimeError(f"build failed\n{self.fail}")
        variant = vscode_variant_name(PLAIN)
        self.images.names.add(variant)
        return variant


def test_the_first_request_starts_one_background_build_and_gets_the_plain_image() -> None:
    images, builds = Images(), VSCodeVariantBuilds()
    build = GatedBuild(images)
    ready: list[str] = []
    builds.add_ready_listener(lambda: ready.append("refresh"))

    assert builds.image_for(PLAIN, images, build) is None  # no waiting: plain image for now
    assert build.reported.wait(TIMEOUT)
    status = builds.status()
    assert status.state == VariantState.BUILDING
    assert status.message == "Step 2/7 : RUN npm install code-server"
    # Asked again meanwhile: still no variant, and no second build.
    assert builds.image_for(PLAIN, images, build) is None

    build.finish.set()
    assert builds.wait(TIMEOUT)
    assert build.calls == 1
    assert builds.status().state == VariantState.READY
    assert ready == ["refresh"]  # the warm pool is told to replace its plain sandboxes
    assert builds.image_for(PLAIN, images, build) == vscode_variant_name(PLAIN)
    assert build.calls == 1


def test_an_existing_variant_is_used_at_once_without_a_build() -> None:
    images, builds = Images(), VSCodeVariantBuilds()
    images.names.add(vscode_variant_name(PLAIN))
    build = GatedBuild(images)
    assert builds.image_for(PLAIN, images, build) == vscode_variant_name(PLAIN)
    assert build.calls == 0
    assert builds.status().state == VariantState.READY


def test_a_failed_build_is_reported_and_not_retried() -> None:
    images, builds = Images(), VSCodeVariantBuilds()
    build = GatedBuild(images, fail="npm ERR! network unreachable")
    build.finish.set()
    assert builds.image_for(PLAIN, images, build) is None
    assert builds.wait(TIMEOUT)
    status = builds.status()
    assert status.state == VariantState.FAILED
    assert status.message == "npm ERR! network unreachable"
    assert builds.image_for(PLAIN, images, build) is None
    assert build.calls == 1


def test_the_variant_name_matches_the_build_s_naming() -> None:
    assert vscode_variant_name(PLAIN).startswith("openhands-runtime:oh_v0.59.0_lockhash_vscode")
    assert vscode_variant_name(PLAIN).endswith("_sourcehash")


# --- GET /api/options/vscode-image ----------------------------------------------------------


def _status_of(config: OpenHandsConfig) -> dict[str, object]:
    services = SimpleNamespace(config=config)
    return asyncio.run(get_vscode_image(services)).model_dump()  # type: ignore[arg-type]


def test_the_status_route_says_off_not_docker_or_the_build_s_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = OpenHandsConfig(runtime="docker")
    config.sandbox.enable_vscode = False
    assert _status_of(config) == {"enabled": False, "state": "off", "message": None}

    config.sandbox.enable_vscode = True
    config.runtime = "local"
    assert _status_of(config)["state"] == "not_docker"

    config.runtime = "docker"
    building = VariantStatus(VariantState.BUILDING, "img", "Step 4/9 : RUN npm ci")
    monkeypatch.setattr(VSCODE_VARIANT, "status", lambda: building)
    assert _status_of(config) == {
        "enabled": True,
        "state": "building",
        "message": "Step 4/9 : RUN npm ci",
    }


def test_the_status_route_is_registered_on_the_app() -> None:
    from openhands.server.app import create_app

    paths = create_app().openapi()["paths"]
    assert "get" in paths["/api/options/vscode-image"]
