"""What the server reads and writes in a conversation's sandbox, and how a sandbox says no.

The server's workspace service (file listing, opening, uploads, the zip, git changes and
diffs) types the runtime it is handed with :class:`WorkspaceAccess`, so it depends on these
few methods rather than on a runtime class. A runtime that refuses a request for what it
names (a path that leads out of the workspace, a file name it will not write) raises
:class:`WorkspaceRefused`; the server tells that apart from a failure by this type alone,
without knowing how the runtime reaches its sandbox.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from openhands.events.action import FileReadAction
from openhands.events.observation import Observation


class WorkspaceRefused(Exception):
    """The sandbox would not do what was asked, because of what was asked: the caller's
    mistake, never a failure of the sandbox.

    ``message`` is the sandbox's own reason, fit to show to the user; ``status`` is the HTTP
    status such a refusal is answered with (400: the request named something the sandbox
    will not touch).
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class WorkspaceAccess(Protocol):
    """The runtime methods the server calls on a conversation's workspace (all blocking)."""

    def list_files(self, path: str | None = None) -> list[str]: ...

    def read(self, action: FileReadAction) -> Observation: ...

    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None: ...

    def copy_from(self, path: str) -> Path: ...

    def get_git_changes(self, cwd: str) -> list[dict[str, str]] | None: ...

    def get_git_diff(self, file_path: str, cwd: str) -> dict[str, str]: ...
