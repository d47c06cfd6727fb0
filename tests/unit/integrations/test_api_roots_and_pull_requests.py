"""The services' API roots (``api_url``, ``ProviderHandler.with_api_urls``), opening pull and
merge requests, and the error messages of failed requests, against a stand-in API."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from types import MappingProxyType

import pytest
from pydantic import SecretStr

from openhands.integrations.bitbucket.bitbucket_service import BitBucketService
from openhands.integrations.github.github_service import GitHubService
from openhands.integrations.gitlab.gitlab_service import GitLabService
from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.service_types import (
    AuthenticationError,
    ProviderType,
    UnknownException,
)
from openhands.integrations.utils import validate_provider_token
from tests.unit.integrations.stand_in_api import StandInAPI, stand_in_api

TOKEN = SecretStr("tok")


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def test_api_url_replaces_the_environment_but_not_a_self_hosted_domain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", "http://from-env")
    monkeypatch.setenv("GITLAB_API_URL", "http://from-env/api/v4")
    assert GitHubService(api_url="http://given/").BASE_URL == "http://given"
    assert GitHubService(base_domain="github.com", api_url="http://given").BASE_URL == (
        "http://given"
    )
    assert GitHubService(base_domain="ghe.corp", api_url="http://given").BASE_URL == (
        "https://ghe.corp/api/v3"
    )
    assert GitHubService().BASE_URL == "http://from-env"
    assert GitLabService(api_url="http://gl/api/v4").BASE_URL == "http://gl/api/v4"
    assert GitLabService().BASE_URL == "http://from-env/api/v4"
    assert BitBucketService(api_url="http://bb/2.0").BASE_URL == "http://bb/2.0"


def test_handler_passes_api_urls_only_where_given() -> None:
    tokens = MappingProxyType(
        {
            ProviderType.GITHUB: ProviderToken(token=TOKEN, host="github.com"),
            ProviderType.GITLAB: ProviderToken(token=TOKEN),
        }
    )
    handler = ProviderHandler(tokens).with_api_urls({ProviderType.GITHUB: "http://stand-in"})
    assert handler.get_service(ProviderType.GITHUB).BASE_URL == "http://stand-in"
    assert handler.get_service(ProviderType.GITLAB).BASE_URL.endswith("/api/v4")
    with pytest.raises(KeyError):
        handler.get_service(ProviderType.BITBUCKET)


async def test_validate_only_the_named_providers(api: StandInAPI) -> None:
    api.add("/api/v4/user", {"id": 3, "username": "gl", "avatar_url": ""})
    api.add("/user", {"id": 1, "login": "octo", "avatar_url": ""})
    found = await validate_provider_token(
        TOKEN,
        "gitlab.com",
        providers=(ProviderType.GITLAB,),
        api_urls={ProviderType.GITLAB: f"{api.url}/api/v4"},
    )
    assert found is ProviderType.GITLAB
    assert api.paths() == ["/api/v4/user"]
    as_bitbucket = await validate_provider_token(
        TOKEN, api.url, providers=(ProviderType.BITBUCKET,)
    )
    assert as_bitbucket is None
    assert api.paths()[-1] == "/2.0/user"
    as_github = await validate_provider_token(
        TOKEN, None, providers=(ProviderType.GITHUB,), api_urls={ProviderType.GITHUB: api.url}
    )
    assert as_github is ProviderType.GITHUB


async def test_github_create_pr(api: StandInAPI) -> None:
    api.add(
        "/repos/o/r/pulls",
        {"number": 7, "html_url": "https://gh/o/r/pull/7"},
        status=201,
        method="POST",
    )
    service = GitHubService(token=TOKEN, api_url=api.url)
    url = await service.create_pr("o/r", "feature", "main", "Add x", "Body", draft=False)
    assert url == "https://gh/o/r/pull/7"
    [sent] = api.requests
    assert (sent.method, sent.headers["authorization"]) == ("POST", "Bearer tok")
    assert sent.body == {
        "title": "Add x",
        "head": "feature",
        "base": "main",
        "body": "Body",
        "draft": False,
    }


async def test_github_refusal_names_status_and_reason(api: StandInAPI) -> None:
    api.add(
        "/repos/o/r/pulls",
        {"message": "Validation Failed", "errors": [{"field": "head"}]},
        status=422,
        method="POST",
    )
    with pytest.raises(UnknownException) as refused:
        await GitHubService(token=TOKEN, api_url=api.url).create_pr("o/r", "x", "main", "T")
    assert str(refused.value) == (
        "GitHub refused the request (422): Validation Failed [{'field': 'head'}]"
    )
    api.add("/repos/o/r/pulls", {"message": "Bad credentials"}, status=401, method="POST")
    with pytest.raises(AuthenticationError, match=r"\(401\): Bad credentials"):
        await GitHubService(token=TOKEN, api_url=api.url).create_pr("o/r", "x", "main", "T")


async def test_gitlab_create_mr(api: StandInAPI) -> None:
    api.add(
        "/api/v4/projects/g%2Fp/merge_requests",
        {"iid": 5, "web_url": "https://gl/g/p/-/merge_requests/5"},
        status=201,
        method="POST",
    )
    service = GitLabService(token=TOKEN, base_domain=api.url)
    url = await service.create_mr("g/p", "b", "main", "T")
    assert url == "https://gl/g/p/-/merge_requests/5"
    assert api.requests[-1].body == {
        "source_branch": "b",
        "target_branch": "main",
        "title": "T",
        "description": "",
    }
    api.add("/api/v4/projects/g%2Fp/merge_requests", {"iid": 6}, status=201, method="POST")
    with pytest.raises(UnknownException, match="did not return"):
        await service.create_mr("g/p", "b", "main", "T")


async def test_bitbucket_create_pr(api: StandInAPI) -> None:
    api.add(
        "/2.0/repositories/ws/r/pullrequests",
        {"id": 3, "links": {"html": {"href": "https://bb/ws/r/pull-requests/3"}}},
        status=201,
        method="POST",
    )
    service = BitBucketService(token=SecretStr("me:pw"), base_domain=api.url)
    url = await service.create_pr("ws/r", "b", "main", "T", "D")
    assert url == "https://bb/ws/r/pull-requests/3"
    sent = api.requests[-1]
    assert sent.headers["authorization"] == "Basic " + base64.b64encode(b"me:pw").decode()
    assert sent.body == {
        "title": "T",
        "description": "D",
        "source": {"branch": {"name": "b"}},
        "destination": {"branch": {"name": "main"}},
    }
    api.add(
        "/2.0/repositories/ws/r/pullrequests",
        {"type": "error", "error": {"message": "branch not found"}},
        status=400,
        method="POST",
    )
    with pytest.raises(UnknownException, match=r"refused the request \(400\): branch not found"):
        await service.create_pr("ws/r", "b", "main", "T")
