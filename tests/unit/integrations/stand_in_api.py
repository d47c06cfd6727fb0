"""A stand-in for a git provider's REST API on 127.0.0.1, for the service tests.

Routes map ``(method, path)`` to ``(status, body, headers)``; a body that is not a string is
sent as JSON. Every request is recorded (method, path, query, headers, JSON body).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Reply = tuple[int, Any, dict[str, str]]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any = None


@dataclass
class StandInAPI:
    routes: dict[tuple[str, str], Reply] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(
        self,
        path: str,
        body: Any,
        status: int = 200,
        headers: dict[str, str] | None = None,
        method: str = "GET",
    ) -> None:
        self.routes[(method, path)] = (status, body, headers or {})

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


@contextmanager
def stand_in_api() -> Iterator[StandInAPI]:
    api = StandInAPI()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            api.requests.append(
                Recorded(
                    method=method,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
            )
            status, body, headers = api.routes.get(
                (method, parts.path), (404, {"message": "Not Found"}, {})
            )
            if isinstance(body, str):
                payload, content_type = body.encode(), "text/plain; charset=utf-8"
            else:
                payload, content_type = json.dumps(body).encode(), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
