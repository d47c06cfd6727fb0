"""CLIRuntime: the terminal app's runtime, working directly on the host (cli.md §13).

No container, no action execution server: commands are ``bash -c`` subprocesses of this
process, files are read and written here, stdio MCP servers start on this machine. The
workspace is the user's folder (or a temporary one). Commands are not confined, that is the
point of this runtime; file actions are: every path must resolve inside the workspace.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import SecretStr

from openhands.core.config import MCPConfig, MCPStdioServerConfig, OpenHandsConfig
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import (
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
)
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation import (
    CmdOutputMetadata,
    CmdOutputObservation,
    ErrorObservation,
    FileReadObservation,
    FileWriteObservation,
    Observation,
)
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, Runtime, StatusCallback
from openhands.runtime.impl.cli import host_files
from openhands.runtime.impl.cli.bash_process import LineCallback, run_bash
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.editor import OHEditor
from openhands.runtime.utils.editor.actions import editor_edit, editor_read
from openhands.runtime.utils.files import (
    ERROR_BINARY_FILE,
    PathRefusedError,
    check_path_text,
    is_binary_file,
    is_within,
)

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

SANDBOX_WORKSPACE = "/workspace"
TEMP_WORKSPACE_PREFIX = "openhands_workspace_"
BAD_ACTION = "AGENT_ERROR$BAD_ACTION"
IPYTHON_NOT_SUPPORTED = "Executing IPython cells is not implemented in CLIRuntime. "
BROWSER_NOT_SUPPORTED = "Browser functionality is not implemented in CLIRuntime"
INPUT_NOT_SUPPORTED = (
    "Sending input to a running command (is_input=True) is not supported in CLIRuntime: "
    "every command runs in its own non-interactive bash process, so nothing is running now."
)
LLM_EDIT_NOT_SUPPORTED = (
    "The LLM-based editor is not supported in CLIRuntime; use str_replace_editor."
)
# The git helper scripts (git_changes.py, git_diff.py) are run from this checkout.
HELPER_SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "utils"


class CLIRuntime(Runtime):
    """Runs the agent's actions on this machine, in the user's workspace, without a sandbox."""

    def __init__(
        self,
        config: OpenHandsConfig,
        event_stream: EventStream,
        llm_registry: LLMRegistry | None = None,
        sid: str = "default",
        plugins: Sequence[Plugin] | None = None,
        env_vars: dict[str, str] | None = None,
        status_callback: StatusCallback | None = None,
        attach_to_existing: bool = False,
        headless_mode: bool = False,
        user_id: str | None = None,
        git_provider_tokens: dict[str, str] | None = None,
    ) -> None:
        if sys.platform == "win32":
            # The reference drives PowerShell on Windows; we only support bash hosts.
            raise NotImplementedError("CLIRuntime needs bash: Windows hosts are not supported")
        super().__init__(
            config,
            event_stream,
            llm_registry,
            sid,
            plugins,
            env_vars,
            status_callback,
            attach_to_existing,
            headless_mode,
            user_id,
            git_provider_tokens,
        )
        self._workspace_path = self._choose_workspace()
        # Prompts and tools show the agent real host paths, not /workspace.
        self.config.workspace_mount_path_in_sandbox = self._workspace_path
        self._shell_stream_callback: LineCallback | None = None
        self._editor = OHEditor(workspace_root=self._workspace_path)
        logger.warning(
            "CLIRuntime: the agent's commands and file edits run directly on this machine, "
            "with no sandbox or isolation."
        )

    def _choose_workspace(self) -> str:
        base = self.config.workspace_base
        if base:
            # Resolved once, so that path checks and the paths the agent sees agree.
            path = os.path.realpath(os.path.expanduser(base))
            logger.warning(
                "CLIRuntime workspace is %s: the agent can read, change and delete files there.",
                path,
            )
            return path
        return os.path.realpath(_make_temp_workspace(self.sid))

    # --- lifecycle ---------------------------------------------------------------------

    async def connect(self) -> None:
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        os.makedirs(self._workspace_path, exist_ok=True)
        # Process-wide on purpose: the app and the agent's tools share one working dir.
        os.chdir(self._workspace_path)
        if not self.attach_to_existing:
            self.setup_initial_env()
        self._runtime_initialized = True
        self.set_runtime_status(RuntimeStatus.RUNTIME_STARTED)

    def close(self) -> None:
        if self.closed:
            return
        self._runtime_initialized = False
        self._editor.close()
        super().close()

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        """Remove the temporary workspaces made for ``conversation_id``."""
        for path in _temp_workspaces(conversation_id):
            await asyncio.to_thread(shutil.rmtree, path, True)

    # --- environment -------------------------------------------------------------------

    def add_env_vars(self, env_vars: Mapping[str, str | SecretStr]) -> None:
        """Export into this process: every later command inherits its environment."""
        for key, value in env_vars.items():
            plain = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
            os.environ[key.upper()] = plain

    def _setup_git_config(self) -> None:
        # The host's git identity is the user's own; never overwrite it, whatever
        # `config.runtime` says.
        return None

    @property
    def additional_agent_instructions(self) -> str:
        return (
            f"Your working directory is {self._workspace_path}; read and write files only "
            "inside it. You are working directly on the user's machine, not in a sandbox."
        )

    @property
    def workspace_root(self) -> Path:
        return Path(self._workspace_path)

    @property
    def helper_scripts_dir(self) -> str:
        return str(HELPER_SCRIPTS_DIR)

    # The git helpers run from this checkout; the copies a sandbox may need would land in a
    # temp dir outside the workspace, which file actions refuse.
    _copy_git_scripts = False

    def subscribe_to_shell_stream(self, callback: Callable[[str], None] | None = None) -> bool:
        """Pass every output line of later commands to ``callback`` (None stops it)."""
        self._shell_stream_callback = callback
        return True

    # --- paths -------------------------------------------------------------------------

    def _sanitize_filename(self, filename: str) -> str:
        """The real host path for ``filename``; PermissionError unless it is in the workspace.

        ``/workspace`` is an alias of the workspace; relative paths are relative to it.
        Symlinks and ``..`` are resolved before the check, so no path leads outside.
        """
        workspace = self._workspace_path
        try:
            check_path_text(filename)
        except PathRefusedError as exc:
            raise PermissionError(f"{exc}: {filename!r}") from None
        if filename == SANDBOX_WORKSPACE or filename.startswith(SANDBOX_WORKSPACE + "/"):
            candidate = os.path.join(workspace, filename[len(SANDBOX_WORKSPACE) :].lstrip("/"))
        elif os.path.isabs(filename):
            if not is_within(workspace, filename):
                raise PermissionError(
                    f"Invalid path: {filename}. You can only work with files in {workspace}."
                )
            candidate = filename
        else:
            candidate = os.path.join(workspace, filename)
        resolved = os.path.realpath(candidate)
        if not is_within(workspace, resolved):
            raise PermissionError(
                f"Invalid path traversal: {filename}. Path resolves outside the workspace "
                f"{workspace} (to {resolved})."
            )
        return resolved

    # --- actions -----------------------------------------------------------------------

    def run(self, action: CmdRunAction) -> Observation:
        if not self._runtime_initialized:
            return ErrorObservation(f"Runtime not initialized for command: {action.command}")
        if action.is_input:
            return ErrorObservation(INPUT_NOT_SUPPORTED, error_id=BAD_ACTION)
        timeout = action.timeout if action.timeout is not None else self.config.sandbox.timeout
        cwd = action.cwd or self._workspace_path
        try:
            result = run_bash(action.command, cwd, timeout, self._shell_stream_callback)
        except OSError as exc:  # no bash, or the directory is gone
            return ErrorObservation(f"Could not run command {action.command!r} in {cwd}: {exc}")
        metadata = CmdOutputMetadata(exit_code=result.exit_code, working_dir=cwd)
        if result.timed_out:
            metadata.suffix = f"[The command timed out after {float(timeout)} seconds.]"
        return CmdOutputObservation(
            result.output, command=action.command, metadata=metadata, hidden=action.hidden
        )

    def run_ipython(self, action: IPythonRunCellAction) -> Observation:
        return ErrorObservation(IPYTHON_NOT_SUPPORTED)

    def browse(self, action: BrowseURLAction) -> Observation:
        return ErrorObservation(BROWSER_NOT_SUPPORTED)

    def browse_interactive(self, action: BrowseInteractiveAction) -> Observation:
        return ErrorObservation(BROWSER_NOT_SUPPORTED)

    def read(self, action: FileReadAction) -> Observation:
        path = self._sanitize_filename(action.path)
        if action.impl_source == FileReadSource.OH_ACI:
            return editor_read(self._editor, _with_path(action, path))
        if not os.path.exists(path):
            return ErrorObservation(f"File not found: {path}")
        if os.path.isdir(path):
            return ErrorObservation(f"Cannot read directory: {path}")
        if is_binary_file(path):
            return ErrorObservation(ERROR_BINARY_FILE)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                content = handle.read()
        except OSError as exc:
            return ErrorObservation(f"Error reading file {path}: {exc}")
        return FileReadObservation(content=content, path=path)

    def write(self, action: FileWriteAction) -> Observation:
        path = self._sanitize_filename(action.path)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(action.content)
        except (OSError, ValueError) as exc:  # ValueError: text that UTF-8 cannot encode
            return ErrorObservation(f"Error writing to file {path}: {exc}")
        return FileWriteObservation(content="", path=path)

    def edit(self, action: FileEditAction) -> Observation:
        if action.impl_source == FileEditSource.LLM_BASED_EDIT:
            return ErrorObservation(LLM_EDIT_NOT_SUPPORTED)
        path = self._sanitize_filename(action.path)
        if is_binary_file(path):
            return ErrorObservation(ERROR_BINARY_FILE)
        return editor_edit(self._editor, _with_path(action, path))

    # --- files -------------------------------------------------------------------------

    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None:
        dest = self._sanitize_filename(sandbox_dest)
        host_files.copy_into_workspace(
            host_src, dest, recursive, self._sanitize_filename, sandbox_dest.endswith("/")
        )

    def list_files(self, path: str | None = None) -> list[str]:
        target = self._sanitize_filename(path) if path else self._workspace_path
        return host_files.list_entries(target)

    def copy_from(self, path: str) -> Path:
        return host_files.zip_to_temp(self._sanitize_filename(path))

    # --- MCP ---------------------------------------------------------------------------

    def get_mcp_config(
        self, extra_stdio_servers: list[MCPStdioServerConfig] | None = None
    ) -> MCPConfig:
        """``config.mcp`` itself, with the extra stdio servers added for good.

        Changed in place on purpose: ``call_tool_mcp`` later reads the same config and so
        reaches the microagent and search servers added here.
        """
        config = self.config.mcp
        known = {server.name for server in config.stdio_servers}
        for server in extra_stdio_servers or []:
            if server.name not in known:
                known.add(server.name)
                config.stdio_servers.append(server)
        return config

    async def call_tool_mcp(self, action: MCPAction) -> Observation:
        """Call the tool on the configured servers; stdio servers are started on this host."""
        from openhands.mcp.utils import call_tool_mcp, create_mcp_clients

        config = self.config.mcp
        if not (config.sse_servers or config.shttp_servers or config.stdio_servers):
            return ErrorObservation("No MCP servers configured")
        try:
            clients = await create_mcp_clients(
                config.sse_servers, config.shttp_servers, self.sid, config.stdio_servers
            )
            if not clients:
                return ErrorObservation(
                    "No MCP clients could be created - check server configurations"
                )
            return await call_tool_mcp(clients, action)
        except Exception as exc:
            return ErrorObservation(f"Error executing MCP tool {action.name}: {exc}")


_FileAction = TypeVar("_FileAction", FileReadAction, FileEditAction)


def _with_path(action: _FileAction, path: str) -> _FileAction:
    """A copy of a file action aimed at the sanitized ``path`` (the original stays as sent)."""
    changed = copy.copy(action)
    changed.path = path
    return changed


# --- temporary workspaces -------------------------------------------------------------------


def _temp_workspace_name(sid: str) -> str:
    # A conversation id never holds a separator, but a session name might.
    return TEMP_WORKSPACE_PREFIX + sid.replace(os.sep, "_") + "_"


def _make_temp_workspace(sid: str) -> str:
    """``openhands_workspace_<sid>_<8 hex>`` under the system temp dir, made private."""
    while True:
        path = os.path.join(tempfile.gettempdir(), _temp_workspace_name(sid) + secrets.token_hex(4))
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path


def _temp_workspaces(sid: str) -> list[str]:
    """Exactly this conversation's temp workspaces: the random part is fixed length, so a
    conversation whose id starts with ``<sid>_`` is never matched."""
    pattern = re.compile(re.escape(_temp_workspace_name(sid)) + r"[0-9a-f]{8}")
    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return [
        os.path.join(root, name)
        for name in names
        if pattern.fullmatch(name)
        and os.path.isdir(os.path.join(root, name))
        and not os.path.islink(os.path.join(root, name))
    ]
