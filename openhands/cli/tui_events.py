"""How each event of a session is drawn (cli.md §7): one renderer per event type, found in
``RENDERERS`` by the event's class (the nearest registered base class wins).

The ``display_*`` functions are the reference's public names; renderers reach them, and
the output functions, through ``openhands.cli.tui`` so that a replaced one (a patch point,
cli.md §15) is the one used.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from xml.parsers.expat import ExpatError

from prompt_toolkit.formatted_text import HTML, FormattedText
from prompt_toolkit.widgets import Frame, TextArea

from openhands.cli.pt_style import COLOR_AGENT_BLUE, COLOR_GREY
from openhands.cli.tui_common import (
    DEFAULT_STYLE,
    ENABLE_STREAMING,
    GOLD,
    GREY,
    MAX_OUTPUT_LINES,
    CustomDiffLexer,
    echo,
    print_frame,
    print_lock,
    screen_state,
)
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
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
    TaskTrackingObservation,
)

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig

_TASK_STATUS_ICONS = {"todo": "⏳", "in_progress": "🔄", "done": "✅"}
_DROPPED_OUTPUT_PREFIXES = ("[Python Interpreter", "openhands@")


# --- messages and thoughts -----------------------------------------------------------------


def render_basic_markdown(text: str) -> str:
    """The two inline markups agents use most, ``**bold**`` and ``__underline__``; everything
    else is escaped so that model output can never break (or inject into) the HTML parser."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"__(.+?)__", r"<u>\1</u>", escaped)


def display_message(message: str, is_agent_message: bool = False) -> None:
    from openhands.cli import tui as ui

    message = message.strip()
    if not message:
        return
    echo()
    markup = render_basic_markdown(message)
    if is_agent_message:
        markup = f'<style fg="{COLOR_AGENT_BLUE}">{markup}</style>'
    try:
        rendered = HTML(markup)
    except (ExpatError, ValueError):
        # Characters XML does not allow (control bytes from tool output) end up here.
        fallback_style = f"fg:{COLOR_AGENT_BLUE}" if is_agent_message else ""
        ui.print_formatted_text(FormattedText([(fallback_style, message)]))
        return
    ui.print_formatted_text(rendered, style=DEFAULT_STYLE)


def display_thought_if_new(thought: str, is_agent_message: bool = False) -> None:
    """Show ``thought`` unless it is among the last ``MAX_RECENT_THOUGHTS`` shown: an agent
    often repeats its thought as the message that follows."""
    from openhands.cli import tui as ui

    recent = screen_state.recent_thoughts
    if not thought or not thought.strip() or thought in recent:
        return
    ui.display_message(thought, is_agent_message=is_agent_message)
    recent.append(thought)  # the deque forgets the oldest beyond its length


def display_error(error: str) -> None:
    error = error.strip()
    if error:
        print_frame(error, "Error", text_style="ansired", frame_style="ansired")


# --- actions --------------------------------------------------------------------------------


def display_command(event: CmdRunAction) -> None:
    print_frame(f"$ {event.command}", "Command", frame_style="ansiblue")


def display_pending_action(reason: str) -> None:
    """What a held-back action would do (the controller's ``reason``), framed like a command
    so the user sees what the confirmation menu is about."""
    print_frame(reason.strip(), "Command", frame_style="ansiblue")


def _json_or_str(value: object) -> str:
    try:
        return json.dumps(value, indent=2)
    except (TypeError, ValueError):
        return str(value)


def display_mcp_action(event: MCPAction) -> None:
    text = f"Tool: {event.name}"
    if event.arguments:
        text += f"\n\nArguments:\n{_json_or_str(event.arguments)}"
    print_frame(text, "MCP Tool Call", text_style="ansiblue", frame_style="ansiblue")


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
    from openhands.cli import tui as ui

    ui.display_thought_if_new(event.thought)
    text = f"Command: {event.command}"
    if event.command == "plan":
        if event.task_list:
            heading = f"Task List ({len(event.task_list)} items):"
            text += "\n\n" + "\n".join([heading, *_task_lines(event.task_list)])
        else:
            text += "\n\nTask List: Empty"
    print_frame(text, "Task Tracking Action", text_style="ansigreen", frame_style="ansigreen")


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
    print_frame("\n".join(lines), title)


def display_file_edit(event: FileEditObservation) -> None:
    print_frame(
        event.visualize_diff(n_context_lines=4), "File Edit", text_style="", lexer=CustomDiffLexer()
    )


def display_file_read(event: FileReadObservation) -> None:
    print_frame(event.content.expandtabs(4), "File Read")


def display_mcp_observation(event: MCPObservation) -> None:
    content = event.content.strip() or "No output"
    text = content
    if event.name:
        header = f"Tool: {event.name}"
        if event.arguments:
            header += f"\nArguments: {_json_or_str(event.arguments)}"
        text = f"{header}\n\nResult:\n{content}"
    print_frame(text, "MCP Tool Result")


def display_task_tracking_observation(event: TaskTrackingObservation) -> None:
    content = event.content.strip() or "Task tracking operation completed"
    print_frame(f"Result: {content}", "Task Tracking Result")


def display_agent_running_message() -> None:
    echo()
    echo((GOLD, "Agent running..."), ("", " "), (GREY, "(Press Ctrl-P to pause)"))


def display_agent_state_change_message(agent_state: str) -> None:
    if agent_state == AgentState.PAUSED:
        line: tuple[tuple[str, str], ...] = (
            (GOLD, "Agent paused..."),
            ("", " "),
            (GREY, "(Enter /resume to continue)"),
        )
    elif agent_state == AgentState.FINISHED:
        line = ((GOLD, "Task completed..."),)
    elif agent_state == AgentState.AWAITING_USER_INPUT:
        line = ((GOLD, "Agent is waiting for your input..."),)
    else:
        return
    echo()
    echo(*line)


# --- shell output streaming (disabled, as in 0.59) -----------------------------------------


def initialize_streaming_output() -> None:
    """Open a frame that ``update_streaming_output`` appends to (only with streaming on)."""
    from openhands.cli import tui as ui

    if not ENABLE_STREAMING:
        return
    area = TextArea(text="", read_only=True, wrap_lines=True, style=COLOR_GREY)
    screen_state.streaming_output = area
    ui.print_formatted_text("")
    ui.print_container(Frame(area, title="Streaming Output"))


def update_streaming_output(text: str) -> None:
    area = screen_state.streaming_output
    if area is not None:
        area.text += text


# --- the renderers, one per event type ------------------------------------------------------------


def _render_command(action: CmdRunAction) -> None:
    from openhands.cli import tui as ui

    if action.thought:
        ui.display_thought_if_new(action.thought)
    # A confirmed command was already framed when it asked for confirmation.
    if action.confirmation_state != ActionConfirmationStatus.CONFIRMED:
        ui.display_command(action)
    else:
        ui.initialize_streaming_output()


def _render_message(action: MessageAction) -> None:
    from openhands.cli import tui as ui

    # The user's own messages are already on screen where they were typed.
    if action.source == EventSource.AGENT:
        ui.display_thought_if_new(action.content, is_agent_message=True)


def _render_other_action(action: Action) -> None:
    """Any other action: its thought, then the closing words an action may carry
    (``AgentFinishAction.final_thought``)."""
    from openhands.cli import tui as ui

    thought = getattr(action, "thought", "")
    if isinstance(thought, str) and thought:
        ui.display_thought_if_new(thought)
    final_thought = getattr(action, "final_thought", "")
    if isinstance(final_thought, str) and final_thought:
        ui.display_message(final_thought, is_agent_message=True)


def _render_state_change(observation: AgentStateChangedObservation) -> None:
    from openhands.cli import tui as ui

    ui.display_agent_state_change_message(observation.agent_state)
    # Our controller holds back actions whose wire form cannot carry a confirmation state;
    # the reason is then the only place that says what is being confirmed.
    if observation.agent_state == AgentState.AWAITING_USER_CONFIRMATION and (
        observation.reason.strip()
    ):
        ui.display_pending_action(observation.reason)


def _through_tui(name: str) -> Callable[[Any], None]:
    """A renderer that hands the event to ``tui.<name>``, looked up when it is drawn."""

    def render(event: Any) -> None:
        from openhands.cli import tui as ui

        getattr(ui, name)(event)

    return render


def _content_through_tui(name: str) -> Callable[[Any], None]:
    """A renderer that hands the event's ``content`` to ``tui.<name>``."""

    def render(event: Any) -> None:
        from openhands.cli import tui as ui

        getattr(ui, name)(event.content)

    return render


# Event class → how it is drawn. A class not listed uses its nearest listed base class;
# observations of other types print nothing.
RENDERERS: dict[type[Event], Callable[[Any], None]] = {
    CmdRunAction: _render_command,
    MCPAction: _through_tui("display_mcp_action"),
    TaskTrackingAction: _through_tui("display_task_tracking_action"),
    MessageAction: _render_message,
    Action: _render_other_action,
    CmdOutputObservation: _content_through_tui("display_command_output"),
    FileEditObservation: _through_tui("display_file_edit"),
    FileReadObservation: _through_tui("display_file_read"),
    MCPObservation: _through_tui("display_mcp_observation"),
    TaskTrackingObservation: _through_tui("display_task_tracking_observation"),
    AgentStateChangedObservation: _render_state_change,
    ErrorObservation: _content_through_tui("display_error"),
}


def renderer_for(event: Event) -> Callable[[Any], None] | None:
    for cls in type(event).__mro__:
        renderer = RENDERERS.get(cls)
        if renderer is not None:
            return renderer
    return None


def display_event(event: Event, config: OpenHandsConfig) -> None:
    """Draw one event of the session's stream (cli.md §7); other types print nothing."""
    renderer = renderer_for(event)
    if renderer is None:
        return
    with print_lock:
        renderer(event)
