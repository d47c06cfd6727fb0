"""ProviderHandler across providers, against stand-ins of the providers' APIs."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

import pytest
from pydantic import SecretStr

from openhands.events.action import CmdRunAction, MessageAction
from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.service_types import AuthenticationError, ProviderType
from tests.unit.integrations.stand_in_api import (
    StandInAPI,
    StandInBranch,
    github_graphql,
    stand_in_api,
)


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def _handler(**tokens: ProviderToken) -> ProviderHandler:
    return ProviderHandler(MappingProxyType({ProviderType(k): v for k, v in tokens.items()}))


def _repo(full_name: str) -> dict[str, object]:
    return {"id": 1, "full_name": full_name, "private": True, "owner": {"type": "User"}}


def test_tokens_must_be_a_mapping_proxy() -> None:
    with pytest.raises(TypeError, match="provider_tokens must be a MappingProxyType, got dict"):
        ProviderHandler({})  # type: ignore[arg-type]
    handler = ProviderHandler(MappingProxyType({}))
    assert handler.provider_tokens == {}
    assert ProviderHandler.PROVIDER_DOMAINS[ProviderType.BITBUCKET] == "bitbucket.org"


def test_env_keys_and_command_references() -> None:
    assert ProviderHandler.get_provider_env_key(ProviderType.GITHUB) == "github_token"
    assert ProviderHandler.get_provider_env_key(ProviderType.GITLAB) == "gitlab_token"
    action = CmdRunAction(command="curl -H $GITHUB_TOKEN x && echo $gitlab_token")
    assert ProviderHandler.check_cmd_action_for_provider_token_ref(action) == [
        ProviderType.GITHUB,
        ProviderType.GITLAB,
    ]
    message = MessageAction(content="$GITHUB_TOKEN")
    assert ProviderHandler.check_cmd_action_for_provider_token_ref(message) == []


async def test_env_vars_and_event_stream_secrets() -> None:
    handler = _handler(
        github=ProviderToken(token=SecretStr("ghp")),
        gitlab=ProviderToken(token=SecretStr("glp")),
        bitbucket=ProviderToken(),
    )
    env = await handler.get_env_vars()
    assert env == {ProviderType.GITHUB: SecretStr("ghp"), ProviderType.GITLAB: SecretStr("glp")}
    exposed = await handler.get_env_vars(expose_secrets=True, providers=[ProviderType.GITLAB])
    assert exposed == {"gitlab_token": "glp"}
    assert await ProviderHandler(MappingProxyType({})).get_env_vars() == {}
    assert ProviderHandler.expose_env_vars({ProviderType.GITHUB: SecretStr("x")}) == {
        "github_token": "x"
    }

    class Stream:
        secrets: dict[str, str] = {}

        def set_secrets(self, secrets: dict[str, str]) -> None:
            self.secrets = secrets

    stream = Stream()
    await handler.set_event_stream_secrets(stream)
    assert stream.secrets == {"github_token": "ghp", "gitlab_token": "glp"}
    await handler.set_event_stream_secrets(stream, {ProviderType.GITLAB: SecretStr("only")})
    assert stream.secrets == {"gitlab_token": "only"}


async def test_verify_repo_provider_falls_back_and_fails(api: StandInAPI) -> None:
    api.add("/api/v4/projects/o%2Fr", {"id": 2, "path_with_namespace": "o/r"})
    handler = _handler(
        github=ProviderToken(token=SecretStr("ghp"), host=api.url),
        gitlab=ProviderToken(token=SecretStr("glp"), host=api.url),
    )
    repo = await handler.verify_repo_provider("o/r", ProviderType.GITHUB)
    assert repo.git_provider is ProviderType.GITLAB
    # GitHub was asked first, as specified, and did not have it.
    assert api.paths()[:2] == ["/api/v3/repos/o/r", "/api/v4/projects/o%2Fr"]
    with pytest.raises(AuthenticationError, match="Unable to access repo a/b"):
        await handler.verify_repo_provider("a/b")


async def test_authenticated_git_urls(api: StandInAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    # No host on the tokens: the public domains are used; the API calls go to the stand-in.
    monkeypatch.setenv("GITHUB_API_URL", f"{api.url}/api/v3")
    monkeypatch.setenv("GITLAB_API_URL", f"{api.url}/api/v4")
    monkeypatch.setenv("BITBUCKET_API_URL", f"{api.url}/2.0")
    api.add("/api/v4/projects/o%2Fr", {"id": 2, "path_with_namespace": "o/r"})
    gitlab = _handler(gitlab=ProviderToken(token=SecretStr("t")))
    assert await gitlab.get_authenticated_git_url("o/r") == "https://oauth2:t@gitlab.com/o/r.git"

    api.add("/api/v3/repos/o/r", _repo("o/r"))
    github = _handler(github=ProviderToken(token=SecretStr("g")))
    assert await github.get_authenticated_git_url("o/r") == "https://g@github.com/o/r.git"

    api.add("/2.0/repositories/w/r", {"uuid": "u", "full_name": "w/r"})
    app_password = _handler(bitbucket=ProviderToken(token=SecretStr("me:pw")))
    assert (
        await app_password.get_authenticated_git_url("w/r") == "https://me:pw@bitbucket.org/w/r.git"
    )
    oauth = _handler(bitbucket=ProviderToken(token=SecretStr("b")))
    assert (
        await oauth.get_authenticated_git_url("w/r")
        == "https://x-token-auth:b@bitbucket.org/w/r.git"
    )

    with pytest.raises(Exception, match="Git provider authentication issue"):
        await github.get_authenticated_git_url("no/such")


async def test_git_url_uses_the_token_host(api: StandInAPI) -> None:
    api.add("/api/v3/repos/o/r", _repo("o/r"))
    handler = _handler(github=ProviderToken(token=SecretStr("g"), host=api.url))
    host = api.url.removeprefix("http://")
    assert await handler.get_authenticated_git_url("o/r") == f"http://g@{host}/o/r.git"


async def test_user_repositories_branches_and_pr_state(api: StandInAPI) -> None:
    handler = _handler(github=ProviderToken(token=SecretStr("g"), host=api.url))
    with pytest.raises(AuthenticationError):
        await handler.get_user()
    api.add("/api/v3/user", {"id": 1, "login": "octo", "avatar_url": ""})
    assert (await handler.get_user()).login == "octo"

    api.add("/api/v3/user/repos", [_repo("o/r")])
    all_repos = await handler.get_repositories("pushed", None, None, None, None, None)
    assert [r.full_name for r in all_repos] == ["o/r"]
    paged = await handler.get_repositories("pushed", None, ProviderType.GITHUB, 1, 10, None)
    assert api.requests[-1].query["per_page"] == ["10"]
    assert [r.full_name for r in paged] == ["o/r"]

    api.add("/api/v3/repos/o/r", _repo("o/r"))
    api.add("/api/v3/repos/o/r/branches", [{"name": "main", "commit": {"sha": "s"}}])
    graphql = github_graphql("octo", token="g", branches={"o/r": [StandInBranch("main")]})
    api.respond("/api/graphql", graphql, method="POST")
    branches = await handler.get_branches("o/r")
    assert [b.name for b in branches.branches] == ["main"]
    assert [b.name for b in await handler.search_branches(None, "o/r", "ma")] == ["main"]
    empty = await handler.get_branches("x/y", page=2, per_page=5)
    assert (empty.branches, empty.current_page, empty.per_page) == ([], 2, 5)

    api.add("/api/v3/repos/o/r/pulls/1", {"state": "closed"})
    assert not await handler.is_pr_open("o/r", 1, ProviderType.GITHUB)
    # Unknown (the stand-in has no PR 2): assumed open.
    assert await handler.is_pr_open("o/r", 2, ProviderType.GITHUB)


async def test_installations_and_workspaces(api: StandInAPI) -> None:
    api.add("/api/v3/user/installations", {"installations": [{"id": 12}]})
    api.add("/2.0/workspaces", {"values": [{"slug": "ws"}]})
    handler = _handler(
        github=ProviderToken(token=SecretStr("g"), host=api.url),
        bitbucket=ProviderToken(token=SecretStr("b"), host=api.url),
    )
    assert await handler.get_github_installations() == ["12"]
    assert await handler.get_bitbucket_workspaces() == ["ws"]
    assert await _handler().get_github_installations() == []
