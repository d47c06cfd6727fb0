"""EventStream / EventStore benchmark (issue: foundation).

Prints, median of 3 runs where it says so:
- add_event throughput at 5,000 and 20,000 mixed events (200 B – 2 KB each on disk),
  one subscriber, local file store;
- add→callback latency p50/p99, paced (one event every 0.5 ms) and flat out;
- reopen time of a 20,000-event store (warm, and cold when page caches can be dropped);
- time to iterate all 20,000, a text-filter search over them, and
  search_events(reverse=True, limit=20) on a freshly opened store;
- bytes on disk per event.

All stores are kept until the end of the run and deleted only then. Deleting thousands of
files makes creating files right afterwards much slower on some file systems (ext4 without
a journal, as on this machine, passes over inodes freed in the last minutes when it picks
one for a new file), so deleting each run's store before the next run would slow every
run but the first for a reason that has nothing to do with the event stream.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openhands.events.action import CmdRunAction, FileEditAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import (
    CmdOutputMetadata,
    CmdOutputObservation,
    FileReadObservation,
)
from openhands.events.serialization import event_to_dict
from openhands.events.stream import EventStream
from openhands.storage.local import LocalFileStore

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


def _text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def make_events(n: int, seed: int = 7) -> list[Event]:
    """Mixed events whose stored JSON is 200 B – 2 KB."""
    rng = random.Random(seed)
    events: list[Event] = []
    for i in range(n):
        target = rng.randint(200, 2000)
        kind = i % 5
        if kind == 0:
            e: Event = MessageAction(_text(rng, max(1, (target - 170) // 2)))
        elif kind == 1:
            e = CmdRunAction(_text(rng, max(1, (target - 250) // 2)), thought="run it")
        elif kind == 2:
            e = CmdOutputObservation(
                _text(rng, max(1, target - 330)),
                command="ls -la",
                metadata=CmdOutputMetadata(exit_code=0, working_dir="/workspace"),
            )
        elif kind == 3:
            e = FileReadObservation(_text(rng, max(1, target - 160)), path="/workspace/a.py")
        else:
            e = FileEditAction(
                "/workspace/b.py",
                command="str_replace",
                old_str="x",
                new_str=_text(rng, max(1, target - 280)),
            )
        events.append(e)
    return events


# Stores live until main() ends (see the module docstring).
_STORES = ExitStack()


def new_store_dir() -> str:
    return _STORES.enter_context(tempfile.TemporaryDirectory(prefix="oh-bench-events-"))


def dir_bytes(root: str) -> int:
    total = 0
    for base, _, files in os.walk(root):
        for f in files:
            total += os.path.getsize(os.path.join(base, f))
    return total


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def throughput(n: int) -> tuple[float, float]:
    """(events/s, bytes per event) for one run with one subscriber."""
    events = make_events(n)
    root = new_store_dir()
    stream = EventStream("bench", LocalFileStore(root))
    received = [0]

    def on_event(event: Event) -> None:
        received[0] += 1

    stream.subscribe("test", on_event, "bench")
    start = time.perf_counter()
    for e in events:
        stream.add_event(e, EventSource.AGENT)
    elapsed = time.perf_counter() - start
    deadline = time.monotonic() + 30
    while received[0] < n and time.monotonic() < deadline:
        time.sleep(0.005)
    stream.close()
    return n / elapsed, dir_bytes(root) / n


def latency(n: int, pace_s: float | None) -> tuple[float, float]:
    events = make_events(n, seed=11)
    sent: dict[int, float] = {}
    lat: list[float] = []
    stream = EventStream("lat", LocalFileStore(new_store_dir()))
    stream.subscribe("test", lambda e: lat.append(time.perf_counter() - sent[e.id]), "lat")
    for i, e in enumerate(events):
        sent[i] = time.perf_counter()
        stream.add_event(e, EventSource.AGENT)
        if pace_s:
            time.sleep(pace_s)
    deadline = time.monotonic() + 30
    while len(lat) < n and time.monotonic() < deadline:
        time.sleep(0.005)
    stream.close()
    lat.sort()
    return lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99)] * 1000


def read_side(root: str) -> dict[str, float]:
    fs = LocalFileStore(root)
    out: dict[str, float] = {}

    start = time.perf_counter()
    stream = EventStream("big", fs)
    out["reopen_ms"] = (time.perf_counter() - start) * 1000
    assert stream.cur_id == 20_000, stream.cur_id
    stream.close()

    store = EventStore("big", fs)
    start = time.perf_counter()
    got = list(store.search_events(reverse=True, limit=20))
    out["reverse_limit20_ms"] = (time.perf_counter() - start) * 1000
    assert len(got) == 20 and got[0].id == 19_999

    store = EventStore("big", fs)
    start = time.perf_counter()
    count = sum(1 for _ in store.search_events())
    out["iterate_ms"] = (time.perf_counter() - start) * 1000
    assert count == 20_000

    store = EventStore("big", fs)
    start = time.perf_counter()
    matches = sum(1 for _ in store.search_events(filter=EventFilter(query="KAPPA LAMBDA")))
    out["text_search_ms"] = (time.perf_counter() - start) * 1000
    out["text_matches"] = matches
    return out


def main() -> None:
    with _STORES:
        run()


def run() -> None:
    sizes = [event_to_dict(e) for e in make_events(500)]
    import json

    lengths = sorted(len(json.dumps(d)) for d in sizes)
    print(
        f"event sizes: min {lengths[0]} B, median {lengths[len(lengths) // 2]} B, "
        f"max {lengths[-1]} B"
    )

    for n in (5_000, 20_000):
        runs = [throughput(n) for _ in range(3)]
        rate = statistics.median(r[0] for r in runs)
        per_event = statistics.median(r[1] for r in runs)
        print(
            f"add_event, {n:>6} events, 1 subscriber: {rate:8.0f} events/s "
            f"(runs: {', '.join(f'{r[0]:.0f}' for r in runs)}); {per_event:.0f} B on disk/event"
        )

    p50, p99 = latency(2_000, pace_s=0.0005)
    print(f"add→callback latency, paced 1 per 0.5 ms: p50 {p50:.3f} ms, p99 {p99:.3f} ms")
    p50, p99 = latency(5_000, pace_s=None)
    print(f"add→callback latency, flat out:          p50 {p50:.3f} ms, p99 {p99:.3f} ms")

    root = new_store_dir()
    stream = EventStream("big", LocalFileStore(root))
    for e in make_events(20_000, seed=3):
        stream.add_event(e, EventSource.AGENT)
    stream.close()
    warm = [read_side(root) for _ in range(3)]
    for key in ("reopen_ms", "reverse_limit20_ms", "iterate_ms", "text_search_ms"):
        print(f"20,000 events, warm, {key:<20} {statistics.median(w[key] for w in warm):8.2f}")
    print(f"    text search matched {warm[0]['text_matches']:.0f} events")
    if drop_caches():
        cold = read_side(root)
        for key in ("reopen_ms", "reverse_limit20_ms", "iterate_ms", "text_search_ms"):
            print(f"20,000 events, cold, {key:<20} {cold[key]:8.2f}")
    else:
        print("(cold-cache numbers skipped: cannot drop page caches without root)")


if __name__ == "__main__":
    main()
