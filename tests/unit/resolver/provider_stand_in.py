"""A stand-in git provider API served over HTTPS on 127.0.0.1, for the resolver's handlers.

The handlers build ``https://<base_domain>/...`` URLs, so the stand-in speaks TLS with a
throw-away certificate for 127.0.0.1 that the test trusts through ``SSL_CERT_FILE``; pass
``api.domain`` as the handler's ``base_domain``. Routes map ``(method, raw path)`` (query
left out, percent-encoding kept) to a reply or a responder; every request is recorded.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Reply = tuple[int, Any] | tuple[int, Any, dict[str, str]]


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


Responder = Callable[[Seen], Reply]


@dataclass
class StandInProvider:
    port: int = 0
    routes: dict[tuple[str, str], Reply | Responder] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)

    @property
    def domain(self) -> str:
        return f"127.0.0.1:{self.port}"

    def on(self, method: str, path: str, reply: Reply | Responder) -> None:
        self.routes[(method, path)] = reply

    def pages(self, path: str, pages: list[list[Any]]) -> None:
        """Serve ``pages`` for ``?page=1..n`` of ``GET path``, then an empty page."""

        def respond(seen: Seen) -> Reply:
            page = int(seen.query.get("page", ["1"])[0])
            return 200, pages[page - 1] if page <= len(pages) else []

        self.on("GET", path, respond)

    def seen(self, method: str | None = None) -> list[tuple[str, str]]:
        return [(r.method, r.path) for r in self.requests if method in (None, r.method)]


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@contextmanager
def stand_in_provider(directory: Path) -> Iterator[tuple[StandInProvider, Path]]:
    """The running stand-in and the certificate file to trust."""
    provider = StandInProvider()
    cert_file, key_file = _self_signed(directory)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            seen = Seen(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else None,
            )
            provider.requests.append(seen)
            route = provider.routes.get((self.command, parts.path), (404, {"message": "Not Found"}))
            reply = route(seen) if callable(route) else route
            status, body, *extra = reply
            headers: dict[str, str] = extra[0] if extra else {}
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    provider.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield provider, cert_file
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
