"""The runtime subscriber gets the real command; storage and every other subscriber the
masked one (the runtime used to run ``echo <secret_hidden> > f``)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from openhands.events.action import CmdRunAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.storage.local import LocalFileStore


class Collector:
    def __init__(self, count: int) -> None:
        self.events: list[Event] = []
        self.count = count
        self.done = threading.Event()

    def __call__(self, event: Event) -> None:
        self.events.append(event)
        if len(self.events) >= self.count:
            self.done.set()


def test_runtime_receives_real_values_everyone_else_masked(tmp_path: Path) -> None:
    stream = EventStream("sid", LocalFileStore(str(tmp_path)))
    stream.set_secrets({"MY_SECRET": "s3cr3t-value"})
    runtime, server, controller = Collector(2), Collector(2), Collector(2)
    stream.subscribe(EventStreamSubscriber.RUNTIME, runtime, "r")
    stream.subscribe(EventStreamSubscriber.SERVER, server, "s")
    stream.subscribe(EventStreamSubscriber.AGENT_CONTROLLER, controller, "c")

    action = CmdRunAction("echo literal:s3cr3t-value > f", thought="use s3cr3t-value")
    stream.add_event(action, EventSource.AGENT)
    observation = CmdOutputObservation("s3cr3t-value", command="cat f")
    observation.cause = action.id
    stream.add_event(observation, EventSource.AGENT)
    for collector in (runtime, server, controller):
        assert collector.done.wait(10)
    stream.close()

    got = runtime.events[0]
    assert isinstance(got, CmdRunAction)
    assert got.command == "echo literal:s3cr3t-value > f"
    assert got is not action and got.id == action.id
    assert runtime.events[1].content == "s3cr3t-value"
    for collector in (server, controller):
        masked = collector.events[0]
        assert isinstance(masked, CmdRunAction)
        assert masked.command == "echo literal:<secret_hidden> > f"
        assert masked.thought == "use <secret_hidden>"
        assert collector.events[1].content == "<secret_hidden>"
    stored = json.loads((tmp_path / "sessions/sid/events/0.json").read_text())
    assert stored["args"]["command"] == "echo literal:<secret_hidden> > f"
    blobs = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"s3cr3t-value" not in blobs
    # The caller's object keeps its values.
    assert action.command == "echo literal:s3cr3t-value > f"
