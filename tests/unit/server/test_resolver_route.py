"""POST /api/resolver/conversations: input is validated, a token is required, the route is
documented. (The resolver run itself is covered end to end in tests/e2e/test_resolver.py.)"""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import Harness

URL = "/api/resolver/conversations"


@pytest.mark.parametrize(
    "body",
    [
        {"issue_number": 1},
        {"repository": "https://evil.example/x", "issue_number": 1},
        {"repository": "../etc", "issue_number": 1},
        {"repository": "owner/repo", "issue_number": 0},
        {"repository": "owner/repo", "issue_number": 1, "issue_type": "merge"},
        {"repository": "owner/repo", "issue_number": 1, "unknown": True},
    ],
)
async def test_bad_input_is_a_422_naming_the_field(harness: Harness, body: dict) -> None:
    response = await harness.client.post(URL, json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"


async def test_without_a_git_token_it_is_a_401(harness: Harness) -> None:
    response = await harness.client.post(URL, json={"repository": "owner/repo", "issue_number": 3})
    assert response.status_code == 401
    assert "token" in response.json().lower()


async def test_the_route_is_in_the_openapi_schema(harness: Harness) -> None:
    schema = (await harness.client.get("/openapi.json")).json()
    operation = schema["paths"][URL]["post"]
    assert {"401", "404", "429"} <= set(operation["responses"])
    body = schema["components"]["schemas"]["ResolveIssueRequest"]
    assert set(body["properties"]) == {
        "repository", "issue_number", "issue_type", "git_provider", "comment_id",
    }  # fmt: skip
