"""Slash-command dispatch (cli.md §6.2–6.3): what each input sends and which exit reason it sets.

The menus are answered by a stand-in for ``cli_confirm`` (a terminal is not needed to test the
dispatch); the event stream is the real one on an in-memory store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text, to_formatted_text

from openhands.cli import commands
from openhands.cli.tui import UsageMetrics
from openhands.core.config import OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.events.action import ChangeAgentStateAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.stream import EventStream
from openhands.storage.memory import InMemoryFileStore
from openhands.storage.settings.file_settings_store import FileSettingsStore


@pytest.fixture
def stream() -> Iterator[EventStream]:
    event_stream = EventStream("cli-test", InMemoryFileStore())
    yield event_stream
    event_stream.close()


class Answers:
    """Menu answers, consumed in order, and the questions that were asked."""

    def __init__(self) -> None:
        self.queue: list[int] = []
        self.asked: list[str] = []

    def append(self, choice: int) -> None:
        self.queue.append(choice)

    def confirm(self, config: OpenHandsConfig, question: str = "", *_: object, **__: object) -> int:
        self.asked.append(question)
        return self.queue.pop(0)


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Answers:
    recorded = Answers()
    monkeypatch.setattr(commands, "cli_confirm", recorded.confirm)
    monkeypatch.setattr(commands, "display_shutdown_message", lambda *a: None)
    return recorded


class Screen:
    """What the commands printed, as plain text (prompt_toolkit's printing is replaced)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def print_text(self, *values: object, **_: object) -> None:
        self.lines.append(" ".join(_plain(value) for value in values))

    def print_frame(self, container: object, **_: object) -> None:
        self.lines.append(f"[frame {getattr(container, 'title', '')}]")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _plain(value: object) -> str:
    if isinstance(value, str):
        return value
    return fragment_list_to_text(to_formatted_text(value))  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def screen(monkeypatch: pytest.MonkeyPatch) -> Screen:
    recorder = Screen()
    monkeypatch.setattr(commands, "print_formatted_text", recorder.print_text)
    monkeypatch.setattr(commands, "print_container", recorder.print_frame)
    return recorder


def _events(stream: EventStream) -> list[Event]:
    return list(stream.search_events())


async def _run(
    text: str,
    stream: EventStream,
    tmp_path: Path,
    agent_state: str = AgentState.AWAITING_USER_INPUT,
) -> tuple[bool, bool, bool, ExitReason]:
    store = FileSettingsStore(InMemoryFileStore())
    return await commands.handle_commands(
        text, stream, UsageMetrics(), "sid", OpenHandsConfig(), str(tmp_path), store, agent_state
    )


async def test_a_plain_message_goes_to_the_agent_and_counts_as_error(
    stream: EventStream, tmp_path: Path
) -> None:
    result = await _run("  fix the bug  ", stream, tmp_path)
    assert result == (True, False, False, ExitReason.ERROR)
    [event] = _events(stream)
    assert isinstance(event, MessageAction)
    assert event.content == "  fix the bug  " and event.source == EventSource.USER


async def test_commands_match_exactly(stream: EventStream, tmp_path: Path) -> None:
    """``/help me`` is not ``/help``: it is sent to the agent as typed."""
    result = await _run("/help me", stream, tmp_path)
    assert result[0] is True
    assert [e.content for e in _events(stream)] == ["/help me"]  # type: ignore[attr-defined]


async def test_exit_confirmed_stops_the_agent_from_the_environment(
    stream: EventStream, tmp_path: Path, answers: Answers
) -> None:
    answers.append(0)
    result = await _run("/exit", stream, tmp_path)
    assert result == (True, False, False, ExitReason.INTENTIONAL)
    [event] = _events(stream)
    assert isinstance(event, ChangeAgentStateAction)
    assert event.agent_state == AgentState.STOPPED and event.source == EventSource.ENVIRONMENT
    assert answers.asked == ["Terminate session?"]


async def test_exit_dismissed_keeps_the_prompt_open(
    stream: EventStream, tmp_path: Path, answers: Answers
) -> None:
    answers.append(1)
    result = await _run("/exit", stream, tmp_path)
    assert result == (False, False, False, ExitReason.ERROR)
    assert _events(stream) == []


async def test_new_confirmed_requests_a_new_session(
    stream: EventStream, tmp_path: Path, answers: Answers
) -> None:
    answers.append(0)
    result = await _run("/new", stream, tmp_path)
    assert result == (True, False, True, ExitReason.INTENTIONAL)
    [event] = _events(stream)
    assert isinstance(event, ChangeAgentStateAction) and event.agent_state == AgentState.STOPPED


async def test_resume_needs_a_paused_agent(
    stream: EventStream, tmp_path: Path, screen: Screen
) -> None:
    result = await _run("/resume", stream, tmp_path, AgentState.AWAITING_USER_INPUT)
    assert result == (False, False, False, ExitReason.ERROR)
    assert "Error: Agent is not paused." in screen.text
    assert _events(stream) == []

    result = await _run("/resume", stream, tmp_path, AgentState.PAUSED)
    assert result == (True, False, False, ExitReason.ERROR)
    [event] = _events(stream)
    assert isinstance(event, MessageAction) and event.content == "continue"
    assert event.source == EventSource.USER


async def test_init_is_only_for_host_runtimes(
    stream: EventStream, tmp_path: Path, screen: Screen
) -> None:
    config = OpenHandsConfig(runtime="docker")
    assert await commands.handle_init_command(config, stream, str(tmp_path)) == (False, False)
    assert "only supported for CLI and local runtimes" in screen.text


async def test_init_asks_the_agent_to_write_repo_md(
    stream: EventStream, tmp_path: Path, answers: Answers
) -> None:
    answers.append(0)
    config = OpenHandsConfig(runtime="cli")
    assert await commands.handle_init_command(config, stream, str(tmp_path)) == (True, True)
    [event] = _events(stream)
    assert isinstance(event, MessageAction) and ".openhands/microagents/repo.md" in event.content
    assert answers.asked == ["Do you want to proceed?"]


async def test_init_with_an_existing_repo_md_empties_it_on_yes(
    stream: EventStream, tmp_path: Path, answers: Answers, screen: Screen
) -> None:
    repo_md = tmp_path / ".openhands" / "microagents" / "repo.md"
    repo_md.parent.mkdir(parents=True)
    repo_md.write_text("old notes")
    answers.append(0)
    config = OpenHandsConfig(runtime="cli")
    assert await commands.handle_init_command(config, stream, str(tmp_path)) == (True, True)
    assert repo_md.read_text() == ""
    assert "[frame Repository Instructions (repo.md)]" in screen.text
    assert answers.asked == ["Do you want to re-initialize?"]


def test_trusted_folder_is_saved_only_on_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: Answers
) -> None:
    from openhands.cli import utils

    user_config = tmp_path / "home" / ".openhands" / "config.toml"
    monkeypatch.setattr(utils, "_LOCAL_CONFIG_FILE_PATH", user_config)
    monkeypatch.setattr(commands, "clear", lambda: None)
    folder = str(tmp_path / "repo")

    answers.append(1)
    assert commands.check_folder_security_agreement(OpenHandsConfig(), folder) is False
    assert utils.get_local_config_trusted_dirs() == []

    answers.append(0)
    assert commands.check_folder_security_agreement(OpenHandsConfig(), folder) is True
    assert utils.get_local_config_trusted_dirs() == [folder]
    # Trusted now: no question the second time.
    assert commands.check_folder_security_agreement(OpenHandsConfig(), folder) is True
    assert len(answers.asked) == 2
