"""EventStream: ids, persistence layout, masking, delivery order, reopen and crash safety."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.event_store import EventStore
from openhands.events.observation import NullObservation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

REPO_ROOT = Path(__file__).resolve().parents[3]


def wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


@pytest.fixture(params=["local", "memory"])
def file_store(request, tmp_path):
    if request.param == "local":
        return LocalFileStore(str(tmp_path))
    return InMemoryFileStore()


def test_ids_timestamps_source_and_layout(file_store) -> None:
    stream = EventStream("sid", file_store)
    events = [NullObservation("") for _ in range(3)]
    for e in events:
        stream.add_event(e, EventSource.AGENT)
    assert [e.id for e in events] == [0, 1, 2]
    assert all(e.source == EventSource.AGENT for e in events)
    assert "T" in events[0].timestamp and "+" not in events[0].timestamp
    stored = json.loads(file_store.read("sessions/sid/events/0.json"))
    assert stored == {
        "id": 0,
        "timestamp": events[0].timestamp,
        "source": "agent",
        "message": "No observation",
        "observation": "null",
        "content": "",
        "extras": {},
    }
    with pytest.raises(ValueError, match="already has an ID"):
        stream.add_event(events[0], EventSource.AGENT)
    stream.close()


def test_user_scoped_layout(file_store) -> None:
    stream = EventStream("sid", file_store, user_id="u1")
    stream.add_event(MessageAction("hi"), EventSource.USER)
    assert json.loads(file_store.read("users/u1/conversations/sid/events/0.json"))["id"] == 0
    stream.close()


def test_cache_pages_written_and_used(file_store) -> None:
    stream = EventStream("sid", file_store)
    for i in range(60):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)
    page = json.loads(file_store.read("sessions/sid/event_cache/0-25.json"))
    assert [e["id"] for e in page] == list(range(25))
    json.loads(file_store.read("sessions/sid/event_cache/25-50.json"))
    with pytest.raises(FileNotFoundError):
        file_store.read("sessions/sid/event_cache/50-75.json")
    # The page is what reads use: change it and the change shows (event files untouched).
    page[3]["args"]["content"] = "from the page"
    page[3]["message"] = "from the page"
    file_store.write("sessions/sid/event_cache/0-25.json", json.dumps(page))
    store = EventStore("sid", file_store)
    assert next(store.search_events(start_id=3, end_id=3)).content == "from the page"
    assert store.get_event(3).content == "m3"  # get_event never reads the cache
    stream.close()


def test_reopen_continues_and_pages_stay_aligned(file_store) -> None:
    stream = EventStream("sid", file_store)
    for i in range(30):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)
    stream.close()
    reopened = EventStream("sid", file_store)
    assert reopened.cur_id == 30 and reopened.get_latest_event_id() == 29
    for i in range(30, 55):
        reopened.add_event(MessageAction(f"m{i}"), EventSource.USER)
    page = json.loads(file_store.read("sessions/sid/event_cache/25-50.json"))
    assert [e["id"] for e in page] == list(range(25, 50))
    assert [e.id for e in reopened.search_events()] == list(range(55))
    reopened.close()


def test_empty_store() -> None:
    store = EventStore("nothing", InMemoryFileStore())
    assert store.cur_id == 0 and store.get_latest_event_id() == -1
    assert list(store.search_events()) == []
    with pytest.raises(FileNotFoundError):
        store.get_latest_event()


def test_concurrent_writers_no_gaps_and_ordered_delivery(tmp_path) -> None:
    stream = EventStream("sid", LocalFileStore(str(tmp_path)))
    seen: dict[str, list[int]] = {"a": [], "b": []}
    stream.subscribe(EventStreamSubscriber.TEST, lambda e: seen["a"].append(e.id), "a")
    stream.subscribe(EventStreamSubscriber.SERVER, lambda e: seen["b"].append(e.id), "b")

    def writer(n: int) -> None:
        for i in range(1000):
            stream.add_event(MessageAction(f"w{n}-{i}"), EventSource.USER)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_for(lambda: len(seen["a"]) == 8000 and len(seen["b"]) == 8000)
    assert seen["a"] == list(range(8000))
    assert seen["b"] == list(range(8000))
    stream.close()

    reopened = EventStream("sid", LocalFileStore(str(tmp_path)))
    ids = [e.id for e in reopened.search_events()]
    assert ids == list(range(8000))
    assert reopened.cur_id == 8000
    reopened.add_event(MessageAction("next"), EventSource.USER)
    assert reopened.get_latest_event_id() == 8000
    reopened.close()


def test_slow_subscriber_does_not_delay_another(tmp_path) -> None:
    """A subscriber stuck in its callback holds up only itself (no clock involved: the slow
    one is blocked until the fast one has seen everything)."""
    stream = EventStream("sid", LocalFileStore(str(tmp_path)))
    gate = threading.Event()
    fast: list[int] = []
    slow: list[int] = []

    def blocked(event: Event) -> None:
        gate.wait(timeout=10)
        slow.append(event.id)

    stream.subscribe("test", blocked, "slow")
    stream.subscribe("server", lambda e: fast.append(e.id), "fast")
    for i in range(10):
        stream.add_event(MessageAction(str(i)), EventSource.USER)
    wait_for(lambda: len(fast) == 10, timeout=5)
    assert fast == list(range(10)) and slow == []
    gate.set()
    wait_for(lambda: len(slow) == 10, timeout=5)
    assert slow == list(range(10))
    stream.close()


def test_callbacks_run_on_own_threads_with_own_loops(file_store) -> None:
    stream = EventStream("sid", file_store)
    info: dict[str, tuple[int, int]] = {}

    def make(name: str):
        def cb(event: Event) -> None:
            loop = asyncio.get_event_loop()
            result = loop.run_until_complete(asyncio.sleep(0, result=1))
            assert result == 1
            info[name] = (threading.get_ident(), id(loop))

        return cb

    stream.subscribe("test", make("x"), "x")
    stream.subscribe("test", make("y"), "y")
    with pytest.raises(ValueError):
        stream.subscribe("test", make("x"), "x")
    stream.add_event(MessageAction("go"), EventSource.USER)
    wait_for(lambda: len(info) == 2)
    assert info["x"][0] != info["y"][0] != threading.get_ident()
    assert info["x"][1] != info["y"][1]
    stream.unsubscribe("test", "nobody")  # unknown: no error
    stream.close()


def test_failing_callback_does_not_stop_others(file_store, caplog) -> None:
    stream = EventStream("sid", file_store)
    good: list[int] = []

    def bad(event: Event) -> None:
        raise RuntimeError("boom")

    stream.subscribe("test", bad, "bad")
    stream.subscribe("test", lambda e: good.append(e.id), "good")
    for i in range(3):
        stream.add_event(MessageAction(str(i)), EventSource.USER)
    wait_for(lambda: len(good) == 3)
    # Each callback has its own thread: the failing one may log after the good one is done.
    wait_for(lambda: caplog.text.count("Error in event callback bad for subscriber test") == 3)
    stream.close()


def test_unsubscribe_and_close_stop_delivery(file_store) -> None:
    stream = EventStream("sid", file_store)
    got: list[int] = []
    stream.subscribe("test", lambda e: got.append(e.id), "c")
    stream.add_event(MessageAction("a"), EventSource.USER)
    wait_for(lambda: got == [0])
    stream.unsubscribe("test", "c")
    stream.add_event(MessageAction("b"), EventSource.USER)
    other: list[int] = []
    stream.subscribe("test", lambda e: other.append(e.id), "d")
    stream.close()
    stream.add_event(MessageAction("c"), EventSource.USER)  # still persisted
    time.sleep(0.1)
    assert got == [0] and other == []
    assert [e.id for e in EventStore("sid", file_store).search_events()] == [0, 1, 2]


def test_unsubscribe_warns_only_for_unknown_callbacks_of_an_open_stream(file_store, caplog) -> None:
    stream = EventStream("sid", file_store)
    stream.unsubscribe("test", "never-subscribed")
    assert "never-subscribed of subscriber test is not subscribed" in caplog.text
    caplog.clear()
    stream.subscribe("test", lambda e: None, "c")
    stream.close()
    stream.unsubscribe("test", "c")  # owners often unsubscribe after the stream closed
    assert "not subscribed" not in caplog.text


def test_subscribers_receive_a_masked_copy(file_store) -> None:
    stream = EventStream("sid", file_store)
    got: list[Event] = []
    stream.subscribe("test", got.append, "c")
    stream.set_secrets({"token": "s3cr3t", "empty": ""})
    action = CmdRunAction("echo s3cr3t", thought="use s3cr3t")
    action.response_id = "r1"
    stream.add_event(action, EventSource.AGENT)
    wait_for(lambda: len(got) == 1)
    delivered = got[0]
    assert delivered is not action
    assert delivered.command == "echo <secret_hidden>"
    assert delivered.response_id is None
    assert action.command == "echo s3cr3t"  # the caller's object keeps its values
    stream.close()


def test_secrets_never_reach_disk(tmp_path) -> None:
    stream = EventStream("sid", LocalFileStore(str(tmp_path)))
    stream.set_secrets({"a": "hunter2"})
    stream.update_secrets({"b": "ключ-42"})
    for i in range(30):
        stream.add_event(
            MessageAction("pw hunter2 and ключ-42", image_urls=["http://x?k=hunter2"]),
            EventSource.USER,
        )
        stream.add_event(CmdRunAction(f"echo hunter2 {i}"), EventSource.AGENT)
    stream.close()
    blobs = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"<secret_hidden>" in blobs
    assert b"hunter2" not in blobs
    assert "ключ-42".encode() not in blobs and b"\\u043a" not in blobs
    event = EventStore("sid", LocalFileStore(str(tmp_path))).get_event(1)
    assert event.message == "Running command: echo <secret_hidden> 0"
    assert event.timestamp is not None


def test_secrets_with_json_escaped_characters_are_masked(tmp_path) -> None:
    # Masking first looks for the secrets in the serialized text, where these characters
    # are escaped; the search must still find them.
    secrets = ['pa"ss\\word', "line1\nline2", "tab\there", "ключ\u2028x"]
    stream = EventStream("sid", LocalFileStore(str(tmp_path)))
    stream.set_secrets({f"s{i}": v for i, v in enumerate(secrets)})
    for value in secrets:
        stream.add_event(MessageAction(f"<{value}>", file_urls=[value]), EventSource.USER)
        stream.add_event(CmdRunAction(f"echo '{value}'"), EventSource.AGENT)
    stream.add_event(MessageAction("nothing secret here"), EventSource.USER)
    stream.close()
    store = EventStore("sid", LocalFileStore(str(tmp_path)))
    events = list(store.search_events())
    assert [e.content for e in events[0:8:2]] == ["<<secret_hidden>>"] * 4
    assert [e.command for e in events[1:8:2]] == ["echo '<secret_hidden>'"] * 4
    assert events[-1].content == "nothing secret here"
    blobs = "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.json") if p.is_file())
    for value in secrets:
        assert json.dumps(value, ensure_ascii=False)[1:-1] not in blobs


def test_masking_protects_identity_keys_only_at_top_level(file_store) -> None:
    stream = EventStream("sid", file_store)
    stream.set_secrets({"x": "run"})
    stream.add_event(
        MessageAction("run fast", file_urls=[]),
        EventSource.USER,
    )
    stored = json.loads(file_store.read("sessions/sid/events/0.json"))
    assert stored["action"] == "message" and stored["args"]["content"] == "<secret_hidden> fast"
    stream.close()


def test_failed_write_does_not_consume_an_id(tmp_path, monkeypatch) -> None:
    fs = LocalFileStore(str(tmp_path))
    stream = EventStream("sid", fs)
    stream.add_event(MessageAction("a"), EventSource.USER)
    events_dir = tmp_path / "sessions" / "sid" / "events"
    events_dir.chmod(0o500)
    try:
        if os.geteuid() == 0:
            # root ignores permissions: fail the write itself, as a full disk would.
            def full_disk(path: str, contents: bytes) -> None:
                raise OSError(28, "No space left on device")

            monkeypatch.setattr(fs, "write_new", full_disk)
        failing = MessageAction("b")
        with pytest.raises(OSError):
            stream.add_event(failing, EventSource.USER)
        assert failing.id == Event.INVALID_ID
    finally:
        events_dir.chmod(0o700)
        monkeypatch.undo()
    retry = MessageAction("b")
    stream.add_event(retry, EventSource.USER)
    assert retry.id == 1
    stream.close()


def test_damaged_trailing_file_is_skipped_with_a_warning(tmp_path, caplog) -> None:
    fs = LocalFileStore(str(tmp_path))
    stream = EventStream("sid", fs)
    for i in range(3):
        stream.add_event(MessageAction(str(i)), EventSource.USER)
    stream.close()
    (tmp_path / "sessions/sid/events/3.json").write_text('{"id": 3, "act')
    store = EventStore("sid", fs)
    assert [e.id for e in store.search_events()] == [0, 1, 2]
    assert "damaged" in caplog.text
    reopened = EventStream("sid", fs)
    reopened.add_event(MessageAction("after"), EventSource.USER)
    assert reopened.get_latest_event_id() == 4
    reopened.close()


CRASH_WRITER = textwrap.dedent(
    """
    import sys
    from openhands.events.action import MessageAction
    from openhands.events.event import EventSource
    from openhands.events.stream import EventStream
    from openhands.storage.local import LocalFileStore

    stream = EventStream("crash", LocalFileStore(sys.argv[1]))
    i = 0
    while True:
        stream.add_event(MessageAction("payload " * (i % 300)), EventSource.USER)
        # Reported only after add_event returned: these ids must survive the kill.
        sys.stdout.write(f"{i}\\n")
        sys.stdout.flush()
        i += 1
    """
)


@pytest.mark.parametrize("kill_after", [0.3, 0.7])
def test_sigkill_while_writing_loses_no_returned_event(tmp_path, kill_after: float) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASH_WRITER, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # blocks through interpreter start-up, however slow
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    # Read through the same buffered reader as readline(): communicate() with a
    # timeout reads the raw pipe and would skip lines already buffered here.
    out = proc.stdout.read()
    proc.wait(timeout=10)
    confirmed = [int(line) for line in (first + out).split()]
    assert confirmed, "the writer never confirmed an event"
    fs = LocalFileStore(str(tmp_path))
    store = EventStore("crash", fs)
    ids = [e.id for e in store.search_events()]
    assert ids[: len(confirmed)] == confirmed
    assert len(ids) in (len(confirmed), len(confirmed) + 1)
    reopened = EventStream("crash", fs)
    reopened.add_event(MessageAction("after the crash"), EventSource.USER)
    assert reopened.get_latest_event_id() == ids[-1] + 1
    assert [e.id for e in reopened.search_events()][-1] == ids[-1] + 1
    reopened.close()


def test_a_file_hidden_behind_a_long_gap_is_never_overwritten(tmp_path, caplog) -> None:
    fs = LocalFileStore(str(tmp_path))
    stream = EventStream("sid", fs)
    for i in range(30):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)
    stream.close()
    events_dir = tmp_path / "sessions/sid/events"
    for i in range(25, 30):  # a gap of more than 64 ids after the newest page ...
        (events_dir / f"{i}.json").unlink()
    hidden = (events_dir / "0.json").read_bytes().replace(b'"id":0', b'"id":100')
    (events_dir / "100.json").write_bytes(hidden)  # ... hides this file from the probe
    reopened = EventStream("sid", fs)
    assert reopened.cur_id == 25
    ids = []
    for i in range(80):
        event = MessageAction(f"n{i}")
        reopened.add_event(event, EventSource.USER)
        ids.append(event.id)
    reopened.close()
    assert ids == list(range(25, 100)) + list(range(101, 106))
    assert (events_dir / "100.json").read_bytes() == hidden
    assert "already exists" in caplog.text
    stored = [e.id for e in EventStore("sid", fs).search_events()]
    assert stored == list(range(106))


CONCURRENT_CRASH_WRITER = textwrap.dedent(
    """
    import sys, threading
    from openhands.events.action import MessageAction
    from openhands.events.event import EventSource
    from openhands.events.stream import EventStream
    from openhands.storage.local import LocalFileStore

    stream = EventStream("crash", LocalFileStore(sys.argv[1]))
    out = threading.Lock()

    def write(worker):
        i = 0
        while True:
            event = MessageAction(f"w{worker} " + "payload " * (i % 500))
            stream.add_event(event, EventSource.USER)
            with out:  # reported only after add_event returned
                sys.stdout.write(f"{event.id}\\n")
                sys.stdout.flush()
            i += 1

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    """
)


@pytest.mark.parametrize("kill_after", [0.2, 0.6])
def test_sigkill_during_concurrent_writes_loses_or_damages_nothing(
    tmp_path, kill_after: float
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CONCURRENT_CRASH_WRITER, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    out = proc.stdout.read()
    proc.wait(timeout=10)
    confirmed = {int(line) for line in (first + out).split()}
    assert len(confirmed) > 8
    events_dir = tmp_path / "sessions/crash/events"
    names = os.listdir(events_dir)
    assert all(name.endswith(".json") and name[:-5].isdigit() for name in names)  # no debris
    on_disk = sorted(int(name[:-5]) for name in names)
    assert on_disk == list(range(len(on_disk)))  # no gaps
    assert confirmed <= set(on_disk)
    for event_id in on_disk:  # every file complete, acknowledged or not
        assert json.loads((events_dir / f"{event_id}.json").read_bytes())["id"] == event_id
    fs = LocalFileStore(str(tmp_path))
    assert [e.id for e in EventStore("crash", fs).search_events()] == on_disk
    reopened = EventStream("crash", fs)
    reopened.add_event(MessageAction("after the crash"), EventSource.USER)
    assert reopened.get_latest_event_id() == len(on_disk)
    reopened.close()
