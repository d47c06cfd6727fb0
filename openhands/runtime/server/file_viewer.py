"""The file viewer side server (runtime.md §3.6): localhost only, shows PDFs and images as an
HTML page with the file embedded, so the browser can display them."""

from __future__ import annotations

import base64
import html
import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

SERVER_URL_FILE = "/tmp/oh-server-url"
VIEWABLE = {
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
}


VIEWER_TITLE_PREFIX = "File Viewer - "


def pdf_page_texts(path: str) -> list[str] | None:
    """The text of each page of a PDF, or None when it cannot be read here.

    ``pypdf`` is an optional package of the sandbox; a damaged PDF reads as no text.
    """
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        return None
    try:
        return [page.extract_text() or "" for page in PdfReader(path).pages]
    except (PyPdfError, OSError, ValueError):
        return None


def _pdf_text_section(path: str, name: str) -> str:
    # Headless Chromium's PDF viewer is a plugin frame whose text never reaches the page
    # snapshot the agent reads, so the text is laid out in the page as well.
    pages = pdf_page_texts(path)
    if pages is None:
        return f"<p>The text of {name} cannot be extracted in this sandbox.</p>"
    parts = [f'<section aria-label="Text of {name}">']
    for number, text in enumerate(pages, 1):
        parts.append(f"<h2>Page {number}</h2><pre>{html.escape(text.strip())}</pre>")
    parts.append("</section>")
    return "".join(parts)


def render_view_page(path: str) -> str:
    """A page showing the file, titled ``File Viewer - <name>`` (as 0.59's viewer).

    A PDF is drawn by Chromium's own PDF viewer (no script is fetched or shipped), followed
    by its text page by page; an image is shown as is, scaled down to fit the window.
    """
    mime = VIEWABLE[os.path.splitext(path)[1].lower()]
    with open(path, "rb") as handle:
        data = base64.b64encode(handle.read()).decode("ascii")
    name = html.escape(os.path.basename(path))
    source = f"data:{mime};base64,{data}"
    if mime == "application/pdf":
        body = (
            f'<embed src="{source}" type="{mime}" title="{name}" '
            'style="width:100%;height:80vh;border:0">'
            f'<div style="padding:0 1em">{_pdf_text_section(path, name)}</div>'
        )
    else:
        body = (
            f'<img src="{source}" alt="{name}" '
            'style="display:block;max-width:100%;max-height:100vh;margin:0 auto">'
        )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<title>{VIEWER_TITLE_PREFIX}{name}</title></head>"
        f'<body style="margin:0">{body}</body></html>'
    )


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _send(self, status: int, body: str, content_type: str) -> None:
        payload = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        if self.client_address[0] not in ("127.0.0.1", "::1"):
            self._send(403, "<h1>Forbidden</h1>", "text/html")
            return
        url = urlparse(self.path)
        if url.path == "/":
            self._send(
                200, json.dumps({"status": "File viewer server is running"}), "application/json"
            )
            return
        if url.path != "/view":
            self._send(404, "<h1>Not found</h1>", "text/html")
            return
        path = (parse_qs(url.query).get("path") or [""])[0]
        if not os.path.isabs(path) or os.path.isdir(path):
            self._send(400, "<h1>Bad request: an absolute file path is needed</h1>", "text/html")
        elif not os.path.exists(path):
            self._send(404, "<h1>File not found</h1>", "text/html")
        elif os.path.splitext(path)[1].lower() not in VIEWABLE:
            self._send(500, "<h1>Unsupported file type</h1>", "text/html")
        else:
            self._send(200, render_view_page(path), "text/html")


def first_free_port(start: int, stop: int) -> int:
    for port in range(start, stop + 1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"No free port for the file viewer in [{start}, {stop}]")


def start_file_viewer(server_port: int) -> ThreadingHTTPServer:
    """Start on the first free port after ``server_port``; write its URL for other tools."""
    port = first_free_port(server_port + 1, min(server_port + 1024, 65535))
    httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    threading.Thread(target=httpd.serve_forever, name="file-viewer", daemon=True).start()
    with open(SERVER_URL_FILE, "w", encoding="utf-8") as handle:
        handle.write(f"http://localhost:{port}")
    return httpd
