"""An HTTP CONNECT proxy that makes ``*.localhost`` names reachable on loopback.

RFC 6761 reserves ``localhost`` and every name under it for the loopback interface, and
curl and browsers resolve them so; glibc without ``nss-myhostname`` does not, so Python
cannot connect to ``api.localhost`` on this machine. A client pointed at this proxy
(``HTTPS_PROXY=<proxy.url>``, honoured by httpx and git) gets its TLS connection to
``<name>.localhost:<port>`` tunnelled to ``127.0.0.1:<port>`` unchanged: the client still
checks the server's certificate for the name it asked for. Nothing else is tunnelled.
"""

from __future__ import annotations

import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CHUNK = 65536


def _is_localhost(host: str) -> bool:
    host = host.lower().rstrip(".")
    return host == "localhost" or host.endswith(".localhost")


class LocalhostProxy:
    def __init__(self) -> None:
        self.tunnelled: list[str] = []  # the `host:port` of every tunnel opened
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> LocalhostProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(proxy: LocalhostProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_CONNECT(self) -> None:
            host, _, port = self.path.rpartition(":")
            if not _is_localhost(host) or not port.isdigit():
                self.send_error(403, "Only localhost names are tunnelled")
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", int(port)))
            except OSError:
                self.send_error(502, "Nothing listens there")
                return
            proxy.tunnelled.append(self.path)
            self.send_response(200, "Connection established")
            self.end_headers()
            self.close_connection = True
            with upstream:
                _pipe(self.connection, upstream)

    return Handler


def _pipe(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    peers = {client: upstream, upstream: client}
    while True:
        readable, _, _ = select.select(list(peers), [], [])
        for source in readable:
            data = source.recv(_CHUNK)
            if not data:
                return
            peers[source].sendall(data)
