"""What the terminal app shows and reads (cli.md §5.2, §6, §7, §8, §9, §11).

Every event of a session is drawn by ``display_event``; the prompt, the slash-command
completion, the choice menus (``cli_confirm``) and the Ctrl-P pause listener live here too.

Printed texts are part of the contract (a tmux-driven test compares them); colours are not.
Output goes through prompt_toolkit's ``print_formatted_text``/``print_container`` so that it
cooperates with an open prompt. The names the reference tests patch (``print_formatted_text``,
``print_container``, ``PromptSession``, ``KeyBindings``, ``Application``, ``create_input``,
``mcp_error_collector``) are module globals and are always looked up at call time.

This module is on the way to the first prompt, so it imports only prompt_toolkit and the event
dataclasses; the MCP package (about half a second of imports) is loaded on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import html
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Literal, Protocol
from xml.parsers.expat import ExpatError

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.application import Application
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import HTML, FormattedText, StyleAndTextTuples
from prompt_toolkit.input import create_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.containers import AnyContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.layout import Layout
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.shortcuts import print_container
from prompt_toolkit.widgets import Frame, TextArea

from openhands import __version__
from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.pt_style import COLOR_AGENT_BLUE, COLOR_GOLD, COLOR_GREY, get_cli_style
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
    ChangeAgentStateAction,
    CmdRunAction,
    MCPAction,
    MessageAction,
    TaskTrackingAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    ErrorObservation,
    FileEditObservation,
    FileReadObservation,
    MCPObservation,
    Observation,
    TaskTrackingObservation,
)
from openhands.llm.metrics import Metrics

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.events.stream import EventStream
    from openhands.mcp.error_collector import MCPErrorCollector

__all__ = [
    "COMMANDS",
    "DEFAULT_STYLE",
    "MAX_OUTPUT_LINES",
    "MAX_RECENT_THOUGHTS",
    "CommandCompleter",
    "CustomDiffLexer",
    "UsageMetrics",
    "UserCancelledError",
    "cli_confirm",
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
    "get_session_duration",
    "initialize_streaming_output",
    "kb_cancel",
    "print_lock",
    "process_agent_pause",
    "read_confirmation_input",
    "read_prompt_input",
    "start_pause_listener",
    "stop_pause_listener",
    "update_streaming_output",
]

# --- constants -----------------------------------------------------------------------------

MAX_RECENT_THOUGHTS = 5
MAX_OUTPUT_LINES = 15

DEFAULT_STYLE = get_cli_style()

COMMANDS: dict[str, str] = {
    "/exit": "Exit the application",
    "/help": "Display available commands",
    "/init": "Initialize a new repository",
    "/status": "Display conversation details and usage metrics",
    "/new": "Create a new conversation",
    "/settings": "Display and modify current settings",
    "/resume": "Resume the agent when paused",
    "/mcp": "Manage MCP server configuration and view errors",
}

# Events arrive on the event stream's threads while the main loop prints too. Re-entrant, so
# a caller that already holds it can still use the display functions.
print_lock = threading.RLock()

# The 0.59 CLI ships with live shell streaming switched off; the functions stay as the hook.
ENABLE_STREAMING = False

ConfirmationAnswer = Literal["yes", "no", "always", "auto_highrisk"]

_GOLD = "class:gold"
_GREY = "class:grey"
_LOGO = r"""
   ____                   __  __                __
  / __ \____  ___  ____  / / / /___ _____  ____/ /____
 / / / / __ \/ _ \/ __ \/ /_/ / __ `/ __ \/ __  / ___/
/ /_/ / /_/ /  __/ / / / __  / /_/ / / / / /_/ (__  )
\____/ .___/\___/_/ /_/_/ /_/\__,_/_/ /_/\__,_/____/
    /_/
"""
_SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_SPINNER_INTERVAL_SECONDS = 0.1
_DOCS_URL = "https://docs.all-hands.dev/usage/getting-started"
_TASK_STATUS_ICONS = {"todo": "⏳", "in_progress": "🔄", "done": "✅"}
_DROPPED_OUTPUT_PREFIXES = ("[Python Interpreter", "openhands@")
_PAUSE_KEYS = frozenset({Keys.ControlP, Keys.ControlC, Keys.ControlD})
_NO_CHOICE = re.compile(r"No\b")

# --- session state -------------------------------------------------------------------------

recent_thoughts: list[str] = []
pause_task: asyncio.Task[None] | None = None
streaming_output_text_area: TextArea | None = None


class UsageMetrics:
    """The session's LLM metrics (replaced by each event's cumulative snapshot) and its start."""

    def __init__(self) -> None:
        self.metrics: Metrics = Metrics()
        self.session_init_time: float = time.time()


class UserCancelledError(Exception):
    """Esc was pressed in a free-text prompt of a settings flow."""


class _Flag(Protocol):
    """What the spinner polls: an ``asyncio.Event`` or a ``threading.Event``."""

    def is_set(self) -> bool: ...


# --- the MCP error collector, loaded lazily ----------------------------------------------------


def _error_collector() -> MCPErrorCollector:
    # A test may have set the module attribute (mock.patch); honour it before importing.
    patched: MCPErrorCollector | None = globals().get("mcp_error_collector")
    if patched is not None:
        return patched
    from openhands.mcp.error_collector import mcp_error_collector

    return mcp_error_collector


def __getattr__(name: str) -> object:
    # ``tui.mcp_error_collector`` works as if imported at module level, without paying for
    # the MCP client stack before anyone asks for it.
    if name == "mcp_error_collector":
        return _error_collector()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- low-level output helpers --------------------------------------------------------------


def _echo(*parts: tuple[str, str]) -> None:
    """One line made of (style, text) pieces; no pieces prints an empty line."""
    if not parts:
        print_formatted_text("")
        return
    print_formatted_text(FormattedText(list(parts)), style=DEFAULT_STYLE)


def _print_frame(
    text: str,
    title: str,
    *,
    text_style: str = COLOR_GREY,
    frame_style: str = f"fg:{COLOR_GREY}",
    lexer: Lexer | None = None,
    blank_line_before: bool = True,
) -> None:
    body = TextArea(text=text, read_only=True, wrap_lines=True, style=text_style, lexer=lexer)
    if blank_line_before:
        print_formatted_text("")
    print_container(Frame(body, title=title, style=frame_style))


class CustomDiffLexer(Lexer):
    """Colours the lines of ``FileEditObservation.visualize_diff``: added, removed, headers."""

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = document.lines

        def line_tokens(lineno: int) -> StyleAndTextTuples:
            line = lines[lineno]
            return [(_diff_line_style(line), line)]

        return line_tokens


def _diff_line_style(line: str) -> str:
    if line.startswith("+"):
        return "ansigreen"
    if line.startswith("-"):
        return "ansired"
    # "[begin of edit 1 / 2]", "(content before edit)" and the like.
    if line.startswith(("[", "(")):
        return "bold"
    return ""


# --- start screen (§5.2) -------------------------------------------------------------------


def display_runtime_initialization_message(runtime: str) -> None:
    _echo()
    if runtime == "local":
        _echo((_GREY, "⚙️ Starting local runtime..."))
    elif runtime == "docker":
        _echo((_GREY, "🐳 Starting Docker runtime..."))
    _echo()


def display_initialization_animation(text: str, is_loaded: _Flag) -> None:
    """Spin ``[<frame>] <text>`` on one line until ``is_loaded`` is set (run in a thread)."""
    frame_index = 0
    while not is_loaded.is_set():
        frame = _SPINNER_FRAMES[frame_index % len(_SPINNER_FRAMES)]
        sys.stdout.write(f"\r\x1b[38;2;255;215;0m[{frame}] {text}\x1b[0m\x1b[K")
        sys.stdout.flush()
        frame_index += 1
        # Animation pacing, not synchronisation: the flag is re-checked every frame.
        time.sleep(_SPINNER_INTERVAL_SECONDS)
    sys.stdout.write("\r\x1b[2K")
    sys.stdout.flush()


def display_banner(session_id: str) -> None:
    display_deprecation_warning()
    _echo((_GOLD, _LOGO))
    _echo((_GREY, f"OpenHands CLI v{__version__}"))
    _echo()
    _echo((_GREY, f"Initialized conversation {session_id}"))
    _echo()


def display_welcome_message(message: str = "") -> None:
    _echo((_GOLD, "Let's start building!\n"))
    text = message or "What do you want to build?"
    _echo(("", text), ("", " "), (_GREY, "Type /help for help"))


def display_initial_user_prompt(prompt: str) -> None:
    _echo(("", "\n"), (_GOLD, "> "), ("", prompt))


def display_mcp_errors() -> None:
    """The MCP servers that failed at start-up, one frame each (``/mcp`` → View errors)."""
    errors = _error_collector().get_errors()
    if not errors:
        _echo(("ansigreen", "✓ No MCP errors detected\n"))
        return
    _echo(("ansired", f"✗ {len(errors)} MCP error(s) detected during startup:\n"))
    for number, error in enumerate(errors, start=1):
        clock = datetime.datetime.fromtimestamp(error.timestamp).strftime("%H:%M:%S")
        lines = [
            f"[{clock}] {error.server_type.upper()} Server: {error.server_name}",
            f"Error: {error.error_message}",
        ]
        if error.exception_details:
            lines.append(f"Details: {error.exception_details}")
        _print_frame(
            "\n".join(lines),
            f"MCP Error #{number}",
            text_style="ansired",
            frame_style="ansired",
            blank_line_before=False,
        )
        _echo()


# --- messages and thoughts -----------------------------------------------------------------


def _render_basic_markdown(text: str) -> str:
    """The two inline markups agents use most, ``**bold**`` and ``__underline__``; everything
    else is escaped so that model output can never break (or inject into) the HTML parser."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"__(.+?)__", r"<u>\1</u>", escaped)


def display_message(message: str, is_agent_message: bool = False) -> None:
    message = message.strip()
    if not message:
        return
    _echo()
    markup = _render_basic_markdown(message)
    if is_agent_message:
        markup = f'<style fg="{COLOR_AGENT_BLUE}">{markup}</style>'
    try:
        rendered = HTML(markup)
    except (ExpatError, ValueError):
        # Characters XML does not allow (control bytes from tool output) end up here.
        fallback_style = f"fg:{COLOR_AGENT_BLUE}" if is_agent_message else ""
        print_formatted_text(FormattedText([(fallback_style, message)]))
        return
    print_formatted_text(rendered, style=DEFAULT_STYLE)


def display_thought_if_new(thought: str, is_agent_message: bool = False) -> None:
    """Show ``thought`` unless it is among the last ``MAX_RECENT_THOUGHTS`` shown: an agent
    often repeats its thought as the message that follows."""
    if not thought or not thought.strip() or thought in recent_thoughts:
        return
    display_message(thought, is_agent_message=is_agent_message)
    recent_thoughts.append(thought)
    del recent_thoughts[:-MAX_RECENT_THOUGHTS]


def display_error(error: str) -> None:
    error = error.strip()
    if error:
        _print_frame(error, "Error", text_style="ansired", frame_style="ansired")


# --- actions --------------------------------------------------------------------------------


def display_command(event: CmdRunAction) -> None:
    _print_frame(f"$ {event.command}", "Command", frame_style="ansiblue")


def display_pending_action(reason: str) -> None:
    """What a held-back action would do (the controller's ``reason``), framed like a command
    so the user sees what the confirmation menu is about."""
    _print_frame(reason.strip(), "Command", frame_style="ansiblue")


def _json_or_str(value: object) -> str:
    try:
        return json.dumps(value, indent=2)
    except (TypeError, ValueError):
        return str(value)


def display_mcp_action(event: MCPAction) -> None:
    text = f"Tool: {event.name}"
    if event.arguments:
        text += f"\n\nArguments:\n{_json_or_str(event.arguments)}"
    _print_frame(text, "MCP Tool Call", text_style="ansiblue", frame_style="ansiblue")


def _task_lines(task_list: list[dict[str, object]]) -> Iterator[str]:
    for number, task in enumerate(task_list, start=1):
        status = str(task.get("status", "unknown"))
        title = task.get("title", "Untitled task")
        task_id = task.get("id", f"task-{number}")
        icon = _TASK_STATUS_ICONS.get(status, "❓")
        yield f"  {number}. {icon} [{status.upper()}] {title} (ID: {task_id})"
        notes = task.get("notes")
        if notes:
            yield f"     Notes: {notes}"


def display_task_tracking_action(event: TaskTrackingAction) -> None:
    display_thought_if_new(event.thought)
    text = f"Command: {event.command}"
    if event.command == "plan":
        if event.task_list:
            heading = f"Task List ({len(event.task_list)} items):"
            text += "\n\n" + "\n".join([heading, *_task_lines(event.task_list)])
        else:
            text += "\n\nTask List: Empty"
    _print_frame(text, "Task Tracking Action", text_style="ansigreen", frame_style="ansigreen")


# --- observations ---------------------------------------------------------------------------


def display_command_output(output: str) -> None:
    lines = [line for line in output.split("\n") if not line.startswith(_DROPPED_OUTPUT_PREFIXES)]
    title = "Command Output"
    if len(lines) > MAX_OUTPUT_LINES:
        hidden = len(lines) - MAX_OUTPUT_LINES
        title = f"Command Output (showing {MAX_OUTPUT_LINES} of {len(lines)} lines)"
        lines = [
            *lines[:MAX_OUTPUT_LINES],
            f"... and {hidden} more lines",
            " use --full to see complete output",
        ]
    _print_frame("\n".join(lines), title)


def display_file_edit(event: FileEditObservation) -> None:
    _print_frame(
        event.visualize_diff(n_context_lines=4), "File Edit", text_style="", lexer=CustomDiffLexer()
    )


def display_file_read(event: FileReadObservation) -> None:
    _print_frame(event.content.expandtabs(4), "File Read")


def display_mcp_observation(event: MCPObservation) -> None:
    content = event.content.strip() or "No output"
    text = content
    if event.name:
        header = f"Tool: {event.name}"
        if event.arguments:
            header += f"\nArguments: {_json_or_str(event.arguments)}"
        text = f"{header}\n\nResult:\n{content}"
    _print_frame(text, "MCP Tool Result")


def display_task_tracking_observation(event: TaskTrackingObservation) -> None:
    content = event.content.strip() or "Task tracking operation completed"
    _print_frame(f"Result: {content}", "Task Tracking Result")


def display_agent_running_message() -> None:
    _echo()
    _echo((_GOLD, "Agent running..."), ("", " "), (_GREY, "(Press Ctrl-P to pause)"))


def display_agent_state_change_message(agent_state: str) -> None:
    if agent_state == AgentState.PAUSED:
        line: tuple[tuple[str, str], ...] = (
            (_GOLD, "Agent paused..."),
            ("", " "),
            (_GREY, "(Enter /resume to continue)"),
        )
    elif agent_state == AgentState.FINISHED:
        line = ((_GOLD, "Task completed..."),)
    elif agent_state == AgentState.AWAITING_USER_INPUT:
        line = ((_GOLD, "Agent is waiting for your input..."),)
    else:
        return
    _echo()
    _echo(*line)


# --- the event dispatcher (§7) ----------------------------------------------------------------


def _thought_of(action: Action) -> str:
    thought = getattr(action, "thought", "")
    return thought if isinstance(thought, str) else ""


def _display_action(action: Action) -> None:
    if isinstance(action, CmdRunAction):
        if action.thought:
            display_thought_if_new(action.thought)
        # A confirmed command was already framed when it asked for confirmation.
        if action.confirmation_state != ActionConfirmationStatus.CONFIRMED:
            display_command(action)
        else:
            initialize_streaming_output()
    elif isinstance(action, MCPAction):
        display_mcp_action(action)
    elif isinstance(action, TaskTrackingAction):
        display_task_tracking_action(action)
    elif isinstance(action, MessageAction):
        # The user's own messages are already on screen where they were typed.
        if action.source == EventSource.AGENT:
            display_thought_if_new(action.content, is_agent_message=True)
    else:
        thought = _thought_of(action)
        if thought:
            display_thought_if_new(thought)
        # AgentFinishAction's closing words (any action that carries some is shown alike).
        final_thought = getattr(action, "final_thought", "")
        if isinstance(final_thought, str) and final_thought:
            display_message(final_thought, is_agent_message=True)


def _display_observation(observation: Observation) -> None:
    if isinstance(observation, CmdOutputObservation):
        display_command_output(observation.content)
    elif isinstance(observation, FileEditObservation):
        display_file_edit(observation)
    elif isinstance(observation, FileReadObservation):
        display_file_read(observation)
    elif isinstance(observation, MCPObservation):
        display_mcp_observation(observation)
    elif isinstance(observation, TaskTrackingObservation):
        display_task_tracking_observation(observation)
    elif isinstance(observation, AgentStateChangedObservation):
        display_agent_state_change_message(observation.agent_state)
        # Our controller holds back actions whose wire form cannot carry a confirmation
        # state; the reason is then the only place that says what is being confirmed.
        if observation.agent_state == AgentState.AWAITING_USER_CONFIRMATION and (
            observation.reason.strip()
        ):
            display_pending_action(observation.reason)
    elif isinstance(observation, ErrorObservation):
        display_error(observation.content)


def display_event(event: Event, config: OpenHandsConfig) -> None:
    """Draw one event of the session's stream (cli.md §7); other types print nothing."""
    with print_lock:
        if isinstance(event, Action):
            _display_action(event)
        elif isinstance(event, Observation):
            _display_observation(event)


# --- shell output streaming (disabled, as in 0.59) -----------------------------------------


def initialize_streaming_output() -> None:
    """Open a frame that ``update_streaming_output`` appends to (only with streaming on)."""
    global streaming_output_text_area
    if not ENABLE_STREAMING:
        return
    streaming_output_text_area = TextArea(
        text="", read_only=True, wrap_lines=True, style=COLOR_GREY
    )
    print_formatted_text("")
    print_container(Frame(streaming_output_text_area, title="Streaming Output"))


def update_streaming_output(text: str) -> None:
    if streaming_output_text_area is not None:
        streaming_output_text_area.text += text


# --- help, status, usage (§6.2, §11) ------------------------------------------------------------

_HELP_EXAMPLES = (
    ("Ask about the code", "What does the settings module do?"),
    ("Change or extend it", "Add a --verbose flag to the command line"),
    ("Track down a problem", "Why does test_login fail?"),
)
_HELP_TIPS = (
    'Say what "done" looks like: the behaviour you expect, or the bug you see.',
    "Point at the files, functions or line numbers involved when you know them.",
    "Split a big job into a series of smaller requests.",
    "Paste the exact error message or the log lines that matter.",
    "Name the language, framework or tool when the code does not make it obvious.",
)


def display_help() -> None:
    _echo()
    _echo((_GREY, f"OpenHands CLI v{__version__}"))
    _echo((_GOLD, "Work with the OpenHands agent on this folder, right from your terminal."))
    _echo()
    _echo(("", "Things that you can try:"))
    for what, example in _HELP_EXAMPLES:
        _echo(("", f"• {what} "), (_GREY, f"> {example}"))
    _echo()
    _echo(("", "Tips for better results:"))
    for tip in _HELP_TIPS:
        _echo(("", f"• {tip}"))
    _echo()
    _echo(("", "Interactive commands:"))
    for command, description in COMMANDS.items():
        _echo((f"{_GOLD} bold", command), ("", " - "), (_GREY, description))
    _echo()
    _echo((_GREY, f"Learn more at: {_DOCS_URL}"))


def _usage_rows(metrics: Metrics) -> list[tuple[str, str]]:
    usage = metrics.accumulated_token_usage
    return [
        ("   Total Cost (USD):", f"${metrics.accumulated_cost:.6f}"),
        ("", ""),
        ("   Total Input Tokens:", f"{usage.prompt_tokens:,}"),
        ("      Cache Hits:", f"{usage.cache_read_tokens:,}"),
        ("      Cache Writes:", f"{usage.cache_write_tokens:,}"),
        ("   Total Output Tokens:", f"{usage.completion_tokens:,}"),
        ("", ""),
        ("   Total Tokens:", f"{usage.prompt_tokens + usage.completion_tokens:,}"),
    ]


def _aligned(rows: Iterable[tuple[str, str]]) -> str:
    rows = list(rows)
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}} {value}".rstrip() for label, value in rows)


def display_usage_metrics(usage_metrics: UsageMetrics) -> None:
    _print_frame(
        _aligned(_usage_rows(usage_metrics.metrics)), "Usage Metrics", blank_line_before=False
    )


def get_session_duration(session_init_time: float) -> str:
    """Time since ``session_init_time`` as ``'<h>h <m>m <s>s'`` (whole units, rounded down)."""
    elapsed = max(0, int(time.time() - session_init_time))
    hours, rest = divmod(elapsed, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes}m {seconds}s"


def display_shutdown_message(usage_metrics: UsageMetrics, session_id: str) -> None:
    duration = get_session_duration(usage_metrics.session_init_time)
    _echo((_GREY, "Closing current conversation..."))
    _echo()
    display_usage_metrics(usage_metrics)
    _echo()
    _echo((_GREY, f"Conversation duration: {duration}"))
    _echo()
    _echo((_GREY, f"Closed conversation {session_id}"))
    _echo()


def display_status(usage_metrics: UsageMetrics, session_id: str) -> None:
    duration = get_session_duration(usage_metrics.session_init_time)
    _echo()
    _echo((_GREY, f"Conversation ID: {session_id}"))
    _echo((_GREY, f"Uptime:          {duration}"))
    _echo()
    display_usage_metrics(usage_metrics)


# --- the prompt (§6.1) ----------------------------------------------------------------------


class CommandCompleter(Completer):
    """Completes slash commands, with their descriptions; ``/resume`` only while paused."""

    def __init__(self, agent_state: str) -> None:
        super().__init__()
        self.agent_state = agent_state

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor.lstrip()
        if not typed.startswith("/"):
            return
        for command, description in COMMANDS.items():
            if command == "/resume" and self.agent_state != AgentState.PAUSED:
                continue
            if command.startswith(typed):
                yield Completion(
                    command,
                    start_position=-len(typed),
                    display_meta=description,
                    style=f"bg:ansidarkgray fg:{COLOR_GOLD}",
                )


def create_prompt_session(config: OpenHandsConfig) -> PromptSession[str]:
    return PromptSession(style=DEFAULT_STYLE, vi_mode=config.cli.vi_mode)


def _submit_on_ctrl_d() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("c-d")
    def _submit(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


async def read_prompt_input(
    config: OpenHandsConfig, agent_state: str, multiline: bool = False
) -> str:
    """The user's next input; Ctrl-C and Ctrl-D (end of input) read as ``/exit``."""
    try:
        session = create_prompt_session(config)
        session.completer = None if multiline else CommandCompleter(agent_state)
        # patch_stdout keeps output of other threads above the prompt line.
        with patch_stdout():
            print_formatted_text("")
            if multiline:
                message = await session.prompt_async(
                    HTML("<gold>Enter your message and press Ctrl-D to finish:</gold>\n"),
                    multiline=True,
                    key_bindings=_submit_on_ctrl_d(),
                )
            else:
                message = await session.prompt_async(HTML("<gold>> </gold>"))
    except (KeyboardInterrupt, EOFError):
        return "/exit"
    return message if message is not None else ""


# --- choice menus (§4, §8) ------------------------------------------------------------------


def _cancel_index(choices: list[str]) -> int:
    """The choice Ctrl-C/Ctrl-D/Esc stand for: the first "No…" answer, else the last entry
    (every menu of the app ends with its way out: "Go back", "Cancel", "Keep current…")."""
    for index, choice in enumerate(choices):
        if _NO_CHOICE.match(choice):
            return index
    return len(choices) - 1


def _menu_key_bindings(selected: list[int], choices: list[str], vi_mode: bool) -> KeyBindings:
    bindings = KeyBindings()

    def move(step: int) -> None:
        selected[0] = (selected[0] + step) % len(choices)

    @bindings.add("up")
    def _up(event: KeyPressEvent) -> None:
        move(-1)

    @bindings.add("down")
    def _down(event: KeyPressEvent) -> None:
        move(1)

    if vi_mode:

        @bindings.add("k")
        def _vi_up(event: KeyPressEvent) -> None:
            move(-1)

        @bindings.add("j")
        def _vi_down(event: KeyPressEvent) -> None:
            move(1)

    @bindings.add("enter")
    def _pick(event: KeyPressEvent) -> None:
        event.app.exit(result=selected[0])

    @bindings.add("c-c")
    @bindings.add("c-d")
    @bindings.add("escape")
    def _cancel(event: KeyPressEvent) -> None:
        selected[0] = _cancel_index(choices)
        event.app.exit(result=selected[0])

    return bindings


def cli_confirm(
    config: OpenHandsConfig,
    question: str = "Are you sure?",
    choices: list[str] | None = None,
    initial_selection: int = 0,
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN,
) -> int:
    """A vertical menu under ``question``; returns the index of the chosen entry.

    Arrows (and j/k with ``[cli] vi_mode``) move, Enter picks. Ctrl-C, Ctrl-D and Esc pick the
    "No…" answer, or the last entry when there is none. A ``HIGH`` risk question is framed.
    """
    options = choices if choices is not None else ["Yes", "No"]
    selected = [initial_selection if 0 <= initial_selection < len(options) else 0]
    high_risk = security_risk == ActionSecurityRisk.HIGH

    def menu_text() -> StyleAndTextTuples:
        question_style = "class:risk-high" if high_risk else "class:question"
        fragments: StyleAndTextTuples = [(question_style, f"{question}\n\n")]
        for index, choice in enumerate(options):
            chosen = index == selected[0]
            marker = "> " if chosen else "  "
            fragments.append(
                ("class:selected" if chosen else "class:unselected", f"{marker}{choice}\n")
            )
        return fragments

    # Exactly as tall as the text: left free, a framed menu would stretch to the screen's bottom.
    lines = question.count("\n") + 2 + len(options)
    content: AnyContainer = Window(
        FormattedTextControl(menu_text),
        always_hide_cursor=True,
        height=Dimension(min=lines, max=lines),
    )
    if high_risk:
        content = Frame(content, title="HIGH RISK", style="fg:#FF0000 bold")
    app: Application[int] = Application(
        layout=Layout(HSplit([content])),
        key_bindings=_menu_key_bindings(selected, options, config.cli.vi_mode),
        style=DEFAULT_STYLE,
        full_screen=False,
    )
    # In a thread: the caller may be inside the main event loop, which must not be re-entered.
    return app.run(in_thread=True)


def kb_cancel() -> KeyBindings:
    """Cancel keys of a settings prompt: Esc raises ``UserCancelledError``; Ctrl-D raises
    ``EOFError`` even when the line holds a prefilled value (by default it would only do so on
    an empty line). Ctrl-C already raises ``KeyboardInterrupt``."""
    bindings = KeyBindings()

    @bindings.add("escape")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(exception=UserCancelledError, style="class:aborting")

    @bindings.add("c-d")
    def _end(event: KeyPressEvent) -> None:
        event.app.exit(exception=EOFError, style="class:aborting")

    return bindings


_HIGH_RISK_QUESTION = (
    "HIGH RISK command detected.\nReview carefully before proceeding.\n\nChoose an option:"
)
_HIGH_RISK_CHOICES: tuple[tuple[str, ConfirmationAnswer], ...] = (
    ("Yes, proceed (HIGH RISK - Use with caution)", "yes"),
    ("No (and allow to enter instructions)", "no"),
    ("Always proceed (don't ask again - NOT RECOMMENDED)", "always"),
)
_DEFAULT_QUESTION = "Choose an option:"
_DEFAULT_CHOICES: tuple[tuple[str, ConfirmationAnswer], ...] = (
    ("Yes, proceed", "yes"),
    ("No (and allow to enter instructions)", "no"),
    ("Auto-confirm action with LOW/MEDIUM risk, ask for HIGH risk", "auto_highrisk"),
    ("Always proceed (don't ask again)", "always"),
)


async def read_confirmation_input(
    config: OpenHandsConfig, security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
) -> ConfirmationAnswer:
    """Ask whether the pending action may run (cli.md §8); anything unexpected means no."""
    if security_risk == ActionSecurityRisk.HIGH:
        question, table = _HIGH_RISK_QUESTION, _HIGH_RISK_CHOICES
    else:
        question, table = _DEFAULT_QUESTION, _DEFAULT_CHOICES
    labels = [label for label, _ in table]
    try:
        # The menu blocks; a worker thread keeps this loop serving the event stream.
        index = await asyncio.to_thread(cli_confirm, config, question, labels, 0, security_risk)
    except (KeyboardInterrupt, EOFError):
        return "no"
    if isinstance(index, int) and 0 <= index < len(table):
        return table[index][1]
    return "no"


# --- pausing (§9) ---------------------------------------------------------------------------


def start_pause_listener(
    loop: asyncio.AbstractEventLoop, done_event: asyncio.Event, event_stream: EventStream
) -> None:
    """Listen for Ctrl-P (at most one listener at a time)."""
    global pause_task
    if pause_task is None or pause_task.done():
        pause_task = loop.create_task(process_agent_pause(done_event, event_stream))


async def stop_pause_listener() -> None:
    global pause_task
    task, pause_task = pause_task, None
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def process_agent_pause(done: asyncio.Event, event_stream: EventStream) -> None:
    """Read keys in raw mode until Ctrl-P/Ctrl-C/Ctrl-D asks to pause, then set ``done``."""
    try:
        terminal = create_input()
    except (OSError, ValueError):
        # No usable terminal (stdin closed or not a file): nothing can be pressed.
        await done.wait()
        return

    def keys_ready() -> None:
        if done.is_set():
            return
        if not any(press.key in _PAUSE_KEYS for press in terminal.read_keys()):
            return
        with print_lock:
            print_formatted_text("")
            print_formatted_text(HTML("<gold>Pausing the agent...</gold>"), style=DEFAULT_STYLE)
        event_stream.add_event(ChangeAgentStateAction(AgentState.PAUSED.value), EventSource.USER)
        done.set()

    try:
        with terminal.raw_mode(), terminal.attach(keys_ready):
            await done.wait()
    finally:
        terminal.close()
