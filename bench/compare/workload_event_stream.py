"""Event stream workload: write, deliver, reopen, read and search a local file store.

Metrics (one JSON line): add_event throughput over 5,000 mixed events (200 B - 2 KB each)
with one subscriber; add -> callback latency p50/p99 over 2,000 events sent flat out, and
over 1,000 events sent one at a time (each after the previous one's callback, plus 1 ms);
for a 20,000-event store, reopening it as an EventStream, iterating every event, a
text-filter search; and the UI's first page, ``search_events(reverse=True, limit=20)`` on a
freshly opened EventStore, at 1,000 and 20,000 events. Read-side figures are the median of
3 repetitions within the run.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import _workload as w

w.quiet_environment()

from openhands.events.action import CmdRunAction, FileEditAction, MessageAction  # noqa: E402
from openhands.events.event import Event, EventSource  # noqa: E402
from openhands.events.event_filter import EventFilter  # noqa: E402
from openhands.events.event_store import EventStore  # noqa: E402
from openhands.events.observation import (  # noqa: E402
    CmdOutputMetadata,
    CmdOutputObservation,
    FileReadObservation,
)
from openhands.events.stream import EventStream, EventStreamSubscriber  # noqa: E402
from openhands.storage.local import LocalFileStore  # noqa: E402

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
]
READ_REPEATS = 3


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        words.append(rng.choice(WORDS))
        length += len(words[-1]) + 1
    return " ".join(words)[:size]


def make_events(n: int, seed: int) -> list[Event]:
    """A mix of messages, commands, outputs, reads and edits of 200 B - 2 KB on disk."""
    rng = random.Random(seed)
    events: list[Event] = []
    for i in range(n):
        size = rng.randint(200, 2000)
        kind = i % 5
        if kind == 0:
            event: Event = MessageAction(_text(rng, max(1, (size - 170) // 2)))
        elif kind == 1:
            event = CmdRunAction(_text(rng, max(1, (size - 250) // 2)), thought="run it")
        elif kind == 2:
            event = CmdOutputObservation(
                _text(rng, max(1, size - 330)),
                command="ls -la",
                metadata=CmdOutputMetadata(exit_code=0, working_dir="/workspace"),
            )
        elif kind == 3:
            event = FileReadObservation(_text(rng, max(1, size - 160)), path="/workspace/a.py")
        else:
            event = FileEditAction(
                "/workspace/b.py",
                command="str_replace",
                old_str="x",
                new_str=_text(rng, max(1, size - 280)),
            )
        events.append(event)
    return events


def add_throughput(root: Path, n: int) -> float:
    events = make_events(n, seed=7)
    stream = EventStream("throughput", LocalFileStore(str(root)))
    received = [0]

    def on_event(_event: Event) -> None:
        received[0] += 1

    stream.subscribe(EventStreamSubscriber.TEST, on_event, "bench")
    started = time.perf_counter()
    for event in events:
        stream.add_event(event, EventSource.AGENT)
    elapsed = time.perf_counter() - started
    w.wait_until(lambda: received[0] >= n, 60, "the subscriber to see every event")
    stream.close()
    return n / elapsed


def callback_latency(root: Path, n: int) -> tuple[float, float]:
    events = make_events(n, seed=11)
    sent: dict[int, float] = {}
    delays: list[float] = []
    stream = EventStream("latency", LocalFileStore(str(root)))
    stream.subscribe(
        EventStreamSubscriber.TEST,
        lambda event: delays.append(time.perf_counter() - sent[event.id]),
        "bench",
    )
    for index, event in enumerate(events):
        sent[index] = time.perf_counter()
        stream.add_event(event, EventSource.AGENT)
    w.wait_until(lambda: len(delays) >= n, 60, "every callback")
    stream.close()
    return w.percentile(delays, 0.5) * 1000, w.percentile(delays, 0.99) * 1000


def paced_callback_latency(root: Path, n: int) -> tuple[float, float]:
    """One event at a time: each add waits for the previous callback and 1 ms more."""
    events = make_events(n, seed=13)
    delays: list[float] = []
    sent = [0.0]
    stream = EventStream("paced", LocalFileStore(str(root)))
    stream.subscribe(
        EventStreamSubscriber.TEST,
        lambda _event: delays.append(time.perf_counter() - sent[0]),
        "bench",
    )
    for index, event in enumerate(events):
        w.wait_until(lambda index=index: len(delays) >= index, 60, "the previous callback")
        time.sleep(0.001)  # pacing between events, not a synchronisation
        sent[0] = time.perf_counter()
        stream.add_event(event, EventSource.AGENT)
    w.wait_until(lambda: len(delays) >= n, 60, "every callback")
    stream.close()
    return w.percentile(delays, 0.5) * 1000, w.percentile(delays, 0.99) * 1000


def fill(root: Path, sid: str, n: int) -> None:
    stream = EventStream(sid, LocalFileStore(str(root)))
    for event in make_events(n, seed=3):
        stream.add_event(event, EventSource.AGENT)
    stream.close()


def timed(function: object) -> float:
    assert callable(function)
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def reverse_page(root: Path, sid: str, n: int) -> float:
    def page() -> None:
        store = EventStore(sid, LocalFileStore(str(root)), None)
        got = list(store.search_events(reverse=True, limit=20))
        assert len(got) == 20 and got[0].id == n - 1, [e.id for e in got[:3]]

    return w.median_ms([timed(page) for _ in range(READ_REPEATS)])


def read_side(root: Path, sid: str, n: int) -> dict[str, float]:
    def reopen() -> None:
        stream = EventStream(sid, LocalFileStore(str(root)))
        assert stream.cur_id == n, stream.cur_id
        stream.close()

    def iterate() -> None:
        count = sum(1 for _ in EventStore(sid, LocalFileStore(str(root)), None).search_events())
        assert count == n, count

    def search() -> None:
        store = EventStore(sid, LocalFileStore(str(root)), None)
        matches = sum(1 for _ in store.search_events(filter=EventFilter(query="KAPPA LAMBDA")))
        assert matches > 0

    return {
        "reopen_20k_ms": w.median_ms([timed(reopen) for _ in range(READ_REPEATS)]),
        "iterate_20k_ms": w.median_ms([timed(iterate) for _ in range(READ_REPEATS)]),
        "search_20k_ms": w.median_ms([timed(search) for _ in range(READ_REPEATS)]),
        "reverse_limit20_20k_ms": reverse_page(root, sid, n),
    }


def main() -> None:
    root = w.workdir() / "store"
    metrics = {"add_events_per_s": add_throughput(root, 5_000)}
    p50, p99 = callback_latency(root, 2_000)
    metrics |= {"callback_p50_ms": p50, "callback_p99_ms": p99}
    p50, p99 = paced_callback_latency(root, 1_000)
    metrics |= {"paced_callback_p50_ms": p50, "paced_callback_p99_ms": p99}
    fill(root, "small", 1_000)
    metrics["reverse_limit20_1k_ms"] = reverse_page(root, "small", 1_000)
    fill(root, "big", 20_000)
    metrics |= read_side(root, "big", 20_000)
    w.emit(metrics)


if __name__ == "__main__":
    main()
