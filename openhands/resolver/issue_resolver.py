"""Resolve one issue or pull request of a repository with the agent (resolver.md §5).

The run goes through the same assembly every entry point uses (``create_runtime`` and
``run_controller``, by their ``openhands.core.main`` names). The repository is cloned on
the host into ``<output>/repo``; each run works on a fresh copy of it, mounted as the
sandbox's ``/workspace``, so the repository's setup script, git hooks and microagents are
found where a web conversation finds them. The result is one line of ``output.jsonl``.

``identify_token``, ``create_runtime``, ``run_controller``, ``get_unique_uid``,
``SandboxConfig`` and ``OpenHandsConfig`` are module attributes looked up at call time:
callers (and tests) replace them here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
from argparse import Namespace
from pathlib import Path
from typing import Any
from uuid import uuid4

from pydantic_core import to_jsonable_python

from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, OpenHandsConfig, SandboxConfig
from openhands.core.config.utils import load_openhands_config
from openhands.core.logger import openhands_logger as logger
from openhands.core.main import create_runtime, run_controller
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import Event
from openhands.events.observation import CmdOutputObservation, ErrorObservation, Observation
from openhands.events.stream import EventStreamSubscriber
from openhands.integrations.service_types import ProviderType
from openhands.llm.llm_registry import LLMRegistry
from openhands.resolver.git_helpers import clone_repository, run_git
from openhands.resolver.interfaces.issue import Issue
from openhands.resolver.interfaces.issue_definitions import ServiceContextIssue, ServiceContextPR
from openhands.resolver.issue_handler_factory import IssueHandlerFactory
from openhands.resolver.resolver_output import ResolverOutput
from openhands.resolver.utils import (
    codeact_user_response,
    get_unique_uid,
    identify_token,
    reset_logger_for_multiprocessing,
)
from openhands.runtime.base import Runtime
from openhands.utils.async_utils import GENERAL_TIMEOUT, call_async_from_sync

__all__ = [
    "AGENT_CLASS",
    "IssueResolver",
    "OpenHandsConfig",
    "SandboxConfig",
    "create_runtime",
    "get_unique_uid",
    "identify_token",
    "run_controller",
]

# The resolver's prompts are written for this agent; it is not a setting.
AGENT_CLASS = "CodeActAgent"

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
DEFAULT_ISSUE_PROMPT = PROMPTS_DIR / "resolve" / "basic-with-tests.jinja"
DEFAULT_PR_PROMPT = PROMPTS_DIR / "resolve" / "basic-followup.jinja"
REPO_INSTRUCTIONS_FILE = ".openhands_instructions"

DEFAULT_BASE_DOMAINS = {
    ProviderType.GITHUB: "github.com",
    ProviderType.GITLAB: "gitlab.com",
    ProviderType.BITBUCKET: "bitbucket.org",
}

# A run may spend this much on the LLM at most (US dollars), whatever config.toml says.
MAX_BUDGET_PER_TASK = 4
SANDBOX_TIMEOUT = 300
DIFF_ATTEMPTS = 5
DIFF_RETRY_DELAY = 10


class IssueResolver:
    # Read once: GitLab CI runs the resolver as root beside a separately started sandbox.
    GITLAB_CI = os.getenv("GITLAB_CI") == "true"

    def __init__(self, args: Namespace) -> None:
        owner, repo = _split_repository(args.selected_repo)
        token = (
            args.token
            or os.getenv("GITHUB_TOKEN")
            or os.getenv("GITLAB_TOKEN")
            or os.getenv("BITBUCKET_TOKEN")
        )
        username = args.username or os.getenv("GIT_USERNAME")
        if not username:
            raise ValueError("Username is required.")
        if not token:
            raise ValueError("Token is required.")

        platform = call_async_from_sync(identify_token, GENERAL_TIMEOUT, token, args.base_domain)

        repo_instruction = None
        if args.repo_instruction_file:
            repo_instruction = Path(args.repo_instruction_file).read_text(encoding="utf-8")

        prompt_file = args.prompt_file or str(
            DEFAULT_ISSUE_PROMPT if args.issue_type == "issue" else DEFAULT_PR_PROMPT
        )
        user_template = Path(prompt_file).read_text(encoding="utf-8")
        # Each user-message template has a sibling with the conversation instructions.
        conversation_file = prompt_file.replace(".jinja", "-conversation-instructions.jinja")
        conversation_template = Path(conversation_file).read_text(encoding="utf-8")

        base_domain = args.base_domain or DEFAULT_BASE_DOMAINS.get(platform, "bitbucket.org")

        self.output_dir: str = args.output_dir
        self.issue_type: str = args.issue_type
        self.issue_number: int = args.issue_number
        self.workspace_base = self.build_workspace_base(
            self.output_dir, self.issue_type, self.issue_number
        )
        self.max_iterations: int = args.max_iterations
        self.app_config = self.update_openhands_config(
            load_openhands_config(),
            self.max_iterations,
            self.workspace_base,
            args.base_container_image,
            args.runtime_container_image,
            args.is_experimental,
            args.runtime,
        )
        self.owner = owner
        self.repo = repo
        self.platform = platform
        self.user_instructions_prompt_template = user_template
        self.conversation_instructions_prompt_template = conversation_template
        self.repo_instruction = repo_instruction
        self.comment_id: int | None = args.comment_id
        self.issue_handler: ServiceContextIssue | ServiceContextPR = IssueHandlerFactory(
            owner=owner,
            repo=repo,
            token=token,
            username=username,
            platform=platform,
            base_domain=base_domain,
            issue_type=self.issue_type,
            llm_config=self.app_config.get_llm_config(),
        ).create()

    # --- configuration -----------------------------------------------------------------

    @classmethod
    def update_openhands_config(
        cls,
        config: OpenHandsConfig,
        max_iterations: int,
        workspace_base: str,
        base_container_image: str | None,
        runtime_container_image: str | None,
        is_experimental: bool,
        runtime: str | None = None,
    ) -> OpenHandsConfig:
        """``config`` set up for one resolver run (changed in place and returned)."""
        config.default_agent = AGENT_CLASS
        config.runtime = str(runtime) if runtime else (config.runtime or "docker")
        config.max_budget_per_task = MAX_BUDGET_PER_TASK
        config.max_iterations = max_iterations
        # The copy of the repository is the sandbox's /workspace.
        config.workspace_base = workspace_base
        config.workspace_mount_path = workspace_base
        # The `github` microagent teaches the agent to open PRs itself; here the resolver does.
        config.agents = {AGENT_CLASS: AgentConfig(disabled_microagents=["github"])}
        cls.update_sandbox_config(
            config, base_container_image, runtime_container_image, is_experimental
        )
        return config

    @classmethod
    def update_sandbox_config(
        cls,
        openhands_config: OpenHandsConfig,
        base_container_image: str | None,
        runtime_container_image: str | None,
        is_experimental: bool,
    ) -> None:
        """The sandbox settings of a resolver run.

        Unlike the reference, no image is pinned when neither is given: the runtime then
        builds (or reuses) this project's sandbox image locally, as every other entry point
        does; a registry is never contacted. ``is_experimental`` therefore changes nothing.
        """
        if runtime_container_image is not None and base_container_image is not None:
            raise ValueError("Cannot provide both runtime and base container images.")
        # Validated from a dict: the model turns a None base image into the default one.
        sandbox = SandboxConfig.model_validate(
            {
                "base_container_image": _image_or_none(base_container_image),
                "runtime_container_image": _image_or_none(runtime_container_image),
                "enable_auto_lint": False,
                "use_host_network": False,
                "timeout": SANDBOX_TIMEOUT,
            }
        )
        if cls.GITLAB_CI:
            sandbox.local_runtime_url = os.getenv("LOCAL_RUNTIME_URL", "http://localhost")
            # The sandbox user must not be root, and must not clash with an existing user.
            if os.getuid() == 0:
                sandbox.user_id = get_unique_uid()

        target = openhands_config.sandbox
        target.base_container_image = sandbox.base_container_image
        target.runtime_container_image = sandbox.runtime_container_image
        target.enable_auto_lint = sandbox.enable_auto_lint
        target.use_host_network = sandbox.use_host_network
        target.timeout = sandbox.timeout
        target.local_runtime_url = sandbox.local_runtime_url
        target.user_id = sandbox.user_id

    @staticmethod
    def build_workspace_base(output_dir: str, issue_type: str, issue_number: int) -> str:
        return os.path.abspath(
            os.path.join(output_dir, "workspace", f"{issue_type}_{issue_number}")
        )

    # --- the sandbox before and after the agent ----------------------------------------

    def _in_gitlab_ci(self) -> bool:
        return self.platform == ProviderType.GITLAB and self.GITLAB_CI

    def initialize_runtime(self, runtime: Runtime) -> None:
        """Prepare ``/workspace``: git without a pager, then the repository's setup script
        and git hooks, as a web conversation does."""
        obs = _run(runtime, CmdRunAction(command="cd /workspace"))
        if not _succeeded(obs):
            raise RuntimeError(f"Failed to change directory to /workspace.\n{obs}")
        if self._in_gitlab_ci():
            # The CI checkout belongs to the runner's user, not to the sandbox's.
            _run(runtime, CmdRunAction(command="sudo chown -R 1001:0 /workspace/*"))
        obs = _run(runtime, CmdRunAction(command='git config --global core.pager ""'))
        if not _succeeded(obs):
            raise RuntimeError(f"Failed to set git config.\n{obs}")
        runtime.maybe_run_setup_script()
        runtime.maybe_setup_git_hooks()

    async def complete_runtime(self, runtime: Runtime, base_commit: str) -> dict[str, Any]:
        """``{'git_patch': ...}``: everything the agent changed since ``base_commit``, as a
        diff (None when the diff could not be read)."""
        add_all = "sudo git add -A" if self._in_gitlab_ci() else "git add -A"
        steps = (
            ("cd /workspace", "change directory to /workspace"),
            ('git config --global core.pager ""', "set git config"),
            ("git config --global --add safe.directory /workspace", "set git config"),
            (add_all, "git add -A"),
        )
        for command, what in steps:
            obs = _run(runtime, CmdRunAction(command=command))
            if not _succeeded(obs):
                raise RuntimeError(f"Failed to {what}. Observation: {obs}")

        for attempt in range(1, DIFF_ATTEMPTS + 1):
            action = CmdRunAction(command=f"git diff --no-color --cached {base_commit}")
            # A large diff can take a while; each retry waits longer.
            action.set_hard_timeout(600 + 100 * attempt)
            obs = _run(runtime, action)
            if isinstance(obs, CmdOutputObservation):
                if obs.exit_code == 0:
                    return {"git_patch": obs.content.strip()}
                logger.info("Failed to get the git diff (attempt %d), retrying", attempt)
            elif isinstance(obs, ErrorObservation):
                logger.error("Error while getting the git diff (attempt %d): %s", attempt, obs)
            else:
                raise ValueError(f"Unexpected observation type: {type(obs)}")
            await asyncio.sleep(DIFF_RETRY_DELAY)
        logger.error("Could not read the git diff after %d attempts", DIFF_ATTEMPTS)
        return {"git_patch": None}

    # --- one run ---------------------------------------------------------------------------

    async def process_issue(
        self,
        issue: Issue,
        base_commit: str,
        issue_handler: ServiceContextIssue | ServiceContextPR,
        reset_logger: bool = False,
    ) -> ResolverOutput:
        """Let the agent work on ``issue`` in a fresh copy of the repository and judge the
        result. The runtime is left open (its container ends with the process)."""
        if reset_logger:
            log_dir = os.path.join(self.output_dir, "infer_logs")
            reset_logger_for_multiprocessing(logger, str(issue.number), log_dir)
        else:
            logger.info("Starting fix for issue %s.", issue.number)

        # Every run starts from the clean clone, history included.
        if os.path.exists(self.workspace_base):
            shutil.rmtree(self.workspace_base)
        shutil.copytree(os.path.join(self.output_dir, "repo"), self.workspace_base, symlinks=True)

        runtime = create_runtime(self.app_config, LLMRegistry(self.app_config))
        await runtime.connect()
        runtime.event_stream.subscribe(EventStreamSubscriber.MAIN, _log_event, str(uuid4()))
        self.initialize_runtime(runtime)

        instruction, conversation_instructions, image_urls = issue_handler.get_instruction(
            issue,
            self.user_instructions_prompt_template,
            self.conversation_instructions_prompt_template,
            self.repo_instruction,
        )
        action = MessageAction(content=instruction, image_urls=image_urls)
        state: State | None
        try:
            state = await run_controller(
                config=self.app_config,
                initial_user_action=action,
                runtime=runtime,
                fake_user_response_fn=codeact_user_response,
                conversation_instructions=conversation_instructions,
            )
            if state is None:
                raise RuntimeError("Failed to run the agent.")
        except (ValueError, RuntimeError) as e:
            logger.error("Agent failed with error: %s", e)
            state = None

        git_patch = (await self.complete_runtime(runtime, base_commit))["git_patch"]

        if state is None:
            return ResolverOutput(
                issue=issue,
                issue_type=issue_handler.issue_type,
                instruction=instruction,
                base_commit=base_commit,
                git_patch=git_patch,
                history=[],
                metrics=None,
                success=False,
                comment_success=None,
                result_explanation="Agent failed to run",
                error="Agent failed to run or crashed",
            )

        history = [_event_record(event) for event in state.history]
        metrics = state.metrics.get() if state.metrics else None
        success, comment_success, explanation = issue_handler.guess_success(
            issue, state.history, git_patch
        )
        if comment_success:
            _log_checklist(comment_success, explanation)
        return ResolverOutput(
            issue=issue,
            issue_type=issue_handler.issue_type,
            instruction=instruction,
            base_commit=base_commit,
            git_patch=git_patch,
            history=history,
            metrics=metrics,
            success=success,
            comment_success=comment_success,
            result_explanation=explanation,
            error=state.last_error or None,
        )

    def extract_issue(self) -> Issue:
        """The issue (or PR) to resolve, with its comments; ``ValueError`` when it is not
        there or the requested comment is not part of it."""
        issues = self.issue_handler.get_converted_issues(
            issue_numbers=[self.issue_number], comment_id=self.comment_id
        )
        if not issues:
            raise ValueError(
                f"No issues found for issue number {self.issue_number}. Please verify that:\n"
                f"1. The issue/PR #{self.issue_number} exists in the repository "
                f"{self.owner}/{self.repo}\n"
                "2. You have the correct permissions to access it\n"
                "3. The repository name is spelled correctly"
            )
        issue = issues[0]
        if self.comment_id is not None:
            has_feedback = (
                issue.review_comments or issue.review_threads or issue.thread_comments
                if self.issue_type == "pr"
                else issue.thread_comments
            )
            if not has_feedback:
                raise ValueError(
                    f"Comment ID {self.comment_id} did not have a match for issue {issue.number}"
                )
        return issue

    async def resolve_issue(self, reset_logger: bool = False) -> None:
        """Resolve the issue and append its result to ``<output>/output.jsonl``."""
        issue = self.extract_issue()

        repo_dir = os.path.join(self.output_dir, "repo")
        os.makedirs(self.output_dir, exist_ok=True)
        os.makedirs(os.path.join(self.output_dir, "infer_logs"), exist_ok=True)
        if not os.path.exists(repo_dir):
            clone_repository(self.issue_handler.get_clone_url(), repo_dir)
        base_commit = run_git(repo_dir, "rev-parse", "HEAD")
        logger.info("Base commit: %s", base_commit)

        if self.repo_instruction is None:
            instructions = Path(repo_dir) / REPO_INSTRUCTIONS_FILE
            if instructions.exists():
                self.repo_instruction = instructions.read_text(encoding="utf-8")

        output_file = os.path.join(self.output_dir, "output.jsonl")
        if _already_processed(output_file, issue.number):
            logger.warning("Issue %s was already processed. Skipping.", issue.number)
            return

        if self.issue_type == "pr":
            if not issue.head_branch:
                raise ValueError("Branch name cannot be None")
            # Fetched by URL so that the token never lands in the clone's git config.
            run_git(
                repo_dir,
                "fetch",
                self.issue_handler.get_clone_url(),
                f"+refs/heads/{issue.head_branch}:refs/remotes/origin/{issue.head_branch}",
                secret_url=self.issue_handler.get_clone_url(),
            )
            run_git(repo_dir, "checkout", issue.head_branch)
            base_commit = run_git(repo_dir, "rev-parse", "HEAD")
            logger.info("Checked out PR branch %s at %s", issue.head_branch, base_commit)

        logger.info("Writing output to %s", output_file)
        with open(output_file, "a", encoding="utf-8") as output_fp:
            output = await self.process_issue(issue, base_commit, self.issue_handler, reset_logger)
            output_fp.write(output.model_dump_json() + "\n")
        logger.info("Finished issue %s", issue.number)


# --- helpers ---------------------------------------------------------------------------------


def _split_repository(selected_repo: str) -> tuple[str, str]:
    # The last `/` separates the name: GitLab groups nest (`group/sub/repo`).
    parts = selected_repo.rsplit("/", 1)
    if len(parts) < 2:
        raise ValueError("Invalid repository format. Expected owner/repo")
    return parts[0], parts[1]


def _image_or_none(image: object) -> str | None:
    # Callers may hand over any object (argparse values, test doubles): images are strings.
    return None if image is None else str(image)


def _run(runtime: Runtime, action: CmdRunAction) -> Observation:
    logger.info(action, extra={"msg_type": "ACTION"})
    obs = runtime.run_action(action)
    logger.info(obs, extra={"msg_type": "OBSERVATION"})
    return obs


def _succeeded(obs: Observation) -> bool:
    return isinstance(obs, CmdOutputObservation) and obs.exit_code == 0


def _log_event(event: Event) -> None:
    logger.info(event)


def _event_record(event: Event) -> dict[str, Any]:
    """One history entry of ``output.jsonl``: the event's fields, JSON-ready."""
    fields: dict[str, Any] = dataclasses.asdict(event) if dataclasses.is_dataclass(event) else {}
    record: dict[str, Any] = to_jsonable_python(fields, fallback=str)
    return record


def _log_checklist(comment_success: list[bool], explanation: str) -> None:
    try:
        explanations = json.loads(explanation)
    except json.JSONDecodeError:
        explanations = [explanation]
    if not isinstance(explanations, list):
        explanations = [explanation]
    logger.info("Feedback addressed by the agent:")
    for index, addressed in enumerate(comment_success):
        reason = explanations[index] if index < len(explanations) else ""
        logger.info("- %s %s", "[x]" if addressed else "[ ]", reason)


def _already_processed(output_file: str, issue_number: int) -> bool:
    if not os.path.exists(output_file):
        return False
    with open(output_file, encoding="utf-8") as lines:
        for line in lines:
            if line.strip() and json.loads(line)["issue"]["number"] == issue_number:
                return True
    return False
