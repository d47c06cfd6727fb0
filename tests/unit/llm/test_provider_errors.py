"""The provider's exceptions, read once in the LLM layer (agent.md §8.4, §8.6).

LiteLLM's classes (and the OpenAI SDK's base class) go in; the shared context-window error
and a ``ProviderErrorKind`` come out. The controller acts on those answers only; a check
below keeps it from importing the provider's classes again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from litellm.exceptions import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ContentPolicyViolationError,
    ContextWindowExceededError,
    InternalServerError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)
from openai import OpenAIError

from openhands.core.exceptions import LLMContextWindowExceedError
from openhands.llm.provider_errors import (
    ProviderErrorKind,
    context_window_error,
    provider_error_kind,
)

M, P = "gpt-4o", "openai"
CONTROLLER = Path(__file__).resolve().parents[3] / "openhands" / "controller"


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (RateLimitError("slow down", P, M), ProviderErrorKind.RATE_LIMIT),
        (AuthenticationError("no key", P, M), ProviderErrorKind.AUTHENTICATION),
        (ServiceUnavailableError("down", P, M), ProviderErrorKind.SERVICE_UNAVAILABLE),
        (APIConnectionError("refused", P, M), ProviderErrorKind.SERVICE_UNAVAILABLE),
        (APIError(502, "bad gateway", P, M), ProviderErrorKind.SERVICE_UNAVAILABLE),
        (InternalServerError("boom", P, M), ProviderErrorKind.INTERNAL_SERVER_ERROR),
        (BadRequestError("ExceededBudget: spent", M, P), ProviderErrorKind.OUT_OF_CREDITS),
        (ContentPolicyViolationError("blocked", M, P), ProviderErrorKind.CONTENT_POLICY),
        (
            BadRequestError("litellm.ContentPolicyViolationError: blocked", M, P),
            ProviderErrorKind.CONTENT_POLICY,
        ),
        (BadRequestError("invalid temperature", M, P), ProviderErrorKind.OTHER),
        (NotFoundError("no such model", M, P), ProviderErrorKind.OTHER),
        (Timeout("slow", M, P), ProviderErrorKind.OTHER),
        (ContextWindowExceededError("too long", M, P), ProviderErrorKind.OTHER),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else v.name,
)
def test_each_provider_failure_has_its_kind(exc: Exception, kind: ProviderErrorKind) -> None:
    assert provider_error_kind(exc) is kind


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("rate limit"),
        OpenAIError("not one LiteLLM raises for a provider answer"),
        LLMContextWindowExceedError(),
    ],
)
def test_other_exceptions_are_no_provider_failure(exc: Exception) -> None:
    assert provider_error_kind(exc) is None


@pytest.mark.parametrize(
    "exc",
    [
        ContextWindowExceededError("anything", M, P),
        BadRequestError("Prompt is too long: 300000 tokens", M, P),
        BadRequestError("SambaNovaException: maximum context length is 8k", M, P),
        OpenAIError("context length exceeded"),
    ],
)
def test_a_full_context_becomes_the_shared_error(exc: Exception) -> None:
    translated = context_window_error(exc)
    assert isinstance(translated, LLMContextWindowExceedError)
    assert str(translated) == str(LLMContextWindowExceedError())


@pytest.mark.parametrize(
    "exc",
    [
        BadRequestError("maximum context length", M, P),  # without the SambaNova marker
        ValueError("prompt is too long"),  # not the provider's
        LLMContextWindowExceedError(),  # an agent's own: it already says what it means
    ],
)
def test_anything_else_is_no_context_window_error(exc: Exception) -> None:
    assert context_window_error(exc) is None


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_controller_never_imports_the_provider_classes() -> None:
    offenders = {
        f"{path.relative_to(CONTROLLER)}: {name}"
        for path in CONTROLLER.rglob("*.py")
        for name in _imported_modules(path)
        if name.split(".")[0] in {"litellm", "openai"}
    }
    assert sorted(offenders) == []
    assert any(CONTROLLER.rglob("agent_controller.py"))
