"""Exceptions shared across packages, grouped by the layer that raises them.

The class names are part of the observable behaviour: `last_error` is rendered as
`"{ClassName}: {message}"`, so keep them stable.
"""

from __future__ import annotations

# --- agent errors (what the LLM produced; recoverable by the controller) ------------------


class AgentError(Exception):
    """Base class for errors raised while the agent works."""


class LLMMalformedActionError(AgentError):
    def __init__(self, message: str = "Malformed response") -> None:
        super().__init__(message)


class LLMNoActionError(AgentError):
    def __init__(self, message: str = "Agent must return an action") -> None:
        super().__init__(message)


class LLMResponseError(AgentError):
    def __init__(self, message: str = "Failed to retrieve action from LLM response") -> None:
        super().__init__(message)


class AgentNoInstructionError(AgentError):
    def __init__(self, message: str = "Instruction must be provided") -> None:
        super().__init__(message)


class AgentEventTypeError(AgentError):
    def __init__(self, message: str = "Event must be a dictionary") -> None:
        super().__init__(message)


class AgentStuckInLoopError(AgentError):
    def __init__(self, message: str = "Agent got stuck in a loop") -> None:
        super().__init__(message)


# --- tool calls (function calling, native or emulated) ----------------------------------


class FunctionCallError(Exception):
    """Base class of the tool-call errors below."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FunctionCallConversionError(FunctionCallError):
    """Messages could not be converted to or from the emulated tool-call format."""


class FunctionCallValidationError(FunctionCallError):
    """A tool call has bad or missing arguments."""


class FunctionCallNotExistsError(FunctionCallError):
    """A tool call names a tool that is not registered."""


# --- LLM errors -------------------------------------------------------------------------


class LLMNoResponseError(Exception):
    """The provider answered without any choices. Retried by the LLM wrapper."""

    def __init__(self, message: str = "The LLM returned no response (no choices).") -> None:
        super().__init__(message)


class LLMContextWindowExceedError(RuntimeError):
    """The conversation no longer fits in the model's context window."""

    def __init__(
        self,
        # 0.59's wording: it becomes the conversation's last_error, which clients show.
        message: str = (
            "Conversation history longer than LLM context window limit. Consider turning on "
            "enable_history_truncation config to avoid this error"
        ),
    ) -> None:
        super().__init__(message)


class UserCancelledError(Exception):
    def __init__(self, message: str = "User cancelled the request") -> None:
        super().__init__(message)


class OperationCancelled(Exception):
    """A long operation (e.g. an LLM call) was cancelled, for instance on shutdown."""

    def __init__(self, message: str = "Operation was cancelled") -> None:
        super().__init__(message)


class CloudFlareBlockageError(Exception):
    """A request was blocked by Cloudflare."""


# --- agent registry and controller --------------------------------------------------------


class AgentNotRegisteredError(Exception):
    def __init__(self, name: str = "") -> None:
        super().__init__(f"No agent class registered under {name!r}")
        self.name = name


class AgentAlreadyRegisteredError(Exception):
    def __init__(self, name: str = "") -> None:
        super().__init__(f"An agent class is already registered under {name!r}")
        self.name = name


class TaskInvalidStateError(Exception):
    def __init__(self, state: str = "") -> None:
        super().__init__(f"Invalid state {state!r}")
        self.state = state


# --- runtime (sandbox) ----------------------------------------------------------------------


class AgentRuntimeError(Exception):
    """Base class of every runtime failure."""


class AgentRuntimeBuildError(AgentRuntimeError):
    """A sandbox image could not be built."""


class AgentRuntimeTimeoutError(AgentRuntimeError):
    """The sandbox did not answer in time."""


class AgentRuntimeUnavailableError(AgentRuntimeError):
    """The sandbox cannot serve requests."""


class AgentRuntimeNotReadyError(AgentRuntimeUnavailableError):
    """The sandbox is not ready yet."""


class AgentRuntimeDisconnectedError(AgentRuntimeUnavailableError):
    """The sandbox exited or cannot be reached any more."""


class AgentRuntimeNotFoundError(AgentRuntimeUnavailableError):
    """The sandbox (container, pod or process) is gone."""


class BrowserInitException(Exception):
    def __init__(self, message: str = "Failed to initialize the browser environment") -> None:
        super().__init__(message)


class BrowserUnavailableException(Exception):
    def __init__(
        self, message: str = "The browser environment is not available; it may have crashed."
    ) -> None:
        super().__init__(message)


# --- microagents and prompts ------------------------------------------------------------------


class MicroagentError(Exception):
    """Base class of microagent errors."""


class MicroagentValidationError(MicroagentError):
    """A microagent file has invalid frontmatter or content."""


class PromptExtensionError(Exception):
    """A prompt extension (microagent or workspace context) could not be applied."""


# --- configuration ------------------------------------------------------------------------------


class ConfigurationError(ValueError):
    """A configuration value is invalid. A ValueError, so callers may catch either."""
