"""workspace_setup (runtime.md §10.5, §10.6, §10.9) against a plain directory.

``DirSandbox`` is the smallest ``WorkspaceSandbox``: a temp dir as the workspace, each
command a ``bash -c`` in it, git with a private HOME so the user's git config stays untouched.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from openhands.core.exceptions import AgentRuntimeError
from openhands.events.action import Action, CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.observation import (
    CmdOutputMetadata,
    CmdOutputObservation,
    ErrorObservation,
    FileReadObservation,
    FileWriteObservation,
    Observation,
)
from openhands.runtime import workspace_setup
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.workspace_setup import (
    GIT_HOOK_MARKER,
    WorkspaceGit,
    WorkspaceSandbox,
)

HOST_SCRIPTS_DIR = str(Path(workspace_setup.__file__).parent / "utils")
REPO_MD = "---\nname: repo\ntype: repo\n---\nAlways run the tests with pytest.\n"
KNOWLEDGE_MD = "---\nname: knowledge\ntype: knowledge\ntriggers:\n  - flarp\n---\nFlarp.\n"


class DirSandbox:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "T",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "T",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
        self.commands: list[CmdRunAction] = []
        self.writes: list[str] = []
        self.statuses: list[RuntimeStatus] = []
        self.logs: list[tuple[str, str]] = []

    @property
    def workspace_root(self) -> Path:
        return self.root

    def _path(self, path: str) -> Path:
        return Path(path) if os.path.isabs(path) else self.root / path

    def run(self, action: CmdRunAction) -> Observation:
        self.commands.append(action)
        return self._bash(action.command, action.cwd or str(self.root), action.timeout)

    def run_action(self, action: Action) -> Observation:
        assert isinstance(action, CmdRunAction)
        return self.run(action)

    def _bash(self, command: str, cwd: str, timeout: float | None) -> CmdOutputObservation:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        metadata = CmdOutputMetadata(exit_code=done.returncode, working_dir=cwd)
        return CmdOutputObservation(
            (done.stdout + done.stderr).strip(), command=command, metadata=metadata
        )

    def read(self, action: FileReadAction) -> Observation:
        path = self._path(action.path)
        if not path.is_file():
            return ErrorObservation(f"File not found: {path}")
        return FileReadObservation(content=path.read_text(), path=str(path))

    def write(self, action: FileWriteAction) -> Observation:
        self.writes.append(action.path)
        path = self._path(action.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(action.content)
        return FileWriteObservation(content="", path=str(path))

    def list_files(self, path: str | None = None) -> list[str]:
        directory = self._path(path) if path else self.root
        return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []

    def copy_from(self, path: str) -> Path:
        handle, name = tempfile.mkstemp(suffix=".zip")
        os.close(handle)
        directory = self._path(path)
        with zipfile.ZipFile(name, "w") as archive:
            for file in directory.rglob("*"):
                if file.is_file():
                    archive.write(file, file.relative_to(directory))
        return Path(name)

    def set_runtime_status(self, status: RuntimeStatus, msg: str = "", level: str = "info") -> None:
        self.statuses.append(status)

    def log(self, level: str, message: str) -> None:
        self.logs.append((level, message))

    def sh(self, command: str, cwd: Path | None = None) -> str:
        """A command of the test's own (not recorded)."""
        obs = self._bash(command, str(cwd or self.root), timeout=60)
        assert obs.exit_code == 0, obs.content
        return obs.content


@pytest.fixture
def sandbox(tmp_path: Path) -> DirSandbox:
    (tmp_path / "home").mkdir()
    (tmp_path / "workspace").mkdir()
    return DirSandbox(tmp_path / "workspace", tmp_path / "home")


def test_the_dir_sandbox_is_a_workspace_sandbox(sandbox: DirSandbox) -> None:
    typed: WorkspaceSandbox = sandbox  # mypy refuses this when the protocol outgrows the fake
    assert typed.workspace_root == sandbox.root


@pytest.fixture
def origin(tmp_path: Path, sandbox: DirSandbox) -> Path:
    """A repository to clone, with a `main` and a `feature` branch."""
    repo = tmp_path / "origin"
    repo.mkdir()
    sandbox.sh(
        "git init -q -b main && echo hi > README.md && git add README.md && "
        "git commit -qm one && git branch feature",
        cwd=repo,
    )
    return repo


# --- clone or init (§10.5) ----------------------------------------------------------------


def test_nothing_selected_and_no_init_runs_nothing(sandbox: DirSandbox) -> None:
    assert workspace_setup.clone_or_init_repo(sandbox, None, None, None, init_git=False) == ""
    assert sandbox.commands == []
    assert sandbox.statuses == []


def test_an_empty_workspace_becomes_a_safe_repository(sandbox: DirSandbox) -> None:
    assert workspace_setup.clone_or_init_repo(sandbox, "", None, None, init_git=True) == ""
    assert (sandbox.root / ".git").is_dir()
    assert sandbox.sh("git config --global --get-all safe.directory") == str(sandbox.root)
    assert all(c.hidden for c in sandbox.commands)


def test_a_repository_without_a_clone_url_is_refused(sandbox: DirSandbox) -> None:
    with pytest.raises(ValueError, match="No clone URL available for repository org/project"):
        workspace_setup.clone_or_init_repo(sandbox, "org/project", None, None, init_git=True)
    assert sandbox.commands == []


def test_clone_checks_out_the_selected_branch(sandbox: DirSandbox, origin: Path) -> None:
    name = workspace_setup.clone_or_init_repo(
        sandbox, "org/project/", "feature", str(origin), init_git=False
    )
    assert name == "project"
    assert sandbox.sh("git branch --show-current", cwd=sandbox.root / name) == "feature"
    assert sandbox.statuses == [RuntimeStatus.SETTING_UP_WORKSPACE]
    clone = sandbox.commands[0]
    assert clone.hidden and clone.timeout == workspace_setup.CLONE_TIMEOUT


def test_clone_without_a_branch_starts_a_workspace_branch(
    sandbox: DirSandbox, origin: Path
) -> None:
    name = workspace_setup.clone_or_init_repo(
        sandbox, "org/project", None, str(origin), init_git=False
    )
    branch = sandbox.sh("git branch --show-current", cwd=sandbox.root / name)
    assert re.fullmatch(r"openhands-workspace-[a-z0-9]{8}", branch)


def test_a_failed_clone_raises(sandbox: DirSandbox, tmp_path: Path) -> None:
    with pytest.raises(AgentRuntimeError, match="git clone of org/gone failed"):
        workspace_setup.clone_or_init_repo(
            sandbox, "org/gone", "main", str(tmp_path / "no-such-repo"), init_git=False
        )


# --- setup script (§10.5) -----------------------------------------------------------------


def test_no_setup_script_runs_nothing(sandbox: DirSandbox) -> None:
    workspace_setup.maybe_run_setup_script(sandbox, sandbox.run)
    assert sandbox.commands == []
    assert sandbox.statuses == []


def test_the_setup_script_runs_once_blocking_and_hidden(sandbox: DirSandbox) -> None:
    script = sandbox.root / ".openhands" / "setup.sh"
    script.parent.mkdir()
    script.write_text("echo ran >> setup_runs.log\n")
    shown: list[CmdRunAction] = []

    def run_shown(action: CmdRunAction) -> Observation:
        shown.append(action)
        return sandbox.run(action)

    workspace_setup.maybe_run_setup_script(sandbox, run_shown)

    assert (sandbox.root / "setup_runs.log").read_text() == "ran\n"
    [action] = shown
    assert action.blocking and action.hidden
    assert action.timeout == workspace_setup.SETUP_SCRIPT_TIMEOUT
    assert sandbox.statuses == [RuntimeStatus.SETTING_UP_WORKSPACE]
    assert sandbox.logs == []


def test_a_failing_setup_script_is_only_logged(sandbox: DirSandbox) -> None:
    script = sandbox.root / ".openhands" / "setup.sh"
    script.parent.mkdir()
    script.write_text("exit 3\n")
    workspace_setup.maybe_run_setup_script(sandbox, sandbox.run)
    assert sandbox.logs == [("warning", "setup script failed with exit code 3")]


# --- git hooks (§10.5) --------------------------------------------------------------------


def test_no_pre_commit_script_installs_nothing(sandbox: DirSandbox) -> None:
    sandbox.sh("git init -q")
    workspace_setup.maybe_setup_git_hooks(sandbox)
    assert not (sandbox.root / ".git" / "hooks" / "pre-commit").exists()
    assert sandbox.statuses == []


def test_the_hook_runs_the_script_and_keeps_the_repositorys_own(sandbox: DirSandbox) -> None:
    sandbox.sh("git init -q && mkdir -p .openhands .git/hooks")
    (sandbox.root / ".openhands" / "pre-commit.sh").write_text("echo checked > checked.log\n")
    own = sandbox.root / ".git" / "hooks" / "pre-commit"
    own.write_text("#!/bin/bash\necho own hook\n")

    workspace_setup.maybe_setup_git_hooks(sandbox)
    # A second set-up (a resumed conversation) must not move our hook over theirs.
    workspace_setup.maybe_setup_git_hooks(sandbox)

    hooks = sandbox.root / ".git" / "hooks"
    assert (hooks / "pre-commit.local").read_text() == "#!/bin/bash\necho own hook\n"
    assert (hooks / "pre-commit.local").stat().st_mode & stat.S_IXUSR
    assert GIT_HOOK_MARKER in (hooks / "pre-commit").read_text()
    assert (hooks / "pre-commit").stat().st_mode & stat.S_IXUSR
    assert sandbox.statuses == [RuntimeStatus.SETTING_UP_GIT_HOOKS] * 2
    assert sandbox.logs[0] == ("info", "Preserving existing pre-commit hook")
    assert sandbox.logs[-1] == ("info", "Git pre-commit hook installed successfully")

    sandbox.sh(".git/hooks/pre-commit")
    assert (sandbox.root / "checked.log").read_text() == "checked\n"


def test_a_hooks_dir_that_cannot_be_made_is_logged_not_raised(sandbox: DirSandbox) -> None:
    (sandbox.root / ".openhands").mkdir()
    (sandbox.root / ".openhands" / "pre-commit.sh").write_text("true\n")
    (sandbox.root / ".git").write_text("gitdir: elsewhere\n")  # a file: no hooks dir inside

    workspace_setup.maybe_setup_git_hooks(sandbox)

    level, message = sandbox.logs[-1]
    assert level == "error"
    assert message.startswith("Failed to create git hooks directory: ")
    assert not (sandbox.root / ".git").is_dir()


# --- microagents (§10.6) ------------------------------------------------------------------


def _put(root: Path, relative: str, content: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def test_microagents_of_the_workspace(sandbox: DirSandbox) -> None:
    _put(sandbox.root, ".openhands/microagents/repo.md", REPO_MD)
    _put(sandbox.root, ".openhands/microagents/knowledge/knowledge.md", KNOWLEDGE_MD)
    _put(sandbox.root, ".openhands/microagents/README.md", "not a microagent")
    _put(sandbox.root, ".openhands_instructions", "Legacy instructions.")

    loaded = workspace_setup.load_workspace_microagents(sandbox, None)

    assert sorted(agent.name for agent in loaded) == [
        "knowledge/knowledge",
        "repo",
        "repo_legacy",
    ]


def test_microagents_of_the_selected_repository(sandbox: DirSandbox) -> None:
    _put(sandbox.root, "project/.openhands/microagents/repo.md", REPO_MD)
    _put(sandbox.root, "project/.openhands_instructions", "Legacy instructions.")
    # Not the selected repository's: ignored.
    _put(sandbox.root, ".openhands/microagents/knowledge.md", KNOWLEDGE_MD)

    loaded = workspace_setup.load_workspace_microagents(sandbox, "org/project")

    assert sorted(agent.name for agent in loaded) == ["repo", "repo_legacy"]


def test_an_empty_workspace_has_no_microagents(sandbox: DirSandbox) -> None:
    assert workspace_setup.load_workspace_microagents(sandbox, None) == []


def test_a_broken_microagent_is_logged_and_its_directory_skipped(sandbox: DirSandbox) -> None:
    _put(sandbox.root, ".openhands/microagents/task.md", "---\nname: t\ninputs: 7\n---\nx\n")
    _put(sandbox.root, ".openhands_instructions", "Legacy instructions.")

    loaded = workspace_setup.load_workspace_microagents(sandbox, None)

    assert [agent.name for agent in loaded] == ["repo_legacy"]
    [(level, message)] = sandbox.logs
    assert level == "error" and message.startswith("could not load microagents from")


# --- git helpers (§10.9) ------------------------------------------------------------------


@pytest.fixture
def repo(sandbox: DirSandbox) -> Path:
    repo = sandbox.root / "repo"
    repo.mkdir()
    sandbox.sh(
        "git init -q -b trunk && echo a > f.txt && git add f.txt && git commit -qm one && "
        "echo b > f.txt",
        cwd=repo,
    )
    return repo


def test_git_queries_run_hidden_static_commands(sandbox: DirSandbox, repo: Path) -> None:
    git = WorkspaceGit(sandbox, HOST_SCRIPTS_DIR)

    assert git.branch(str(repo)) == "trunk"
    # Never pushed (no remote): compared with the empty tree.
    assert git.changes(str(repo)) == [{"status": "A", "path": "f.txt"}]
    assert git.diff(str(repo / "f.txt"), str(repo)) == {"modified": "b\n", "original": ""}
    assert all(c.is_static and c.hidden and c.cwd == str(repo) for c in sandbox.commands)


def test_missing_helper_scripts_are_written_into_the_sandbox(
    sandbox: DirSandbox, repo: Path, tmp_path: Path
) -> None:
    git = WorkspaceGit(sandbox, str(tmp_path / "no-scripts-here"))
    assert git.changes(str(repo)) == [{"status": "A", "path": "f.txt"}]


def test_without_copying_missing_helper_scripts_give_no_changes(
    sandbox: DirSandbox, repo: Path, tmp_path: Path
) -> None:
    git = WorkspaceGit(sandbox, str(tmp_path / "no-scripts-here"), copy_scripts=False)
    assert git.changes(str(repo)) is None
    assert sandbox.writes == []
