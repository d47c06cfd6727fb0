"""ConversationStats persistence and combination (agent spec §7.7); the file format itself
is tested in test_metrics_pickle.py."""

from __future__ import annotations

import base64
import logging
import pickle

import pytest

from openhands.core.config import LLMConfig
from openhands.llm.conversation_stats import ConversationStats, decode_stats
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


def test_unknown_service_is_a_key_error() -> None:
    stats = ConversationStats(InMemoryFileStore(), "conv-1")
    with pytest.raises(KeyError, match="LLM service does not exist nope"):
        stats.get_metrics_for_service("nope")


def test_a_service_both_restored_and_registered_is_saved_from_the_live_metrics() -> None:
    store = InMemoryFileStore()
    stats = ConversationStats(store, "conv-1")
    stale, live = Metrics("m"), Metrics("m")
    stale.add_cost(1.0)
    live.add_cost(3.0)
    stats.restored_metrics["agent"] = stale
    stats.service_to_metrics["agent"] = live
    stats.save_metrics()
    assert decode_stats(store.read(PATH))["agent"].accumulated_cost == 3.0


def _restored(store: InMemoryFileStore, conversation_id: str, **costs: float) -> ConversationStats:
    stats = ConversationStats(store, conversation_id)
    for service_id, cost in costs.items():
        metrics = Metrics("m")
        if cost:
            metrics.add_cost(cost)
        stats.restored_metrics[service_id] = metrics
    return stats


def test_merge_and_save_takes_over_the_other_restored_metrics() -> None:
    store = InMemoryFileStore()
    target = _restored(store, "conv-1", agent=1.0, idle=0.0, shared=2.0)
    source = _restored(store, "conv-2", condenser=0.5, free=0.0, shared=4.0)
    incoming_shared = source.restored_metrics["shared"]

    target.merge_and_save(source)

    # services that cost nothing are dropped; on a clash the incoming metrics win, as objects
    assert set(target.restored_metrics) == {"agent", "shared", "condenser"}
    assert target.restored_metrics["shared"] is incoming_shared
    saved = ConversationStats(store, "conv-1").restored_metrics
    assert {k: v.accumulated_cost for k, v in saved.items()} == {
        "agent": 1.0,
        "shared": 4.0,
        "condenser": 0.5,
    }


def test_merge_and_save_leaves_registered_services_alone(caplog: pytest.LogCaptureFixture) -> None:
    store = InMemoryFileStore()
    target = _restored(store, "conv-1", agent=1.0)
    source = ConversationStats(store, "conv-2")
    llm = _llm("condenser")
    _spend(llm, 2.0, 5)
    source.register_llm(RegistryEvent(llm, "condenser"))

    with caplog.at_level(logging.ERROR, logger="openhands"):
        target.merge_and_save(source)

    assert "merge_and_save expects no registered services" in caplog.text
    assert target.service_to_metrics == {}
    assert set(target.restored_metrics) == {"agent"}
    assert set(ConversationStats(store, "conv-1").restored_metrics) == {"agent"}


def test_without_file_store_nothing_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    from openhands.llm import conversation_stats

    encoded: list[object] = []
    monkeypatch.setattr(
        conversation_stats, "encode_stats", lambda stats: encoded.append(stats) or "x"
    )
    stats = ConversationStats(None, "conv-1")
    agent = _llm("agent")
    stats.register_llm(RegistryEvent(agent, "agent"))
    _spend(agent, 0.5, 10)
    stats.save_metrics()
    # Nothing was serialised for writing, and the live metrics are still tracked.
    assert encoded == []
    assert stats.get_combined_metrics().accumulated_cost == 0.5
    # Nor is anything restored without a store.
    assert ConversationStats(None, "conv-1").restored_metrics == {}
