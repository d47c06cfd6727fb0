"""The kernel launched before the server's imports (``launch_early``), with real ipykernel processes."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from openhands.runtime.plugins.jupyter.kernel import (
    IPythonKernel,
    KernelLaunch,
    write_connection_file,
)
from openhands.runtime.plugins.jupyter.plugin import JupyterPlugin, launch_early

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def local_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """The LocalRuntime way: our interpreter, no `su`."""
    monkeypatch.setenv("LOCAL_RUNTIME_MODE", "1")
    monkeypatch.setenv("OPENHANDS_REPO_PATH", str(PROJECT_ROOT))


def test_connection_file_is_private_and_complete(tmp_path: Path) -> None:
    path = tmp_path / "kernel.json"
    write_connection_file(str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    info = json.loads(path.read_text())
    ports = [info[f"{name}_port"] for name in ("shell", "iopub", "stdin", "control", "hb")]
    assert len(set(ports)) == 5 and all(port > 0 for port in ports)
    assert info["ip"] == "127.0.0.1" and info["transport"] == "tcp"
    assert len(info["key"]) == 64 and info["signature_scheme"] == "hmac-sha256"


@pytest.mark.usefixtures("local_mode")
def test_the_plugin_adopts_the_early_kernel(tmp_path: Path) -> None:
    kernel = launch_early("whoever")
    assert kernel is not None
    plugin = JupyterPlugin(kernel=kernel)
    try:
        asyncio.run(plugin.initialize("whoever", str(tmp_path)))
        assert plugin.kernel is kernel
        assert asyncio.run(plugin.run_code("import os; print(os.getcwd())")) == f"{tmp_path}\n"
        assert plugin.python_interpreter_path == sys.executable
    finally:
        plugin.close()


@pytest.mark.usefixtures("local_mode")
def test_an_early_kernel_that_died_is_replaced(tmp_path: Path) -> None:
    broken = IPythonKernel(KernelLaunch(python="/bin/false", code_dir=str(PROJECT_ROOT)))
    broken.launch_process()
    assert broken._process is not None
    broken._process.wait(timeout=10)
    plugin = JupyterPlugin(kernel=broken)
    try:
        asyncio.run(plugin.initialize("whoever", str(tmp_path)))
        assert plugin.kernel is not None and plugin.kernel is not broken
        assert asyncio.run(plugin.run_code("print(6 * 7)")) == "42\n"
    finally:
        plugin.close()


@pytest.mark.allow_skip_in_ci("non-root CI runners cannot `su`")
@pytest.mark.skipif(os.getuid() != 0, reason="`su` to the sandbox user needs root")
def test_no_early_kernel_for_a_user_that_does_not_exist_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LOCAL_RUNTIME_MODE", raising=False)
    monkeypatch.setenv("RUNTIME_USERNAME", "oh-no-such-user")  # a user `su` would switch to
    assert launch_early("oh-no-such-user") is None
