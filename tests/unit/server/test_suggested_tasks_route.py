"""GET /api/user/suggested-tasks answers the wire format of server-api §6.6 with a token,
against a stand-in GitHub over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from tests.unit.integrations.stand_in_api import Recorded, Reply, StandInAPI, stand_in_api
from tests.unit.server.conftest import build_app, running

TOKEN = "ghp_route"
TASK_TYPES = {
    "MERGE_CONFLICTS",
    "FAILING_CHECKS",
    "UNRESOLVED_COMMENTS",
    "OPEN_ISSUE",
    "OPEN_PR",
    "CREATE_MICROAGENT",
}


@pytest.fixture
def github() -> Iterator[StandInAPI]:
    with stand_in_api() as api:
        api.add("/user", {"id": 1, "login": "octo", "avatar_url": ""})

        def search(request: Recorded) -> Reply:
            query = request.query.get("q", [""])[0]
            kind, number = ("pr", 5) if "is:pr" in query else ("issue", 9)
            hit = {
                "number": number,
                "title": f"A {kind}",
                "repository_url": "https://api.github.com/repos/octo/hello",
            }
            return 200, {"items": [hit]}, {}

        api.respond("/search/issues", search)
        yield api


async def test_suggested_tasks_wire_format(
    app_config: OpenHandsConfig, workspace: Path, github: StandInAPI
) -> None:
    server = ServerConfig(rate_limit_enabled=False, serve_frontend=False, github_api_url=github.url)
    async with running(build_app(app_config, server, workspace), workspace) as h:
        missing = await h.client.get("/api/user/suggested-tasks")
        assert missing.status_code == 401 and missing.json() == "No providers set."

        response = await h.client.get(
            "/api/user/suggested-tasks", headers={"X-GitHub-Token": TOKEN}
        )
        assert response.status_code == 200
        tasks = response.json()
        assert isinstance(tasks, list) and tasks
        for task in tasks:
            assert set(task) == {"git_provider", "task_type", "repo", "issue_number", "title"}
            assert task["git_provider"] == "github"
            assert task["task_type"] in TASK_TYPES
            assert isinstance(task["issue_number"], int)
        by_number = {task["issue_number"]: task for task in tasks}
        assert by_number[9] == {
            "git_provider": "github",
            "task_type": "OPEN_ISSUE",
            "repo": "octo/hello",
            "issue_number": 9,
            "title": "A issue",
        }
        assert by_number[5]["repo"] == "octo/hello"
        assert by_number[5]["task_type"] in {
            "MERGE_CONFLICTS",
            "FAILING_CHECKS",
            "UNRESOLVED_COMMENTS",
            "OPEN_PR",
        }
        assert github.requests[-1].headers["authorization"] == f"Bearer {TOKEN}"
