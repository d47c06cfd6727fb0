"""A stand-in for a git provider's REST and GraphQL APIs on 127.0.0.1, for the service tests.

Routes map ``(method, path)`` to ``(status, body, headers)``, or to a responder that computes
that from the request; a body that is not a string is sent as JSON. Every request is
recorded (method, path, query, headers, JSON body).

``github_graphql`` is a responder for GitHub's GraphQL endpoint: it validates and executes
the query against a subset of GitHub's schema (graphql-core), so a misspelt field or a
missing variable fails as it would on GitHub.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from graphql import build_schema, graphql_sync

Reply = tuple[int, Any, dict[str, str]]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any = None


Responder = Callable[[Recorded], Reply]


@dataclass
class StandInAPI:
    routes: dict[tuple[str, str], Reply | Responder] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(
        self,
        path: str,
        body: Any,
        status: int = 200,
        headers: dict[str, str] | None = None,
        method: str = "GET",
    ) -> None:
        self.routes[(method, path)] = (status, body, headers or {})

    def respond(self, path: str, responder: Responder, method: str = "GET") -> None:
        """Answer ``method path`` with whatever ``responder`` makes of the request."""
        self.routes[(method, path)] = responder

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


@contextmanager
def stand_in_api() -> Iterator[StandInAPI]:
    api = StandInAPI()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            request = Recorded(
                method=method,
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else None,
            )
            api.requests.append(request)
            route = api.routes.get((method, parts.path), (404, {"message": "Not Found"}, {}))
            status, body, headers = route if isinstance(route, tuple) else route(request)
            if isinstance(body, str):
                payload, content_type = body.encode(), "text/plain; charset=utf-8"
            else:
                payload, content_type = json.dumps(body).encode(), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.port = server.server_address[1]
    # A short poll interval makes shutdown (once per test) quick.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --- GitHub GraphQL ----------------------------------------------------------------------

# The part of GitHub's GraphQL schema the services query, with GitHub's names and types.
GITHUB_SCHEMA = build_schema(
    """
    enum PullRequestState { OPEN CLOSED MERGED }
    enum MergeableState { CONFLICTING MERGEABLE UNKNOWN }
    enum StatusState { ERROR EXPECTED FAILURE PENDING SUCCESS }
    enum OrderDirection { ASC DESC }
    enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
    input IssueOrder { field: IssueOrderField!, direction: OrderDirection! }

    enum RefOrderField { ALPHABETICAL TAG_COMMIT_DATE }
    input RefOrder { field: RefOrderField!, direction: OrderDirection! }

    type Query { viewer: User!, repository(owner: String!, name: String!): Repository }
    type User {
      login: String!
      pullRequests(
        first: Int, last: Int, states: [PullRequestState!], orderBy: IssueOrder
      ): PullRequestConnection!
    }
    type PullRequestConnection { nodes: [PullRequest], totalCount: Int! }
    type PullRequest {
      number: Int!
      title: String!
      state: PullRequestState!
      repository: Repository!
      mergeable: MergeableState!
      commits(first: Int, last: Int): PullRequestCommitConnection!
      reviewThreads(first: Int, last: Int): PullRequestReviewThreadConnection!
    }
    type Repository {
      nameWithOwner: String!
      refs(
        refPrefix: String!, query: String, first: Int, last: Int, orderBy: RefOrder
      ): RefConnection
    }
    type RefConnection { nodes: [Ref], totalCount: Int! }
    type Ref { name: String!, target: GitObject, branchProtectionRule: BranchProtectionRule }
    type BranchProtectionRule { id: ID! }
    interface GitObject { oid: String! }
    type Tag implements GitObject { oid: String!, name: String! }
    type PullRequestCommitConnection { nodes: [PullRequestCommit], totalCount: Int! }
    type PullRequestCommit { commit: Commit! }
    type Commit implements GitObject {
      oid: String!
      committedDate: String!
      statusCheckRollup: StatusCheckRollup
    }
    type StatusCheckRollup { state: StatusState! }
    type PullRequestReviewThreadConnection { nodes: [PullRequestReviewThread], totalCount: Int! }
    type PullRequestReviewThread { isResolved: Boolean! }
    """
)


@dataclass
class StandInPullRequest:
    """A pull request as the GraphQL stand-in serves it."""

    repo: str
    number: int
    title: str = "PR"
    state: str = "OPEN"
    mergeable: str = "MERGEABLE"
    # The checks' combined state per commit, oldest first (the last is the head commit);
    # None for a commit without checks.
    checks: Sequence[str | None] = (None,)
    # ``isResolved`` of each review thread.
    threads: Sequence[bool] = ()


@dataclass
class StandInBranch:
    """A branch as the GraphQL stand-in serves it; ``tag`` makes it point at a tag."""

    name: str
    sha: str = "sha"
    committed_date: str = "2024-01-01T00:00:00Z"
    protected: bool = False
    tag: bool = False


def _ref_node(branch: StandInBranch) -> dict[str, Any]:
    if branch.tag:
        target = {"__typename": "Tag", "oid": branch.sha, "name": branch.name}
    else:
        target = {"__typename": "Commit", "oid": branch.sha, "committedDate": branch.committed_date}
    return {
        "name": branch.name,
        "target": target,
        "branchProtectionRule": {"id": f"rule-{branch.name}"} if branch.protected else None,
    }


def _window(items: list[Any], first: int | None, last: int | None) -> list[Any]:
    if first is not None:
        items = items[:first]
    if last is not None:
        items = items[-last:] if last else []
    return items


def _connection(items: list[Any]) -> Callable[..., dict[str, Any]]:
    def resolve(_info: Any, first: int | None = None, last: int | None = None) -> dict[str, Any]:
        return {"nodes": _window(items, first, last), "totalCount": len(items)}

    return resolve


def _pull_request_node(pr: StandInPullRequest) -> dict[str, Any]:
    commits = [
        {
            "commit": {
                "oid": f"sha{index}",
                "statusCheckRollup": {"state": state} if state else None,
            }
        }
        for index, state in enumerate(pr.checks)
    ]
    return {
        "number": pr.number,
        "title": pr.title,
        "state": pr.state,
        "repository": {"nameWithOwner": pr.repo},
        "mergeable": pr.mergeable,
        "commits": _connection(commits),
        "reviewThreads": _connection([{"isResolved": resolved} for resolved in pr.threads]),
    }


def github_graphql(
    login: str,
    pull_requests: Sequence[StandInPullRequest] = (),
    token: str = "tok",
    branches: dict[str, Sequence[StandInBranch]] | None = None,
) -> Responder:
    """A responder for ``POST /graphql``: GitHub's answer for the viewer ``login`` who wrote
    ``pull_requests``, with the ``branches`` of each ``owner/name`` repository. A request
    without ``Bearer <token>`` gets GitHub's 401."""
    nodes = [(pr.state, _pull_request_node(pr)) for pr in pull_requests]
    repositories = branches or {}

    def repository(_info: Any, owner: str, name: str) -> dict[str, Any] | None:
        full_name = f"{owner}/{name}"
        if full_name not in repositories:
            return None
        refs = sorted(repositories[full_name], key=lambda branch: branch.name)

        def ref_connection(
            _info: Any,
            refPrefix: str,
            query: str | None = None,
            first: int | None = None,
            last: int | None = None,
            orderBy: dict[str, str] | None = None,  # served by name, as asked
        ) -> dict[str, Any]:
            assert refPrefix == "refs/heads/", refPrefix
            chosen = [_ref_node(b) for b in refs if not query or query.lower() in b.name.lower()]
            return {"nodes": _window(chosen, first, last), "totalCount": len(chosen)}

        return {"nameWithOwner": full_name, "refs": ref_connection}

    def pull_request_connection(
        _info: Any,
        first: int | None = None,
        last: int | None = None,
        states: list[str] | None = None,
        orderBy: dict[str, str] | None = None,  # served in the given order
    ) -> dict[str, Any]:
        chosen = [node for state, node in nodes if not states or state in states]
        return {"nodes": _window(chosen, first, last), "totalCount": len(chosen)}

    def answer(request: Recorded) -> Reply:
        if request.headers.get("authorization") != f"Bearer {token}":
            return 401, {"message": "Bad credentials"}, {}
        body = request.body if isinstance(request.body, dict) else {}
        result = graphql_sync(
            GITHUB_SCHEMA,
            str(body.get("query", "")),
            root_value={
                "viewer": {"login": login, "pullRequests": pull_request_connection},
                "repository": repository,
            },
            variable_values=body.get("variables"),
        )
        payload: dict[str, Any] = {"data": result.data}
        if result.errors:
            payload["errors"] = [error.formatted for error in result.errors]
        return 200, payload, {}

    return answer
