"""EventStream pub/sub (events.md §9.3): who gets which events, in which order, and when
delivery ends. Every wait is on a condition with a deadline; nothing relies on timing.

To prove that a callback gets nothing more, a test waits for the thread that ran the
callback to end (unsubscribe and close shut each callback's worker down): once it has
ended, nothing can be delivered any more, so the received list is final.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.event_store import EventStore
from openhands.events.observation import CmdOutputObservation
from openhands.events.serialization import event_to_dict
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

DEADLINE = 30.0


class Recorder:
    """A callback that records what it gets, and on which thread."""

    def __init__(self, on_event: Callable[[Event], None] | None = None) -> None:
        self.events: list[Event] = []
        self.threads: set[threading.Thread] = set()
        self.on_event = on_event
        self._cond = threading.Condition()

    def __call__(self, event: Event) -> None:
        self.threads.add(threading.current_thread())
        if self.on_event is not None:
            self.on_event(event)
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    @property
    def ids(self) -> list[int]:
        return [e.id for e in self.events]

    def wait_for(self, count: int) -> None:
        with self._cond:
            ok = self._cond.wait_for(lambda: len(self.events) >= count, timeout=DEADLINE)
        assert ok, f"got {len(self.events)} events, expected {count}"

    def wait_until_finished(self) -> None:
        """Wait until the thread(s) that ran this callback have ended."""
        assert self.threads, "the callback never ran"
        for thread in self.threads:
            thread.join(DEADLINE)
            assert not thread.is_alive(), "the callback's worker is still running"


class Gate:
    """Blocks a callback on its first event until the test opens it."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    def __call__(self, event: Event) -> None:
        self.entered.set()
        assert self.open.wait(DEADLINE)


@pytest.fixture(params=["local", "memory"])
def fs(request, tmp_path):
    return LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()


@pytest.fixture
def stream(fs):
    s = EventStream("sid", fs)
    yield s
    s.close()


def _add(stream: EventStream, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)


def test_every_callback_gets_every_event_in_order(stream) -> None:
    recorders = {
        (EventStreamSubscriber.AGENT_CONTROLLER, "a"): Recorder(),
        (EventStreamSubscriber.SERVER, "b"): Recorder(),
        (EventStreamSubscriber.SERVER, "c"): Recorder(),  # two callbacks, one subscriber
        (EventStreamSubscriber.MEMORY, "a"): Recorder(),  # same callback id elsewhere: fine
    }
    for (subscriber, callback_id), recorder in recorders.items():
        stream.subscribe(subscriber, recorder, callback_id)
    _add(stream, 120)
    for recorder in recorders.values():
        recorder.wait_for(120)
        assert recorder.ids == list(range(120))
        assert [e.content for e in recorder.events] == [f"m{i}" for i in range(120)]


def test_a_callback_id_is_unique_per_subscriber_whatever_its_spelling(stream) -> None:
    stream.subscribe(EventStreamSubscriber.TEST, Recorder(), "dup")
    with pytest.raises(ValueError):
        stream.subscribe("test", Recorder(), "dup")
    stream.subscribe("main", Recorder(), "dup")


def test_no_replay_for_late_subscribers(stream) -> None:
    _add(stream, 5)
    late = Recorder()
    stream.subscribe(EventStreamSubscriber.TEST, late, "late")
    _add(stream, 3, start=5)
    late.wait_for(3)
    assert late.ids == [5, 6, 7]


def test_an_event_is_on_disk_before_it_is_delivered(stream, fs) -> None:
    checks: list[tuple[int, bool]] = []

    def check(event: Event) -> None:
        stored = EventStore("sid", fs).get_event(event.id)
        checks.append((event.id, event_to_dict(stored) == event_to_dict(event)))

    recorder = Recorder(on_event=check)
    stream.subscribe(EventStreamSubscriber.RUNTIME, recorder, "r")
    _add(stream, 30)
    recorder.wait_for(30)
    assert checks == [(i, True) for i in range(30)]


def test_the_delivered_copy_carries_the_envelope(stream, fs) -> None:
    recorder = Recorder()
    stream.subscribe(EventStreamSubscriber.SERVER, recorder, "s")
    action = CmdRunAction("ls")
    action.tool_call_metadata = ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="call_1",
        model_response={"id": "r"},
        total_calls_in_response=1,
    )
    metrics = Metrics("gpt")
    metrics.add_cost(0.5)
    action.llm_metrics = metrics
    action.set_hard_timeout(12)
    stream.add_event(action, EventSource.AGENT)
    obs = CmdOutputObservation("a.txt", command="ls", metadata={"exit_code": 0})
    obs.cause = action.id
    stream.add_event(obs, EventSource.AGENT)
    recorder.wait_for(2)
    got_action, got_obs = recorder.events
    assert got_action is not action
    assert event_to_dict(got_action) == event_to_dict(action)
    assert got_action.timeout == 12 and got_action.blocking is True
    assert got_action.llm_metrics == metrics
    assert got_obs.cause == 0 and got_obs.source is EventSource.AGENT
    assert event_to_dict(got_obs) == json.loads(fs.read("sessions/sid/events/1.json"))


def test_a_slow_callback_delays_only_itself(stream) -> None:
    gate = Gate()
    stuck = Recorder(on_event=gate)
    fast = Recorder()
    stream.subscribe(EventStreamSubscriber.AGENT_CONTROLLER, stuck, "stuck")  # sorts first
    stream.subscribe(EventStreamSubscriber.TEST, fast, "fast")
    _add(stream, 40)
    assert gate.entered.wait(DEADLINE)  # the slow one is now blocked inside event 0
    fast.wait_for(40)  # and the other one still gets everything
    assert stuck.events == []
    gate.open.set()
    stuck.wait_for(40)
    assert stuck.ids == list(range(40))


def test_a_failing_callback_keeps_receiving_and_others_are_unaffected(stream, caplog) -> None:
    def fail_on_even(event: Event) -> None:
        if event.id % 2 == 0:
            raise RuntimeError(f"cannot handle {event.id}")

    flaky = Recorder(on_event=fail_on_even)
    steady = Recorder()
    stream.subscribe(EventStreamSubscriber.AGENT_CONTROLLER, flaky, "flaky")
    stream.subscribe(EventStreamSubscriber.SERVER, steady, "steady")
    _add(stream, 10)
    steady.wait_for(10)
    # The recorder appends after on_event, so only the odd ids are recorded; the 9th
    # event arriving proves the failures before it did not stop the worker.
    flaky.wait_for(5)
    assert flaky.ids == [1, 3, 5, 7, 9]
    assert steady.ids == list(range(10))
    errors = [
        r
        for r in caplog.records
        if "Error in event callback flaky for subscriber agent_controller" in r.getMessage()
    ]
    assert len(errors) == 5


def test_a_callback_can_unsubscribe_itself(stream) -> None:
    def leave_at_three(event: Event) -> None:
        if event.id == 3:
            stream.unsubscribe(EventStreamSubscriber.TEST, "leaver")

    leaver = Recorder(on_event=leave_at_three)
    stayer = Recorder()
    stream.subscribe(EventStreamSubscriber.TEST, leaver, "leaver")
    stream.subscribe(EventStreamSubscriber.TEST, stayer, "stayer")
    _add(stream, 4)
    leaver.wait_for(4)
    _add(stream, 6, start=4)
    stayer.wait_for(10)
    leaver.wait_until_finished()
    assert leaver.ids == [0, 1, 2, 3]
    assert stayer.ids == list(range(10))


def test_unsubscribe_lets_queued_deliveries_finish(stream) -> None:
    gate = Gate()
    recorder = Recorder(on_event=lambda e: gate(e) if e.id == 0 else None)
    stream.subscribe(EventStreamSubscriber.TEST, recorder, "c")
    _add(stream, 5)
    assert gate.entered.wait(DEADLINE)
    stream.unsubscribe(EventStreamSubscriber.TEST, "c")
    _add(stream, 2, start=5)  # after unsubscribe: never delivered
    gate.open.set()
    recorder.wait_until_finished()
    assert recorder.ids == [0, 1, 2, 3, 4]
    # Unsubscribing again is a no-op, and the id can be reused.
    stream.unsubscribe(EventStreamSubscriber.TEST, "c")
    again = Recorder()
    stream.subscribe(EventStreamSubscriber.TEST, again, "c")
    _add(stream, 1, start=7)
    again.wait_for(1)
    assert again.ids == [7]


def test_close_drops_queued_deliveries_but_keeps_writing(stream, fs) -> None:
    gate = Gate()
    recorder = Recorder(on_event=lambda e: gate(e) if e.id == 0 else None)
    stream.subscribe(EventStreamSubscriber.SERVER, recorder, "c")
    _add(stream, 5)
    assert gate.entered.wait(DEADLINE)
    stream.close()
    gate.open.set()
    recorder.wait_until_finished()
    assert recorder.ids == [0]  # the one in progress completes; the queued ones are dropped
    late = MessageAction("after close")
    stream.add_event(late, EventSource.USER)
    assert late.id == 5
    assert [e.id for e in EventStore("sid", fs).search_events()] == list(range(6))
    assert recorder.ids == [0]


def test_close_with_idle_callbacks_ends_their_workers(stream) -> None:
    recorders = [Recorder() for _ in range(3)]
    for i, recorder in enumerate(recorders):
        stream.subscribe(EventStreamSubscriber.MAIN, recorder, f"c{i}")
    _add(stream, 2)
    for recorder in recorders:
        recorder.wait_for(2)
    stream.close()
    _add(stream, 2, start=2)
    for recorder in recorders:
        recorder.wait_until_finished()
        assert recorder.ids == [0, 1]
    stream.close()  # closing twice is harmless
