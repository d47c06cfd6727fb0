"""Git provider tokens in a real runtime (the CLI runtime's bash on a temp workspace):
the latest token reaches the shell and the stream's masking before a command that names
it, a hosted deployment's refresh endpoint (HTTPS, a throw-away CA) is asked for it, and
``clone_or_init_repo`` clones a real repository (awaited, as 0.59's)."""

from __future__ import annotations

import asyncio
import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeError
from openhands.core.setup import create_runtime
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation
from openhands.integrations.provider import ProviderToken
from openhands.integrations.service_types import ProviderType
from openhands.runtime.base import Runtime
from tests.support.tls_certs import TestCA


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.delenv("WEB_HOST", raising=False)
    (tmp_path / "workspace").mkdir()
    return tmp_path / "workspace"


@pytest.fixture
def runtime(workspace: Path) -> Iterator[Runtime]:
    config = OpenHandsConfig(runtime="cli", workspace_base=str(workspace))
    tokens = MappingProxyType({ProviderType.GITHUB: ProviderToken(token=SecretStr("ghp_stored"))})
    rt = create_runtime(config, sid="tokens-test", git_provider_tokens=tokens)
    asyncio.run(rt.connect())
    try:
        yield rt
    finally:
        rt.close()
        rt.event_stream.close()


def _shell(rt: Runtime, command: str) -> str:
    obs = rt.run(CmdRunAction(command))
    assert isinstance(obs, CmdOutputObservation), obs
    return obs.content.strip()


def test_a_command_naming_the_token_gets_it_exported_and_masked(runtime: Runtime) -> None:
    runtime.event_stream.set_secrets({"MY_KEY": "custom-value"})

    asyncio.run(runtime._export_latest_git_provider_tokens(CmdRunAction("echo hello")))
    assert runtime.event_stream.secrets == {"MY_KEY": "custom-value"}

    asyncio.run(runtime._export_latest_git_provider_tokens(CmdRunAction("curl -H $GITHUB_TOKEN x")))
    # Added beside the user's own secret, under 0.59's key.
    assert runtime.event_stream.secrets == {
        "MY_KEY": "custom-value",
        "github_token": "ghp_stored",
    }
    assert _shell(runtime, "echo $GITHUB_TOKEN") == "ghp_stored"


class _RefreshEndpoint(BaseHTTPRequestHandler):
    asked: list[tuple[str, dict[str, list[str]], str | None]] = []

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        self.asked.append(
            (parts.path, parse_qs(parts.query), self.headers.get("X-Session-API-Key"))
        )
        body = json.dumps({"token": "ghp_refreshed"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def refresh_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    ca = TestCA(tmp_path / "ca")
    issued = ca.server("127.0.0.1", ["127.0.0.1"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RefreshEndpoint)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(issued.cert, issued.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.cert))
    _RefreshEndpoint.asked = []
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_hosted_deployment_hands_out_the_latest_token(
    runtime: Runtime, refresh_host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEB_HOST", refresh_host)
    runtime.session_api_key = "sandbox-key"

    asyncio.run(runtime._export_latest_git_provider_tokens(CmdRunAction("echo $github_token")))

    assert _RefreshEndpoint.asked == [
        ("/api/refresh-tokens", {"provider": ["github"], "sid": ["tokens-test"]}, "sandbox-key")
    ]
    assert runtime.event_stream.secrets == {"github_token": "ghp_refreshed"}
    assert _shell(runtime, "echo $GITHUB_TOKEN") == "ghp_refreshed"


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    repo = tmp_path / "remotes" / "acme" / "widgets"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("widgets\n")
    _git("init", "-q", "-b", "main", cwd=repo)
    _git("add", "-A", cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=repo)
    _git("branch", "feature", cwd=repo)
    return repo


def test_clone_or_init_repo_is_awaited_and_clones(
    runtime: Runtime, workspace: Path, origin: Path
) -> None:
    name = asyncio.run(
        runtime.clone_or_init_repo(None, "acme/widgets", "feature", repo_url=str(origin))
    )
    assert name == "widgets"
    assert (workspace / "widgets" / "README.md").read_text() == "widgets\n"
    assert _shell(runtime, "git -C widgets branch --show-current") == "feature"


def test_a_clone_that_fails_is_an_error_without_the_url(runtime: Runtime, tmp_path: Path) -> None:
    missing = tmp_path / "remotes" / "secret-token-in-path"
    with pytest.raises(AgentRuntimeError, match="git clone of acme/gone failed") as failure:
        asyncio.run(runtime.clone_or_init_repo(None, "acme/gone", None, repo_url=str(missing)))
    assert "secret-token-in-path" not in str(failure.value)
