"""Shared fixtures: a real HTTP endpoint on 127.0.0.1 that records what it receives."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class RecordingServer:
    """Answers every request with ``statuses`` in turn (then 200) and records it."""

    base_url: str = ""
    requests: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    condition: threading.Condition = field(default_factory=threading.Condition)

    def record(self, request: Received) -> int:
        with self.condition:
            self.requests.append(request)
            self.condition.notify_all()
            return self.statuses.pop(0) if self.statuses else 200

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Received]:
        """Wait until at least ``count`` requests arrived; returns all of them."""
        with self.condition:
            if not self.condition.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.requests)}")
            return list(self.requests)

    def settle(self, quiet: float = 0.3) -> list[Received]:
        """Wait until no request arrived for ``quiet`` seconds; returns all of them."""
        while True:
            before = len(self.requests)
            time.sleep(quiet)
            if len(self.requests) == before:
                return list(self.requests)


@pytest.fixture
def http_server() -> Iterator[RecordingServer]:
    recorder = RecordingServer()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status = recorder.record(
                Received(self.command, self.path, dict(self.headers.items()), body)
            )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_DELETE = do_PUT = _handle

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    recorder.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
