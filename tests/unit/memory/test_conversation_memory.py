"""ConversationMemory.process_events: events → LLM messages (spec §5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openhands.core.config import AgentConfig
from openhands.core.message import ImageContent, Message, TextContent
from openhands.events.action import (
    AgentFinishAction,
    AgentThinkAction,
    CmdRunAction,
    FileReadAction,
    IPythonRunCellAction,
    MessageAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import (
    AgentDelegateObservation,
    AgentThinkObservation,
    BrowserOutputObservation,
    CmdOutputMetadata,
    CmdOutputObservation,
    ErrorObservation,
    FileWriteObservation,
    IPythonRunCellObservation,
    MicroagentKnowledge,
    NullObservation,
    RecallObservation,
    UserRejectObservation,
)
from openhands.events.tool import ToolCallMetadata
from openhands.memory.conversation_memory import ConversationMemory
from openhands.utils.prompt import PromptManager

PROMPTS = (
    Path(__file__).resolve().parents[3] / "openhands" / "agenthub" / "codeact_agent" / "prompts"
)
MARKER = "\n[... Observation truncated due to length ...]\n"


def _memory(**config: Any) -> ConversationMemory:
    return ConversationMemory(AgentConfig(**config), PromptManager(str(PROMPTS)))


def _system() -> SystemMessageAction:
    action = SystemMessageAction(content="You are a test agent.")
    action.source = EventSource.AGENT
    return action


def _user(text: str, images: list[str] | None = None) -> MessageAction:
    action = MessageAction(content=text, image_urls=images)
    action.source = EventSource.USER
    return action


def _response(response_id: str, calls: list[tuple[str, str]], content: str = "") -> dict:
    return {
        "id": response_id,
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": content,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": "{}"},
                        }
                        for cid, name in calls
                    ],
                }
            }
        ],
    }


def _called(event: Event, response: dict, call_id: str) -> Event:
    """Attach the metadata of one call of ``response`` (as the agent/runtime do)."""
    calls = response["choices"][0]["message"]["tool_calls"]
    name = next(c["function"]["name"] for c in calls if c["id"] == call_id)
    event.tool_call_metadata = ToolCallMetadata(
        function_name=name,
        tool_call_id=call_id,
        model_response=response,
        total_calls_in_response=len(calls),
    )
    if event.source is None:
        event.source = EventSource.AGENT
    return event


def _cmd_output(text: str, exit_code: int = 0, **meta: Any) -> CmdOutputObservation:
    return CmdOutputObservation(
        content=text, command="cmd", metadata=CmdOutputMetadata(exit_code=exit_code, **meta)
    )


def _texts(message: Message) -> list[str]:
    return [c.text for c in message.content if isinstance(c, TextContent)]


def _process(events: list[Event], **kwargs: Any) -> list[Message]:
    memory = kwargs.pop("memory", None) or _memory()
    initial = kwargs.pop("initial", None) or _user("initial task")
    return memory.process_events(events, initial, **kwargs)


# --- order and insertions --------------------------------------------------------------------


def test_system_then_initial_user_message_are_inserted() -> None:
    events: list[Event] = [_system()]
    initial = _user("the task")
    messages = _process(events, initial=initial)
    assert [m.role for m in messages] == ["system", "user"]
    assert _texts(messages[1]) == ["the task"]
    assert events[1] is initial  # the list is changed in place


def test_missing_system_message_is_rendered_from_the_prompt() -> None:
    messages = _process([_user("hi")])
    assert messages[0].role == "system"
    assert _texts(messages[0])[0].startswith("You are OpenHands agent")
    assert _texts(messages[1]) == ["hi"]


def test_initial_message_goes_before_a_non_user_second_event() -> None:
    think = _called(AgentThinkAction(thought="t"), _response("r1", [("c1", "think")]), "c1")
    answer = _called(
        AgentThinkObservation(content="logged"), _response("r1", [("c1", "think")]), "c1"
    )
    messages = _process([_system(), think, answer], initial=_user("first"))
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]
    assert _texts(messages[1]) == ["first"]


# --- tool call pairing -------------------------------------------------------------------------


def test_assistant_message_waits_for_all_results_then_results_in_call_order() -> None:
    response = _response("r1", [("c1", "execute_bash"), ("c2", "think")], content="Two things.")
    run = _called(CmdRunAction(command="ls"), response, "c1")
    think = _called(AgentThinkAction(thought="hm"), response, "c2")
    think_obs = _called(
        AgentThinkObservation(content="Your thought has been logged."), response, "c2"
    )
    run_obs = _called(_cmd_output("a.txt", working_dir="/w"), response, "c1")
    messages = _process([_system(), _user("go"), run, think, think_obs, run_obs])

    assert [m.role for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assistant = messages[2]
    assert _texts(assistant) == ["Two things."]
    assert [c.id for c in assistant.tool_calls or []] == ["c1", "c2"]
    assert (messages[3].tool_call_id, messages[3].name) == ("c1", "execute_bash")
    assert _texts(messages[3]) == [
        "a.txt\n[Current working directory: /w]\n[Command finished with exit code 0]"
    ]
    assert (messages[4].tool_call_id, messages[4].name) == ("c2", "think")


def test_blank_assistant_text_gives_empty_content() -> None:
    response = _response("r1", [("c1", "think")], content="   ")
    think = _called(AgentThinkAction(thought="x"), response, "c1")
    obs = _called(AgentThinkObservation(content="ok"), response, "c1")
    messages = _process([_system(), _user("go"), think, obs])
    assert messages[2].content == []


def test_unanswered_calls_and_orphan_results_are_dropped() -> None:
    pending = _response("r1", [("c1", "execute_bash"), ("c2", "think")])
    run = _called(CmdRunAction(command="ls"), pending, "c1")
    run_obs = _called(_cmd_output("x"), pending, "c1")  # c2 never answered
    orphan = _called(ErrorObservation(content="late"), _response("r9", [("c9", "think")]), "c9")
    messages = _process([_system(), _user("go"), run, run_obs, orphan, _user("next")])
    assert [m.role for m in messages] == ["system", "user", "user"]
    assert _texts(messages[2]) == ["\n\nnext"]


def test_filter_keeps_only_answered_calls_of_an_emitted_message() -> None:
    messages = [
        Message(role="assistant", tool_calls=[_tc("a"), _tc("b")]),
        Message(role="tool", tool_call_id="a", name="think", content=[TextContent(text="ok")]),
        Message(role="tool", tool_call_id="zzz", name="think", content=[TextContent(text="x")]),
    ]
    from openhands.memory.conversation_memory import _filter_unmatched_tool_calls

    kept = list(_filter_unmatched_tool_calls(messages))
    assert len(kept) == 2
    assert [c.id for c in kept[0].tool_calls or []] == ["a"]
    assert kept[1].tool_call_id == "a"


def _tc(call_id: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "think", "arguments": "{}"}}


def test_agent_tool_action_needs_metadata_but_user_actions_do_not() -> None:
    bare = CmdRunAction(command="ls")
    bare.source = EventSource.AGENT
    with pytest.raises(ValueError, match="metadata"):
        _process([_system(), _user("go"), bare])

    read = FileReadAction(path="/w/a.py")
    read.source = EventSource.USER
    user_cmd = CmdRunAction(command="make")
    user_cmd.source = EventSource.USER
    messages = _process([_system(), _user("go"), read, user_cmd])
    assert _texts(messages[2])[0].startswith("\n\nUser requested to read file: ")
    assert "/w/a.py" in _texts(messages[2])[0]
    assert _texts(messages[3]) == ["\n\nUser executed the command:\nmake"]


def test_finish_merges_the_reply_text_into_the_thought_and_drops_metadata() -> None:
    response = _response("r1", [("c1", "finish")], content="All set.")
    finish = _called(AgentFinishAction(final_thought="done!", thought=""), response, "c1")
    messages = _process([_system(), _user("go"), finish])
    assert messages[2].role == "assistant"
    assert _texts(messages[2]) == ["All set."]
    assert finish.tool_call_metadata is None

    with_thought = _called(AgentFinishAction(thought="Checked."), response, "c1")
    messages = _process([_system(), _user("go"), with_thought])
    assert _texts(messages[2]) == ["Checked.\nAll set."]

    user_exit = AgentFinishAction()
    user_exit.source = EventSource.USER
    assert _process([_system(), _user("go"), user_exit])[2].role == "user"


# --- observation texts -------------------------------------------------------------------------


def test_long_observations_are_cut_in_the_middle() -> None:
    obs = _cmd_output("A" * 60 + "B" * 60, exit_code=-1)
    obs.source = EventSource.AGENT
    messages = _process([_system(), _user("go"), obs], max_message_chars=100)
    text = _texts(messages[2])[0]
    body = "\nObserved result of command executed by user:\n" + "A" * 60 + "B" * 60
    # (The leading blank line comes from following another user message.)
    assert text == "\n\n" + body[:50] + MARKER + body[-50:]


def test_no_limit_means_no_truncation() -> None:
    error = ErrorObservation(content="x" * 500)
    messages = _process([_system(), _user("go"), error], max_message_chars=None)
    assert _texts(messages[2]) == [
        "\n\n" + "x" * 500 + "\n[Error occurred in processing last action]"
    ]


def test_error_reject_and_delegate_texts() -> None:
    reject = UserRejectObservation(content="no")
    delegate = AgentDelegateObservation(content="raw", outputs={"content": "delegated result"})
    plain_delegate = AgentDelegateObservation(content="raw", outputs={})
    messages = _process([_system(), _user("go"), reject, delegate, plain_delegate])
    assert _texts(messages[2]) == [
        "\n\nOBSERVATION:\nno\n[Last action has been rejected by the user]"
    ]
    assert _texts(messages[3]) == ["\n\ndelegated result"]
    assert _texts(messages[4]) == ["\n\nraw"]


def test_cmd_output_lines_for_an_agent_command() -> None:
    response = _response("r1", [("c1", "execute_bash")])
    run = _called(CmdRunAction(command="python t.py"), response, "c1")
    obs = _called(
        _cmd_output("boom", exit_code=1, working_dir="/ws", py_interpreter_path="/usr/bin/python"),
        response,
        "c1",
    )
    obs.metadata.prefix = "[prefix]\n"
    messages = _process([_system(), _user("go"), run, obs])
    assert _texts(messages[3]) == [
        "[prefix]\nboom\n[Current working directory: /ws]\n[Python interpreter: /usr/bin/python]"
        "\n[Command finished with exit code 1]"
    ]


@pytest.mark.parametrize("bad", [FileWriteObservation(content="", path="/a"), NullObservation("")])
def test_observations_the_llm_never_sees_are_errors(bad: Event) -> None:
    with pytest.raises(ValueError, match="Unknown observation type"):
        _process([_system(), _user("go"), bad])


# --- images and vision ---------------------------------------------------------------------------


def test_user_images_get_labels_only_with_vision() -> None:
    message = _user("look", images=["data:image/png;base64,AAA", "http://x/b.png"])
    with_vision = _process([_system(), message], vision_is_active=True)[1]
    assert [type(c).__name__ for c in with_vision.content] == [
        "TextContent",
        "TextContent",
        "ImageContent",
        "TextContent",
        "ImageContent",
    ]
    assert _texts(with_vision) == ["look", "Image 1:", "Image 2:"]

    without = _process([_system(), _user("look", images=["http://x/b.png"])])[1]
    assert _texts(without) == ["look"]
    assert isinstance(without.content[1], ImageContent)
    dumped = without.model_copy(
        update={"vision_enabled": False, "cache_enabled": True}
    ).model_dump()
    assert all(item["type"] == "text" for item in dumped["content"])


def test_ipython_inline_images_are_replaced_and_urls_attached() -> None:
    response = _response("r1", [("c1", "execute_ipython_cell")])
    cell = _called(IPythonRunCellAction(code="plot()"), response, "c1")
    obs = _called(
        IPythonRunCellObservation(
            content="before\n![image](data:image/png;base64,QUJD)\nafter",
            code="plot()",
            image_urls=["data:image/png;base64,QUJD", " "],
        ),
        response,
        "c1",
    )
    tool = _process([_system(), _user("go"), cell, obs], vision_is_active=True)[3]
    text = _texts(tool)[0]
    assert text.startswith(
        "before\n![image](data:image/png;base64, ...) already displayed to user\nafter"
    )
    assert "1 invalid or empty image(s) were filtered" in text
    assert isinstance(tool.content[-1], ImageContent)
    assert tool.content[-1].image_urls == ["data:image/png;base64,QUJD"]


def test_browser_screenshot_is_attached_for_interactive_browsing() -> None:
    page = BrowserOutputObservation(
        content="[1] button 'Go'",
        url="http://x",
        trigger_by_action="browse_interactive",
        screenshot="data:image/png;base64,SHOT",
        set_of_marks="data:image/png;base64,MARKS",
    )
    message = _process([_system(), _user("go"), page], vision_is_active=True)[2]
    assert _texts(message)[0].startswith("\n\n[1] button 'Go'\nImage:")
    assert isinstance(message.content[1], ImageContent)
    assert message.content[1].image_urls == ["data:image/png;base64,MARKS"]

    no_som = _process(
        [_system(), _user("go"), page], memory=_memory(enable_som_visual_browsing=False)
    )
    assert _texts(no_som[2]) == ["\n\n[1] button 'Go'"]
    assert len(no_som[2].content) == 1


# --- recall -------------------------------------------------------------------------------------


def _recall(
    kind: RecallType, knowledge: list[tuple[str, str]] = (), **fields: Any
) -> RecallObservation:  # type: ignore[assignment]
    obs = RecallObservation(
        content="recalled",
        recall_type=kind,
        microagent_knowledge=[
            MicroagentKnowledge(name=n, trigger=n, content=f"about {n}") for n, _ in knowledge
        ],
        **fields,
    )
    obs.source = EventSource.ENVIRONMENT
    return obs


def test_workspace_context_and_triggered_knowledge() -> None:
    workspace = _recall(
        RecallType.WORKSPACE_CONTEXT,
        [("git", ""), ("secret", "")],
        repo_name="acme/app",
        repo_directory="/workspace/app",
        date="2025-01-02",
        working_dir="/workspace",
    )
    later = _recall(RecallType.KNOWLEDGE, [("git", ""), ("npm", "")])
    memory = _memory(disabled_microagents=["secret"])
    messages = _process([_system(), _user("go"), workspace, later], memory=memory)

    context, knowledge = _texts(messages[2])
    assert context.startswith("\n\n<REPOSITORY_INFO>")
    assert "acme/app" in context and "Today's date is 2025-01-02 (UTC)." in context
    assert "about git" in knowledge and "secret" not in knowledge
    assert '"git"' in knowledge
    # The later recall repeats git (already shown): only npm is new.
    assert "about npm" in _texts(messages[3])[0]
    assert "about git" not in _texts(messages[3])[0]


def test_empty_recalls_and_disabled_extensions_give_nothing() -> None:
    empty = _recall(RecallType.WORKSPACE_CONTEXT)
    repeat = _recall(RecallType.KNOWLEDGE, [("git", "")])
    first = _recall(RecallType.KNOWLEDGE, [("git", "")])
    assert len(_process([_system(), _user("go"), empty, first, repeat])) == 3

    off = _memory(enable_prompt_extensions=False)
    ctx = _recall(RecallType.WORKSPACE_CONTEXT, repo_name="a/b", date="2025-01-01")
    assert len(_process([_system(), _user("go"), ctx], memory=off)) == 2


# --- caching -----------------------------------------------------------------------------------


def test_prompt_caching_marks_system_and_last_user_or_tool_message() -> None:
    response = _response("r1", [("c1", "think")])
    think = _called(AgentThinkAction(thought="x"), response, "c1")
    obs = _called(AgentThinkObservation(content="ok"), response, "c1")
    messages = _process([_system(), _user("go"), think, obs])
    ConversationMemory.apply_prompt_caching(messages)
    marked = [(m.role, [c.cache_prompt for c in m.content]) for m in messages]
    assert marked == [
        ("system", [True]),
        ("user", [False]),
        ("assistant", []),
        ("tool", [True]),
    ]
    dumped = messages[3].model_copy(update={"cache_enabled": True}).model_dump()
    assert dumped["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in dumped["content"][0]


# --- per-event entry points and attribute-style model responses ---------------------------


class _AttrResponse:
    """A response object read through attributes only (like LiteLLM's objects)."""

    def __init__(self, response_id: str, call_id: str) -> None:
        call = type("Call", (), {"id": call_id, "type": "function"})()
        call.function = type("Fn", (), {"name": "execute_bash", "arguments": "{}"})()
        message = type("Msg", (), {"role": "assistant", "content": "", "tool_calls": [call]})()
        self.id = response_id
        self.choices = [type("Choice", (), {"message": message})()]


def test_process_action_and_observation_entry_points_park_tool_messages() -> None:
    memory = _memory()
    response = _response("r7", [("c7", "execute_bash")])
    action = _called(CmdRunAction(command="ls"), response, "c7")
    pending: dict[str, Message] = {}
    assert memory._process_action(action, pending) == []
    assert list(pending) == ["r7"]

    answers: dict[str, Message] = {}
    obs = _called(_cmd_output("out"), response, "c7")
    assert memory._process_observation(obs, answers, max_message_chars=None) == []
    assert answers["c7"].role == "tool"

    # without tool-call metadata the observation is a user message right away
    plain = memory._process_observation(_cmd_output("hi"), {}, vision_is_active=True)
    assert [m.role for m in plain] == ["user"]
    assert memory._is_valid_image_url("data:image/png;base64,AA")
    assert not memory._is_valid_image_url("  ")


def test_knowledge_recall_filter_skips_agents_shown_earlier() -> None:
    memory = _memory()

    def recall(*names: str) -> RecallObservation:
        return RecallObservation(
            content="",
            recall_type=RecallType.KNOWLEDGE,
            microagent_knowledge=[MicroagentKnowledge(name=n, trigger=n, content=n) for n in names],
        )

    events: list[Event] = [recall("a"), recall("a", "b")]
    kept = memory._filter_agents_in_microagent_obs(events[1], 1, events)
    assert [k.name for k in kept] == ["b"]
    assert memory._has_agent_in_earlier_events("a", 1, events)
    assert not memory._has_agent_in_earlier_events("b", 1, events)


def test_tool_call_metadata_read_through_attributes() -> None:
    action = CmdRunAction(command="ls")
    action.source = EventSource.AGENT
    response = _AttrResponse("r9", "c9")
    # a stand-in metadata object whose model_response is not a dict
    action.tool_call_metadata = type(
        "Meta",
        (),
        {
            "model_response": response,
            "tool_call_id": "c9",
            "function_name": "execute_bash",
            "total_calls_in_response": 1,
        },
    )()
    pending: dict[str, Message] = {}
    _memory()._process_action(action, pending)
    assert pending["r9"].tool_calls is not None
    assert [c.id for c in pending["r9"].tool_calls] == ["c9"]


def test_all_invalid_ipython_images_leave_a_note_and_no_image() -> None:
    obs = IPythonRunCellObservation(content="out", code="x", image_urls=["", " "])
    messages = _memory()._process_observation(obs, {}, vision_is_active=True)
    (message,) = messages
    assert not any(isinstance(c, ImageContent) for c in message.content)
    assert "invalid or empty and have been filtered" in _texts(message)[0]
