"""Memory answering RecallActions on a real EventStream (spec §4.2)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from openhands.events.action import RecallAction
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import NullObservation, Observation, RecallObservation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.memory.memory import Memory
from openhands.microagent import BaseMicroagent
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.storage.memory import InMemoryFileStore

TIMEOUT = 5.0


class _Runtime:
    web_hosts = {"http://localhost:12000": 12000}
    additional_agent_instructions = "Prefer port 12000."


@pytest.fixture
def stream() -> Iterator[EventStream]:
    stream = EventStream("memory-test", InMemoryFileStore())
    yield stream
    stream.close()


@pytest.fixture
def observations(stream: EventStream) -> queue.Queue[Observation]:
    received: queue.Queue[Observation] = queue.Queue()

    def collect(event: Event) -> None:
        if isinstance(event, Observation):
            received.put(event)

    stream.subscribe(EventStreamSubscriber.TEST, collect, "collector")
    return received


@pytest.fixture
def microagent_dirs(tmp_path: Path) -> tuple[Path, Path]:
    global_dir = tmp_path / "global"
    (global_dir / "frameworks").mkdir(parents=True)
    (global_dir / "frameworks" / "flask.md").write_text(
        "---\nname: flask\ntriggers: [Flask]\n---\nRun flask with --host 0.0.0.0."
    )
    (global_dir / "style.md").write_text("Keep functions short.")
    return global_dir, tmp_path / "user" / "microagents"


def _memory(stream: EventStream, dirs: tuple[Path, Path], **kwargs: Any) -> Memory:
    return Memory(
        stream, "sid", global_microagents_dir=dirs[0], user_microagents_dir=dirs[1], **kwargs
    )


def _recall(stream: EventStream, kind: RecallType, query: str, source: EventSource) -> RecallAction:
    action = RecallAction(recall_type=kind, query=query)
    stream.add_event(action, source)
    return action


def _next(received: queue.Queue[Observation]) -> Observation:
    return received.get(timeout=TIMEOUT)


def test_loads_global_and_user_microagents(
    stream: EventStream, microagent_dirs: tuple[Path, Path]
) -> None:
    _, user_dir = microagent_dirs
    user_dir.mkdir(parents=True)
    (user_dir / "mine.md").write_text("---\ntriggers: [deploy]\n---\nDeploy with care.")
    memory = _memory(stream, microagent_dirs)
    assert set(memory.knowledge_microagents) == {"frameworks/flask", "mine"}
    assert set(memory.repo_microagents) == {"style"}


def test_user_dir_is_created(stream: EventStream, microagent_dirs: tuple[Path, Path]) -> None:
    _memory(stream, microagent_dirs)
    assert microagent_dirs[1].is_dir()


def test_first_message_gets_the_workspace_context(
    stream: EventStream,
    observations: queue.Queue[Observation],
    microagent_dirs: tuple[Path, Path],
) -> None:
    memory = _memory(stream, microagent_dirs)
    memory.set_repository_info("acme/shop", "/workspace/shop", "feature/cart")
    memory.set_runtime_info(_Runtime(), {"API_TOKEN": "token for the shop API"}, "/workspace")
    memory.set_conversation_instructions("Answer in French.")

    recall = _recall(stream, RecallType.WORKSPACE_CONTEXT, "Build a flask app", EventSource.USER)
    obs = _next(observations)
    assert isinstance(obs, RecallObservation)
    assert obs.cause == recall.id
    assert obs.source == EventSource.ENVIRONMENT
    assert obs.content == "Added workspace context"
    assert obs.recall_type == RecallType.WORKSPACE_CONTEXT
    assert (obs.repo_name, obs.repo_directory, obs.repo_branch) == (
        "acme/shop",
        "/workspace/shop",
        "feature/cart",
    )
    assert obs.repo_instructions == "Keep functions short."
    assert obs.runtime_hosts == {"http://localhost:12000": 12000}
    assert obs.additional_agent_instructions == "Prefer port 12000."
    assert obs.custom_secrets_descriptions == {"API_TOKEN": "token for the shop API"}
    assert obs.conversation_instructions == "Answer in French."
    assert obs.working_dir == "/workspace"
    assert obs.date == datetime.now(UTC).date().isoformat()
    assert [(k.name, k.trigger) for k in obs.microagent_knowledge] == [
        ("frameworks/flask", "Flask")
    ]
    # It was persisted like any event.
    assert stream.get_event(obs.id).cause == recall.id


def test_knowledge_recall_from_user_or_agent(
    stream: EventStream,
    observations: queue.Queue[Observation],
    microagent_dirs: tuple[Path, Path],
) -> None:
    _memory(stream, microagent_dirs)
    recall = _recall(stream, RecallType.KNOWLEDGE, "now add FLASK routes", EventSource.AGENT)
    obs = _next(observations)
    assert isinstance(obs, RecallObservation)
    assert obs.cause == recall.id
    assert obs.content == "Retrieved knowledge from microagents"
    assert obs.microagent_knowledge[0].content == "Run flask with --host 0.0.0.0."

    miss = _recall(stream, RecallType.KNOWLEDGE, "nothing relevant", EventSource.USER)
    obs = _next(observations)
    assert isinstance(obs, NullObservation)
    assert (obs.cause, obs.content) == (miss.id, "")


def test_nothing_to_say_gives_a_null_observation(
    stream: EventStream, observations: queue.Queue[Observation], tmp_path: Path
) -> None:
    Memory(stream, "sid", global_microagents_dir=tmp_path / "none", user_microagents_dir=None)
    recall = _recall(stream, RecallType.WORKSPACE_CONTEXT, "hello", EventSource.USER)
    obs = _next(observations)
    assert isinstance(obs, NullObservation)
    assert obs.cause == recall.id


def test_repo_microagents_without_a_body_add_no_context(
    stream: EventStream, observations: queue.Queue[Observation], tmp_path: Path
) -> None:
    global_dir = tmp_path / "global"
    global_dir.mkdir()
    # Like the bundled default-tools: it only brings MCP tools, it has nothing to say.
    (global_dir / "tools-only.md").write_text(
        "---\nname: tools-only\ntype: repo\nmcp_tools:\n  stdio_servers:\n"
        '    - name: "fetch"\n      command: "uvx"\n---\n'
    )
    memory = Memory(stream, "sid", global_microagents_dir=global_dir, user_microagents_dir=None)
    assert set(memory.repo_microagents) == {"tools-only"}
    recall = _recall(stream, RecallType.WORKSPACE_CONTEXT, "hello", EventSource.USER)
    obs = _next(observations)
    assert isinstance(obs, NullObservation)
    assert obs.cause == recall.id

    # With something else to say, the body-less microagent adds no blank instructions.
    memory.set_conversation_instructions("Answer in French.")
    _recall(stream, RecallType.WORKSPACE_CONTEXT, "hello again", EventSource.USER)
    obs = _next(observations)
    assert isinstance(obs, RecallObservation)
    assert obs.repo_instructions == ""


def test_errors_go_to_the_status_callback(
    stream: EventStream,
    observations: queue.Queue[Observation],
    microagent_dirs: tuple[Path, Path],
) -> None:
    reports: queue.Queue[tuple[str, Any, str]] = queue.Queue()
    memory = _memory(stream, microagent_dirs, status_callback=lambda *a: reports.put(a))

    def broken(query: str) -> list:
        raise RuntimeError("index is gone")

    memory._find_microagent_knowledge = broken  # type: ignore[method-assign]
    _recall(stream, RecallType.KNOWLEDGE, "flask", EventSource.USER)
    kind, status, message = reports.get(timeout=TIMEOUT)
    assert (kind, status, message) == ("error", RuntimeStatus.ERROR_MEMORY, "Error: RuntimeError")
    with pytest.raises(queue.Empty):
        observations.get(timeout=0.3)


def test_workspace_microagents_replace_global_ones_and_bring_mcp_tools(
    stream: EventStream, microagent_dirs: tuple[Path, Path]
) -> None:
    memory = _memory(stream, microagent_dirs)
    repo = BaseMicroagent.load(
        Path("style.md"),
        file_content=(
            "---\nname: style\nmcp_tools:\n  stdio_servers:\n  - name: lint\n"
            "    command: lint-server\n---\nUse the repo linter."
        ),
    )
    knowledge = BaseMicroagent.load(
        Path("f.md"), file_content="---\nname: frameworks/flask\ntriggers: [flask]\n---\nNew text."
    )
    memory.load_user_workspace_microagents([repo, knowledge])
    assert memory.repo_microagents["style"].content == "Use the repo linter."
    assert memory.knowledge_microagents["frameworks/flask"].content == "New text."
    tools = memory.get_microagent_mcp_tools()
    assert [s.name for s in tools[0].stdio_servers] == ["lint"]


def test_repository_info_needs_a_name_or_directory(
    stream: EventStream, microagent_dirs: tuple[Path, Path]
) -> None:
    memory = _memory(stream, microagent_dirs)
    memory.set_repository_info(None, None)
    assert memory.repository_info is None
    memory.set_repository_info("a/b", None)
    assert memory.repository_info is not None


# --- patch points and awaitable handling -------------------------------------------------------


def test_module_folders_are_read_when_memory_is_built(
    stream: EventStream, microagent_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    global_dir, user_dir = microagent_dirs
    monkeypatch.setattr("openhands.memory.memory.GLOBAL_MICROAGENTS_DIR", global_dir)
    monkeypatch.setattr("openhands.memory.memory.USER_MICROAGENTS_DIR", user_dir)
    memory = Memory(stream, "sid")
    assert "frameworks/flask" in memory.knowledge_microagents
    assert user_dir.is_dir()


def test_a_failing_knowledge_lookup_is_reported_by_exception_type(
    stream: EventStream, microagent_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    reports: list[tuple[str, Any, str]] = []
    memory = _memory(stream, microagent_dirs, status_callback=lambda *a: reports.append(a))

    def broken(query: str) -> list[Any]:
        raise ValueError("index gone")

    monkeypatch.setattr(memory, "_find_microagent_knowledge", broken)
    memory.on_event(_recall(stream, RecallType.WORKSPACE_CONTEXT, "hi", EventSource.USER))
    assert reports == [("error", RuntimeStatus.ERROR_MEMORY, "Error: ValueError")]


def test_on_event_hook_can_be_awaited(microagent_dirs: tuple[Path, Path]) -> None:
    import asyncio

    published: list[tuple[Event, EventSource]] = []

    class _Stream:
        def subscribe(self, *args: Any) -> None:
            pass

        def add_event(self, event: Event, source: EventSource) -> None:
            published.append((event, source))

    memory = Memory(
        _Stream(), "sid", global_microagents_dir=microagent_dirs[0], user_microagents_dir=None
    )
    recall = RecallAction(recall_type=RecallType.KNOWLEDGE, query="a Flask app")
    recall.source = EventSource.USER

    asyncio.run(_await(memory._on_event(recall)))
    [(answer, source)] = published
    assert isinstance(answer, RecallObservation) and source == EventSource.ENVIRONMENT
    assert [k.name for k in answer.microagent_knowledge] == ["frameworks/flask"]


async def _await(awaitable: Any) -> None:
    await awaitable
