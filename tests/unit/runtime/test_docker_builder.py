"""DockerRuntimeBuilder pieces that need no running engine."""

from __future__ import annotations

import pytest

from openhands.runtime.builder.docker import docker_client
from openhands.runtime.errors import AgentRuntimeBuildError, AgentRuntimeEngineError
from openhands.runtime.utils.runtime_build import BuildFromImageType, render_dockerfile


def test_missing_engine_says_how_to_start_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(AgentRuntimeEngineError, match=r"containers/dev/ensure-docker\.sh") as info:
        docker_client()
    assert isinstance(info.value, AgentRuntimeBuildError)


def test_scratch_dockerfile_creates_user_venv_and_source() -> None:
    text = render_dockerfile("base:1", BuildFromImageType.SCRATCH)
    froms = [line for line in text.splitlines() if line.startswith("FROM ")]
    # The uv tools' build stage, then the image itself, both on the base.
    assert froms == ["FROM base:1 AS uv-tools", "FROM base:1"]
    assert "useradd -l -m -u 1000" in text
    assert "--no-index --find-links /tmp/oh-wheels" in text
    assert text.rstrip().endswith("WORKDIR /openhands/code")


def test_lock_dockerfile_only_copies_source() -> None:
    text = render_dockerfile("repo:lock", BuildFromImageType.LOCK, extra_deps="echo extra")
    assert "FROM repo:lock" in text
    assert "useradd" not in text and "pip install" not in text
    assert "COPY --chown=1000:1000 code /openhands/code" in text
    assert "USER openhands\nRUN echo extra" in text


def test_versioned_dockerfile_reinstalls_dependencies() -> None:
    text = render_dockerfile("repo:versioned", BuildFromImageType.VERSIONED)
    assert "useradd" not in text
    assert "pip install" in text


def test_uv_and_its_tools_come_from_a_build_stage_unless_only_the_source_changes() -> None:
    for kind in (BuildFromImageType.SCRATCH, BuildFromImageType.VERSIONED):
        text = render_dockerfile("repo:x", kind)
        # Installed from the wheels offline, copied over, and checked to start offline.
        assert "COPY tool-wheels /tmp/oh-tool-wheels" in text
        assert "uv tool install --offline" in text
        assert "COPY --from=uv-tools /openhands/uv /openhands/uv" in text
        assert "UV_OFFLINE=1 uvx mcp-server-fetch --help" in text
    lock = render_dockerfile("repo:lock", BuildFromImageType.LOCK)
    assert "uv-tools" not in lock and "tool-wheels" not in lock


def test_chromium_is_installed_only_when_the_browser_is_enabled() -> None:
    install = "apt-get install -y --no-install-recommends"
    for kind in (BuildFromImageType.SCRATCH, BuildFromImageType.VERSIONED):
        with_browser = render_dockerfile("b:1", kind)
        assert install in with_browser and "chromium fonts-dejavu-core libatomic1" in with_browser
        assert "chromium" not in render_dockerfile("b:1", kind, enable_browser=False)
    # A source-only build sits on a lock image that already has (or lacks) it.
    assert "chromium" not in render_dockerfile("repo:lock", BuildFromImageType.LOCK)
