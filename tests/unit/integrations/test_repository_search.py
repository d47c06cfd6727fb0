"""Repository search: pasted URLs looked up at the provider that hosts them, and text
searched only where the user can reach, against stand-ins of the providers' APIs."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

import pytest
from pydantic import SecretStr

from openhands.integrations.bitbucket.bitbucket_service import BitBucketService
from openhands.integrations.github.github_service import GitHubService
from openhands.integrations.gitlab.gitlab_service import GitLabService
from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.repository_urls import gitlab_project_from_url, repository_from_url
from openhands.integrations.service_types import ProviderType
from tests.unit.integrations.stand_in_api import Recorded, Reply, StandInAPI, stand_in_api

TOKEN = SecretStr("tok")


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def _github_repo(full_name: str, repo_id: int = 1) -> dict[str, object]:
    return {"id": repo_id, "full_name": full_name, "private": False, "owner": {"type": "User"}}


def test_urls_name_repositories() -> None:
    assert repository_from_url("https://github.com/o/r") == "o/r"
    assert repository_from_url("https://github.com/o/r.git") == "o/r"
    assert repository_from_url("https://bitbucket.org/w/r/src/main/a.py?at=x#l-2") == "w/r"
    assert repository_from_url("https://bitbucket.org/w") is None
    assert repository_from_url("o/r") is None
    assert repository_from_url("ftp://github.com/o/r") is None
    assert gitlab_project_from_url("https://gitlab.com/g/sub/p") == "g/sub/p"
    assert gitlab_project_from_url("https://gitlab.com/g/p/-/tree/main/src") == "g/p"
    assert gitlab_project_from_url("https://git.corp/g/p.git/") == "g/p"
    assert gitlab_project_from_url("https://gitlab.com/g/-/issues") is None
    assert gitlab_project_from_url("not a url") is None


async def test_a_pasted_url_is_looked_up_only_at_its_provider() -> None:
    with stand_in_api() as github, stand_in_api() as gitlab, stand_in_api() as bitbucket:
        github.add("/api/v3/repos/o/r", _github_repo("o/r"))
        gitlab.add(
            "/api/v4/projects/g%2Fsub%2Fp",
            {"id": 7, "path_with_namespace": "g/sub/p", "visibility": "public"},
        )
        bitbucket.add(
            "/2.0/repositories/w/r", {"uuid": "{b}", "full_name": "w/r", "is_private": False}
        )
        handler = ProviderHandler(
            MappingProxyType(
                {
                    ProviderType.GITHUB: ProviderToken(token=TOKEN, host=github.url),
                    ProviderType.GITLAB: ProviderToken(token=TOKEN, host=gitlab.url),
                    ProviderType.BITBUCKET: ProviderToken(token=TOKEN, host=bitbucket.url),
                }
            )
        )

        found = await handler.search_repositories(
            None, f"{gitlab.url}/g/sub/p/-/tree/main", 10, "pushed", "desc"
        )
        assert [(r.git_provider, r.full_name) for r in found] == [(ProviderType.GITLAB, "g/sub/p")]
        found = await handler.search_repositories(
            None, f"{bitbucket.url}/w/r/src/main/README.md", 10, "pushed", "desc"
        )
        assert [(r.git_provider, r.full_name) for r in found] == [(ProviderType.BITBUCKET, "w/r")]
        found = await handler.search_repositories(
            ProviderType.GITHUB, f"{github.url}/o/r/pulls", 10, "pushed", "desc"
        )
        assert [(r.git_provider, r.full_name) for r in found] == [(ProviderType.GITHUB, "o/r")]
        # The URL of one provider is never sent to another as search text.
        assert github.paths() == ["/api/v3/repos/o/r"]
        assert gitlab.paths() == ["/api/v4/projects/g%2Fsub%2Fp"]
        assert bitbucket.paths() == ["/2.0/repositories/w/r"]

        # A URL no provider hosts, or a repository its provider does not know: nothing.
        assert (
            await handler.search_repositories(None, "https://example.com/o/r", 10, "pushed", "desc")
            == []
        )
        assert (
            await handler.search_repositories(None, f"{github.url}/o/missing", 10, "pushed", "desc")
            == []
        )


def test_which_hosts_count_as_the_providers() -> None:
    public = ProviderHandler(MappingProxyType({ProviderType.GITLAB: ProviderToken(token=TOKEN)}))
    assert public.is_repository_url("https://gitlab.com/g/p", ProviderType.GITLAB)
    assert not public.is_repository_url("https://github.com/o/r", ProviderType.GITLAB)
    custom = ProviderHandler(
        MappingProxyType({ProviderType.GITLAB: ProviderToken(token=TOKEN, host="git.corp:8443")})
    )
    assert custom.is_repository_url("https://git.corp:8443/g/p", ProviderType.GITLAB)
    assert not custom.is_repository_url("https://git.corp:9000/g/p", ProviderType.GITLAB)
    assert not custom.is_repository_url("https://git.corp:port/g/p", ProviderType.GITLAB)
    assert custom.is_repository_url("https://gitlab.com/g/p", ProviderType.GITLAB)


async def test_github_text_search_covers_the_user_and_their_organizations(
    api: StandInAPI,
) -> None:
    api.add("/api/v3/user", {"id": 1, "login": "octo", "avatar_url": ""})
    api.add("/api/v3/user/orgs", [{"login": "Open-Hands"}, {"login": "acme"}])
    hits = {
        "in:name hands user:octo": [_github_repo("octo/hands", 1)],
        "hands org:Open-Hands": [_github_repo("Open-Hands/agent", 2)],
        "hands org:acme": [],
        # Open-Hands looks like the text: its most-starred repositories come too, without
        # the one already found.
        "org:Open-Hands": [_github_repo("Open-Hands/agent", 2), _github_repo("Open-Hands/x", 3)],
    }

    def search(request: Recorded) -> Reply:
        return 200, {"items": hits[request.query["q"][0]]}, {}

    api.respond("/api/v3/search/repositories", search)
    service = GitHubService(token=TOKEN, base_domain=api.url)
    found = await service.search_repositories("hands", 5, "updated", "desc", False)
    assert [r.full_name for r in found] == ["octo/hands", "Open-Hands/agent", "Open-Hands/x"]
    asked = [r.query for r in api.requests if r.path == "/api/v3/search/repositories"]
    assert [q["q"][0] for q in asked] == list(hits)
    assert asked[-1]["sort"] == ["stars"] and asked[-1]["per_page"] == ["2"]
    assert asked[0]["sort"] == ["updated"] and asked[0]["per_page"] == ["5"]

    # `owner/text` searches that owner's repositories by name.
    hits["org:o in:name ag"] = [_github_repo("o/agent")]
    found = await service.search_repositories("o/ag", 5, "updated", "desc", False)
    assert [r.full_name for r in found] == ["o/agent"]


async def test_github_search_survives_a_failing_scope(api: StandInAPI) -> None:
    api.add("/api/v3/user", {"id": 1, "login": "octo", "avatar_url": ""})
    # No /user/orgs route: GitHub's 404 means no organizations to search.
    api.add("/api/v3/search/repositories", {"items": [_github_repo("octo/a")]})
    service = GitHubService(token=TOKEN, base_domain=api.url)
    assert await service.get_user_organizations() == []
    found = await service.search_repositories("a", 5, "updated", "desc", False)
    assert [r.full_name for r in found] == ["octo/a"]


async def test_gitlab_text_search_asks_for_member_projects_and_namespaces(
    api: StandInAPI,
) -> None:
    api.add("/api/v4/projects", [{"id": 1, "path_with_namespace": "g/p"}])
    service = GitLabService(token=TOKEN, base_domain=api.url)
    found = await service.search_repositories("my proj", 20, "created", "asc", False)
    assert [r.full_name for r in found] == ["g/p"]
    query = api.requests[-1].query
    assert query["search"] == ["my proj"] and query["search_namespaces"] == ["true"]
    assert query["membership"] == ["true"] and query["per_page"] == ["20"]
    assert query["order_by"] == ["created_at"] and "visibility" not in query
    # `public` means a pasted URL: text that is no URL asks GitLab nothing.
    asked = len(api.requests)
    assert await service.search_repositories("my proj", public=True) == []
    assert len(api.requests) == asked


async def test_bitbucket_filters_quote_what_the_user_typed(api: StandInAPI) -> None:
    api.add("/2.0/repositories", {"values": [{"uuid": "{1}", "full_name": "w/r"}]})
    api.add(
        "/2.0/repositories/w/r/refs/branches",
        {"values": [{"name": "fix/1", "target": {"hash": "h", "date": "2024-01-02"}}]},
    )
    service = BitBucketService(token=TOKEN, base_domain=api.url)
    await service.search_repositories('say "hi"', 10, "pushed", "desc", False)
    assert api.requests[-1].query["q"] == ['name~"say \\"hi\\""']
    branches = await service.search_branches("w/r", "fix", per_page=15)
    assert [(b.name, b.commit_sha, b.last_push_date) for b in branches] == [
        ("fix/1", "h", "2024-01-02")
    ]
    query = api.requests[-1].query
    assert query["q"] == ['name~"fix"'] and query["sort"] == ["-target.date"]
    assert query["pagelen"] == ["15"]
