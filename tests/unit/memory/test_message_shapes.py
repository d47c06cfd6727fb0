"""One check per row of the message tables of agent.md §5.2 (actions) and §5.3 (observations).

Each case builds the smallest history that contains the row's event and looks at the
message ConversationMemory makes of it: its role, its text, and for tool calls the pairing
of the assistant message with its tool answer.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from openhands.core.config import AgentConfig
from openhands.core.message import ImageContent, Message, TextContent
from openhands.events.action import (
    Action,
    AgentDelegateAction,
    AgentRejectAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    ChangeAgentStateAction,
    CmdRunAction,
    CondensationAction,
    CondensationRequestAction,
    FileEditAction,
    FileReadAction,
    IPythonRunCellAction,
    MCPAction,
    MessageAction,
    NullAction,
    RecallAction,
    SystemMessageAction,
    TaskTrackingAction,
)
from openhands.events.event import Event, EventSource, FileEditSource, RecallType
from openhands.events.observation import (
    AgentCondensationObservation,
    AgentDelegateObservation,
    AgentThinkObservation,
    BrowserOutputObservation,
    CmdOutputMetadata,
    CmdOutputObservation,
    ErrorObservation,
    FileDownloadObservation,
    FileEditObservation,
    FileReadObservation,
    IPythonRunCellObservation,
    MCPObservation,
    Observation,
    TaskTrackingObservation,
    UserRejectObservation,
)
from openhands.events.tool import ToolCallMetadata
from openhands.memory.conversation_memory import ConversationMemory
from openhands.utils.prompt import PromptManager

PROMPTS = (
    Path(__file__).resolve().parents[3] / "openhands" / "agenthub" / "codeact_agent" / "prompts"
)
TRUNCATED = "\n[... Observation truncated due to length ...]\n"


def _memory() -> ConversationMemory:
    return ConversationMemory(AgentConfig(), PromptManager(str(PROMPTS)))


def _sourced(event: Event, source: EventSource) -> Event:
    event = copy.deepcopy(event)  # parametrized cases are shared between tests
    event.source = source
    return event


def _start() -> list[Event]:
    system = _sourced(SystemMessageAction(content="sys"), EventSource.AGENT)
    return [system, _sourced(MessageAction(content="task"), EventSource.USER)]


def _call(event: Event, response_id: str = "resp-1", call_id: str = "call-1") -> Event:
    """A copy of ``event`` with the metadata of a one-call LLM response (as agent/runtime do)."""
    event = copy.deepcopy(event)
    response = {
        "id": response_id,
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "Doing it.",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "the_tool", "arguments": "{}"},
                        }
                    ],
                }
            }
        ],
    }
    event.tool_call_metadata = ToolCallMetadata(
        function_name="the_tool",
        tool_call_id=call_id,
        model_response=response,
        total_calls_in_response=1,
    )
    if event.source is None:
        event.source = EventSource.AGENT
    return event


def _messages(*events: Event, **kwargs: Any) -> list[Message]:
    history = [*_start(), *events]
    return _memory().process_events(history, history[1], **kwargs)  # type: ignore[arg-type]


def _text(message: Message) -> str:
    return "".join(c.text for c in message.content if isinstance(c, TextContent))


# --- §5.2: the actions that come from tool calls, each with the observation that answers it ---

TOOL_ROWS: list[tuple[Action, Observation, str]] = [
    (
        AgentDelegateAction(agent="BrowsingAgent", inputs={"task": "t"}),
        AgentDelegateObservation(content="raw", outputs={"content": "delegated"}),
        "delegated",
    ),
    (AgentThinkAction(thought="hm"), AgentThinkObservation(content="logged"), "logged"),
    (
        IPythonRunCellAction(code="1+1"),
        IPythonRunCellObservation(content="2", code="1+1"),
        "2",
    ),
    (
        FileEditAction(path="/w/a.py", command="create", file_text="x"),
        FileEditObservation(
            content="File created", path="/w/a.py", impl_source=FileEditSource.OH_ACI
        ),
        "File created",
    ),
    (FileReadAction(path="/w/a.py"), FileReadObservation(content="x = 1", path="/w/a.py"), "x = 1"),
    (
        BrowseInteractiveAction(browser_actions='goto("http://x")'),
        BrowserOutputObservation(content="page", url="http://x", trigger_by_action="browse"),
        "page",
    ),
    (
        BrowseURLAction(url="http://x"),
        BrowserOutputObservation(content="page", url="http://x", trigger_by_action="browse"),
        "page",
    ),
    (MCPAction(name="fetch"), MCPObservation(content='{"ok": true}', name="fetch"), '{"ok": true}'),
    (
        TaskTrackingAction(command="view"),
        TaskTrackingObservation(content="# Task List", command="view"),
        "# Task List",
    ),
    (
        CmdRunAction(command="ls"),
        CmdOutputObservation(
            content="a.txt", command="ls", metadata=CmdOutputMetadata(exit_code=0)
        ),
        "a.txt\n[Command finished with exit code 0]",
    ),
]


@pytest.mark.parametrize(
    ("action", "observation", "text"), TOOL_ROWS, ids=[type(a).__name__ for a, _, _ in TOOL_ROWS]
)
def test_a_tool_action_and_its_answer_become_an_assistant_call_and_a_tool_message(
    action: Action, observation: Observation, text: str
) -> None:
    messages = _messages(_call(action), _call(observation))
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]
    assistant, tool = messages[2], messages[3]
    assert _text(assistant) == "Doing it."  # the response's text, not the action's thought
    assert [c.id for c in assistant.tool_calls or []] == ["call-1"]
    assert (tool.tool_call_id, tool.name) == ("call-1", "the_tool")
    assert _text(tool) == text


@pytest.mark.parametrize(
    "action", [a for a, _, _ in TOOL_ROWS], ids=[type(a).__name__ for a, _, _ in TOOL_ROWS]
)
def test_a_tool_action_alone_waits_for_its_answer(action: Action) -> None:
    assert [m.role for m in _messages(_call(action))] == ["system", "user"]


@pytest.mark.parametrize(
    "action",
    [a for a, _, _ in TOOL_ROWS if not isinstance(a, CmdRunAction)],
    ids=[type(a).__name__ for a, _, _ in TOOL_ROWS if not isinstance(a, CmdRunAction)],
)
def test_the_same_actions_from_the_user_are_described_in_a_user_message(action: Action) -> None:
    messages = _messages(_sourced(action, EventSource.USER))
    assert messages[-1].role == "user"
    assert _text(messages[-1]) == f"\n\nUser requested to read file: {action!s}"


def test_a_later_action_of_the_same_response_replaces_the_pending_message() -> None:
    first = _call(CmdRunAction(command="ls"), call_id="call-1")
    again = _call(CmdRunAction(command="ls -a"), call_id="call-1")
    answer = _call(CmdOutputObservation(content="x", command="ls -a"), call_id="call-1")
    messages = _messages(first, again, answer)
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]


def test_agent_and_user_messages() -> None:
    said = _sourced(MessageAction(content="Here.", image_urls=["u1", "u2"]), EventSource.AGENT)
    asked = _sourced(MessageAction(content="Look.", image_urls=["u3"]), EventSource.USER)
    agent_msg, user_msg = _messages(said, asked)[2:]
    assert agent_msg.role == "assistant" and user_msg.role == "user"
    assert [type(c).__name__ for c in agent_msg.content] == ["TextContent", "ImageContent"]
    assert agent_msg.content[1].image_urls == ["u1", "u2"]  # type: ignore[union-attr]
    assert [type(c).__name__ for c in user_msg.content] == ["TextContent", "ImageContent"]


def test_a_user_command_and_the_system_message() -> None:
    messages = _messages(_sourced(CmdRunAction(command="make test"), EventSource.USER))
    assert messages[0].role == "system" and _text(messages[0]) == "sys"
    assert _text(messages[2]) == "\n\nUser executed the command:\nmake test"


@pytest.mark.parametrize(
    "action",
    [
        RecallAction(recall_type=RecallType.KNOWLEDGE, query="q"),
        CondensationAction(forgotten_event_ids=[1]),
        CondensationRequestAction(),
        ChangeAgentStateAction(agent_state="paused"),
        AgentRejectAction(outputs={"reason": "no"}),
        NullAction(),
    ],
    ids=lambda a: type(a).__name__,
)
def test_other_actions_say_nothing(action: Action) -> None:
    assert len(_messages(_sourced(action, EventSource.AGENT))) == 2


# --- §5.3: observation texts and truncation --------------------------------------------------

LONG = "A" * 30 + "B" * 30
TRUNCATED_ROWS: list[tuple[Observation, str]] = [
    (
        CmdOutputObservation(content=LONG, command="c", metadata=CmdOutputMetadata(exit_code=-1)),
        "\nObserved result of command executed by user:\n" + LONG,
    ),
    (IPythonRunCellObservation(content=LONG, code="c"), LONG),
    (FileEditObservation(content=LONG, path="/a", impl_source=FileEditSource.OH_ACI), LONG),
    (AgentDelegateObservation(content=LONG, outputs={}), LONG),
    (AgentThinkObservation(content=LONG), LONG),
    (TaskTrackingObservation(content=LONG), LONG),
    (MCPObservation(content=LONG), LONG),
    (AgentCondensationObservation(content=LONG), LONG),
    (FileDownloadObservation(content=LONG, file_path="/a"), LONG),
]


@pytest.mark.parametrize(
    ("observation", "full"), TRUNCATED_ROWS, ids=[type(o).__name__ for o, _ in TRUNCATED_ROWS]
)
def test_observation_text_is_cut_in_the_middle_at_the_limit(
    observation: Observation, full: str
) -> None:
    message = _messages(_sourced(observation, EventSource.AGENT), max_message_chars=20)[-1]
    assert message.role == "user"
    assert _text(message) == "\n\n" + full[:10] + TRUNCATED + full[-10:]
    whole = _messages(_sourced(observation, EventSource.AGENT), max_message_chars=-1)[-1]
    assert _text(whole) == "\n\n" + full


@pytest.mark.parametrize(
    "observation",
    [
        FileReadObservation(content=LONG, path="/a"),
        BrowserOutputObservation(content=LONG, url="http://x", trigger_by_action="browse"),
    ],
    ids=lambda o: type(o).__name__,
)
def test_file_reads_and_pages_are_never_cut(observation: Observation) -> None:
    message = _messages(_sourced(observation, EventSource.AGENT), max_message_chars=20)[-1]
    assert _text(message) == "\n\n" + LONG


def test_error_and_reject_markers_wrap_the_cut_text() -> None:
    error = _sourced(ErrorObservation(content=LONG), EventSource.AGENT)
    reject = _sourced(UserRejectObservation(content=LONG), EventSource.AGENT)
    cut = LONG[:10] + TRUNCATED + LONG[-10:]
    error_msg, reject_msg = _messages(error, reject, max_message_chars=20)[2:]
    assert _text(error_msg) == "\n\n" + cut + "\n[Error occurred in processing last action]"
    assert _text(reject_msg) == (
        "\n\nOBSERVATION:\n" + cut + "\n[Last action has been rejected by the user]"
    )


def test_browser_without_a_usable_image_gets_a_note_when_vision_is_on() -> None:
    page = BrowserOutputObservation(
        content="tree", url="http://x", trigger_by_action="browse_interactive", screenshot=" "
    )
    seen = _messages(_sourced(page, EventSource.AGENT), vision_is_active=True)[-1]
    assert not any(isinstance(c, ImageContent) for c in seen.content)
    assert _text(seen).startswith("\n\ntree\n") and len(_text(seen)) > len("\n\ntree\n")
    blind = _messages(_sourced(page, EventSource.AGENT))[-1]
    assert _text(blind) == "\n\ntree"


def test_only_a_user_message_right_after_another_gets_a_blank_line() -> None:
    """§5.1 step 5: the first text item of the second of two user messages starts with \\n\\n."""
    error = _sourced(ErrorObservation(content="bad"), EventSource.AGENT)
    said = _sourced(MessageAction(content="Sorry."), EventSource.AGENT)
    asked = _sourced(MessageAction(content="Again.", image_urls=["u"]), EventSource.USER)
    messages = _messages(error, said, asked, vision_is_active=True)
    texts = [[c.text for c in m.content if isinstance(c, TextContent)] for m in messages]
    assert texts == [
        ["sys"],
        ["task"],  # after the system message
        ["\n\nbad\n[Error occurred in processing last action]"],  # after the task
        ["Sorry."],
        ["Again.", "Image 1:"],  # after an assistant message; later items never change
    ]


def test_building_the_messages_twice_gives_the_same_messages() -> None:
    """The agent rebuilds the messages from the same events every step: nothing may pile up
    (blank lines, merged thoughts) on the events or on shared content."""
    from openhands.events.action import AgentFinishAction

    history = [
        *_start(),
        _sourced(ErrorObservation(content="bad"), EventSource.AGENT),
        _sourced(MessageAction(content="Retry."), EventSource.USER),
        _call(CmdRunAction(command="ls")),
        _call(CmdOutputObservation(content="a", command="ls")),
        _call(AgentFinishAction(thought="Done.")),
    ]
    memory = _memory()
    first = memory.process_events(history, history[1])  # type: ignore[arg-type]
    second = memory.process_events(history, history[1])  # type: ignore[arg-type]
    assert [m.model_dump() for m in first] == [m.model_dump() for m in second]
    assert _text(first[3]) == "\n\nRetry."
    assert _text(first[-1]) == "Done.\nDoing it."
