"""Git-provider access for the `/api/user/*` routes, repository checks and token checks.

Only GitHub is implemented (REST v3, against a configurable base URL so tests can stand a
local server in for it). Provider failures are translated here, once, into the server's
error types.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.errors import (
    PlainTextError,
    ProviderAuthError,
    ProviderTokenRequiredError,
)
from openhands.server.models.git import (
    Branch,
    GitUser,
    PaginatedBranches,
    RepoMicroagent,
    RepoMicroagentContent,
    Repository,
    SuggestedTaskOut,
)

if TYPE_CHECKING:
    import httpx

# httpx and frontmatter are imported where they are used: the server starts without them.
_TIMEOUT_SECONDS = 15.0
_NEXT_LINK = re.compile(r'<[^>]+>;\s*rel="next"')
MICROAGENTS_DIR = ".openhands/microagents"


class ProviderRequestError(PlainTextError):
    """The provider answered with an error (or not at all): 502 with a string body (0.59
    answered 500; the failure is upstream, not this server's)."""

    def __init__(self, text: str, status: int = 502) -> None:
        super().__init__(text, status)


def is_plausible_token(token: str) -> bool:
    """Provider tokens are printable ASCII without spaces; anything else cannot even be
    sent in an HTTP header (0.59 crashed with a 500 on a non-ASCII token)."""
    return token.isascii() and token.isprintable() and not any(c.isspace() for c in token)


class GitHubClient:
    def __init__(self, token: ProviderToken, default_api_url: str) -> None:
        if not token.has_token:
            raise ProviderTokenRequiredError()
        host = token.host
        if host and host not in ("github.com", "api.github.com"):
            base = host if host.startswith("http") else f"https://{host}"
            self.base_url = f"{base.rstrip('/')}/api/v3"
        else:
            self.base_url = default_api_url.rstrip("/")
        secret = token.token.get_secret_value() if token.token else ""
        if not is_plausible_token(secret):
            raise ProviderAuthError()
        self.headers = {
            "Authorization": f"Bearer {secret}",
            "Accept": "application/vnd.github+json",
        }

    async def _get(self, path: str, params: Mapping[str, Any] | None = None) -> httpx.Response:
        import httpx

        try:
            async with httpx.AsyncClient(timeout=_TIMEOUT_SECONDS) as client:
                response = await client.get(
                    f"{self.base_url}{path}", params=params, headers=self.headers
                )
        except (httpx.HTTPError, httpx.InvalidURL, UnicodeError, ValueError) as error:
            # Unreachable, or a host / path that makes no URL: nothing came back.
            raise ProviderRequestError(f"Error reaching GitHub: {error}") from error
        if response.status_code == 401:
            raise ProviderAuthError()
        if response.status_code == 404:
            raise ProviderRequestError(f"GitHub found nothing at {path}", 404)
        if response.status_code >= 400:
            raise ProviderRequestError(f"GitHub answered {response.status_code} for {path}")
        return response

    # --- user ----------------------------------------------------------------------------

    async def get_user(self) -> GitUser:
        data = (await self._get("/user")).json()
        return GitUser(
            id=str(data.get("id", "")),
            login=data.get("login", ""),
            avatar_url=data.get("avatar_url") or "",
            company=data.get("company"),
            name=data.get("name"),
            email=data.get("email"),
        )

    async def verify_token(self) -> bool:
        try:
            await self._get("/user")
        except (ProviderAuthError, ProviderRequestError):
            return False
        return True

    async def get_installations(self) -> list[str]:
        data = (await self._get("/user/installations")).json()
        return [str(item["id"]) for item in data.get("installations", [])]

    # --- repositories --------------------------------------------------------------------

    async def get_repository(self, full_name: str) -> Repository:
        data = (await self._get(f"/repos/{full_name}")).json()
        return _repository(data)

    async def get_repositories(
        self, sort: str, page: int | None, per_page: int | None, installation_id: str | None
    ) -> list[Repository]:
        params: dict[str, Any] = {"page": page or 1, "per_page": per_page or 100}
        if installation_id:
            response = await self._get(
                f"/user/installations/{installation_id}/repositories", params
            )
            items = response.json().get("repositories", [])
        else:
            response = await self._get("/user/repos", {**params, "sort": sort})
            items = response.json()
        repositories = [_repository(item) for item in items]
        link = response.headers.get("link")
        if repositories and link:
            repositories[0].link_header = link
        return repositories

    async def search_repositories(
        self, query: str, per_page: int, sort: str, order: str
    ) -> list[Repository]:
        params = {"q": query, "per_page": per_page, "sort": sort, "order": order}
        items = (await self._get("/search/repositories", params)).json().get("items", [])
        return [_repository(item) for item in items]

    # --- branches ------------------------------------------------------------------------

    async def get_branches(self, repository: str, page: int, per_page: int) -> PaginatedBranches:
        response = await self._get(
            f"/repos/{repository}/branches", {"page": page, "per_page": per_page}
        )
        branches = [_branch(item) for item in response.json()]
        has_next = bool(_NEXT_LINK.search(response.headers.get("link", "")))
        return PaginatedBranches(
            branches=branches,
            has_next_page=has_next,
            current_page=page,
            per_page=per_page,
            total_count=None,
        )

    async def search_branches(self, repository: str, query: str, per_page: int) -> list[Branch]:
        response = await self._get(f"/repos/{repository}/branches", {"per_page": 100})
        needle = query.lower()
        matches = [_branch(item) for item in response.json() if needle in item["name"].lower()]
        return matches[:per_page]

    # --- suggested tasks -----------------------------------------------------------------

    async def get_suggested_tasks(self) -> list[SuggestedTaskOut]:
        login = (await self.get_user()).login
        tasks: list[SuggestedTaskOut] = []
        for query, task_type in (
            (f"is:pr is:open author:{login}", "OPEN_PR"),
            (f"is:issue is:open assignee:{login}", "OPEN_ISSUE"),
        ):
            items = (await self._get("/search/issues", {"q": query, "per_page": 30})).json()
            for item in items.get("items", []):
                repo = "/".join(item.get("repository_url", "").rstrip("/").split("/")[-2:])
                tasks.append(
                    SuggestedTaskOut(
                        git_provider=ProviderType.GITHUB,
                        task_type=task_type,  # type: ignore[arg-type]
                        repo=repo,
                        issue_number=item["number"],
                        title=item.get("title", ""),
                    )
                )
        return tasks

    # --- microagents ---------------------------------------------------------------------

    async def get_microagents(self, repository: str) -> list[RepoMicroagent]:
        try:
            response = await self._get(f"/repos/{repository}/contents/{MICROAGENTS_DIR}")
        except ProviderRequestError:
            return []
        found: list[RepoMicroagent] = []
        for item in response.json():
            name = item.get("name", "")
            if item.get("type") != "file" or not name.endswith(".md") or name == "README.md":
                continue
            commits = (
                await self._get(
                    f"/repos/{repository}/commits", {"path": item["path"], "per_page": 1}
                )
            ).json()
            created = commits[0]["commit"]["committer"]["date"] if commits else ""
            found.append(RepoMicroagent(name=name[:-3], path=item["path"], created_at=created))
        return found

    async def get_microagent_content(
        self, repository: str, file_path: str
    ) -> RepoMicroagentContent:
        response = await self._get(f"/repos/{repository}/contents/{file_path}")
        data = response.json()
        text = base64.b64decode(data.get("content", "")).decode("utf-8", errors="replace")
        import frontmatter

        post = frontmatter.loads(text)
        triggers = post.metadata.get("triggers") or []
        if not isinstance(triggers, list):
            triggers = [triggers]
        return RepoMicroagentContent(
            content=post.content,
            path=file_path,
            triggers=[str(trigger) for trigger in triggers],
            git_provider=ProviderType.GITHUB,
        )


def _repository(data: Mapping[str, Any]) -> Repository:
    owner = data.get("owner") or {}
    return Repository(
        id=str(data.get("id", "")),
        full_name=data.get("full_name", ""),
        git_provider=ProviderType.GITHUB,
        is_public=not data.get("private", False),
        stargazers_count=data.get("stargazers_count"),
        pushed_at=data.get("pushed_at"),
        owner_type="organization" if owner.get("type") == "Organization" else "user",
        main_branch=data.get("default_branch"),
    )


def _branch(data: Mapping[str, Any]) -> Branch:
    return Branch(
        name=data["name"],
        commit_sha=(data.get("commit") or {}).get("sha", ""),
        protected=bool(data.get("protected", False)),
    )


class GitProviders:
    """The caller's provider tokens, and a client per provider."""

    def __init__(
        self, tokens: Mapping[ProviderType, ProviderToken] | None, github_api_url: str
    ) -> None:
        self.tokens = {p: t for p, t in (tokens or {}).items() if t.has_token}
        self.github_api_url = github_api_url

    def client(
        self,
        provider: ProviderType | None = None,
        missing: str = "Git provider token required. (such as GitHub).",
    ) -> GitHubClient:
        if not self.tokens:
            raise ProviderTokenRequiredError(missing)
        chosen = provider or next(iter(self.tokens))
        token = self.tokens.get(chosen)
        if token is None:
            raise ProviderTokenRequiredError(missing)
        if chosen is not ProviderType.GITHUB:
            raise ProviderRequestError(
                f"Provider {chosen.value} is not supported by this server", 400
            )
        return GitHubClient(token, self.github_api_url)

    async def verify_repository(self, repository: str, provider: ProviderType | None) -> bool:
        """Whether some provider with a token can read ``repository``."""
        order = [provider] if provider in self.tokens else []
        order += [p for p in self.tokens if p not in order]
        for candidate in order:
            if candidate is not ProviderType.GITHUB:
                continue
            try:
                await GitHubClient(self.tokens[candidate], self.github_api_url).get_repository(
                    repository
                )
                return True
            except (ProviderAuthError, ProviderRequestError):
                continue
        return False
