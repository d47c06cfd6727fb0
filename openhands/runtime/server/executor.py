"""ActionExecutor: runs one action at a time inside the sandbox (runtime.md §3.3, §3.4).

Blocking work (tmux polling, file I/O) runs in a worker thread; the async lock makes the
server strictly sequential, as the host expects.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from openhands.core.logger import openhands_logger as logger
from openhands.events.action import (
    Action,
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
)
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation import CmdOutputObservation, ErrorObservation, Observation
from openhands.runtime.browser.handler import BROWSER_UNAVAILABLE, BrowserHandler
from openhands.runtime.plugins.base import Plugin
from openhands.runtime.plugins.jupyter.kernel import IPythonKernel
from openhands.runtime.plugins.jupyter.plugin import JupyterPlugin
from openhands.runtime.server.options import ServerOptions
from openhands.runtime.server.plugins import close_plugins, start_plugins
from openhands.runtime.server.user_setup import setup_user_and_workspace
from openhands.runtime.utils import files
from openhands.runtime.utils.bash import BashSession
from openhands.runtime.utils.editor import OHEditor
from openhands.runtime.utils.editor.actions import editor_edit, editor_read

INIT_COMMAND_TIMEOUT = 300.0


class ActionExecutor:
    def __init__(self, options: ServerOptions, early_kernel: IPythonKernel | None = None) -> None:
        self.options = options
        self._early_kernel = early_kernel
        self.user_id = options.user_id
        self.bash: BashSession | None = None
        self.plugins: dict[str, Plugin] = {}
        self.editor = OHEditor(workspace_root=options.working_dir)
        self.lock = asyncio.Lock()
        self.initialized = False
        self.started_at = time.time()
        self.last_execution_at = time.time()
        # Chromium starts at the first browse action, not here (quirk Q9: nothing to wait for,
        # and sandboxes that never browse keep their start time and memory).
        self.browser = BrowserHandler(options.working_dir) if options.enable_browser else None
        self._handlers: dict[type[Action], Callable[[Any], Awaitable[Observation]]] = {
            CmdRunAction: self.run,
            IPythonRunCellAction: self.run_ipython,
            FileReadAction: self.read,
            FileWriteAction: self.write,
            FileEditAction: self.edit,
            BrowseURLAction: self.browse,
            BrowseInteractiveAction: self.browse,
        }

    # -- lifecycle --------------------------------------------------------------------------------

    async def initialize(self) -> None:
        """Steps 2–8 of the start-up sequence; the listener opens only after this returns."""
        opts = self.options
        self.user_id = await asyncio.to_thread(
            setup_user_and_workspace,
            opts.username,
            opts.user_id,
            opts.working_dir,
            opts.sandbox_group,
        )
        self.bash = BashSession(
            opts.working_dir, username=opts.bash_username, tmux_socket_name=opts.tmux_socket
        )
        # Bash and the plugins start side by side (the kernel takes longest); both begin in
        # the working dir, so the kernel's first chdir is to bash's starting directory.
        bash_started, plugins = await asyncio.gather(
            asyncio.to_thread(self.bash.initialize),
            start_plugins(
                opts.plugins,
                opts.username,
                opts.working_dir,
                opts.working_dir,
                opts.init_plugin_timeout,
                early_kernel=self._early_kernel,
            ),
            return_exceptions=True,
        )
        if isinstance(plugins, dict):
            self.plugins = plugins
        for outcome in (bash_started, plugins):
            if isinstance(outcome, BaseException):
                raise outcome
        await self._run_init_commands()
        self.initialized = True
        logger.info("Action execution server initialized in %s", opts.working_dir)

    async def _run_init_commands(self) -> None:
        commands = ['alias git="git --no-pager"']
        if self.user_id != 0:
            commands.append(f"cd {self.options.working_dir}")
        for command in commands:
            action = CmdRunAction(command=command)
            action.set_hard_timeout(INIT_COMMAND_TIMEOUT)
            obs = await self.run(action)
            if not isinstance(obs, CmdOutputObservation) or obs.exit_code != 0:
                raise RuntimeError(f"Init command failed: {command!r}: {obs.content}")

    async def aclose(self) -> None:
        """Server shutdown: the browser first (it needs the event loop), then the rest."""
        if self.browser is not None:
            await self.browser.close()
        self.close()

    def close(self) -> None:
        close_plugins(self.plugins)
        self.plugins = {}
        if self._early_kernel is not None:  # in case start-up failed before adopting it
            self._early_kernel.shutdown()
        if self.bash is not None:
            self.bash.close()
        self.editor.close()

    # -- dispatch -----------------------------------------------------------------------------------

    def handler_for(self, action: Action) -> Callable[[Any], Awaitable[Observation]]:
        handler = self._handlers.get(type(action))
        if handler is None:
            raise ValueError(
                f"Action {getattr(action, 'action', type(action).__name__)} is not supported "
                "by the action execution server"
            )
        return handler

    async def run_action(self, action: Action) -> Observation:
        handler = self.handler_for(action)
        async with self.lock:
            self.last_execution_at = time.time()
            return await handler(action)

    # -- handlers ---------------------------------------------------------------------------------

    async def run(self, action: CmdRunAction) -> Observation:
        assert self.bash is not None, "bash session not initialized"
        try:
            if action.is_static:
                return await asyncio.to_thread(self._run_static, action)
            return await asyncio.to_thread(self.bash.execute, action)
        except Exception as exc:
            logger.exception("Command failed: %s", action.command)
            return ErrorObservation(str(exc))

    def _run_static(self, action: CmdRunAction) -> Observation:
        """A one-off session in ``action.cwd``; always closed afterwards (quirk Q14 fixed)."""
        session = BashSession(
            action.cwd or self.options.working_dir,
            username=self.options.bash_username,
            tmux_socket_name=self.options.tmux_socket,
        )
        session.initialize()
        try:
            return session.execute(action)
        finally:
            session.close()

    async def run_ipython(self, action: IPythonRunCellAction) -> Observation:
        jupyter = self.plugins.get(JupyterPlugin.name)
        if not isinstance(jupyter, JupyterPlugin):
            raise RuntimeError("JupyterRequirement not found. Unable to run IPython action.")
        return await jupyter.run_cell(action, self._cwd())

    async def read(self, action: FileReadAction) -> Observation:
        if files.is_binary_file(action.path):
            return ErrorObservation(files.ERROR_BINARY_FILE)
        if action.impl_source == FileReadSource.OH_ACI:
            return await asyncio.to_thread(editor_read, self.editor, action)
        return await asyncio.to_thread(files.read_file, action, self._cwd())

    async def write(self, action: FileWriteAction) -> Observation:
        return await asyncio.to_thread(files.write_file, action, self._cwd(), self.user_id)

    async def edit(self, action: FileEditAction) -> Observation:
        if action.impl_source == FileEditSource.LLM_BASED_EDIT:
            raise ValueError("llm_based_edit runs on the host, not in the action server")
        return await asyncio.to_thread(editor_edit, self.editor, action)

    async def browse(self, action: BrowseURLAction | BrowseInteractiveAction) -> Observation:
        if self.browser is None:  # --no-enable-browser
            return ErrorObservation(BROWSER_UNAVAILABLE)
        return await self.browser.handle(action)

    def _cwd(self) -> str:
        return self.bash.cwd if self.bash is not None else self.options.working_dir
