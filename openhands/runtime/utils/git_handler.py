"""Git information of a sandbox workspace, through a shell the caller provides (runtime.md §10.9).

The changes and diff come from two helper scripts (``git_changes.py``, ``git_diff.py``)
that ship in the sandbox image. A sandbox without them (an older image, a foreign one)
gets them written into a fresh ``mktemp -d`` directory on first use.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Where the sandbox image keeps the helper scripts.
DEFAULT_SCRIPTS_DIR = "/openhands/code/openhands/runtime/utils"
GIT_CHANGES_CMD = f"python3 {DEFAULT_SCRIPTS_DIR}/git_changes.py"
# ``{file_path}`` is filled in shell-quoted.
GIT_DIFF_CMD = f"python3 {DEFAULT_SCRIPTS_DIR}/git_diff.py {{file_path}}"
GIT_BRANCH_CMD = "git branch --show-current"

# The scripts on this host, written into the sandbox when it lacks them.
_LOCAL_SCRIPTS_DIR = Path(__file__).parent


@dataclass
class CommandResult:
    """What a shell command printed and how it exited."""

    content: str
    exit_code: int


ExecuteShellFn = Callable[[str, str | None], CommandResult]
CreateFileFn = Callable[[str, str], int]


class GitHandler:
    """Runs the git helpers with ``execute_shell_fn(command, cwd)``.

    ``create_file_fn(path, content)`` writes a file into the sandbox and returns 0 on
    success. ``scripts_dir`` is where the sandbox keeps the helper scripts.
    """

    def __init__(
        self,
        execute_shell_fn: ExecuteShellFn,
        create_file_fn: CreateFileFn,
        scripts_dir: str = DEFAULT_SCRIPTS_DIR,
    ) -> None:
        self.execute = execute_shell_fn
        self.create_file_fn = create_file_fn
        self.cwd: str | None = None
        self.git_changes_cmd = f"python3 {shlex.quote(f'{scripts_dir}/git_changes.py')}"
        self.git_diff_cmd = f"python3 {shlex.quote(f'{scripts_dir}/git_diff.py')} {{file_path}}"
        self.git_branch_cmd = GIT_BRANCH_CMD
        self._scripts_written = False

    def set_cwd(self, cwd: str) -> None:
        """The directory the next commands run in."""
        self.cwd = cwd

    def get_current_branch(self) -> str | None:
        """The checked-out branch; None outside a repository or on a detached HEAD."""
        if not self.cwd:
            return None
        result = self.execute(self.git_branch_cmd, self.cwd)
        branch = result.content.strip()
        return branch if result.exit_code == 0 and branch else None

    def get_git_changes(self) -> list[dict[str, str]] | None:
        """``[{"status": "M"|"A"|"D"|"U", "path": ...}]`` of every repository under the cwd,
        sorted by path; None when there is no cwd or the script fails."""
        if not self.cwd:
            return None
        result = self._run_script(lambda: self.git_changes_cmd)
        if result.exit_code != 0:
            return None
        try:
            changes: list[dict[str, str]] = json.loads(result.content.strip() or "[]")
        except json.JSONDecodeError:
            return None
        return changes

    def get_git_diff(self, file_path: str) -> dict[str, str]:
        """``{"modified": ..., "original": ...}`` of one file; ValueError when git fails."""
        result = self._run_script(
            lambda: self.git_diff_cmd.format(file_path=shlex.quote(file_path))
        )
        if result.exit_code != 0:
            raise ValueError(f"error_in_git_diff: {result.content.strip()}")
        diff: dict[str, str] = json.loads(result.content, strict=False)
        return diff

    def _run_script(self, command: Callable[[], str]) -> CommandResult:
        """Run a helper script; when it fails before the scripts were written into the
        sandbox, write them once and try again (the failure may be a missing script)."""
        result = self.execute(command(), self.cwd)
        if result.exit_code == 0 or self._scripts_written:
            return result
        if not self._write_scripts():
            return result
        return self.execute(command(), self.cwd)

    def _write_scripts(self) -> bool:
        self._scripts_written = True
        made = self.execute("mktemp -d", self.cwd)
        directory = made.content.strip()
        if made.exit_code != 0 or not directory:
            return False
        for name in ("git_changes.py", "git_diff.py"):
            path = f"{directory}/{name}"
            if self.create_file_fn(path, (_LOCAL_SCRIPTS_DIR / name).read_text()) != 0:
                return False
        self.git_changes_cmd = f"python3 {shlex.quote(f'{directory}/git_changes.py')}"
        self.git_diff_cmd = f"python3 {shlex.quote(f'{directory}/git_diff.py')} {{file_path}}"
        return True

    def __repr__(self) -> str:
        return f"GitHandler(cwd={self.cwd!r})"
