"""Cross-package tests over real parts: the scripted LLM over HTTP, LocalRuntime, files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixtures import scripted_llm  # noqa: F401


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep user microagents and the local runtime's shell setup away from the real HOME."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SKIP_DEPENDENCY_CHECK", "1")
