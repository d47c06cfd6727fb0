"""What the terminal app shows and reads (cli.md §5.2, §6, §7, §8, §9, §11): the public
names of the display, and the namespace where scripts and tests replace them.

The code lives in small modules: ``tui_common`` (constants, screen state, a line, a frame),
``tui_screens`` (start screen, help, status, summary), ``tui_events`` (one renderer per
event type), ``tui_prompts`` (prompt, menus, confirmation) and ``tui_pause`` (Ctrl-P).
Those modules look the names below up here when they run, so replacing one here (the
reference tests patch ``print_formatted_text``, ``print_container``, ``PromptSession``,
``KeyBindings``, ``Application``, ``create_input``, ``mcp_error_collector`` and the
``display_*`` functions, cli.md §15) changes what the whole display does.

This module is on the way to the first prompt, so it imports only prompt_toolkit and the event
dataclasses; the MCP package (about half a second of imports) is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.application import Application
from prompt_toolkit.input import create_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.shortcuts import print_container

from openhands.cli.tui_common import (
    COMMANDS,
    DEFAULT_STYLE,
    ENABLE_STREAMING,
    MAX_OUTPUT_LINES,
    MAX_RECENT_THOUGHTS,
    CustomDiffLexer,
    ScreenState,
    UsageMetrics,
    UserCancelledError,
    print_lock,
    screen_state,
)
from openhands.cli.tui_events import (
    RENDERERS,
    display_agent_running_message,
    display_agent_state_change_message,
    display_command,
    display_command_output,
    display_error,
    display_event,
    display_file_edit,
    display_file_read,
    display_mcp_action,
    display_mcp_observation,
    display_message,
    display_pending_action,
    display_task_tracking_action,
    display_task_tracking_observation,
    display_thought_if_new,
    initialize_streaming_output,
    update_streaming_output,
)
from openhands.cli.tui_events import (  # noqa: F401  (the reference tests import it here)
    render_basic_markdown as _render_basic_markdown,
)
from openhands.cli.tui_pause import (
    PauseListener,
    pause_listener,
    process_agent_pause,
    start_pause_listener,
    stop_pause_listener,
)
from openhands.cli.tui_prompts import (
    CommandCompleter,
    ConfirmationAnswer,
    cli_confirm,
    create_prompt_session,
    kb_cancel,
    read_confirmation_input,
    read_prompt_input,
)
from openhands.cli.tui_screens import (
    display_banner,
    display_help,
    display_initial_user_prompt,
    display_initialization_animation,
    display_mcp_errors,
    display_runtime_initialization_message,
    display_shutdown_message,
    display_status,
    display_usage_metrics,
    display_welcome_message,
    get_session_duration,
)

if TYPE_CHECKING:
    from openhands.mcp.error_collector import MCPErrorCollector

__all__ = [
    "COMMANDS",
    "DEFAULT_STYLE",
    "ENABLE_STREAMING",
    "MAX_OUTPUT_LINES",
    "MAX_RECENT_THOUGHTS",
    "RENDERERS",
    "Application",
    "CommandCompleter",
    "ConfirmationAnswer",
    "CustomDiffLexer",
    "KeyBindings",
    "PauseListener",
    "PromptSession",
    "ScreenState",
    "UsageMetrics",
    "UserCancelledError",
    "cli_confirm",
    "create_input",
    "create_prompt_session",
    "display_agent_running_message",
    "display_agent_state_change_message",
    "display_banner",
    "display_command",
    "display_command_output",
    "display_error",
    "display_event",
    "display_file_edit",
    "display_file_read",
    "display_help",
    "display_initial_user_prompt",
    "display_initialization_animation",
    "display_mcp_action",
    "display_mcp_errors",
    "display_mcp_observation",
    "display_message",
    "display_pending_action",
    "display_runtime_initialization_message",
    "display_shutdown_message",
    "display_status",
    "display_task_tracking_action",
    "display_task_tracking_observation",
    "display_thought_if_new",
    "display_usage_metrics",
    "display_welcome_message",
    "error_collector",
    "get_session_duration",
    "initialize_streaming_output",
    "kb_cancel",
    "pause_listener",
    "print_container",
    "print_formatted_text",
    "print_lock",
    "process_agent_pause",
    "read_confirmation_input",
    "read_prompt_input",
    "screen_state",
    "start_pause_listener",
    "stop_pause_listener",
    "update_streaming_output",
]

# The reference's module globals, now views of the state objects: the same deque the
# display appends to (never rebound), and the running pause listener (read in __getattr__).
recent_thoughts = screen_state.recent_thoughts


def error_collector() -> MCPErrorCollector:
    """The MCP error collector: ``tui.mcp_error_collector`` if a test set it, else the
    process-wide one, imported on first use."""
    patched: MCPErrorCollector | None = globals().get("mcp_error_collector")
    if patched is not None:
        return patched
    from openhands.mcp.error_collector import mcp_error_collector

    return mcp_error_collector


def __getattr__(name: str) -> object:
    # ``tui.mcp_error_collector`` works as if imported at module level, without paying for
    # the MCP client stack before anyone asks for it.
    if name == "mcp_error_collector":
        return error_collector()
    if name == "pause_task":
        return pause_listener.task
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
