"""The Jupyter plugin (runtime.md §6) with a real ipykernel process on this machine."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from openhands.events.action import IPythonRunCellAction
from openhands.runtime.plugins.jupyter.kernel import IPythonKernel, KernelLaunch, strip_ansi
from openhands.runtime.plugins.jupyter.plugin import NO_OUTPUT, JupyterPlugin, kernel_launch

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def kernel() -> Iterator[IPythonKernel]:
    kernel = IPythonKernel(KernelLaunch(python=sys.executable, code_dir=str(PROJECT_ROOT)))
    kernel.start()
    try:
        yield kernel
    finally:
        kernel.shutdown()


def test_stream_and_result_text(kernel: IPythonKernel) -> None:
    result = kernel.execute("print('a'); print('b', end=''); 40 + 2", timeout=10)
    assert result.text == "a\nb42\n"
    assert not result.timed_out and result.image_urls == []


def test_error_gives_traceback(kernel: IPythonKernel) -> None:
    result = kernel.execute("raise ValueError('boom')", timeout=10)
    assert "ValueError: boom" in result.text


def test_timeout_interrupts(kernel: IPythonKernel) -> None:
    result = kernel.execute("import time; time.sleep(20)", timeout=0.5)
    assert result.timed_out
    assert kernel.execute("print('next')", timeout=5).text == "next\n"


def test_state_persists_between_cells(kernel: IPythonKernel) -> None:
    kernel.execute("value = 'kept'", timeout=10)
    assert kernel.execute("print(value)", timeout=10).text == "kept\n"


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[0;31mred\x1b[0m plain") == "red plain"


def test_local_mode_runs_without_su(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_RUNTIME_MODE", "1")
    monkeypatch.setenv("OPENHANDS_REPO_PATH", "/repo")
    launch = kernel_launch("openhands")
    assert launch.username is None and launch.code_dir == "/repo"
    assert launch.python == sys.executable


def test_plugin_cell_extras_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_RUNTIME_MODE", "1")
    monkeypatch.setenv("OPENHANDS_REPO_PATH", str(PROJECT_ROOT))

    async def scenario() -> None:
        plugin = JupyterPlugin()
        await plugin.initialize("nobody", str(tmp_path))
        try:
            assert plugin.python_interpreter_path == sys.executable
            empty = await plugin.run_cell(IPythonRunCellAction("x = 1"), str(tmp_path))
            assert empty.content == (
                f"{NO_OUTPUT}\n[Jupyter current working directory: {tmp_path}]"
                f"\n[Jupyter Python interpreter: {sys.executable}]"
            )
            moved = await plugin.run_cell(
                IPythonRunCellAction("import os; print(os.getcwd())", include_extra=False),
                "/tmp",
            )
            assert moved.content == "/tmp"
            timed = IPythonRunCellAction("import time; time.sleep(10)", include_extra=False)
            timed.set_hard_timeout(0.5)
            assert (await plugin.run_cell(timed, "/tmp")).content == (
                "[Execution timed out (0.5 seconds).]"
            )
        finally:
            plugin.close()

    asyncio.run(scenario())


def test_start_up_timeout_leaves_no_kernel_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openhands.runtime.server.plugins import start_plugins

    monkeypatch.setenv("LOCAL_RUNTIME_MODE", "1")
    monkeypatch.setenv("OPENHANDS_REPO_PATH", str(PROJECT_ROOT))
    before = _kernel_children()  # the module's kernel fixture may be running
    with pytest.raises(TimeoutError):
        asyncio.run(start_plugins(["jupyter"], "nobody", str(tmp_path), str(tmp_path), 0.2))
    deadline = time.monotonic() + 15
    while _kernel_children() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _kernel_children() - before == set()


def _kernel_children() -> set[int]:
    found = set()
    for child in psutil.Process().children(recursive=True):
        try:
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                found.add(child.pid)
        except psutil.NoSuchProcess:
            continue
    return found
