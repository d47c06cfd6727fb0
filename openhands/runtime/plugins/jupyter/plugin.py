"""The ``jupyter`` plugin: IPython cells for ``run_ipython`` actions (runtime.md §6).

Around every cell the plugin keeps the kernel in the bash session's directory and, with
``include_extra``, tells the agent where the cell ran and with which interpreter.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import sys
from pathlib import Path

import openhands
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import IPythonRunCellAction
from openhands.events.observation import IPythonRunCellObservation
from openhands.runtime.plugins.base import Plugin
from openhands.runtime.plugins.jupyter.kernel import IPythonKernel, KernelError, KernelLaunch
from openhands.runtime.utils.bash import su_target

NO_OUTPUT = "[Code executed successfully with no output]"
DEFAULT_CELL_TIMEOUT = 120.0


def timed_out_text(timeout: float) -> str:
    return f"[Execution timed out ({float(timeout)} seconds).]"


def kernel_launch(username: str) -> KernelLaunch:
    """Where and as whom the kernel runs: our interpreter, our package on its path."""
    if os.environ.get("LOCAL_RUNTIME_MODE") == "1":
        code_dir = os.environ.get("OPENHANDS_REPO_PATH") or str(_package_root())
        return KernelLaunch(python=sys.executable, code_dir=code_dir)
    user = su_target(username) if os.getuid() == 0 else None
    return KernelLaunch(python=sys.executable, code_dir=str(_package_root()), username=user)


def _package_root() -> Path:
    return Path(openhands.__file__).resolve().parent.parent


def launch_early(username: str) -> IPythonKernel | None:
    """Launch the kernel process now, so that it boots (~1 s) while the server imports the
    rest of itself; ``JupyterPlugin(kernel=...)`` connects to it. None when the sandbox user
    does not exist yet (the server creates it first) or the launch fails."""
    launch = kernel_launch(username)
    if launch.username is not None:
        try:
            pwd.getpwnam(launch.username)
        except KeyError:
            return None
    kernel = IPythonKernel(launch)
    try:
        kernel.launch_process()
    except Exception as exc:  # the regular start will try again and report
        logger.warning("Early kernel launch failed: %s", exc)
        return None
    return kernel


class JupyterPlugin(Plugin):
    name = "jupyter"

    def __init__(self, kernel: IPythonKernel | None = None) -> None:
        """``kernel``: one from ``launch_early``, to connect to instead of starting one."""
        self.kernel = kernel
        self.python_interpreter_path = ""
        self._kernel_cwd: str | None = None

    async def initialize(self, username: str, work_dir: str) -> None:
        if self.kernel is not None:
            try:
                await asyncio.to_thread(self.kernel.connect)
            except KernelError as exc:
                logger.warning("Early kernel did not come up (%s); starting another", exc)
                self.kernel = None
        if self.kernel is None:
            # Set before starting, so that close() (e.g. after the start-up timeout) stops it.
            self.kernel = IPythonKernel(kernel_launch(username))
            await asyncio.to_thread(self.kernel.start)
        await self.run_code("%colors nocolor")
        printed = await self.run_code("import sys; print(sys.executable)")
        self.python_interpreter_path = printed.strip()
        await self.sync_cwd(work_dir)

    def close(self) -> None:
        if self.kernel is not None:
            self.kernel.shutdown()
            self.kernel = None

    async def run_code(self, code: str, timeout: float = DEFAULT_CELL_TIMEOUT) -> str:
        """Run helper code (not an agent cell) and return what it printed."""
        assert self.kernel is not None, "Jupyter kernel not started"
        result = await asyncio.to_thread(self.kernel.execute, code, timeout)
        return result.text

    async def sync_cwd(self, cwd: str) -> None:
        if cwd == self._kernel_cwd:
            return
        await self.run_code(f"import os; os.chdir({cwd!r})")
        self._kernel_cwd = cwd

    async def run_cell(self, action: IPythonRunCellAction, cwd: str) -> IPythonRunCellObservation:
        assert self.kernel is not None, "Jupyter kernel not started"
        await self.sync_cwd(cwd)
        timeout = action.timeout if action.timeout is not None else DEFAULT_CELL_TIMEOUT
        result = await asyncio.to_thread(self.kernel.execute, action.code, timeout)
        text = result.text.rstrip() or NO_OUTPUT
        content = timed_out_text(timeout) if result.timed_out else text
        if action.include_extra:
            content += (
                f"\n[Jupyter current working directory: {cwd}]"
                f"\n[Jupyter Python interpreter: {self.python_interpreter_path}]"
            )
        return IPythonRunCellObservation(
            content=content, code=action.code, image_urls=result.image_urls or None
        )
