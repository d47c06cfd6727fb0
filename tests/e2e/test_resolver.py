"""The issue resolver end to end: a stand-in GitHub with a real git server, the real Docker
sandbox and the scripted LLM over HTTP.

``resolve_issue`` clones the repository from the git server, the agent edits it in the
sandbox, the success check answers, and ``output.jsonl`` holds the result with its diff;
``send_pull_request --pr-type draft`` then pushes a branch the git server really has and
opens the pull request in the stand-in. A pull request with a review thread is resolved,
pushed to its own branch and answered. Failures (a patch that does not apply, a refused
token, an exhausted rate limit) end with one clear line and a non-zero exit, no traceback,
and leave the remote as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.git_forge import ForgeState, GitForge
from tests.support.scripted_llm import ScriptedLLMServer, text, tool_call
from tests.support.tls_certs import TestCA

REPO_ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghp_resolverE2Etoken123"
OWNER, REPO = "acme", "greeter"
MODEL = "openai/test-model"
VERDICT = "--- success\ntrue\n--- explanation\nThe greeting now says hello."
ISSUE = {
    "number": 1,
    "title": "Greeting says goodbye",
    "body": "`greet()` in app.py must return 'hello', not 'goodbye'.",
}
PR = {"number": 2, "title": "Add farewell", "body": "Adds farewell().", "head": {"ref": "feature"}}
THREAD_ID = "PRRT_thread1"


@pytest.fixture(scope="module")
def forge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitForge]:
    root = tmp_path_factory.mktemp("forge")
    ca = TestCA(root / "ca")
    tls = ca._issue(
        "forge",
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
        "keyUsage=critical,digitalSignature\n",
    )
    state = ForgeState(OWNER, REPO, TOKEN, issues=[ISSUE], pulls=[PR])
    state.pr_metadata[2] = {
        "closingIssuesReferences": {"edges": []},
        "url": "",
        "reviews": {"nodes": []},
        "reviewThreads": {
            "edges": [
                {
                    "node": {
                        "id": THREAD_ID,
                        "isResolved": False,
                        "comments": {
                            "totalCount": 1,
                            "nodes": [
                                {
                                    "body": "farewell() should return 'bye'",
                                    "path": "app.py",
                                    "fullDatabaseId": "11",
                                }
                            ],
                        },
                    }
                }
            ]
        },
    }
    with GitForge(root, tls, state) as server:
        _seed_repository(root / "seed", server.bare_repo)
        server.ca_file = ca.cert  # type: ignore[attr-defined]
        yield server


def _seed_repository(work: Path, bare: Path) -> None:
    def git(*args: str, cwd: Path = work) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    work.mkdir()
    git("init", "-q", "-b", "main")
    git("config", "user.name", "seed")
    git("config", "user.email", "seed@example.com")
    (work / "app.py").write_text("def greet():\n    return 'goodbye'\n")
    git("add", ".")
    git("commit", "-q", "-m", "initial")
    git("checkout", "-q", "-b", "feature")
    (work / "app.py").write_text(
        "def greet():\n    return 'goodbye'\n\n\ndef farewell():\n    return 'later'\n"
    )
    git("commit", "-q", "-am", "farewell")
    bare.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", "--bare", str(work), str(bare), cwd=work.parent)
    git("config", "http.receivepack", "true", cwd=bare)


def _env(forge: GitForge, llm: ScriptedLLMServer | None, token: str = TOKEN) -> dict[str, str]:
    ca = str(forge.ca_file)  # type: ignore[attr-defined]
    env = {
        **os.environ,
        "GITHUB_TOKEN": token,
        "GIT_USERNAME": "resolver-bot",
        "SSL_CERT_FILE": ca,
        "GIT_SSL_CAINFO": ca,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LLM_MODEL": MODEL,
        "LLM_API_KEY": "test-key",
        "PYTHONPATH": str(REPO_ROOT),
    }
    env.pop("GITLAB_TOKEN", None)
    env.pop("BITBUCKET_TOKEN", None)
    if llm is not None:
        env["LLM_BASE_URL"] = llm.base_url
    return env


def _write_config(folder: Path, llm: ScriptedLLMServer) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f"""
[core]
enable_browser = false
file_store = "local"
file_store_path = "{folder / "store"}"

[llm]
model = "{MODEL}"
base_url = "{llm.base_url}"
api_key = "test-key"
num_retries = 0
native_tool_calling = true
"""
    )


def _module(name: str, *args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", f"openhands.resolver.{name}", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _resolve(forge: GitForge, cwd: Path, env: dict[str, str], *extra: str):
    return _module(
        "resolve_issue",
        "--selected-repo", f"{OWNER}/{REPO}",
        "--base-domain", forge.domain,
        "--max-iterations", "6",
        *extra,
        cwd=cwd, env=env,
    )  # fmt: skip


def _edit(old: str, new: str) -> object:
    return tool_call(
        "str_replace_editor",
        {
            "command": "str_replace",
            "path": "/workspace/app.py",
            "old_str": old,
            "new_str": new,
            "security_risk": "LOW",
        },
    )


def test_refused_token_is_one_clear_line(forge: GitForge, tmp_path: Path) -> None:
    result = _resolve(
        forge, tmp_path, _env(forge, None, token="ghp_wrongtoken999"), "--issue-number", "1"
    )
    assert result.returncode == 1
    assert "Error: Token is invalid." in result.stderr
    assert "Traceback" not in result.stderr
    assert "ghp_wrongtoken999" not in result.stderr + result.stdout


def test_rate_limited_api_is_one_clear_line(forge: GitForge, tmp_path: Path) -> None:
    forge.state.rate_limited = True
    try:
        result = _resolve(forge, tmp_path, _env(forge, None), "--issue-number", "1")
    finally:
        forge.state.rate_limited = False
    assert result.returncode == 1
    assert "Error: API rate limit exceeded (HTTP 403)" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "output" / "repo").exists()


@pytest.mark.docker
def test_issue_is_resolved_and_sent_as_draft_pr(forge: GitForge, tmp_path: Path) -> None:
    script = [
        _edit("return 'goodbye'", "return 'hello'"),
        tool_call("finish", {"message": "greet() now returns 'hello'."}),
        text(VERDICT),  # the success check
    ]
    with ScriptedLLMServer(script) as llm:
        _write_config(tmp_path, llm)
        env = _env(forge, llm)
        result = _resolve(forge, tmp_path, env, "--issue-number", "1")
        assert result.returncode == 0, result.stderr[-4000:]

        lines = (tmp_path / "output" / "output.jsonl").read_text().splitlines()
        assert len(lines) == 1 and '"success":true' in lines[0]
        record = json.loads(lines[0])
        assert record["issue"]["title"] == ISSUE["title"]
        assert "+    return 'hello'" in record["git_patch"]
        assert record["result_explanation"] == "The greeting now says hello."
        # The token reached neither the output nor the clone's configuration.
        assert TOKEN not in lines[0]
        assert TOKEN not in (tmp_path / "output" / "repo" / ".git" / "config").read_text()
        # The success check saw the spec's labels.
        check = json.dumps(llm.completion_requests[-1].messages)
        assert "Issue description:\\n" in check and "Last message from AI agent:\\n" in check

        # A patch that does not apply: nothing is committed, pushed or opened.
        broken = tmp_path / "broken"
        broken.mkdir()
        subprocess.run(["cp", "-r", str(tmp_path / "output" / "repo"), str(broken)], check=True)
        bad = dict(
            record,
            git_patch=record["git_patch"].replace("-    return 'goodbye'", "-    return 'nope'"),
        )
        (broken / "output.jsonl").write_text(json.dumps(bad) + "\n")
        before = forge.branches()
        failed = _module(
            "send_pull_request",
            "--issue-number", "1", "--pr-type", "draft", "--base-domain", forge.domain,
            "--output-dir", str(broken),
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert failed.returncode == 1
        assert "Error:" in failed.stderr and "Traceback" not in failed.stderr
        assert forge.branches() == before and forge.state.created_pulls == []

        sent = _module(
            "send_pull_request",
            "--issue-number", "1", "--pr-type", "draft", "--base-domain", forge.domain,
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert sent.returncode == 0, sent.stderr[-4000:]

    assert "openhands-fix-issue-1" in forge.branches()
    assert "return 'hello'" in forge.show("openhands-fix-issue-1", "app.py")
    [pull] = forge.state.created_pulls
    assert pull == {
        "title": "Fix issue #1: Greeting says goodbye",
        "body": "This pull request fixes #1.\n\nThe greeting now says hello.\n\n"
        "Automatic fix generated by [OpenHands](https://github.com/All-Hands-AI/OpenHands/) 🙌",
        "head": "openhands-fix-issue-1",
        "base": "main",
        "draft": True,
    }


@pytest.mark.docker
def test_pr_feedback_is_resolved_pushed_and_answered(forge: GitForge, tmp_path: Path) -> None:
    script = [
        _edit("return 'later'", "return 'bye'"),
        tool_call("finish", {"message": "farewell() returns 'bye'."}),
        text("--- success\ntrue\n--- explanation\nfarewell() returns 'bye' now."),
        text("farewell() now returns 'bye'; the review thread is addressed."),  # PR summary
    ]
    with ScriptedLLMServer(script) as llm:
        _write_config(tmp_path, llm)
        env = _env(forge, llm)
        result = _resolve(forge, tmp_path, env, "--issue-number", "2", "--issue-type", "pr")
        assert result.returncode == 0, result.stderr[-4000:]
        record = json.loads((tmp_path / "output" / "output.jsonl").read_text())
        assert record["success"] is True and record["comment_success"] == [True]
        assert record["issue"]["head_branch"] == "feature"
        assert record["issue"]["thread_ids"] == [THREAD_ID]

        before = forge.branches()["feature"]
        sent = _module(
            "send_pull_request", "--issue-number", "2", "--base-domain", forge.domain,
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert sent.returncode == 0, sent.stderr[-4000:]

    assert forge.branches()["feature"] != before
    assert "return 'bye'" in forge.show("feature", "app.py")
    assert forge.state.posted_comments == [
        (2, "farewell() now returns 'bye'; the review thread is addressed.")
    ]
    [reply] = forge.state.thread_replies
    assert reply["pullRequestReviewThreadId"] == THREAD_ID
    assert reply["body"].endswith("farewell() returns 'bye' now.")
