"""ConversationStats persistence and combination (agent spec §7.7)."""

from __future__ import annotations

import base64
import os
import pickle

from openhands.core.config import LLMConfig
from openhands.llm.conversation_stats import ConversationStats, decode_stats, encode_stats
from openhands.llm.llm import LLM
from openhands.llm.llm_registry import RegistryEvent
from openhands.llm.metrics import Metrics
from openhands.storage.memory import InMemoryFileStore

PATH = "sessions/conv-1/conversation_stats.pkl"


def _llm(service_id: str) -> LLM:
    return LLM(LLMConfig(model="openai/test-model"), service_id)


def _spend(llm: LLM, cost: float, prompt: int) -> None:
    llm.metrics.add_cost(cost)
    llm.metrics.add_token_usage(prompt, 1, 0, 0, 1000, f"resp-{prompt}")


def test_register_tracks_live_metrics_and_combines() -> None:
    stats = ConversationStats(InMemoryFileStore(), "conv-1")
    agent, condenser = _llm("agent"), _llm("condenser")
    stats.register_llm(RegistryEvent(agent, "agent"))
    stats.register_llm(RegistryEvent(condenser, "condenser"))
    _spend(agent, 0.5, 10)
    _spend(condenser, 0.25, 20)
    combined = stats.get_combined_metrics()
    assert combined.accumulated_cost == 0.75
    assert combined.accumulated_token_usage.prompt_tokens == 30
    assert stats.get_metrics_for_service("agent") is agent.metrics


def test_save_and_restore_per_service() -> None:
    store = InMemoryFileStore()
    stats = ConversationStats(store, "conv-1")
    agent, condenser = _llm("agent"), _llm("condenser")
    stats.register_llm(RegistryEvent(agent, "agent"))
    stats.register_llm(RegistryEvent(condenser, "condenser"))
    _spend(agent, 0.5, 10)
    _spend(condenser, 0.25, 20)
    stats.save_metrics()

    encoded = store.read(PATH)
    assert isinstance(pickle.loads(base64.b64decode(encoded)), dict)

    restored = ConversationStats(store, "conv-1")
    new_agent = _llm("agent")
    restored.register_llm(RegistryEvent(new_agent, "agent"))
    assert new_agent.metrics.accumulated_cost == 0.5
    assert new_agent.metrics.get() == agent.metrics.get()
    # the condenser has not registered again yet, but its numbers survive the next save
    restored.save_metrics()
    again = ConversationStats(store, "conv-1")
    assert set(again.restored_metrics) == {"agent", "condenser"}


def test_user_conversations_live_under_the_user() -> None:
    store = InMemoryFileStore()
    stats = ConversationStats(store, "c", user_id="u")
    stats.register_llm(RegistryEvent(_llm("agent"), "agent"))
    stats.save_metrics()
    assert store.read("users/u/conversations/c/conversation_stats.pkl")


def test_unreadable_files_give_empty_stats() -> None:
    for junk in ["not base64 at all!!", base64.b64encode(b"\x80\x04garbage").decode()]:
        store = InMemoryFileStore({PATH: junk})
        assert ConversationStats(store, "conv-1").restored_metrics == {}


def test_pickled_objects_are_refused() -> None:
    marker = "/tmp/openhands-stats-pwned"

    class Evil:
        def __reduce__(self) -> tuple:
            return (os.system, (f"touch {marker}",))

    payload = base64.b64encode(pickle.dumps({"agent": Evil()})).decode()
    stats = ConversationStats(InMemoryFileStore({PATH: payload}), "conv-1")
    assert stats.restored_metrics == {}
    assert not os.path.exists(marker)


def test_encode_decode_round_trip() -> None:
    metrics = Metrics("m")
    metrics.add_cost(1.5)
    metrics.add_response_latency(0.2, "r1")
    decoded = decode_stats(encode_stats({"agent": metrics}))
    assert decoded["agent"].get() == metrics.get()


def test_merge_and_save() -> None:
    store = InMemoryFileStore()
    first, second = ConversationStats(store, "conv-1"), ConversationStats(store, "conv-1")
    llm = _llm("condenser")
    _spend(llm, 2.0, 5)
    second.register_llm(RegistryEvent(llm, "condenser"))
    first.merge_and_save(second)
    assert first.get_combined_metrics().accumulated_cost == 2.0
    assert "condenser" in ConversationStats(store, "conv-1").restored_metrics


def test_without_file_store_nothing_is_written() -> None:
    stats = ConversationStats(None, "conv-1")
    stats.register_llm(RegistryEvent(_llm("agent"), "agent"))
    stats.save_metrics()  # no error
