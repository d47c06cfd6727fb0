"""`/api/user/*`, token checks and repository checks against a local stand-in for GitHub."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from tests.unit.integrations.stand_in_api import Recorded, StandInBranch, github_graphql
from tests.unit.server.conftest import build_app, running

GOOD_TOKEN = "ghp_good"


def _routes(path: str) -> tuple[int, Any, dict[str, str]]:
    repo = {
        "id": 7,
        "full_name": "octo/hello",
        "private": False,
        "stargazers_count": 3,
        "pushed_at": "2025-01-01T00:00:00Z",
        "owner": {"type": "Organization"},
        "default_branch": "main",
    }
    branches = [
        {"name": "main", "commit": {"sha": "abc"}, "protected": True},
        {"name": "feature-x", "commit": {"sha": "def"}, "protected": False},
    ]
    table: dict[str, tuple[int, Any, dict[str, str]]] = {
        "/user": (
            200,
            {"id": 1, "login": "octo", "avatar_url": "http://a", "name": "Octo", "email": None},
            {},
        ),
        "/user/repos": (200, [repo], {"Link": '<http://x?page=2>; rel="next"'}),
        "/repos/octo/hello": (200, repo, {}),
        "/repos/octo/hello/branches": (200, branches, {}),
        "/search/repositories": (200, {"items": [repo]}, {}),
        "/user/installations": (200, {"installations": [{"id": 42}]}, {}),
    }
    return table.get(path.split("?")[0], (404, {"message": "Not Found"}, {}))


@pytest.fixture
def fake_github() -> Iterator[str]:
    # Branch search goes through GitHub's GraphQL endpoint.
    graphql = github_graphql(
        "octo",
        token=GOOD_TOKEN,
        branches={"octo/hello": [StandInBranch("main", "abc"), StandInBranch("feature-x", "def")]},
    )

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.headers.get("Authorization") != f"Bearer {GOOD_TOKEN}":
                status, body, headers = 401, {"message": "Bad credentials"}, {}
            else:
                status, body, headers = _routes(self.path)
            self._reply(status, body, headers)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Recorded(
                method="POST",
                path=self.path,
                query={},
                headers={key.lower(): value for key, value in self.headers.items()},
                body=json.loads(self.rfile.read(length) or b"null"),
            )
            if self.path.split("?")[0] == "/graphql":
                status, body, headers = graphql(request)
            else:
                status, body, headers = 404, {"message": "Not Found"}, {}
            self._reply(status, body, headers)

        def _reply(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


async def test_git_routes(app_config: OpenHandsConfig, workspace: Path, fake_github: str) -> None:
    server = ServerConfig(
        rate_limit_enabled=False, serve_frontend=False, github_api_url=fake_github
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        client = h.client
        no_token = await client.get("/api/user/info")
        assert no_token.status_code == 401
        assert no_token.json() == "Git provider token required. (such as GitHub)."
        search = await client.get("/api/user/search/repositories?query=x")
        assert search.json() == "Git provider token required."
        assert (await client.get("/api/user/suggested-tasks")).json() == "No providers set."

        bad = await client.post(
            "/api/add-git-providers", json={"provider_tokens": {"github": {"token": "nope"}}}
        )
        assert bad.status_code == 401
        assert bad.json() == {
            "error": "Invalid token. Please make sure it is a valid github token."
        }
        stored = await client.post(
            "/api/add-git-providers",
            json={"provider_tokens": {"github": {"token": GOOD_TOKEN, "host": "github.com"}}},
        )
        assert stored.json() == {"message": "Git providers stored"}
        await client.post("/api/settings", json={"llm_api_key": "k"})
        settings = (await client.get("/api/settings")).json()
        assert settings["provider_tokens_set"] == {"github": "github.com"}
        # An empty token keeps the stored one.
        await client.post(
            "/api/add-git-providers",
            json={"provider_tokens": {"github": {"token": "", "host": "github.com"}}},
        )

        user = (await client.get("/api/user/info")).json()
        assert user["login"] == "octo" and user["id"] == "1"
        repos = (await client.get("/api/user/repositories?sort=pushed")).json()
        assert repos[0]["full_name"] == "octo/hello"
        assert repos[0]["owner_type"] == "organization"
        assert repos[0]["link_header"].endswith('rel="next"')
        assert (await client.get("/api/user/installations?provider=github")).json() == ["42"]
        gitlab = await client.get("/api/user/installations?provider=gitlab")
        assert gitlab.status_code == 400
        branches = (await client.get("/api/user/repository/branches?repository=octo/hello")).json()
        assert branches["branches"][0] == {
            "name": "main",
            "commit_sha": "abc",
            "protected": True,
            "last_push_date": None,
        }
        assert branches["has_next_page"] is False
        found = (
            await client.get("/api/user/search/branches?repository=octo/hello&query=feat")
        ).json()
        assert [b["name"] for b in found] == ["feature-x"]

        # Repository checks on create.
        ok = await client.post("/api/conversations", json={"repository": "octo/hello"})
        assert ok.status_code == 200
        missing = await client.post("/api/conversations", json={"repository": "octo/nope"})
        assert missing.status_code == 401
        assert missing.json() == "Unable to access repo octo/nope"

        assert (await client.post("/api/unset-provider-tokens")).json() == {
            "message": "Unset Git provider tokens"
        }
        assert (await client.get("/api/user/info")).status_code == 401


async def test_header_token_is_used(
    app_config: OpenHandsConfig, workspace: Path, fake_github: str
) -> None:
    server = ServerConfig(
        rate_limit_enabled=False, serve_frontend=False, github_api_url=fake_github
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        response = await h.client.get("/api/user/info", headers={"X-GitHub-Token": GOOD_TOKEN})
        assert response.json()["login"] == "octo"
