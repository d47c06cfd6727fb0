"""conversation_stats.pkl as 0.59 writes it: read back without executing the file, and ours
written the same way.

The stand-ins below mirror 0.59's metric classes (a plain Metrics class whose attributes are
set in 0.59's order, pydantic records with the same fields) and carry 0.59's module and
class names. While a test pickles with them they are installed as
``openhands.llm.metrics.<Name>``, so pickle records exactly the global names and attribute
layout 0.59 does.
"""

from __future__ import annotations

import base64
import io
import logging
import pickle
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

import openhands.llm.metrics as metrics_module
from openhands.llm.conversation_stats import ConversationStats
from openhands.llm.metrics import Metrics
from openhands.llm.metrics_pickle import decode_stats, encode_stats
from openhands.storage.locations import get_conversation_stats_filename
from openhands.storage.memory import InMemoryFileStore

# --- 0.59's classes, by layout ------------------------------------------------------------------


class Cost059(BaseModel):
    __module__ = "openhands.llm.metrics"
    __qualname__ = "Cost"

    model: str
    cost: float
    timestamp: float = Field(default_factory=time.time)


class ResponseLatency059(BaseModel):
    __module__ = "openhands.llm.metrics"
    __qualname__ = "ResponseLatency"

    model: str
    latency: float
    response_id: str


class TokenUsage059(BaseModel):
    __module__ = "openhands.llm.metrics"
    __qualname__ = "TokenUsage"

    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    context_window: int = 0
    per_turn_token: int = 0
    response_id: str = ""


class Metrics059:
    __module__ = "openhands.llm.metrics"
    __qualname__ = "Metrics"

    def __init__(self, model_name: str = "default") -> None:
        self._accumulated_cost = 0.0
        self._max_budget_per_task: float | None = None
        self._costs: list[Cost059] = []
        self._response_latencies: list[ResponseLatency059] = []
        self.model_name = model_name
        self._token_usages: list[TokenUsage059] = []
        self._accumulated_token_usage = TokenUsage059(
            model=model_name,
            prompt_tokens=0,
            completion_tokens=0,
            cache_read_tokens=0,
            cache_write_tokens=0,
            context_window=0,
            response_id="",
        )

    @property
    def max_budget_per_task(self) -> float | None:
        return self._max_budget_per_task


STAND_INS: dict[str, type] = {
    "Metrics": Metrics059,
    "Cost": Cost059,
    "ResponseLatency": ResponseLatency059,
    "TokenUsage": TokenUsage059,
}


@pytest.fixture
def as_059(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Install the 0.59 stand-ins under 0.59's names while the test pickles with them."""
    for name, cls in STAND_INS.items():
        monkeypatch.setattr(metrics_module, name, cls)
    yield


def _metrics_059(model: str, timestamp: float) -> Metrics059:
    """Two calls' worth of 0.59 metrics, built the way 0.59's Metrics records them."""
    metrics = Metrics059(model)
    metrics._max_budget_per_task = 5.0
    for cost, prompt, response_id in ((0.25, 100, "r1"), (0.5, 40, "r2")):
        metrics._accumulated_cost += cost
        record = Cost059(model=model, cost=cost)  # 0.59 lets the timestamp default
        object.__setattr__(record, "timestamp", timestamp)  # (pinned for comparison)
        metrics._costs.append(record)
        metrics._response_latencies.append(
            ResponseLatency059(model=model, latency=1.5, response_id=response_id)
        )
        usage = TokenUsage059(
            model=model,
            prompt_tokens=prompt,
            completion_tokens=10,
            cache_read_tokens=3,
            cache_write_tokens=2,
            context_window=8000,
            per_turn_token=prompt + 10,
            response_id=response_id,
        )
        metrics._token_usages.append(usage)
        total = metrics._accumulated_token_usage
        metrics._accumulated_token_usage = TokenUsage059(
            model=model,
            prompt_tokens=total.prompt_tokens + prompt,
            completion_tokens=total.completion_tokens + 10,
            cache_read_tokens=total.cache_read_tokens + 3,
            cache_write_tokens=total.cache_write_tokens + 2,
            context_window=8000,
            per_turn_token=prompt + 10,
            response_id="",  # 0.59's TokenUsage.__add__ sets every field
        )
    return metrics


def _file_059(stats: dict[str, Metrics059]) -> str:
    """What 0.59's ConversationStats.save_metrics writes (default pickle protocol)."""
    return base64.b64encode(pickle.dumps(stats, protocol=4)).decode("utf-8")


class _Inert:
    def __init__(self, *args: object) -> None:
        pass

    def __setstate__(self, state: object) -> None:
        pass


class _GlobalsRecorder(pickle.Unpickler):
    """Notes every global a pickle names, handing back something inert instead."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.names: set[str] = set()

    def find_class(self, module: str, name: str) -> type:
        self.names.add(f"{module}.{name}")
        return _Inert


def _globals_named(encoded: str) -> set[str]:
    recorder = _GlobalsRecorder(base64.b64decode(encoded))
    recorder.load()
    return recorder.names


# --- reading 0.59's files -----------------------------------------------------------------------


def test_a_059_file_loads_with_every_number(as_059: None) -> None:
    encoded = _file_059({"agent": _metrics_059("gpt-4o", 1700000000.0)})
    assert _globals_named(encoded) == {
        "openhands.llm.metrics.Metrics",
        "openhands.llm.metrics.Cost",
        "openhands.llm.metrics.ResponseLatency",
        "openhands.llm.metrics.TokenUsage",
    }

    restored = decode_stats(encoded)["agent"]

    assert type(restored) is Metrics
    assert restored.model_name == "gpt-4o"
    assert restored.accumulated_cost == 0.75
    assert restored.max_budget_per_task == 5.0
    assert [c.cost for c in restored.costs] == [0.25, 0.5]
    assert {c.timestamp for c in restored.costs} == {1700000000.0}
    assert [r.response_id for r in restored.response_latencies] == ["r1", "r2"]
    assert [u.prompt_tokens for u in restored.token_usages] == [100, 40]
    total = restored.accumulated_token_usage
    assert (total.prompt_tokens, total.completion_tokens) == (140, 20)
    assert (total.cache_read_tokens, total.cache_write_tokens, total.context_window) == (6, 4, 8000)


def test_a_resumed_conversation_keeps_its_059_costs(as_059: None) -> None:
    store = InMemoryFileStore()
    path = get_conversation_stats_filename("conv-059", None)
    store.write(path, _file_059({"agent": _metrics_059("m", 1.0), "condenser": Metrics059("m")}))

    stats = ConversationStats(store, "conv-059")

    assert set(stats.restored_metrics) == {"agent", "condenser"}
    assert stats.restored_metrics["agent"].accumulated_cost == 0.75


def test_an_older_059_pickle_without_token_lists_loads(as_059: None) -> None:
    # Metrics pickled before 0.59 added token usages lack those attributes.
    old = Metrics059("m")
    old._accumulated_cost = 1.25
    del old._token_usages, old._accumulated_token_usage
    restored = decode_stats(_file_059({"agent": old}))["agent"]
    assert restored.accumulated_cost == 1.25
    assert restored.token_usages == []


def test_our_earlier_dict_format_still_loads() -> None:
    metrics = Metrics("m")
    metrics.add_cost(0.5)
    encoded = base64.b64encode(pickle.dumps({"agent": metrics.get()})).decode()
    assert decode_stats(encoded)["agent"].accumulated_cost == 0.5


# --- what we write ------------------------------------------------------------------------------


def _our_metrics(model: str, timestamp: float) -> Metrics:
    metrics = Metrics(model)
    metrics.max_budget_per_task = 5.0
    for cost, prompt, response_id in ((0.25, 100, "r1"), (0.5, 40, "r2")):
        metrics.add_cost(cost)
        metrics.add_response_latency(1.5, response_id)
        metrics.add_token_usage(prompt, 10, 3, 2, 8000, response_id)
    for cost in metrics.costs:
        object.__setattr__(cost, "timestamp", timestamp)
    return metrics


def test_we_write_the_bytes_059_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = encode_stats({"agent": _our_metrics("gpt-4o", 1700000000.0)})
    for name, cls in STAND_INS.items():
        monkeypatch.setattr(metrics_module, name, cls)
    theirs = _file_059({"agent": _metrics_059("gpt-4o", 1700000000.0)})
    assert base64.b64decode(ours) == base64.b64decode(theirs)


def test_059_reads_what_we_write(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = encode_stats({"agent": _our_metrics("gpt-4o", 1.0)})
    for name, cls in STAND_INS.items():
        monkeypatch.setattr(metrics_module, name, cls)
    loaded = pickle.loads(base64.b64decode(ours))["agent"]  # 0.59's own reader
    assert type(loaded) is Metrics059
    assert loaded.max_budget_per_task == 5.0
    assert loaded._accumulated_cost == 0.75
    assert type(loaded._accumulated_token_usage) is TokenUsage059
    assert loaded._accumulated_token_usage.prompt_tokens == 140


def test_round_trip_through_our_reader() -> None:
    metrics = _our_metrics("m", 3.0)
    assert decode_stats(encode_stats({"agent": metrics}))["agent"] == metrics


# --- refusing what is not metrics ---------------------------------------------------------------


class _RunsACommand:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (self.command,)


def test_a_pickle_naming_os_system_is_refused_unrun(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    marker = tmp_path / "ran"
    payload = pickle.dumps({"agent": _RunsACommand(f"touch {marker}")}, protocol=4)
    assert "posix.system" in _globals_named(base64.b64encode(payload).decode())
    store = InMemoryFileStore()
    path = get_conversation_stats_filename("conv-evil", None)
    store.write(path, base64.b64encode(payload).decode())

    with caplog.at_level(logging.WARNING, logger="openhands"):
        stats = ConversationStats(store, "conv-evil")

    assert stats.restored_metrics == {}
    assert not marker.exists()
    assert "refusing to load posix.system" in caplog.text

    # Proof that the payload is live: a plain unpickler does run it.
    pickle.Unpickler(io.BytesIO(payload)).load()
    assert marker.exists()


@pytest.mark.parametrize(
    "global_name",
    ["builtins.eval", "subprocess.Popen", "openhands.llm.metrics.time", "copyreg._reconstructor"],
)
def test_any_other_global_is_refused(global_name: str) -> None:
    module, name = global_name.rsplit(".", 1)
    payload = b"\x80\x04" + f"c{module}\n{name}\n".encode() + b")R."  # GLOBAL, call, stop
    with pytest.raises(ValueError, match=f"refusing to load {module}.{name}"):
        decode_stats(base64.b64encode(payload))


@pytest.mark.parametrize(
    "content",
    [
        "not base64 at all!!",
        base64.b64encode(b"\x80\x04garbage").decode(),
        base64.b64encode(pickle.dumps(["agent"])).decode(),
        base64.b64encode(pickle.dumps({"agent": 42})).decode(),
    ],
    ids=["not-base64", "not-a-pickle", "not-a-mapping", "not-metrics"],
)
def test_unreadable_files_give_empty_stats(content: str) -> None:
    store = InMemoryFileStore({get_conversation_stats_filename("c", None): content})
    assert ConversationStats(store, "c").restored_metrics == {}
