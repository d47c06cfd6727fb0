"""Sending a result: real git (a bare repository stands in for the remote, reached through
``url.<path>.insteadOf``) and a stand-in GitHub Enterprise API over HTTPS."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openhands.integrations.service_types import ProviderType
from openhands.resolver.interfaces.issue import Issue
from openhands.resolver.patching.exceptions import HunkApplyException
from openhands.resolver.patching.repository import PatchPathError, apply_patch
from openhands.resolver.resolver_output import ResolverOutput
from openhands.resolver.send_pull_request import process_single_issue
from tests.unit.resolver.provider_stand_in import StandInProvider

REPO_API = "/api/v3/repos/acme/widgets"
TOKEN = "ghp_pushsecret123"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def workspace(tmp_path: Path, provider: StandInProvider) -> tuple[Path, Path, str]:
    """``(output dir, bare remote, patch)``: ``output/repo`` is a clone whose pushes to
    the provider's clone URL land in the bare remote; the patch edits ``app.py``."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = tmp_path / "output" / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def answer():\n    return 41\n")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=dev", "-c", "user.email=dev@example.com", "commit", "-qm", "base")
    git(repo, "push", "-q", str(remote), "main")
    push_url = f"https://bot:{TOKEN}@{provider.domain}/acme/widgets.git"
    git(repo, "config", f"url.{remote}.insteadOf", push_url)

    (repo / "app.py").write_text("def answer():\n    return 42\n")
    patch = git(repo, "diff")
    git(repo, "checkout", "-q", "app.py")
    return tmp_path / "output", remote, patch


def result(
    patch: str, base_commit: str, issue_type: str = "issue", **issue: object
) -> ResolverOutput:
    return ResolverOutput(
        issue=Issue(
            owner="acme", repo="widgets", number=7, title='Off "by" one', body="b", **issue
        ),
        issue_type=issue_type,
        instruction="",
        base_commit=base_commit,
        git_patch=patch,
        history=[],
        metrics=None,
        success=True,
        comment_success=None,
        result_explanation='["fixed the constant"]',
        error=None,
    )


def serve_github(provider: StandInProvider, pr_status: int = 201) -> None:
    provider.on("GET", f"{REPO_API}", (200, {"default_branch": "main"}))
    provider.on("GET", "/api/v3/user", (200, {"login": "bot", "id": 1}))
    provider.on(
        "POST",
        f"{REPO_API}/pulls",
        (
            pr_status,
            {"html_url": "https://example/pull/3", "number": 3, "message": "limited"},
            {"retry-after": "60"},
        )
        if pr_status != 201
        else (201, {"html_url": "https://example/pull/3", "number": 3}),
    )


def test_an_issue_fix_is_committed_pushed_and_proposed(
    workspace: tuple[Path, Path, str], provider: StandInProvider
) -> None:
    output, remote, patch = workspace
    serve_github(provider)
    base = git(output / "repo", "rev-parse", "HEAD").strip()

    process_single_issue(
        str(output),
        result(patch, base),
        TOKEN,
        "bot",
        ProviderType.GITHUB,
        "draft",
        None,
        None,
        False,
        base_domain=provider.domain,
    )

    branch = "openhands-fix-issue-7"
    assert git(remote, "show", f"{branch}:app.py") == "def answer():\n    return 42\n"
    assert git(remote, "log", "-1", "--format=%s", branch).strip() == 'Fix issue #7: Off "by" one'
    pr = next(r for r in provider.requests if r.method == "POST")
    assert pr.body["head"] == branch and pr.body["base"] == "main" and pr.body["draft"] is True
    assert pr.body["body"].startswith('This pull request fixes #7.\n\n["fixed the constant"]')


def test_a_patch_that_does_not_apply_sends_nothing(
    workspace: tuple[Path, Path, str], provider: StandInProvider
) -> None:
    output, remote, patch = workspace
    serve_github(provider)
    base = git(output / "repo", "rev-parse", "HEAD").strip()
    stale = patch.replace("-    return 41", "-    return 40")

    with pytest.raises(HunkApplyException):
        process_single_issue(
            str(output),
            result(stale, base),
            TOKEN,
            "bot",
            ProviderType.GITHUB,
            "ready",
            None,
            None,
            False,
            base_domain=provider.domain,
        )

    assert git(remote, "branch", "--list").split() == ["main"]
    assert provider.requests == []
    assert (
        output / "patches" / "issue_7" / "app.py"
    ).read_text() == "def answer():\n    return 41\n"


def test_a_pr_update_pushes_to_its_branch_and_answers_each_thread(
    workspace: tuple[Path, Path, str], provider: StandInProvider
) -> None:
    output, remote, patch = workspace
    repo = output / "repo"
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "push", "-q", str(remote), "feature")
    provider.on("POST", f"{REPO_API}/issues/7/comments", (201, {}))
    provider.on("POST", "/api/graphql", (200, {"data": {}}))
    # The authorize URL form of the remote, as the PR update pushes to it.
    git(
        repo,
        "config",
        f"url.{remote}.insteadOf",
        f"https://bot:{TOKEN}@{provider.domain}/acme/widgets.git",
    )

    process_single_issue(
        str(output),
        result(patch, "", "pr", head_branch="feature", thread_ids=["T1"]),
        TOKEN,
        "bot",
        ProviderType.GITHUB,
        "draft",
        None,
        None,
        False,
        base_domain=provider.domain,
    )

    assert git(remote, "show", "feature:app.py").endswith("return 42\n")
    comment, reply = [r.body for r in provider.requests]
    assert comment == {
        "body": "OpenHands made the following changes to resolve the issues:\n\n- fixed the constant\n"
    }
    assert reply["variables"]["pullRequestReviewThreadId"] == "T1"


def test_the_command_line_reports_a_rate_limit_in_one_line(
    workspace: tuple[Path, Path, str], provider: StandInProvider
) -> None:
    output, remote, patch = workspace
    serve_github(provider, pr_status=429)
    base = git(output / "repo", "rev-parse", "HEAD").strip()
    (output / "output.jsonl").write_text(result(patch, base).model_dump_json() + "\n")
    env = {**os.environ, "LLM_MODEL": "gpt-4o", "LLM_API_KEY": "sk-unused"}
    env.pop("GITHUB_TOKEN", None)

    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "openhands.resolver.send_pull_request",
            "--issue-number",
            "7",
            "--output-dir",
            str(output),
            "--token",
            TOKEN,
            "--username",
            "bot",
            "--base-domain",
            provider.domain,
            "--pr-type",
            "ready",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )

    assert completed.returncode == 1
    assert "rate limit" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert TOKEN not in completed.stderr + completed.stdout
    assert "openhands-fix-issue-7" in git(remote, "branch", "--list")


def test_paths_outside_the_repository_are_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("a\n")
    patch = (
        "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/x b/../escape.txt\nnew file mode 100644\nindex 0000000..3\n--- /dev/null\n"
        "+++ b/../escape.txt\n@@ -0,0 +1 @@\n+pwned\n"
    )
    with pytest.raises(PatchPathError):
        apply_patch(str(repo), patch)
    assert not (tmp_path / "escape.txt").exists()
    assert (repo / "a.txt").read_text() == "a\n"


def test_renames_move_files_and_drop_emptied_directories(tmp_path: Path) -> None:
    (tmp_path / "old" / "deep").mkdir(parents=True)
    (tmp_path / "old" / "deep" / "f.txt").write_text("same\r\n")
    patch = (
        "diff --git a/old/deep/f.txt b/new/f.txt\nsimilarity index 100%\n"
        "rename from old/deep/f.txt\nrename to new/f.txt\n"
    )
    apply_patch(str(tmp_path), patch)
    assert (tmp_path / "new" / "f.txt").read_bytes() == b"same\r\n"
    assert not (tmp_path / "old").exists()
