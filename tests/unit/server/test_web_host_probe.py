"""The live web-host probe against real local sockets: an HTTP server, a port that accepts and
hangs up without answering (what Docker's port proxy does when nothing listens in the sandbox),
and a closed port."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from openhands.server.routes.web_host_probe import live_web_hosts


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(404)  # any status counts: something answers
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def hang_up_port() -> Iterator[int]:
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        listener.close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_only_ports_that_answer_http_are_live(http_port: int, hang_up_port: int) -> None:
    closed = _closed_port()
    hosts = {
        f"http://127.0.0.1:{http_port}": http_port,
        f"http://127.0.0.1:{hang_up_port}": hang_up_port,
        f"http://127.0.0.1:{closed}": closed,
    }
    assert asyncio.run(live_web_hosts(hosts)) == {f"http://127.0.0.1:{http_port}": http_port}


def test_no_hosts() -> None:
    assert asyncio.run(live_web_hosts({})) == {}
