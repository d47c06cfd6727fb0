"""Org-level microagents (``<owner>/.openhands``, ``openhands-config`` on GitLab), cloned
with the credentials of the selected repository's own clone, against real git repositories
on disk and the plain-directory sandbox of test_workspace_setup."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.runtime import workspace_setup
from openhands.runtime.org_microagents import load_org_microagents, org_repository_url
from tests.unit.runtime.test_workspace_setup import KNOWLEDGE_MD, REPO_MD, DirSandbox

SHARED_MD = "---\nname: shared\ntype: knowledge\ntriggers:\n  - deploy\n---\nUse make deploy.\n"


@pytest.fixture
def sandbox(tmp_path: Path) -> DirSandbox:
    (tmp_path / "home").mkdir()
    (tmp_path / "workspace").mkdir()
    return DirSandbox(tmp_path / "workspace", tmp_path / "home")


def _repository(sandbox: DirSandbox, path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for relative, content in files.items():
        (path / relative).parent.mkdir(parents=True, exist_ok=True)
        (path / relative).write_text(content)
    sandbox.sh("git init -q -b main && git add -A && git commit -qm init", cwd=path)
    return path


def _clone_selected(sandbox: DirSandbox, remotes: Path) -> None:
    api = _repository(
        sandbox, remotes / "acme" / "api", {".openhands/microagents/repo.md": REPO_MD}
    )
    workspace_setup.clone_or_init_repo(sandbox, "acme/api", "main", str(api), init_git=False)


def test_org_repository_urls() -> None:
    assert (
        org_repository_url("https://ghp_x@github.com/acme/api.git")
        == "https://ghp_x@github.com/acme/.openhands.git"
    )
    assert (
        org_repository_url("https://oauth2:glpat@git.corp/group/sub/api.git")
        == "https://oauth2:glpat@git.corp/group/sub/openhands-config.git"
    )
    assert (
        org_repository_url("https://gitlab.com/acme/api")
        == "https://gitlab.com/acme/openhands-config"
    )
    assert (
        org_repository_url("https://x-token-auth:t@bitbucket.org/ws/api.git")
        == "https://x-token-auth:t@bitbucket.org/ws/.openhands.git"
    )
    assert org_repository_url("git@github.com:acme/api.git") == "git@github.com:acme/.openhands.git"
    assert org_repository_url("/srv/git/acme/api") == "/srv/git/acme/.openhands"
    assert org_repository_url("https://github.com/api") is None
    assert org_repository_url("api") is None


def test_the_owners_shared_microagents_are_loaded(sandbox: DirSandbox, tmp_path: Path) -> None:
    remotes = tmp_path / "remotes"
    _clone_selected(sandbox, remotes)
    _repository(
        sandbox,
        remotes / "acme" / ".openhands",
        {
            "microagents/shared.md": SHARED_MD,
            "microagents/knowledge.md": KNOWLEDGE_MD,
            "microagents/README.md": "not a microagent",
        },
    )
    before = sorted(p.name for p in sandbox.root.iterdir())

    loaded = load_org_microagents(sandbox, "acme/api")

    assert sorted(agent.name for agent in loaded) == ["knowledge", "shared"]
    shared = next(agent for agent in loaded if agent.name == "shared")
    assert "make deploy" in shared.content
    # The org repository was cloned for the reading only, out of the agent's sight.
    assert sorted(p.name for p in sandbox.root.iterdir()) == before
    assert all(command.hidden for command in sandbox.commands)


def test_no_org_repository_means_no_shared_microagents(sandbox: DirSandbox, tmp_path: Path) -> None:
    _clone_selected(sandbox, tmp_path / "remotes")
    assert load_org_microagents(sandbox, "acme/api") == []
    assert ("info", "no org-level microagents for acme/api") in sandbox.logs
    assert sorted(p.name for p in sandbox.root.iterdir()) == ["api"]


def test_without_a_clone_nothing_is_asked(sandbox: DirSandbox) -> None:
    assert load_org_microagents(sandbox, "acme/api") == []
    assert not any("git clone" in command.command for command in sandbox.commands)


def test_without_a_clone_the_provider_names_the_org_repository(
    sandbox: DirSandbox, tmp_path: Path
) -> None:
    shared = _repository(
        sandbox, tmp_path / "remotes" / "acme" / ".openhands", {"microagents/shared.md": SHARED_MD}
    )
    asked: list[str] = []

    def provider_url(owner: str) -> str:
        asked.append(owner)
        return str(shared)

    loaded = load_org_microagents(sandbox, "github.com/acme/api", provider_url=provider_url)

    assert [agent.name for agent in loaded] == ["shared"]
    assert asked == ["acme"]
    # Cloned as org_openhands_<owner> (runtime.md §10.6) and removed after reading.
    assert any("org_openhands_acme" in command.command for command in sandbox.commands)
    assert list(sandbox.root.iterdir()) == []


def test_a_provider_that_cannot_tell_means_no_shared_microagents(sandbox: DirSandbox) -> None:
    def provider_url(owner: str) -> str:
        raise RuntimeError("https://ghp_secret@github.com/acme/.openhands.git not found")

    assert load_org_microagents(sandbox, "acme/api", provider_url=provider_url) == []
    assert not any("git clone" in command.command for command in sandbox.commands)
    assert not any("ghp_secret" in message for _, message in sandbox.logs)
    # A repository without an owner part has no org repository to ask about.
    assert load_org_microagents(sandbox, "api", provider_url=provider_url) == []
