"""``python -m openhands.resolver.resolve_issue``: let the agent resolve one issue or PR.

The result is appended to ``<output-dir>/output.jsonl``; ``send_pull_request`` then turns
it into a branch and a pull request. The LLM comes from ``config.toml`` and the ``LLM_*``
environment variables (resolver.md §4.1).
"""

from __future__ import annotations

import argparse
import asyncio

from openhands.core.logger import register_secret
from openhands.resolver.cli_errors import run_cli
from openhands.resolver.issue_resolver import IssueResolver


def int_or_none(value: str) -> int | None:
    """``--comment-id``: a number, or ``none`` (any case) for no comment."""
    return None if value.lower() == "none" else int(value)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Resolve an issue or a pull request's feedback.")
    parser.add_argument(
        "--selected-repo",
        type=str,
        required=True,
        help="Repository as owner/repo (GitLab groups nest: group/sub/repo).",
    )
    parser.add_argument(
        "--token",
        type=str,
        default=None,
        help="Access token (else GITHUB_TOKEN, GITLAB_TOKEN or BITBUCKET_TOKEN).",
    )
    parser.add_argument(
        "--username", type=str, default=None, help="Git username (else GIT_USERNAME)."
    )
    parser.add_argument(
        "--base-container-image",
        type=str,
        default=None,
        help="Image to build the sandbox image on (default: this project's base image).",
    )
    parser.add_argument(
        "--runtime-container-image",
        type=str,
        default=None,
        help="Ready-made sandbox image to use as is.",
    )
    parser.add_argument(
        "--runtime", type=str, default=None, help="Runtime (default: config, else docker)."
    )
    parser.add_argument(
        "--max-iterations", type=int, default=50, help="Most agent steps for the run."
    )
    parser.add_argument(
        "--issue-number", type=int, required=True, help="Number of the issue or PR."
    )
    parser.add_argument(
        "--comment-id",
        type=int_or_none,
        required=False,
        default=None,
        help="Only address this comment ('none' for all).",
    )
    parser.add_argument(
        "--output-dir", type=str, default="output", help="Where the clone and results go."
    )
    # Accepted for compatibility; the LLM is configured by config.toml and LLM_* variables.
    parser.add_argument("--llm-model", type=str, default=None, help="Ignored: set LLM_MODEL.")
    parser.add_argument("--llm-api-key", type=str, default=None, help="Ignored: set LLM_API_KEY.")
    parser.add_argument("--llm-base-url", type=str, default=None, help="Ignored: set LLM_BASE_URL.")
    parser.add_argument(
        "--prompt-file",
        type=str,
        default=None,
        help="Jinja template of the task message; its '-conversation-instructions' sibling "
        "must exist too.",
    )
    parser.add_argument(
        "--repo-instruction-file",
        type=str,
        default=None,
        help="Text about the repository for the agent (else the repo's .openhands_instructions).",
    )
    parser.add_argument(
        "--issue-type",
        type=str,
        default="issue",
        choices=["issue", "pr"],
        help="Resolve an open issue, or the feedback on a pull request.",
    )
    parser.add_argument(
        "--is-experimental",
        type=lambda value: value.lower() == "true",
        help="'true' for experimental mode.",
    )
    parser.add_argument(
        "--base-domain",
        type=str,
        default=None,
        help="Host of a self-hosted server (default: github.com, gitlab.com or bitbucket.org "
        "by the token's provider).",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    # The token then never shows in a log line or an error message.
    register_secret(args.token)
    run_cli(lambda: asyncio.run(IssueResolver(args).resolve_issue()))


if __name__ == "__main__":
    main()
