"""What a session of the terminal app says in words: the welcome text, the first message it
sends (cli.md §5.2, §10), and the line after an agent stopped on an error."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.core.config import OpenHandsConfig

AUTH_ERROR_TEXT = "Authentication error with the LLM provider. Please check your API key."
OPENHANDS_KEYS_HINT = (
    "If you use OpenHands models, get an API key at https://app.all-hands.dev/settings/api-keys"
)
RESUME_AFTER_ERROR_MESSAGE = (
    "The previous session of this conversation ended with an error. Do not pick the task up "
    "again on your own: tell me briefly what you were doing, and ask me how to go on."
)


def welcome_and_first_message(
    config: OpenHandsConfig, restored: State | None, task: str | None
) -> tuple[str, str | None]:
    """The welcome text and the message to send first (None: open the prompt)."""
    welcome = _mcp_summary(config) + "What do you want to build?"
    if restored is None:
        return welcome, task or None
    last_error = restored.last_error or ""
    if "ERROR_LLM_AUTHENTICATION" in last_error:
        text = AUTH_ERROR_TEXT
        if config.get_llm_config().model.startswith("openhands/"):
            text += "\n" + OPENHANDS_KEYS_HINT
        return text, None
    if last_error:
        return welcome, RESUME_AFTER_ERROR_MESSAGE
    return welcome + "\nLoading previous conversation.", None


def _mcp_summary(config: OpenHandsConfig) -> str:
    if not config.get_agent_config(config.default_agent).enable_mcp:
        return ""
    mcp = config.mcp
    counts = (len(mcp.stdio_servers), len(mcp.sse_servers), len(mcp.shttp_servers))
    if not any(counts):
        return ""
    text = (
        f"Using {counts[0]} stdio MCP servers, {counts[1]} SSE MCP servers and "
        f"{counts[2]} SHTTP MCP servers."
    )
    from openhands.mcp.error_collector import mcp_error_collector

    if mcp_error_collector.has_errors():
        text += " ✗ MCP errors detected (type /mcp → select View errors to view)"
    return text + "\n\n"


def error_hint(config: OpenHandsConfig, last_error: str) -> str:
    """One line saying what to do after the agent stopped with ``last_error`` (the log line
    above it says what happened)."""
    llm = config.get_llm_config()
    if "ERROR_LLM_AUTHENTICATION" in last_error:
        return AUTH_ERROR_TEXT + " Change it with /settings, then continue with --conversation."
    if (
        "ERROR_LLM_SERVICE_UNAVAILABLE" in last_error
        or "ERROR_LLM_INTERNAL_SERVER_ERROR" in last_error
    ):
        where = llm.base_url or llm.model
        return (
            f"No answer from the LLM ({where}). Check the model, the base URL and your "
            "network (/settings), then continue with --conversation."
        )
    if "ERROR_LLM_OUT_OF_CREDITS" in last_error:
        return "The LLM provider refused the request: out of credits. Check your account."
    return f"The agent stopped with an error: {last_error or 'unknown error'}"
