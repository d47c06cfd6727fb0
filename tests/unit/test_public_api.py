"""The reference's public import paths (spec python-api.md §14) that the utils,
integrations and re-export work covers: names, kinds, signatures and behaviour."""

from __future__ import annotations

import asyncio
import base64
import importlib
import inspect
import subprocess
import sys
from types import MappingProxyType
from typing import Any
from uuid import UUID, uuid4

import pytest
from pydantic import BaseModel, SecretStr


def _params(fn: Any) -> list[str]:
    return list(inspect.signature(fn).parameters)


# --- item 29: the package root -----------------------------------------------------------


def test_version() -> None:
    import openhands

    assert openhands.__version__ == "0.59.0"
    assert openhands.get_version() == "0.59.0"
    assert openhands.__package_name__ == "openhands_ai"


def test_import_openhands_stays_cheap() -> None:
    code = (
        "import sys, openhands; print(sorted(m for m in sys.modules if m.startswith('openhands')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['openhands']"


# --- items 1, 2, 10 and the §13 item 1 re-exports: the same objects ----------------------


def test_events_reexports() -> None:
    import openhands.events as events
    from openhands.events import EventStream, EventStreamSubscriber, stream

    assert EventStream is stream.EventStream
    assert EventStreamSubscriber is stream.EventStreamSubscriber
    assert events.__all__ == [
        "Event",
        "EventSource",
        "EventStream",
        "EventStreamSubscriber",
        "RecallType",
    ]
    with pytest.raises(AttributeError):
        events.NoSuchName  # noqa: B018


def test_delegate_observation_and_output_size() -> None:
    from openhands.events.observation import agent
    from openhands.events.observation.commands import MAX_CMD_OUTPUT_SIZE
    from openhands.events.observation.delegate import AgentDelegateObservation
    from openhands.events.serialization import event_from_dict, event_to_dict

    assert AgentDelegateObservation is agent.AgentDelegateObservation
    assert MAX_CMD_OUTPUT_SIZE == 30000
    loaded = event_from_dict(
        event_to_dict(AgentDelegateObservation(content="done", outputs={"a": 1}))
    )
    assert type(loaded) is AgentDelegateObservation
    assert loaded.observation == "delegate" and loaded.outputs == {"a": 1}


def test_condenser_reexports() -> None:
    from openhands.memory import view
    from openhands.memory.condenser import View
    from openhands.memory.condenser.impl import (
        AmortizedForgettingCondenser,
        BrowserOutputCondenser,
        CondenserPipeline,
        ConversationWindowCondenser,
        ImportantEventSelection,
        LLMAttentionCondenser,
        LLMSummarizingCondenser,
        NoOpCondenser,
        ObservationMaskingCondenser,
        RecentEventsCondenser,
        StructuredSummaryCondenser,
    )
    from openhands.memory.condenser.impl.llm_summarizing_condenser import (
        LLMSummarizingCondenser as Direct,
    )

    assert View is view.View
    assert LLMSummarizingCondenser is Direct
    from openhands.memory.condenser.condenser import Condenser

    for cls in (
        AmortizedForgettingCondenser,
        BrowserOutputCondenser,
        CondenserPipeline,
        ConversationWindowCondenser,
        LLMAttentionCondenser,
        LLMSummarizingCondenser,
        NoOpCondenser,
        ObservationMaskingCondenser,
        RecentEventsCondenser,
        StructuredSummaryCondenser,
    ):
        assert issubclass(cls, Condenser)
    assert issubclass(ImportantEventSelection, BaseModel)
    assert View.from_events([]).events == []


def test_server_and_runtime_reexports() -> None:
    from openhands.llm import conversation_stats
    from openhands.runtime.utils import bash_commands
    from openhands.runtime.utils.bash import split_bash_commands
    from openhands.server.errors import InvalidConversationIdError
    from openhands.server.services import conversation_ids
    from openhands.server.services.conversation_stats import ConversationStats
    from openhands.server.utils import validate_conversation_id

    assert ConversationStats is conversation_stats.ConversationStats
    assert validate_conversation_id is conversation_ids.check_conversation_id
    assert validate_conversation_id("abc123") == "abc123"
    with pytest.raises(InvalidConversationIdError) as caught:
        validate_conversation_id("../etc")
    assert caught.value.status_code == 400
    assert split_bash_commands is bash_commands.split_bash_commands
    assert split_bash_commands("a\nb") == ["a", "b"]


# --- items 19, 20: integrations ----------------------------------------------------------


def test_service_types_names() -> None:
    from openhands.integrations import service_types as st

    assert st.TaskType.OPEN_PR.value == "OPEN_PR"
    assert [t.value for t in st.TaskType] == [
        "MERGE_CONFLICTS",
        "FAILING_CHECKS",
        "UNRESOLVED_COMMENTS",
        "OPEN_ISSUE",
        "OPEN_PR",
        "CREATE_MICROAGENT",
    ]
    assert issubclass(st.TaskType, str) and issubclass(st.OwnerType, str)
    assert st.OwnerType.ORGANIZATION.value == "organization"
    assert st.RequestMethod.POST.value == "post"
    assert [p.value for p in st.ProviderType] == ["github", "gitlab", "bitbucket", "enterprise_sso"]
    for error in (
        st.AuthenticationError,
        st.UnknownException,
        st.RateLimitError,
        st.ResourceNotFoundError,
        st.MicroagentParseError,
    ):
        assert issubclass(error, ValueError)
    for model in (
        st.SuggestedTask,
        st.CreateMicroagent,
        st.User,
        st.Branch,
        st.PaginatedBranchesResponse,
        st.Repository,
        st.Comment,
        st.TokenResponse,
    ):
        assert issubclass(model, BaseModel)
    assert list(st.Repository.model_fields) == [
        "id",
        "full_name",
        "git_provider",
        "is_public",
        "stargazers_count",
        "link_header",
        "pushed_at",
        "owner_type",
        "main_branch",
    ]
    assert st.CreateMicroagent(repo="o/r").git_provider is None
    assert inspect.isabstract(st.BaseGitService)
    assert inspect.iscoroutinefunction(st.BaseGitService.get_microagents)
    for name in ("get_user", "get_suggested_tasks", "is_pr_open", "get_paginated_branches"):
        assert inspect.iscoroutinefunction(getattr(st.GitService, name))
    assert _params(st.GitService.__init__) == [
        "self",
        "user_id",
        "token",
        "external_auth_id",
        "external_auth_token",
        "external_token_manager",
        "base_domain",
    ]


def test_suggested_task_prompts() -> None:
    from openhands.integrations.service_types import ProviderType, SuggestedTask, TaskType

    def task(provider: ProviderType) -> SuggestedTask:
        return SuggestedTask(
            git_provider=provider,
            task_type=TaskType.FAILING_CHECKS,
            repo="o/r",
            issue_number=7,
            title="Fix CI",
        )

    assert task(ProviderType.GITLAB).get_provider_terms()["requestType"] == "Merge Request"
    assert task(ProviderType.GITHUB).get_provider_terms()["requestTypeShort"] == "PR"
    prompt = task(ProviderType.GITLAB).get_prompt_for_task()
    assert "Merge Request #7 in o/r" in prompt and "Fix CI" in prompt
    with pytest.raises(ValueError):
        task(ProviderType.ENTERPRISE_SSO).get_provider_terms()


def test_provider_handler_shape_and_basics() -> None:
    from openhands.integrations.provider import (
        CUSTOM_SECRETS_TYPE,
        PROVIDER_TOKEN_TYPE,
        CustomSecret,
        ProviderHandler,
        ProviderToken,
    )
    from openhands.integrations.service_types import ProviderType

    assert PROVIDER_TOKEN_TYPE.__origin__ is MappingProxyType  # type: ignore[attr-defined]
    assert CUSTOM_SECRETS_TYPE.__origin__ is MappingProxyType  # type: ignore[attr-defined]
    assert CustomSecret.from_value({"secret": "s"}).secret.get_secret_value() == "s"
    with pytest.raises(TypeError):
        ProviderHandler({})  # type: ignore[arg-type]
    assert ProviderHandler.get_provider_env_key(ProviderType.GITHUB) == "github_token"
    assert _params(ProviderHandler.__init__) == [
        "self",
        "provider_tokens",
        "external_auth_id",
        "external_auth_token",
        "external_token_manager",
        "session_api_key",
        "sid",
    ]
    for name in (
        "get_user",
        "get_github_installations",
        "get_bitbucket_workspaces",
        "get_repositories",
        "get_suggested_tasks",
        "search_branches",
        "search_repositories",
        "set_event_stream_secrets",
        "get_env_vars",
        "verify_repo_provider",
        "get_branches",
        "get_microagents",
        "get_microagent_content",
        "get_authenticated_git_url",
        "is_pr_open",
    ):
        assert inspect.iscoroutinefunction(getattr(ProviderHandler, name)), name
    assert not inspect.iscoroutinefunction(ProviderHandler.expose_env_vars)
    handler = ProviderHandler(
        MappingProxyType({ProviderType.GITLAB: ProviderToken(token=SecretStr("t"))})
    )
    assert asyncio.run(handler.get_env_vars(expose_secrets=True)) == {"gitlab_token": "t"}


def test_provider_service_modules() -> None:
    for module, names in {
        "openhands.integrations.github.github_service": ("GitHubService", "GithubServiceImpl"),
        "openhands.integrations.gitlab.gitlab_service": ("GitLabService", "GitLabServiceImpl"),
        "openhands.integrations.bitbucket.bitbucket_service": (
            "BitBucketService",
            "BitBucketServiceImpl",
        ),
    }.items():
        loaded = importlib.import_module(module)
        for name in names:
            assert inspect.isclass(getattr(loaded, name))
    from openhands.integrations.utils import validate_provider_token

    assert inspect.iscoroutinefunction(validate_provider_token)


# --- items 25-28: utils ------------------------------------------------------------------


def test_async_utils_kinds_and_behaviour() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from openhands.utils import async_utils as au

    assert au.GENERAL_TIMEOUT == 15
    assert isinstance(au.EXECUTOR, ThreadPoolExecutor)
    for name in ("call_sync_from_async", "call_coro_in_bg_thread", "wait_all", "run_in_loop"):
        assert inspect.iscoroutinefunction(getattr(au, name)), name
    assert not inspect.iscoroutinefunction(au.call_async_from_sync)
    assert _params(au.call_async_from_sync) == ["corofn", "timeout", "args", "kwargs"]
    assert _params(au.wait_all) == ["iterable", "timeout"]
    assert _params(au.run_in_loop) == ["coro", "loop", "timeout"]
    assert asyncio.run(au.wait_all([])) == []

    async def fail(message: str) -> None:
        raise ValueError(message)

    with pytest.raises(au.AsyncException):
        asyncio.run(au.wait_all([fail("a"), fail("b")]))
    with pytest.raises(ValueError):
        au.call_async_from_sync(None)


def test_shutdown_listener_names() -> None:
    from openhands.utils import shutdown_listener as sl

    listener_id = sl.add_shutdown_listener(lambda: None)
    assert isinstance(listener_id, UUID)
    assert sl.remove_shutdown_listener(uuid4()) is False
    assert sl.remove_shutdown_listener(listener_id) is True
    assert inspect.iscoroutinefunction(sl.async_sleep_if_should_continue)
    assert not inspect.iscoroutinefunction(sl.sleep_if_should_continue)
    assert sl.should_continue() is not sl.should_exit()


class _Base:
    pass


class _Sub(_Base):
    pass


def test_import_utils() -> None:
    from openhands.utils.import_utils import get_impl, import_from

    assert get_impl(_Base, None) is _Base
    assert get_impl(_Base, f"{__name__}.{_Sub.__name__}") is _Sub
    with pytest.raises(AssertionError):
        get_impl(_Sub, f"{__name__}.{_Base.__name__}")
    assert import_from(f"{__name__}._Sub") is _Sub


def test_search_utils() -> None:
    from openhands.utils.search_utils import iterate, offset_to_page_id, page_id_to_offset

    assert offset_to_page_id(20, True) == base64.b64encode(b"20").decode()
    assert page_id_to_offset(None) == 0
    assert inspect.isasyncgenfunction(iterate)


def test_other_utils_modules() -> None:
    from tenacity.stop import stop_base

    from openhands.utils.chunk_localizer import Chunk, create_chunks, get_top_k_chunk_matches
    from openhands.utils.conversation_summary import (
        auto_generate_title,
        generate_conversation_title,
        get_default_conversation_title,
    )
    from openhands.utils.http_session import HttpSession
    from openhands.utils.llm import get_supported_llm_models
    from openhands.utils.tenacity_stop import stop_if_should_exit

    assert inspect.iscoroutinefunction(generate_conversation_title)
    assert inspect.iscoroutinefunction(auto_generate_title)
    assert _params(generate_conversation_title) == [
        "message",
        "llm_config",
        "llm_registry",
        "max_length",
    ]
    assert _params(auto_generate_title) == [
        "conversation_id",
        "user_id",
        "file_store",
        "settings",
        "llm_registry",
    ]
    assert get_default_conversation_title("0123456789") == "Conversation 01234"
    assert list(Chunk.model_fields) == ["text", "line_range", "normalized_lcs"]
    assert create_chunks("a\nb")[0].line_range == (1, 2)
    assert _params(get_top_k_chunk_matches) == ["text", "query", "k", "max_chunk_size"]
    assert issubclass(stop_if_should_exit, stop_base)
    assert {"request", "get", "post", "close"} <= set(dir(HttpSession))
    assert HttpSession(headers={"a": "b"}).headers == {"a": "b"}
    assert _params(get_supported_llm_models) == ["config"]
