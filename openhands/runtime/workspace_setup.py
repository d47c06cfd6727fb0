"""Preparing a conversation's workspace and asking git about it (runtime.md §10.5, §10.6, §10.9).

Cloning the selected repository, the ``.openhands/setup.sh`` script, the pre-commit hook,
the workspace's microagents and the git helpers all reach the sandbox through the handful
of operations in ``WorkspaceSandbox``; every ``Runtime`` offers them, and so does a plain
directory in the tests. ``Runtime`` keeps the public methods and hands the work to this module.
"""

from __future__ import annotations

import random
import shlex
import string
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from openhands.core.exceptions import AgentRuntimeError
from openhands.events.action import Action, CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.observation import CmdOutputObservation, ErrorObservation, Observation
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.git_handler import CommandResult, GitHandler

if TYPE_CHECKING:
    from openhands.microagent.microagent import BaseMicroagent

SETUP_SCRIPT = ".openhands/setup.sh"
PRE_COMMIT_SCRIPT = ".openhands/pre-commit.sh"
GIT_HOOK_MARKER = "This hook was installed by OpenHands"
LEGACY_INSTRUCTIONS = ".openhands_instructions"
MICROAGENTS_DIR = ".openhands/microagents"

SETUP_COMMAND_TIMEOUT = 120.0
CLONE_TIMEOUT = 600.0
SETUP_SCRIPT_TIMEOUT = 600.0
GIT_QUERY_TIMEOUT = 60.0

PRE_COMMIT_HOOK = (
    "#!/bin/bash\n"
    f"# {GIT_HOOK_MARKER}\n"
    f'if [ -x "{PRE_COMMIT_SCRIPT}" ]; then\n'
    f'  source "{PRE_COMMIT_SCRIPT}"\n'
    "  exit $?\n"
    "else\n"
    f'  echo "Warning: {PRE_COMMIT_SCRIPT} is not executable; skipping it"\n'
    "  exit 0\n"
    "fi"
)


class WorkspaceSandbox(Protocol):
    """What workspace set-up needs from a runtime."""

    @property
    def workspace_root(self) -> Path: ...

    def run(self, action: CmdRunAction) -> Observation: ...

    def run_action(self, action: Action) -> Observation: ...

    def read(self, action: FileReadAction) -> Observation: ...

    def write(self, action: FileWriteAction) -> Observation: ...

    def list_files(self, path: str | None = None) -> list[str]: ...

    def copy_from(self, path: str) -> Path: ...

    def set_runtime_status(
        self, status: RuntimeStatus, msg: str = "", level: str = "info"
    ) -> None: ...

    def log(self, level: str, message: str) -> None: ...


# How the set-up script is run: the runtime also shows it on the conversation's stream.
RunShown = Callable[[CmdRunAction], Observation]


def run_hidden(
    sandbox: WorkspaceSandbox, command: str, timeout: float = SETUP_COMMAND_TIMEOUT
) -> CmdOutputObservation:
    """Run a set-up command the agent never sees; AgentRuntimeError if bash did not run it."""
    action = CmdRunAction(command, hidden=True)
    action.set_hard_timeout(timeout)
    obs = sandbox.run(action)
    if not isinstance(obs, CmdOutputObservation):
        raise AgentRuntimeError(f"Setup command failed: {command!r}: {obs.content}")
    return obs


def read_text(sandbox: WorkspaceSandbox, path: str) -> str | None:
    """The file's text, or None when the sandbox cannot read it."""
    obs = sandbox.read(FileReadAction(path))
    if isinstance(obs, ErrorObservation):
        return None
    return obs.content


def repository_dir_name(selected_repository: str) -> str:
    """``org/name`` (or a URL-like path) → the directory it is cloned into: ``name``."""
    return selected_repository.rstrip("/").split("/")[-1]


# --- repository (§10.5) ---------------------------------------------------------------------


def clone_or_init_repo(
    sandbox: WorkspaceSandbox,
    selected_repository: str | None,
    selected_branch: str | None,
    repo_url: str | None,
    *,
    init_git: bool,
) -> str:
    """Clone ``repo_url`` into the workspace and check out the branch (or a fresh one).

    Without a repository, ``init_git`` makes the workspace itself a repository. Returns the
    clone's directory name, or "" when nothing was cloned. The bash cwd ends in the clone.
    """
    if not selected_repository:
        if init_git:
            _run_step(
                sandbox,
                "git init && git config --global --add safe.directory "
                f"{shlex.quote(str(sandbox.workspace_root))}",
                "git init of the workspace",
            )
        return ""
    if repo_url is None:
        raise ValueError(f"No clone URL available for repository {selected_repository}")
    name = repository_dir_name(selected_repository)
    sandbox.set_runtime_status(RuntimeStatus.SETTING_UP_WORKSPACE)
    if selected_branch:
        checkout = f"git checkout {shlex.quote(selected_branch)}"
    else:
        suffix = "".join(random.choices(string.ascii_lowercase + string.digits, k=8))
        checkout = f"git checkout -b openhands-workspace-{suffix}"
    _run_step(
        sandbox,
        f"git clone {shlex.quote(repo_url)} {shlex.quote(name)}",
        f"git clone of {selected_repository}",
        timeout=CLONE_TIMEOUT,
        secret=repo_url,
    )
    _run_step(sandbox, f"cd {shlex.quote(name)} && {checkout}", f"checkout in {name}")
    return name


def _run_step(
    sandbox: WorkspaceSandbox,
    command: str,
    what: str,
    timeout: float = SETUP_COMMAND_TIMEOUT,
    secret: str | None = None,
) -> None:
    """Run one hidden set-up step through the runtime's action dispatch; AgentRuntimeError
    when it fails (an error, or a non-zero exit). A runtime that answers with no result
    at all (NullObservation) is taken to have run it. ``secret`` (a clone URL with its
    token) never appears in the error."""
    action = CmdRunAction(command, hidden=True)
    action.set_hard_timeout(timeout)
    obs = sandbox.run_action(action)
    failed = isinstance(obs, ErrorObservation) or (
        isinstance(obs, CmdOutputObservation) and obs.exit_code != 0
    )
    if failed:
        output = obs.content.replace(secret, "<url>") if secret else obs.content
        raise AgentRuntimeError(f"{what} failed: {output}")


def maybe_run_setup_script(sandbox: WorkspaceSandbox, run_shown: RunShown) -> None:
    """Run ``.openhands/setup.sh`` (relative to the bash cwd) once, blocking and hidden."""
    if read_text(sandbox, SETUP_SCRIPT) is None:
        return
    sandbox.set_runtime_status(RuntimeStatus.SETTING_UP_WORKSPACE)
    action = CmdRunAction(
        f"chmod +x {SETUP_SCRIPT} && source {SETUP_SCRIPT}", blocking=True, hidden=True
    )
    action.set_hard_timeout(SETUP_SCRIPT_TIMEOUT)
    obs = run_shown(action)
    if isinstance(obs, CmdOutputObservation) and obs.exit_code != 0:
        sandbox.log("warning", f"setup script failed with exit code {obs.exit_code}")


def maybe_setup_git_hooks(sandbox: WorkspaceSandbox) -> None:
    """Install a pre-commit hook running ``.openhands/pre-commit.sh``, when there is one.

    A pre-commit hook of the repository's own is kept as ``pre-commit.local``. A step that
    fails is logged and ends the set-up; the conversation goes on without the hook.
    """
    if read_text(sandbox, PRE_COMMIT_SCRIPT) is None:
        return
    sandbox.set_runtime_status(RuntimeStatus.SETTING_UP_GIT_HOOKS)

    def step(command: str, failure: str) -> bool:
        action = CmdRunAction(command, hidden=True)
        action.set_hard_timeout(SETUP_COMMAND_TIMEOUT)
        obs = sandbox.run_action(action)
        if isinstance(obs, CmdOutputObservation) and obs.exit_code == 0:
            return True
        sandbox.log("error", f"{failure}: {obs.content}")
        return False

    if not step("mkdir -p .git/hooks", "Failed to create git hooks directory"):
        return
    if not step(f"chmod +x {PRE_COMMIT_SCRIPT}", "Failed to make pre-commit script executable"):
        return
    existing = read_text(sandbox, ".git/hooks/pre-commit")
    if existing is not None and GIT_HOOK_MARKER not in existing:
        sandbox.log("info", "Preserving existing pre-commit hook")
        if not step(
            "mv .git/hooks/pre-commit .git/hooks/pre-commit.local",
            "Failed to preserve existing pre-commit hook",
        ):
            return
        if not step(
            "chmod +x .git/hooks/pre-commit.local",
            "Failed to make preserved hook executable",
        ):
            return
    written = sandbox.write(FileWriteAction(".git/hooks/pre-commit", PRE_COMMIT_HOOK))
    if isinstance(written, ErrorObservation):
        sandbox.log("error", f"Failed to write pre-commit hook: {written.content}")
        return
    if not step("chmod +x .git/hooks/pre-commit", "Failed to make pre-commit hook executable"):
        return
    sandbox.log("info", "Git pre-commit hook installed successfully")


# --- microagents (§10.6) --------------------------------------------------------------------


def load_workspace_microagents(
    sandbox: WorkspaceSandbox,
    selected_repository: str | None,
    load_dir: Callable[[Path], list[BaseMicroagent]] | None = None,
) -> list[BaseMicroagent]:
    """The legacy instructions file and ``.openhands/microagents`` of the workspace, or of
    the selected repository's clone inside it (read by ``load_dir``, default
    ``load_microagents_in``)."""
    # Imported on use: the microagent models stay off the import path of every runtime.
    from openhands.microagent.microagent import BaseMicroagent

    loaded: list[BaseMicroagent] = []
    root = sandbox.workspace_root
    repo_dir = root / repository_dir_name(selected_repository) if selected_repository else root

    legacy = read_text(sandbox, str(root / LEGACY_INSTRUCTIONS))
    if legacy is None and selected_repository:
        legacy = read_text(sandbox, str(repo_dir / LEGACY_INSTRUCTIONS))
    if legacy is not None:
        # The file name makes it the `repo_legacy` repository microagent.
        loaded.append(BaseMicroagent.load(Path(LEGACY_INSTRUCTIONS), file_content=legacy))

    microagents_dir = repo_dir / MICROAGENTS_DIR
    if load_dir is not None:
        loaded.extend(load_dir(microagents_dir))
    else:
        loaded.extend(load_microagents_in(sandbox, microagents_dir))
    return loaded


def load_microagents_in(sandbox: WorkspaceSandbox, microagents_dir: Path) -> list[BaseMicroagent]:
    """The microagents of a directory inside the sandbox ([] when it has none; a
    directory that cannot be read is logged and skipped)."""
    from openhands.microagent.microagent import load_microagents_from_dir

    if not sandbox.list_files(str(microagents_dir)):
        return []
    try:
        zip_path = sandbox.copy_from(str(microagents_dir))
        with tempfile.TemporaryDirectory() as tmp:
            with zipfile.ZipFile(zip_path) as archive:
                archive.extractall(tmp)
            zip_path.unlink(missing_ok=True)
            repo_agents, knowledge_agents = load_microagents_from_dir(tmp)
    except Exception as e:
        sandbox.log("error", f"could not load microagents from {microagents_dir}: {e}")
        return []
    return [*repo_agents.values(), *knowledge_agents.values()]


# --- git helpers (§10.9) --------------------------------------------------------------------


class WorkspaceGit:
    """The git helper queries, run as hidden static commands in the sandbox.

    One query at a time: the handler keeps the cwd of the query between its commands.
    ``copy_scripts=False`` never writes the helper scripts into the sandbox (for runtimes
    whose scripts dir is always there and whose file writes would refuse a temp dir).
    """

    def __init__(
        self, sandbox: WorkspaceSandbox, scripts_dir: str, *, copy_scripts: bool = True
    ) -> None:
        self._sandbox = sandbox
        self._lock = threading.Lock()
        self.handler = GitHandler(
            self._shell,
            self._create_file if copy_scripts else _refuse_file,
            scripts_dir=scripts_dir,
        )

    def changes(self, cwd: str) -> list[dict[str, str]] | None:
        with self._lock:
            self.handler.set_cwd(cwd)
            return self.handler.get_git_changes()

    def diff(self, file_path: str, cwd: str) -> dict[str, str]:
        with self._lock:
            self.handler.set_cwd(cwd)
            return self.handler.get_git_diff(file_path)

    def branch(self, repo_path: str) -> str | None:
        with self._lock:
            self.handler.set_cwd(repo_path)
            return self.handler.get_current_branch()

    def _shell(self, command: str, cwd: str | None) -> CommandResult:
        action = CmdRunAction(command, is_static=True, hidden=True, cwd=cwd)
        action.set_hard_timeout(GIT_QUERY_TIMEOUT)
        obs = self._sandbox.run(action)
        if not isinstance(obs, CmdOutputObservation):
            raise AgentRuntimeError(obs.content)
        return CommandResult(obs.content, obs.exit_code)

    def _create_file(self, path: str, content: str) -> int:
        obs = self._sandbox.write(FileWriteAction(path, content))
        return -1 if isinstance(obs, ErrorObservation) else 0


def _refuse_file(path: str, content: str) -> int:
    return -1
