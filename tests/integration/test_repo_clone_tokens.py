"""Cloning the selected repository with a git provider token (runtime.md §10.5), the way a
headless run does: `initialize_repository_for_runtime` with the reference's ProviderType →
ProviderToken tokens asks the provider's API for the repository, builds the authenticated
clone URL and clones it into the workspace.

The provider is a stand-in on 127.0.0.1 (a token's `host` may carry a scheme): GitHub
Enterprise's repository endpoint and a real git server (`git http-backend`), both of which
refuse requests without the token. The runtime is the host-side `cli` one.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from urllib.parse import urlsplit

import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.core.setup import create_runtime, initialize_repository_for_runtime
from openhands.integrations.provider import ProviderToken
from openhands.integrations.service_types import ProviderType
from openhands.runtime.base import Runtime

TOKEN = "ghp_clone_secret_7f3a"
GIT_HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"


class TokenGitServer:
    """GitHub Enterprise's `GET /api/v3/repos/<owner>/<repo>` and smart-HTTP git for
    `/<owner>/<repo>.git`, each answering 401 unless the request carries TOKEN."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.refused: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> TokenGitServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _has_token(self) -> bool:
                scheme, _, value = self.headers.get("Authorization", "").partition(" ")
                if scheme.lower() in ("bearer", "token"):
                    return value == TOKEN
                if scheme.lower() == "basic":
                    # git puts the URL's user (the token) first, with an empty password.
                    user, _, password = base64.b64decode(value).decode().partition(":")
                    return TOKEN in (user, password)
                return False

            def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._dispatch("GET")

            def do_POST(self) -> None:
                self._dispatch("POST")

            def _dispatch(self, method: str) -> None:
                url = urlsplit(self.path)
                if not self._has_token():
                    server.refused.append(url.path)
                    self._answer(401, b"", {"WWW-Authenticate": 'Basic realm="git"'})
                elif url.path == "/api/v3/repos/acme/widgets":
                    repo = {"id": 7, "full_name": "acme/widgets", "private": True}
                    body = json.dumps({**repo, "default_branch": "main"}).encode()
                    self._answer(200, body, {"Content-Type": "application/json"})
                elif url.path.startswith("/acme/widgets.git/"):
                    self._git(method, url.path, url.query)
                else:
                    self._answer(404, b"{}", {"Content-Type": "application/json"})

            def _git(self, method: str, path: str, query: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                env = {
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "REQUEST_METHOD": method,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_ADDR": "127.0.0.1",
                }
                done = subprocess.run([GIT_HTTP_BACKEND], input=body, env=env, capture_output=True)
                head, _, payload = done.stdout.partition(b"\r\n\r\n")
                status, headers = 200, {}
                for line in head.decode().split("\r\n"):
                    key, _, value = line.partition(":")
                    if key.lower() == "status":
                        status = int(value.split()[0])
                    elif key:
                        headers[key] = value.strip()
                self._answer(status, payload, headers)

        return Handler


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def forge(tmp_path: Path) -> Iterator[TokenGitServer]:
    source = tmp_path / "source"
    source.mkdir()
    _git("init", "-q", "-b", "main", cwd=source)
    (source / "README.md").write_text("widgets, privately\n")
    _git("add", ".", cwd=source)
    _git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "c", cwd=source)
    served = tmp_path / "served"
    (served / "acme").mkdir(parents=True)
    _git("clone", "-q", "--bare", str(source), str(served / "acme" / "widgets.git"), cwd=tmp_path)
    with TokenGitServer(served) as server:
        yield server


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    # No credential prompt, and nothing from the user's git config helps the clone along.
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    config = OpenHandsConfig(runtime="cli", workspace_base=str(workspace))
    rt = create_runtime(config, sid="clone-tokens")
    asyncio.run(rt.connect())
    try:
        yield rt
    finally:
        rt.close()
        rt.event_stream.close()


def _tokens(forge: TokenGitServer, token: str) -> MappingProxyType[ProviderType, ProviderToken]:
    return MappingProxyType(
        {ProviderType.GITHUB: ProviderToken(token=SecretStr(token), host=forge.host)}
    )


def test_the_selected_repository_is_cloned_with_the_token(
    forge: TokenGitServer, runtime: Runtime, tmp_path: Path
) -> None:
    directory = initialize_repository_for_runtime(
        runtime, "acme/widgets", immutable_provider_tokens=_tokens(forge, TOKEN)
    )

    assert directory == "widgets"
    readme = tmp_path / "workspace" / "widgets" / "README.md"
    assert readme.read_text() == "widgets, privately\n"
    # git asked anonymously first, as it does, and then sent the token.
    assert not [path for path in forge.refused if "/api/" in path]
    # Never in what the conversation shows.
    shown = json.dumps([event.message for event in runtime.event_stream.search_events()])
    assert TOKEN not in shown


def test_a_wrong_token_does_not_clone(forge: TokenGitServer, runtime: Runtime) -> None:
    # The provider's API refuses the token, so no clone is even tried.
    with pytest.raises(Exception, match="authentication") as failure:
        initialize_repository_for_runtime(
            runtime, "acme/widgets", immutable_provider_tokens=_tokens(forge, "ghp_wrong")
        )
    assert forge.refused == ["/api/v3/repos/acme/widgets"]
    assert "ghp_wrong" not in str(failure.value)
