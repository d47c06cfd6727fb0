"""Shared exception types: names, defaults and hierarchy."""

from __future__ import annotations

import pytest

from openhands.core import exceptions as exc


def test_existing_agent_errors_keep_their_defaults() -> None:
    assert str(exc.LLMMalformedActionError()) == "Malformed response"
    assert str(exc.LLMNoActionError()) == "Agent must return an action"
    assert str(exc.LLMResponseError()) == "Failed to retrieve action from LLM response"
    assert str(exc.LLMMalformedActionError("custom")) == "custom"
    for cls in (exc.LLMMalformedActionError, exc.LLMNoActionError, exc.LLMResponseError):
        assert issubclass(cls, exc.AgentError)


def test_stuck_in_loop_message() -> None:
    error = exc.AgentStuckInLoopError()
    assert str(error) == "Agent got stuck in a loop"
    assert f"{type(error).__name__}: {error}" == "AgentStuckInLoopError: Agent got stuck in a loop"


def test_function_call_errors_carry_their_message() -> None:
    message = "Tool foo is not registered. (arguments: {}). Please check the tool name and retry with an existing tool."
    error = exc.FunctionCallNotExistsError(message)
    assert str(error) == message
    assert error.message == message
    for cls in (
        exc.FunctionCallValidationError,
        exc.FunctionCallNotExistsError,
        exc.FunctionCallConversionError,
    ):
        assert issubclass(cls, exc.FunctionCallError)
        # Not agent errors: the controller decides per type which ones it recovers from.
        assert not issubclass(cls, exc.AgentError)


def test_runtime_error_hierarchy() -> None:
    for cls in (
        exc.AgentRuntimeBuildError,
        exc.AgentRuntimeTimeoutError,
        exc.AgentRuntimeUnavailableError,
    ):
        assert issubclass(cls, exc.AgentRuntimeError)
    for cls in (
        exc.AgentRuntimeNotReadyError,
        exc.AgentRuntimeDisconnectedError,
        exc.AgentRuntimeNotFoundError,
    ):
        assert issubclass(cls, exc.AgentRuntimeUnavailableError)


def test_llm_errors() -> None:
    assert issubclass(exc.LLMContextWindowExceedError, RuntimeError)
    assert "context window" in str(exc.LLMContextWindowExceedError())
    assert str(exc.LLMNoResponseError("none")) == "none"
    assert str(exc.LLMNoResponseError())


def test_registry_errors_name_the_agent() -> None:
    assert "Ghost" in str(exc.AgentNotRegisteredError("Ghost"))
    assert "Dup" in str(exc.AgentAlreadyRegisteredError("Dup"))
    assert exc.AgentNotRegisteredError("Ghost").name == "Ghost"


@pytest.mark.parametrize(
    "name",
    [
        "UserCancelledError",
        "OperationCancelled",
        "CloudFlareBlockageError",
        "TaskInvalidStateError",
        "BrowserInitException",
        "BrowserUnavailableException",
        "MicroagentValidationError",
        "PromptExtensionError",
        "AgentNoInstructionError",
        "AgentEventTypeError",
    ],
)
def test_named_exceptions_exist(name: str) -> None:
    cls = getattr(exc, name)
    assert issubclass(cls, Exception)
    assert isinstance(cls(), cls)


def test_microagent_validation_error_is_a_microagent_error() -> None:
    assert issubclass(exc.MicroagentValidationError, exc.MicroagentError)


def test_configuration_error_is_a_value_error() -> None:
    assert issubclass(exc.ConfigurationError, ValueError)
