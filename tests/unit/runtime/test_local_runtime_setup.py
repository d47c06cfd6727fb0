"""LocalRuntime.setup checks the host for what the local server needs (runtime.md §13)."""

from __future__ import annotations

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.runtime.impl.local.local_runtime import LocalRuntime


def test_setup_passes_on_a_prepared_host() -> None:
    LocalRuntime.setup(OpenHandsConfig())


def test_setup_reports_a_missing_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RuntimeError, match="tmux"):
        LocalRuntime.setup(OpenHandsConfig())
    monkeypatch.setenv("SKIP_DEPENDENCY_CHECK", "1")
    LocalRuntime.setup(OpenHandsConfig())
