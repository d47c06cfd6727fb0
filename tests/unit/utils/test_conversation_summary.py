"""Conversation titles, with a real LLMRegistry talking to the scripted LLM server."""

from __future__ import annotations

from pydantic import SecretStr

from openhands.core.config import LLMConfig, OpenHandsConfig
from openhands.events.action import MessageAction
from openhands.events.event import EventSource
from openhands.events.stream import EventStream
from openhands.llm.llm_registry import LLMRegistry
from openhands.server.session import title as server_title
from openhands.storage.data_models.settings import Settings
from openhands.storage.memory import InMemoryFileStore
from openhands.utils import conversation_summary as cs
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer


def _llm_config(server: ScriptedLLMServer) -> LLMConfig:
    return LLMConfig(
        model="openai/test-model", api_key=SecretStr("k"), base_url=server.base_url, num_retries=0
    )


def test_server_titles_use_the_same_rules() -> None:
    assert server_title.truncate_title is cs.truncate_title
    assert server_title.clip_title is cs.clip_title
    assert cs.get_default_conversation_title("abcdef123") == "Conversation abcde"
    assert cs.truncate_title("x" * 31) == "x" * 30 + "..."
    assert cs.clip_title('"' + "y" * 60 + '"') == "y" * 47 + "..."


async def test_generate_conversation_title(scripted_llm: ScriptedLLMServer) -> None:
    registry = LLMRegistry(OpenHandsConfig())
    scripted_llm.push(s.text('"A title that is much longer than twenty characters"'))
    title = await cs.generate_conversation_title(
        "fix the login bug", _llm_config(scripted_llm), registry, max_length=20
    )
    assert title == "A title that is m..."
    prompt = scripted_llm.last_request.messages[-1]["content"]
    assert "fix the login bug" in prompt
    assert await cs.generate_conversation_title("  ", _llm_config(scripted_llm), registry) is None
    scripted_llm.push(s.bad_request("no"))
    assert await cs.generate_conversation_title("x", _llm_config(scripted_llm), registry) is None


async def test_auto_generate_title(scripted_llm: ScriptedLLMServer) -> None:
    file_store = InMemoryFileStore()
    stream = EventStream("conv1", file_store, "u1")
    stream.add_event(MessageAction(content="please refactor the payment module"), EventSource.USER)
    stream.close()
    registry = LLMRegistry(OpenHandsConfig())

    # No LLM in the settings: the message, cut to 30 characters.
    title = await cs.auto_generate_title("conv1", "u1", file_store, None, registry)
    assert title == "please refactor the payment mo..."

    scripted_llm.push(s.text("Payment refactor"))
    settings = Settings(
        llm_model="openai/test-model",
        llm_api_key=SecretStr("k"),
        llm_base_url=scripted_llm.base_url,
    )
    assert await cs.auto_generate_title("conv1", "u1", file_store, settings, registry) == (
        "Payment refactor"
    )
    assert await cs.auto_generate_title("none", "u1", file_store, settings, registry) == ""
