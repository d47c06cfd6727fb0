"""The terminal display (cli.md §5.2, §6, §7, §8, §9, §11): what each event prints, the menus,
the prompt, the completion and the pause listener.

Printing is recorded through the module's patch points (``print_formatted_text`` and
``print_container``) and compared as plain text. Menus and prompts run for real: prompt_toolkit
reads keys from a pipe and draws into a ``DummyOutput``.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import AnyFormattedText, to_plain_text
from prompt_toolkit.input import DummyInput, create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.plain_text import PlainTextOutput
from prompt_toolkit.widgets import Frame, TextArea

from openhands.cli import tui, tui_common, tui_screens
from openhands.core.config import CLIConfig, OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.events.action import (
    ActionConfirmationStatus,
    ActionSecurityRisk,
    AgentFinishAction,
    AgentThinkAction,
    ChangeAgentStateAction,
    CmdRunAction,
    FileWriteAction,
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
    FileWriteObservation,
    MCPObservation,
    NullObservation,
    TaskTrackingObservation,
)
from openhands.llm.metrics import Metrics
from openhands.mcp.error_collector import MCPErrorCollector

DOWN = "\x1b[B"
UP = "\x1b[A"
ENTER = "\r"
ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_P = "\x10"


# --- recording what is printed -------------------------------------------------------------


@dataclass
class Screen:
    """Plain text of every printed line, and the (title, body) of every printed frame."""

    lines: list[str] = field(default_factory=list)
    frames: list[tuple[str, str]] = field(default_factory=list)

    def print_text(self, *values: AnyFormattedText, **_: object) -> None:
        self.lines.append("".join(to_plain_text(value) for value in values))

    def print_frame(self, container: Container, **_: object) -> None:
        assert isinstance(container, Frame)
        body = container.body
        assert isinstance(body, TextArea)
        title = to_plain_text(container.title)
        self.frames.append((title, body.text))
        self.lines.append(f"[frame {title}]")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def titles(self) -> list[str]:
        return [title for title, _ in self.frames]

    def frame(self, title: str) -> str:
        bodies = [body for frame_title, body in self.frames if frame_title == title]
        assert len(bodies) == 1, f"expected one {title!r} frame, got {self.titles()}"
        return bodies[0]


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Screen:
    recorder = Screen()
    monkeypatch.setattr(tui, "print_formatted_text", recorder.print_text)
    monkeypatch.setattr(tui, "print_container", recorder.print_frame)
    return recorder


@pytest.fixture(autouse=True)
def fresh_thoughts() -> Iterator[None]:
    tui.screen_state.recent_thoughts.clear()
    yield
    tui.screen_state.recent_thoughts.clear()


@pytest.fixture
def config() -> OpenHandsConfig:
    return OpenHandsConfig()


def from_agent(event: Event) -> Event:
    event.source = EventSource.AGENT
    return event


def awaiting(action: CmdRunAction) -> CmdRunAction:
    action.confirmation_state = ActionConfirmationStatus.AWAITING_CONFIRMATION
    return action


@contextmanager
def keyboard(keys: str = "") -> Iterator[PipeInput]:
    """Run prompt_toolkit against a pipe pre-filled with ``keys`` and a dummy screen."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        if keys:
            pipe.send_text(keys)
        yield pipe


# --- §7: one test per event type --------------------------------------------------------------


def test_cmd_run_action_awaiting_confirmation_shows_thought_then_command_frame(
    screen: Screen, config: OpenHandsConfig
) -> None:
    tui.display_event(from_agent(awaiting(CmdRunAction("ls -la", thought="Look around"))), config)

    assert screen.lines[:2] == ["", "Look around"]
    assert screen.frame("Command") == "$ ls -la"


def test_confirmed_cmd_run_action_shows_only_its_thought(
    screen: Screen, config: OpenHandsConfig
) -> None:
    action = CmdRunAction("ls", thought="Listing again")
    assert action.confirmation_state == ActionConfirmationStatus.CONFIRMED

    tui.display_event(from_agent(action), config)

    assert "Listing again" in screen.text
    assert screen.frames == []


def test_mcp_action_frame_lists_tool_and_json_arguments(
    screen: Screen, config: OpenHandsConfig
) -> None:
    tui.display_event(from_agent(MCPAction("fetch", arguments={"url": "http://x", "n": 2})), config)

    assert screen.frame("MCP Tool Call") == (
        'Tool: fetch\n\nArguments:\n{\n  "url": "http://x",\n  "n": 2\n}'
    )


def test_mcp_action_without_arguments(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(from_agent(MCPAction("list_tools")), config)

    assert screen.frame("MCP Tool Call") == "Tool: list_tools"


def test_task_tracking_plan_lists_every_task(screen: Screen, config: OpenHandsConfig) -> None:
    tasks: list[dict[str, object]] = [
        {"id": "1", "title": "Read the code", "status": "done"},
        {"id": "2", "title": "Write tests", "status": "in_progress", "notes": "unit first"},
        {"id": "3", "title": "Ship", "status": "todo"},
        {"id": "4", "title": "Odd", "status": "blocked"},
    ]
    action = TaskTrackingAction(command="plan", task_list=tasks, thought="Planning")

    tui.display_event(from_agent(action), config)

    assert "Planning" in screen.text
    assert screen.frame("Task Tracking Action") == (
        "Command: plan\n\n"
        "Task List (4 items):\n"
        "  1. ✅ [DONE] Read the code (ID: 1)\n"
        "  2. 🔄 [IN_PROGRESS] Write tests (ID: 2)\n"
        "     Notes: unit first\n"
        "  3. ⏳ [TODO] Ship (ID: 3)\n"
        "  4. ❓ [BLOCKED] Odd (ID: 4)"
    )


def test_task_tracking_empty_plan_and_view(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(from_agent(TaskTrackingAction(command="plan")), config)
    tui.display_event(from_agent(TaskTrackingAction(command="view")), config)

    assert screen.frames == [
        ("Task Tracking Action", "Command: plan\n\nTask List: Empty"),
        ("Task Tracking Action", "Command: view"),
    ]


def test_other_actions_show_their_thought(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(from_agent(AgentThinkAction(thought="Hmm, the bug is in parse()")), config)
    tui.display_event(from_agent(FileWriteAction(path="a.txt", content="x", thought="")), config)

    assert screen.lines == ["", "Hmm, the bug is in parse()"]


def test_finish_action_shows_final_thought_as_agent_message(
    screen: Screen, config: OpenHandsConfig
) -> None:
    action = AgentFinishAction(final_thought="All **done**.", thought="Wrapping up")

    tui.display_event(from_agent(action), config)

    assert screen.lines == ["", "Wrapping up", "", "All done."]


def test_agent_message_is_shown_and_user_message_is_not(
    screen: Screen, config: OpenHandsConfig
) -> None:
    user_message = MessageAction("typed by the user")
    user_message.source = EventSource.USER

    tui.display_event(from_agent(MessageAction("Hello from the agent")), config)
    tui.display_event(user_message, config)

    assert screen.lines == ["", "Hello from the agent"]


def test_agent_message_markup_bold_and_underline_rendered_other_markup_escaped(
    screen: Screen, config: OpenHandsConfig
) -> None:
    tui.display_event(from_agent(MessageAction("**Bold** and __under__ <b>x</b> & y")), config)

    assert screen.lines[-1] == "Bold and under <b>x</b> & y"


def test_command_output_frame_drops_prompt_noise(screen: Screen, config: OpenHandsConfig) -> None:
    output = "hello\n[Python Interpreter: /usr/bin/python]\nopenhands@host:~$ \nworld"

    tui.display_event(CmdOutputObservation(content=output, command="echo"), config)

    assert screen.frame("Command Output") == "hello\nworld"


def test_command_output_of_exactly_15_lines_is_not_cut(
    screen: Screen, config: OpenHandsConfig
) -> None:
    output = "\n".join(f"line {i}" for i in range(tui.MAX_OUTPUT_LINES))

    tui.display_event(CmdOutputObservation(content=output, command="seq"), config)

    assert screen.frame("Command Output") == output


def test_command_output_over_15_lines_is_capped(screen: Screen, config: OpenHandsConfig) -> None:
    assert tui.MAX_OUTPUT_LINES == 15
    lines = [f"line {i}" for i in range(40)]

    tui.display_event(CmdOutputObservation(content="\n".join(lines), command="seq"), config)

    body = screen.frame("Command Output (showing 15 of 40 lines)")
    assert body.split("\n") == [
        *lines[:15],
        "... and 25 more lines",
        " use --full to see complete output",
    ]


def test_file_edit_frame_shows_the_diff_view(screen: Screen, config: OpenHandsConfig) -> None:
    old = "\n".join(f"line {i}" for i in range(12))
    new = old.replace("line 6", "line six")
    observation = FileEditObservation(content="", path="/w/a.py", old_content=old, new_content=new)

    tui.display_event(observation, config)

    body = screen.frame("File Edit")
    assert body == observation.visualize_diff(n_context_lines=4)
    assert "-7|line 6" in body
    assert "+7|line six" in body
    assert "3|line 2" in body  # four lines of context before the change
    assert "1|line 0" not in body


def test_diff_lexer_colours_added_removed_and_header_lines() -> None:
    document = Document("[begin of edit 1 / 1]\n-1|old\n+1|new\n 2|same\n(content after edit)")
    tokens = tui.CustomDiffLexer().lex_document(document)

    assert [tokens(i)[0][0] for i in range(5)] == ["bold", "ansired", "ansigreen", "", "bold"]


def test_file_read_frame_expands_tabs(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(FileReadObservation(content="def f():\n\treturn 1", path="f.py"), config)

    assert screen.frame("File Read") == "def f():\n    return 1"


def test_mcp_observation_frame(screen: Screen, config: OpenHandsConfig) -> None:
    observation = MCPObservation(content="42 results", name="search", arguments={"q": "cats"})

    tui.display_event(observation, config)

    assert screen.frame("MCP Tool Result") == (
        'Tool: search\nArguments: {\n  "q": "cats"\n}\n\nResult:\n42 results'
    )


def test_mcp_observation_without_output(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(MCPObservation(content="  ", name="ping"), config)

    assert screen.frame("MCP Tool Result") == "Tool: ping\n\nResult:\nNo output"


def test_task_tracking_observation_frame(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(TaskTrackingObservation(content="Plan updated"), config)
    tui.display_event(TaskTrackingObservation(content=""), config)

    assert screen.frames == [
        ("Task Tracking Result", "Result: Plan updated"),
        ("Task Tracking Result", "Result: Task tracking operation completed"),
    ]


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (AgentState.PAUSED, ["", "Agent paused... (Enter /resume to continue)"]),
        (AgentState.FINISHED, ["", "Task completed..."]),
        (AgentState.AWAITING_USER_INPUT, ["", "Agent is waiting for your input..."]),
        (AgentState.RUNNING, []),
        (AgentState.ERROR, []),
        (AgentState.AWAITING_USER_CONFIRMATION, []),
    ],
)
def test_agent_state_changed_observation(
    screen: Screen, config: OpenHandsConfig, state: AgentState, expected: list[str]
) -> None:
    tui.display_event(AgentStateChangedObservation(content="", agent_state=state.value), config)

    assert screen.lines == expected


def test_held_back_action_reason_is_framed_like_a_command(
    screen: Screen, config: OpenHandsConfig
) -> None:
    observation = AgentStateChangedObservation(
        content="",
        agent_state=AgentState.AWAITING_USER_CONFIRMATION.value,
        reason="Waiting for confirmation: Writing file: notes.txt",
    )

    tui.display_event(observation, config)

    assert screen.frame("Command") == "Waiting for confirmation: Writing file: notes.txt"


def test_error_observation_frame(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(ErrorObservation(content="  File not found: x  "), config)

    assert screen.frame("Error") == "File not found: x"


def test_unlisted_event_types_print_nothing(screen: Screen, config: OpenHandsConfig) -> None:
    tui.display_event(NullObservation(content=""), config)
    tui.display_event(FileWriteObservation(content="", path="a"), config)
    tui.display_event(ChangeAgentStateAction(agent_state="running"), config)

    assert screen.lines == []


# --- thought de-duplication -------------------------------------------------------------------


def test_a_thought_is_not_repeated_and_an_agent_message_equal_to_it_is_skipped(
    screen: Screen, config: OpenHandsConfig
) -> None:
    tui.display_event(from_agent(AgentThinkAction(thought="Same idea")), config)
    tui.display_event(from_agent(AgentThinkAction(thought="Same idea")), config)
    tui.display_event(from_agent(MessageAction("Same idea")), config)

    assert screen.lines.count("Same idea") == 1


def test_only_the_last_five_thoughts_are_remembered(screen: Screen) -> None:
    assert tui.MAX_RECENT_THOUGHTS == 5
    tui.display_thought_if_new("first")
    for i in range(4):
        tui.display_thought_if_new(f"other {i}")
    tui.display_thought_if_new("first")  # still among the last five
    tui.display_thought_if_new("other 4")  # pushes "first" out
    tui.display_thought_if_new("first")

    assert screen.lines.count("first") == 2
    assert len(tui.screen_state.recent_thoughts) == 5


def test_blank_thoughts_print_nothing(screen: Screen) -> None:
    tui.display_thought_if_new("   ")
    tui.display_thought_if_new("")

    assert screen.lines == []


# --- usage metrics and durations (§11) -----------------------------------------------------------


def usage(cost: float, prompt: int, completion: int, cache_read: int, cache_write: int) -> Metrics:
    metrics = Metrics("test-model")
    metrics.add_cost(cost)
    metrics.add_token_usage(prompt, completion, cache_read, cache_write, 200_000, "r1")
    return metrics


def test_usage_metrics_frame_numbers(screen: Screen) -> None:
    usage_metrics = tui.UsageMetrics()
    usage_metrics.metrics = usage(0.0123451, 1_234_567, 8_910, 1_000, 20)

    tui.display_usage_metrics(usage_metrics)

    assert screen.frame("Usage Metrics").split("\n") == [
        "   Total Cost (USD):    $0.012345",
        "",
        "   Total Input Tokens:  1,234,567",
        "      Cache Hits:       1,000",
        "      Cache Writes:     20",
        "   Total Output Tokens: 8,910",
        "",
        "   Total Tokens:        1,243,477",
    ]


def test_usage_metrics_frame_before_any_llm_call(screen: Screen) -> None:
    tui.display_usage_metrics(tui.UsageMetrics())

    body = screen.frame("Usage Metrics")
    assert "   Total Cost (USD):    $0.000000" in body.split("\n")


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    clock = SimpleNamespace(now=10_000.0)
    fake_time = SimpleNamespace(time=lambda: clock.now, sleep=lambda seconds: None)
    # The clock of the duration and spinner code, and of ``UsageMetrics``' start time.
    monkeypatch.setattr(tui_screens, "time", fake_time)
    monkeypatch.setattr(tui_common, "time", fake_time)
    return clock


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [(0.0, "0h 0m 0s"), (59.9, "0h 0m 59s"), (3723.4, "1h 2m 3s"), (90_061.0, "25h 1m 1s")],
)
def test_get_session_duration(frozen_clock: SimpleNamespace, elapsed: float, expected: str) -> None:
    assert tui.get_session_duration(frozen_clock.now - elapsed) == expected


def test_status_shows_id_uptime_and_metrics(screen: Screen, frozen_clock: SimpleNamespace) -> None:
    usage_metrics = tui.UsageMetrics()
    frozen_clock.now += 65

    tui.display_status(usage_metrics, "sid-123")

    assert screen.lines[:5] == [
        "",
        "Conversation ID: sid-123",
        "Uptime:          0h 1m 5s",
        "",
        "[frame Usage Metrics]",
    ]


def test_shutdown_message(screen: Screen, frozen_clock: SimpleNamespace) -> None:
    usage_metrics = tui.UsageMetrics()
    frozen_clock.now += 3601

    tui.display_shutdown_message(usage_metrics, "sid-9")

    assert [line for line in screen.lines if line] == [
        "Closing current conversation...",
        "[frame Usage Metrics]",
        "Conversation duration: 1h 0m 1s",
        "Closed conversation sid-9",
    ]


# --- start screen, help, MCP errors ---------------------------------------------------------------


def test_banner_and_welcome(screen: Screen) -> None:
    tui.display_banner("abc-123")
    tui.display_welcome_message()

    text = screen.text
    assert "DEPRECATION" not in text
    assert "OpenHands CLI v0.59.0" in screen.lines
    assert "Initialized conversation abc-123" in screen.lines
    assert "Let's start building!\n" in screen.lines
    assert screen.lines[-1] == "What do you want to build? Type /help for help"


def test_welcome_with_a_custom_message(screen: Screen) -> None:
    tui.display_welcome_message("Loading previous conversation.")

    assert screen.lines[-1] == "Loading previous conversation. Type /help for help"


def test_runtime_initialization_message(screen: Screen) -> None:
    tui.display_runtime_initialization_message("local")
    tui.display_runtime_initialization_message("docker")
    tui.display_runtime_initialization_message("cli")

    assert [line for line in screen.lines if line] == [
        "⚙️ Starting local runtime...",
        "🐳 Starting Docker runtime...",
    ]


def test_initial_user_prompt_is_echoed(screen: Screen) -> None:
    tui.display_initial_user_prompt("fix the bug")

    assert screen.lines == ["\n> fix the bug"]


def test_agent_running_message(screen: Screen) -> None:
    tui.display_agent_running_message()

    assert screen.lines == ["", "Agent running... (Press Ctrl-P to pause)"]


def test_help_lists_every_command_with_its_description(screen: Screen) -> None:
    tui.display_help()

    assert "OpenHands CLI v0.59.0" in screen.lines
    assert "Things that you can try:" in screen.lines
    assert "Interactive commands:" in screen.lines
    expected = {
        "/exit": "Exit the application",
        "/help": "Display available commands",
        "/init": "Initialize a new repository",
        "/status": "Display conversation details and usage metrics",
        "/new": "Create a new conversation",
        "/settings": "Display and modify current settings",
        "/resume": "Resume the agent when paused",
        "/mcp": "Manage MCP server configuration and view errors",
    }
    assert expected == tui.COMMANDS
    for command, description in expected.items():
        assert f"{command} - {description}" in screen.lines
    assert any("docs.all-hands.dev" in line for line in screen.lines)


def test_mcp_errors_none(screen: Screen, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tui, "mcp_error_collector", MCPErrorCollector(), raising=False)

    tui.display_mcp_errors()

    assert screen.lines == ["✓ No MCP errors detected\n"]


def test_mcp_errors_one_frame_each(screen: Screen, monkeypatch: pytest.MonkeyPatch) -> None:
    collector = MCPErrorCollector()
    collector.add_error("tavily", "sse", "connection refused", "Traceback ...")
    collector.add_error("fs", "stdio", "exited with 1")
    monkeypatch.setattr(tui, "mcp_error_collector", collector, raising=False)

    tui.display_mcp_errors()

    assert screen.lines[0] == "✗ 2 MCP error(s) detected during startup:\n"
    assert screen.titles() == ["MCP Error #1", "MCP Error #2"]
    first = screen.frame("MCP Error #1").split("\n")
    assert first[0].endswith("] SSE Server: tavily")
    assert first[1:] == ["Error: connection refused", "Details: Traceback ..."]
    assert screen.frame("MCP Error #2").split("\n")[1:] == ["Error: exited with 1"]


def test_mcp_error_collector_is_reachable_as_a_module_attribute() -> None:
    from openhands.mcp.error_collector import mcp_error_collector

    assert tui.mcp_error_collector is mcp_error_collector


def test_spinner_draws_frames_until_loaded(
    frozen_clock: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    checks = iter([False, False, True])
    flag = SimpleNamespace(is_set=lambda: next(checks))

    tui.display_initialization_animation("Initializing...", flag)

    written = capsys.readouterr().out
    assert written.count("Initializing...") == 2
    assert "[⠋] Initializing..." in written
    assert "[⠙] Initializing..." in written


def test_every_renderer_works_with_a_real_output(config: OpenHandsConfig) -> None:
    """No patching: the real prompt_toolkit printing path draws all event types."""
    events: list[Event] = [
        from_agent(awaiting(CmdRunAction("ls", thought="t1"))),
        from_agent(MCPAction("tool", arguments={"a": 1})),
        from_agent(TaskTrackingAction(command="plan", task_list=[{"title": "x"}])),
        from_agent(MessageAction("**hi** \x1b[31m <tag>")),
        CmdOutputObservation(content="out\n" * 30, command="ls"),
        FileEditObservation(content="", path="a", old_content="a\n", new_content="b\n"),
        FileReadObservation(content="\tx", path="a"),
        MCPObservation(content="r", name="tool"),
        TaskTrackingObservation(content="ok"),
        AgentStateChangedObservation(content="", agent_state="paused"),
        AgentStateChangedObservation(
            content="", agent_state="awaiting_user_confirmation", reason="Writing file: x"
        ),
        ErrorObservation(content="boom"),
    ]
    buffer = io.StringIO()
    with create_app_session(input=DummyInput(), output=PlainTextOutput(buffer)):
        for event in events:
            tui.display_event(event, config)
        tui.display_status(tui.UsageMetrics(), "sid")

    written = buffer.getvalue()
    for expected in (
        "Command",
        "$ ls",
        "MCP Tool Call",
        "Task Tracking Action",
        "hi",
        "Command Output (showing 15 of 31 lines)",
        "File Edit",
        "File Read",
        "MCP Tool Result",
        "Task Tracking Result",
        "Agent paused...",
        "Writing file: x",
        "Error",
        "Usage Metrics",
    ):
        assert expected in written


# --- menus (§4, §8) -----------------------------------------------------------------------------

THREE = ["Alpha", "Beta", "Gamma"]


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (ENTER, 0),
        (DOWN + ENTER, 1),
        (DOWN + DOWN + ENTER, 2),
        (DOWN * 3 + ENTER, 0),  # wraps around
        (UP + ENTER, 2),
        ("j" + ENTER, 0),  # j/k only move in vi mode
    ],
)
def test_cli_confirm_arrow_keys(config: OpenHandsConfig, keys: str, expected: int) -> None:
    with keyboard(keys):
        assert tui.cli_confirm(config, "Pick one", THREE) == expected


def test_cli_confirm_starts_at_the_initial_selection(config: OpenHandsConfig) -> None:
    with keyboard(DOWN + ENTER):
        assert tui.cli_confirm(config, "Pick one", THREE, initial_selection=1) == 2


def test_cli_confirm_vi_keys(config: OpenHandsConfig) -> None:
    vi_config = OpenHandsConfig(cli=CLIConfig(vi_mode=True))
    with keyboard("jjk" + ENTER):
        assert tui.cli_confirm(vi_config, "Pick one", THREE) == 1


def test_cli_confirm_default_choices_are_yes_no(config: OpenHandsConfig) -> None:
    with keyboard(DOWN + ENTER):
        assert tui.cli_confirm(config) == 1


@pytest.mark.parametrize("key", [CTRL_C, CTRL_D, ESC])
def test_cli_confirm_cancel_keys_pick_the_no_answer(config: OpenHandsConfig, key: str) -> None:
    with keyboard(key):
        assert tui.cli_confirm(config, "Terminate session?", ["Yes, proceed", "No, dismiss"]) == 1
    with keyboard(key):
        choices = ["Yes, proceed", "No (and allow to enter instructions)", "Always proceed"]
        assert tui.cli_confirm(config, "Choose an option:", choices) == 1


@pytest.mark.parametrize("key", [CTRL_C, ESC])
def test_cli_confirm_cancel_without_a_no_answer_picks_the_last_entry(
    config: OpenHandsConfig, key: str
) -> None:
    choices = ["LLM (Basic)", "LLM (Advanced)", "Search API (Optional)", "Go back"]
    with keyboard(key):
        assert tui.cli_confirm(config, "Which settings would you like to modify?", choices) == 3


def test_cli_confirm_high_risk_is_framed(config: OpenHandsConfig) -> None:
    with keyboard(DOWN + ENTER):
        result = tui.cli_confirm(
            config, "Choose:", ["a", "b"], security_risk=ActionSecurityRisk.HIGH
        )
    assert result == 1


@pytest.mark.parametrize(
    ("risk", "keys", "expected"),
    [
        (ActionSecurityRisk.LOW, ENTER, "yes"),
        (ActionSecurityRisk.LOW, DOWN + ENTER, "no"),
        (ActionSecurityRisk.MEDIUM, DOWN * 2 + ENTER, "auto_highrisk"),
        (ActionSecurityRisk.UNKNOWN, DOWN * 3 + ENTER, "always"),
        (ActionSecurityRisk.LOW, CTRL_C, "no"),
        (ActionSecurityRisk.HIGH, ENTER, "yes"),
        (ActionSecurityRisk.HIGH, DOWN + ENTER, "no"),
        (ActionSecurityRisk.HIGH, DOWN * 2 + ENTER, "always"),
        (ActionSecurityRisk.HIGH, DOWN * 3 + ENTER, "yes"),  # only three choices: wraps
        (ActionSecurityRisk.HIGH, ESC, "no"),
    ],
)
async def test_read_confirmation_input_mapping(
    config: OpenHandsConfig, risk: ActionSecurityRisk, keys: str, expected: str
) -> None:
    with keyboard(keys):
        assert await tui.read_confirmation_input(config, risk) == expected


async def test_read_confirmation_input_questions_and_choices(
    config: OpenHandsConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, list[str], ActionSecurityRisk]] = []

    def fake_confirm(
        _config: OpenHandsConfig,
        question: str,
        choices: list[str],
        initial_selection: int,
        security_risk: ActionSecurityRisk,
    ) -> int:
        asked.append((question, choices, security_risk))
        return 0

    monkeypatch.setattr(tui, "cli_confirm", fake_confirm)

    await tui.read_confirmation_input(config, ActionSecurityRisk.LOW)
    await tui.read_confirmation_input(config, ActionSecurityRisk.HIGH)

    assert asked[0] == (
        "Choose an option:",
        [
            "Yes, proceed",
            "No (and allow to enter instructions)",
            "Auto-confirm action with LOW/MEDIUM risk, ask for HIGH risk",
            "Always proceed (don't ask again)",
        ],
        ActionSecurityRisk.LOW,
    )
    assert asked[1] == (
        "HIGH RISK command detected.\nReview carefully before proceeding.\n\nChoose an option:",
        [
            "Yes, proceed (HIGH RISK - Use with caution)",
            "No (and allow to enter instructions)",
            "Always proceed (don't ask again - NOT RECOMMENDED)",
        ],
        ActionSecurityRisk.HIGH,
    )


# --- the prompt (§6.1) ------------------------------------------------------------------------


def completions(agent_state: str, typed: str) -> dict[str, str]:
    completer = tui.CommandCompleter(agent_state)
    found = completer.get_completions(Document(typed), CompleteEvent(completion_requested=True))
    return {item.text: to_plain_text(item.display_meta) for item in found}


def test_completer_offers_resume_only_when_paused() -> None:
    running = completions(AgentState.AWAITING_USER_INPUT.value, "/")
    paused = completions(AgentState.PAUSED.value, "/")

    assert "/resume" not in running
    assert set(running) == set(tui.COMMANDS) - {"/resume"}
    assert paused == tui.COMMANDS


def test_completer_filters_by_prefix_and_ignores_plain_text() -> None:
    assert completions(AgentState.PAUSED.value, "/re") == {
        "/resume": "Resume the agent when paused"
    }
    assert completions(AgentState.FINISHED.value, "/re") == {}
    assert completions(AgentState.FINISHED.value, "  /st") == {
        "/status": "Display conversation details and usage metrics"
    }
    assert completions(AgentState.FINISHED.value, "hello /") == {}


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ("fix the tests" + ENTER, "fix the tests"),
        ("  " + ENTER, "  "),
        (CTRL_C, "/exit"),
        (CTRL_D, "/exit"),
    ],
)
async def test_read_prompt_input(config: OpenHandsConfig, keys: str, expected: str) -> None:
    with keyboard(keys):
        assert await tui.read_prompt_input(config, AgentState.AWAITING_USER_INPUT.value) == expected


async def test_read_prompt_input_multiline_submits_on_ctrl_d(config: OpenHandsConfig) -> None:
    with keyboard("first line" + ENTER + "second line" + CTRL_D):
        message = await tui.read_prompt_input(config, "awaiting_user_input", multiline=True)

    assert message == "first line\nsecond line"


def test_prompt_session_follows_vi_mode() -> None:
    with keyboard():
        assert tui.create_prompt_session(OpenHandsConfig()).app.editing_mode.value == "EMACS"
        vi_config = OpenHandsConfig(cli=CLIConfig(vi_mode=True))
        assert tui.create_prompt_session(vi_config).app.editing_mode.value == "VI"


# --- pausing (§9) -----------------------------------------------------------------------------


@dataclass
class RecordingStream:
    events: list[tuple[Event, EventSource]] = field(default_factory=list)

    def add_event(self, event: Event, source: EventSource) -> None:
        self.events.append((event, source))


@pytest.fixture
def pause_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        monkeypatch.setattr(tui, "create_input", lambda: pipe)
        yield pipe


@pytest.fixture
async def no_listener_left() -> AsyncIterator[None]:
    yield
    await tui.stop_pause_listener()


@pytest.mark.parametrize("key", [CTRL_P, CTRL_C, CTRL_D])
async def test_pause_key_pauses_the_agent(
    screen: Screen, pause_keys: PipeInput, no_listener_left: None, key: str
) -> None:
    done = asyncio.Event()
    stream = RecordingStream()
    tui.start_pause_listener(asyncio.get_running_loop(), done, stream)  # type: ignore[arg-type]

    pause_keys.send_text("x" + key)
    await asyncio.wait_for(done.wait(), timeout=10)

    assert len(stream.events) == 1
    action, source = stream.events[0]
    assert isinstance(action, ChangeAgentStateAction)
    assert action.agent_state == AgentState.PAUSED
    assert source == EventSource.USER
    assert screen.lines == ["", "Pausing the agent..."]


async def test_only_one_listener_runs_and_stop_cancels_it(
    pause_keys: PipeInput, no_listener_left: None
) -> None:
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    stream = RecordingStream()
    tui.start_pause_listener(loop, done, stream)  # type: ignore[arg-type]
    first = tui.pause_listener.task
    tui.start_pause_listener(loop, done, stream)  # type: ignore[arg-type]

    assert first is not None
    assert tui.pause_listener.task is first

    await tui.stop_pause_listener()

    assert first.cancelled()
    assert tui.pause_listener.task is None
    assert stream.events == []
    assert not done.is_set()


def test_a_subclass_is_drawn_by_its_nearest_listed_base_and_through_the_tui(
    monkeypatch: pytest.MonkeyPatch, config: OpenHandsConfig
) -> None:
    # The renderer table is keyed by class; an event of a subclass (a plug-in's own
    # observation) is drawn like its base, by the display function set on the tui module.
    class PluginOutput(CmdOutputObservation):
        pass

    shown: list[str] = []
    monkeypatch.setattr(tui, "display_command_output", shown.append)

    tui.display_event(PluginOutput(content="hello", command="echo hello"), config)

    assert shown == ["hello"]
