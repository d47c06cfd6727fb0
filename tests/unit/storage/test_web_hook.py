"""Web-hook stores against a real HTTP endpoint on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import stat
import time
from pathlib import Path

import httpx
import pytest

from openhands.storage.batched_web_hook import (
    BATCH_SIZE_LIMIT_BYTES,
    BATCH_TIMEOUT_SECONDS,
    BatchedWebHookFileStore,
)
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore
from openhands.storage.web_hook import WebHookFileStore

from .conftest import RecordingServer

# --- one request per change ---------------------------------------------------------------


def test_write_and_delete_are_mirrored_in_order(
    http_server: RecordingServer, tmp_path: Path
) -> None:
    inner = LocalFileStore(str(tmp_path))
    store = WebHookFileStore(inner, http_server.base_url + "/hook/", httpx.Client())

    store.write("sessions/abc/metadata.json", '{"title": "t"}')
    store.write("raw.bin", b"\x00\xff")
    store.delete("sessions/abc")
    store.flush(timeout=5)

    requests = http_server.wait_for(3)
    assert [(r.method, r.path) for r in requests] == [
        ("POST", "/hook/sessions/abc/metadata.json"),
        ("POST", "/hook/raw.bin"),
        ("DELETE", "/hook/sessions/abc"),
    ]
    assert requests[0].body == b'{"title": "t"}'
    assert requests[1].body == b"\x00\xff"
    assert sorted(inner.list("")) == ["raw.bin", "sessions/"]


def test_reads_and_lists_go_to_the_inner_store(http_server: RecordingServer) -> None:
    inner = InMemoryFileStore({"a/b.txt": "x"})
    store = WebHookFileStore(inner, http_server.base_url + "/", httpx.Client())
    assert store.read("a/b.txt") == "x"
    assert store.list("a/") == ["a/b.txt"]
    time.sleep(0.2)
    assert http_server.requests == []


def test_failed_request_is_retried(http_server: RecordingServer) -> None:
    http_server.statuses = [500, 503]
    store = WebHookFileStore(
        InMemoryFileStore(), http_server.base_url + "/", httpx.Client(), retry_delay=0.05
    )
    store.write("x.txt", "v")
    store.flush(timeout=5)
    requests = http_server.settle()
    assert [r.path for r in requests] == ["/x.txt"] * 3


def test_delivery_gives_up_after_three_attempts(http_server: RecordingServer) -> None:
    http_server.statuses = [500] * 10
    store = WebHookFileStore(
        InMemoryFileStore(), http_server.base_url + "/", httpx.Client(), retry_delay=0.05
    )
    store.write("x.txt", "v")
    store.flush(timeout=5)
    assert len(http_server.settle()) == 3
    store.write("y.txt", "w")  # the worker is still alive after giving up
    store.flush(timeout=5)
    assert http_server.settle()[-1].path == "/y.txt"


def test_write_private_keeps_the_inner_file_private(
    http_server: RecordingServer, tmp_path: Path
) -> None:
    store = WebHookFileStore(LocalFileStore(str(tmp_path)), http_server.base_url + "/")
    store.write_private("secrets.json", '{"k": 1}')
    store.flush(timeout=5)
    assert stat.S_IMODE((tmp_path / "secrets.json").stat().st_mode) == 0o600
    assert http_server.wait_for(1)[0].body == b'{"k": 1}'
    store.close()


# --- batches ------------------------------------------------------------------------------


def test_batch_defaults_match_the_spec() -> None:
    assert BATCH_TIMEOUT_SECONDS == 5.0
    assert BATCH_SIZE_LIMIT_BYTES == 1024 * 1024
    store = BatchedWebHookFileStore(InMemoryFileStore(), "http://127.0.0.1:9/")
    assert store.batch_timeout_seconds == 5.0
    assert store.batch_size_limit_bytes == 1024 * 1024


def test_changes_are_sent_as_one_batch_after_the_timeout(
    http_server: RecordingServer, tmp_path: Path
) -> None:
    store = BatchedWebHookFileStore(
        LocalFileStore(str(tmp_path)), http_server.base_url + "/batch", batch_timeout_seconds=0.3
    )
    store.write("a.json", "first")
    store.write("b.bin", b"\xff\xfe")
    store.write("c.txt", b"plain bytes")
    store.delete("old/dir")
    store.write("a.json", "second")  # the latest change per path wins

    # Five changes, one request: the batch waited for its timeout instead of sending each.
    requests = http_server.wait_for(1)
    assert len(http_server.settle()) == 1
    assert requests[0].method == "POST"
    assert requests[0].path == "/batch"
    assert requests[0].headers["Content-Type"] == "application/json"
    assert json.loads(requests[0].body) == [
        {
            "method": "POST",
            "path": "b.bin",
            "content": base64.b64encode(b"\xff\xfe").decode(),
            "encoding": "base64",
        },
        {"method": "POST", "path": "c.txt", "content": "plain bytes"},
        {"method": "DELETE", "path": "old/dir"},
        {"method": "POST", "path": "a.json", "content": "second"},
    ]


def test_batch_is_sent_early_when_it_reaches_the_size_limit(
    http_server: RecordingServer,
) -> None:
    store = BatchedWebHookFileStore(
        InMemoryFileStore(),
        http_server.base_url + "/",
        batch_timeout_seconds=60,
        batch_size_limit_bytes=100,
    )
    store.write("small.txt", "x" * 40)
    time.sleep(0.2)
    assert http_server.requests == []
    store.write("big.txt", "ü" * 30)  # 60 bytes in UTF-8: 100 in total
    body = json.loads(http_server.wait_for(1, timeout=5)[0].body)
    assert [item["path"] for item in body] == ["small.txt", "big.txt"]


def test_flush_sends_now_and_later_changes_form_a_new_batch(
    http_server: RecordingServer,
) -> None:
    store = BatchedWebHookFileStore(
        InMemoryFileStore(), http_server.base_url + "/", batch_timeout_seconds=60
    )
    store.write("one.txt", "1")
    assert store.flush(timeout=5)
    assert len(http_server.requests) == 1
    store.delete("one.txt")
    assert store.flush(timeout=5)
    bodies = [json.loads(r.body) for r in http_server.settle()]
    assert bodies == [
        [{"method": "POST", "path": "one.txt", "content": "1"}],
        [{"method": "DELETE", "path": "one.txt"}],
    ]
    assert store.flush(timeout=1)  # nothing pending: returns at once


def test_failed_batch_is_retried(http_server: RecordingServer) -> None:
    http_server.statuses = [502]
    store = BatchedWebHookFileStore(
        InMemoryFileStore(), http_server.base_url + "/", retry_delay=0.05
    )
    store.write("x.txt", "v")
    assert store.flush(timeout=5)
    requests = http_server.settle()
    assert len(requests) == 2
    assert requests[0].body == requests[1].body


def test_worker_thread_retires_when_idle(http_server: RecordingServer) -> None:
    store = BatchedWebHookFileStore(
        InMemoryFileStore(), http_server.base_url + "/", batch_timeout_seconds=0.05
    )
    store.write("x.txt", "v")
    worker = store._worker
    assert worker is not None
    http_server.wait_for(1)
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert store._worker is None
    store.write("y.txt", "w")  # a new worker starts on demand
    assert len(http_server.wait_for(2)) == 2


@pytest.mark.parametrize("store_class", [WebHookFileStore, BatchedWebHookFileStore])
def test_the_inner_store_is_written_before_returning(
    store_class: type, http_server: RecordingServer
) -> None:
    inner = InMemoryFileStore()
    store = store_class(inner, http_server.base_url + "/")
    store.write("a.txt", "1")
    assert inner.read("a.txt") == "1"
    store.delete("a.txt")
    assert inner.files == {}
    store.flush(timeout=5)
