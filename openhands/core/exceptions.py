"""Exceptions shared across packages. Grouped by the layer that raises them."""


class AgentError(Exception):
    """Base class for errors raised while the agent works."""


# --- errors in what the LLM produced ------------------------------------------------


class LLMMalformedActionError(AgentError):
    def __init__(self, message: str = "Malformed response") -> None:
        super().__init__(message)


class LLMNoActionError(AgentError):
    def __init__(self, message: str = "Agent must return an action") -> None:
        super().__init__(message)


class LLMResponseError(AgentError):
    def __init__(self, message: str = "Failed to retrieve action from LLM response") -> None:
        super().__init__(message)
