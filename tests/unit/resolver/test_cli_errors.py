"""The resolver's command lines end a failure with one ``Error: ...`` line and exit status 1,
whatever failed (a missing setting, the LLM provider, the sandbox), with every secret masked.
Each case runs in its own Python process, as a user or a CI job would see it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.scripted_llm import ErrorReply, ScriptedLLMServer, auth_error, rate_limit_error
from tests.unit.resolver.provider_stand_in import StandInProvider

REPO_ROOT = Path(__file__).resolve().parents[3]
TOKEN = "ghp_cliErrorToken4242"
LLM_KEY = "sk-cliErrorLlmKey9191"

# The resolver's success check asking the LLM, the way `resolve_issue` does after a run.
SUCCESS_CHECK = """
import os
from pydantic import SecretStr
from openhands.core.config import LLMConfig
from openhands.events.action import MessageAction
from openhands.resolver.cli_errors import run_cli
from openhands.resolver.interfaces.github import GithubIssueHandler
from openhands.resolver.interfaces.issue import Issue
from openhands.resolver.interfaces.issue_definitions import ServiceContextIssue


def main() -> None:
    config = LLMConfig(
        model="openai/test-model",
        base_url=os.environ["LLM_BASE_URL"],
        api_key=SecretStr(os.environ["LLM_API_KEY"]),
        num_retries=1,
    )
    context = ServiceContextIssue(GithubIssueHandler("acme", "widgets", "t", "bot"), config)
    issue = Issue(owner="acme", repo="widgets", number=1, title="t", body="b")
    context.guess_success(issue, [MessageAction(content="done")], "diff")


run_cli(main)
"""


def _env(**values: str) -> dict[str, str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for name in ("GITHUB_TOKEN", "GITLAB_TOKEN", "BITBUCKET_TOKEN", "LLM_MODEL", "LLM_API_KEY"):
        env.pop(name, None)
    return {**env, **values}


def _python(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # From an empty directory: no config.toml of the checkout is read.
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            env={**env, "PYTHONPATH": str(REPO_ROOT)},
            cwd=cwd,
            check=False,
            timeout=120,
        )


def _one_error_line(completed: subprocess.CompletedProcess[str], *secrets: str) -> str:
    """The single ``Error:`` line of a failed run, after checking the run's shape."""
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    for secret in secrets:
        assert secret not in completed.stderr + completed.stdout
    [line] = [text for text in completed.stderr.splitlines() if text.startswith("Error: ")]
    return line


@pytest.fixture
def github(provider: StandInProvider) -> StandInProvider:
    """A stand-in GitHub Enterprise that accepts the token (so `identify_token` passes)."""
    provider.on("GET", "/api/v3/user", (200, {"login": "bot", "id": 1}))
    return provider


@pytest.mark.parametrize(
    ("given", "missing", "hint"),
    [
        ({"LLM_MODEL": "openai/test-model"}, "LLM_API_KEY", "--llm-api-key"),
        ({"LLM_API_KEY": LLM_KEY}, "LLM_MODEL", "--llm-model"),
    ],
)
def test_send_pull_request_without_llm_settings_names_the_missing_one(
    github: StandInProvider, tmp_path: Path, given: dict[str, str], missing: str, hint: str
) -> None:
    env = _env(**given)
    env.pop(missing, None)
    args = ["--issue-number", "1", "--output-dir", str(tmp_path), "--token", TOKEN]
    completed = _python(
        "-m",
        "openhands.resolver.send_pull_request",
        *args,
        "--base-domain",
        github.domain,
        env=env,
    )

    line = _one_error_line(completed, TOKEN, LLM_KEY)
    assert (
        line
        == f"Error: The environment variable {missing} is not set: set {missing} or pass {hint}"
    )
    # The token was checked first (its provider decides the handlers).
    assert ("GET", "/api/v3/user") in github.seen("GET")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (auth_error(), "The LLM provider rejected the API key (HTTP 401)"),
        (rate_limit_error(), "The LLM provider's rate limit is exhausted (HTTP 429)"),
        (ErrorReply(status=500, message="boom", type="server_error"), "The LLM request failed"),
    ],
)
def test_llm_provider_errors_are_one_masked_line(reply: ErrorReply, expected: str) -> None:
    # The provider quotes the key back, as OpenAI does for a wrong one.
    echoed = ErrorReply(
        status=reply.status,
        message=f"{reply.message} (key {LLM_KEY})",
        type=reply.type,
        code=reply.code,
        headers=reply.headers,
    )
    with ScriptedLLMServer(fallback=echoed) as llm:
        completed = _python(
            "-c", SUCCESS_CHECK, env=_env(LLM_BASE_URL=llm.base_url, LLM_API_KEY=LLM_KEY)
        )
        assert llm.completion_requests, "the LLM was never asked"

    line = _one_error_line(completed, LLM_KEY)
    assert line.startswith(f"Error: {expected}")
    assert "*" in line  # the echoed key, masked


def test_an_unreachable_llm_is_one_line_naming_the_base_url_setting() -> None:
    with ScriptedLLMServer() as llm:
        closed_url = llm.base_url  # nothing listens there once the server stops
    completed = _python("-c", SUCCESS_CHECK, env=_env(LLM_BASE_URL=closed_url, LLM_API_KEY=LLM_KEY))
    line = _one_error_line(completed, LLM_KEY)
    assert line.startswith("Error: Could not reach the LLM provider")
    assert line.endswith("check LLM_BASE_URL")


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (
            "AgentRuntimeUnavailableError('container exited')",
            "Error: The sandbox failed: container exited",
        ),
        ("LLMNoResponseError('no answer')", "Error: no answer"),
        ("AgentStuckInLoopError('stuck')", "Error: stuck"),
    ],
)
def test_openhands_errors_are_one_line(raised: str, expected: str) -> None:
    script = (
        "from openhands.core.exceptions import *\n"
        "from openhands.resolver.cli_errors import run_cli\n"
        "def main():\n"
        f"    raise {raised}\n"
        "run_cli(main)\n"
    )
    completed = _python("-c", script, env=_env())
    assert _one_error_line(completed) == expected


def test_an_unexpected_error_keeps_its_traceback_with_secrets_masked() -> None:
    script = (
        "import os\n"
        "from openhands.resolver.cli_errors import run_cli\n"
        "def main():\n"
        "    raise ZeroDivisionError('token ' + os.environ['GITHUB_TOKEN'])\n"
        "run_cli(main)\n"
    )
    completed = _python("-c", script, env=_env(GITHUB_TOKEN=TOKEN))
    assert completed.returncode == 1
    assert "Traceback" in completed.stderr and "ZeroDivisionError" in completed.stderr
    assert TOKEN not in completed.stderr


def test_resolve_issue_never_prints_a_token_passed_as_an_argument(
    provider: StandInProvider,
) -> None:
    # Only `--token` holds the secret here (no *_TOKEN variable), and the API quotes it.
    provider.on("GET", "/api/v3/user", (200, {"login": "bot", "id": 1}))
    provider.on(
        "GET",
        "/api/v3/repos/acme/widgets/issues",
        (404, {"message": f"Not Found for {TOKEN}"}),
    )
    completed = _python(
        "-m",
        "openhands.resolver.resolve_issue",
        "--selected-repo",
        "acme/widgets",
        "--issue-number",
        "1",
        "--token",
        TOKEN,
        "--username",
        "bot",
        "--base-domain",
        provider.domain,
        env=_env(),
    )
    line = _one_error_line(completed, TOKEN)
    assert line.startswith("Error: HTTP 404 from GET https://")
