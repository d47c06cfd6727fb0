"""Editor failures. Their text is what the agent reads after ``ERROR:\\n`` (runtime.md §5.3)."""

from __future__ import annotations


class ToolError(Exception):
    """Any editor failure; ``message`` is shown to the agent verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ParameterMissingError(ToolError):
    def __init__(self, command: str, parameter: str) -> None:
        super().__init__(f"Parameter `{parameter}` is required for command: {command}.")


class ParameterInvalidError(ToolError):
    def __init__(self, parameter: str, value: object, hint: str) -> None:
        super().__init__(f"Invalid `{parameter}` parameter: {value}. {hint}")


class FileValidationError(ToolError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"File validation failed for {path}: {reason}")
