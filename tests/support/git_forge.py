"""Stand-in forges (GitHub Enterprise, self-hosted GitLab, Bitbucket) for the resolver's
end-to-end tests.

One HTTPS server on 127.0.0.1 plays both halves of a forge: the REST/GraphQL API the
resolver's handlers call and a real git server for clone and push (``git http-backend``
over CGI, repositories under ``<root>/git``). Both check the token. The API is the one of
``ForgeState.flavour``:

- ``github``: ``/api/v3`` and ``/api/graphql`` (GitHub Enterprise layout);
- ``gitlab``: ``/api/v4`` (self-hosted GitLab; ``owner`` may be a nested group);
- ``bitbucket``: ``/2.0`` (the resolver calls it on ``api.<domain>``; see
  ``tests.support.localhost_proxy`` for reaching that name on loopback).

Everything the API is asked to create (pull/merge requests, comments, thread replies) is
recorded, and so is the host each API request was addressed to; ``rate_limited`` makes the
API answer like an exhausted quota.
"""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, quote, urlsplit

from tests.support.tls_certs import Issued

GIT_HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"

Flavour = Literal["github", "gitlab", "bitbucket"]
Answer = tuple[int, Any] | None
# The "who am I" request of each API: the resolver's token check, never rate limited.
USER_PATHS = {"github": "/api/v3/user", "gitlab": "/api/v4/user", "bitbucket": "/2.0/user"}


@dataclass
class ForgeState:
    owner: str
    repo: str
    token: str
    flavour: Flavour = "github"
    issues: list[dict[str, Any]] = field(default_factory=list)
    pulls: list[dict[str, Any]] = field(default_factory=list)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # GraphQL answer per PR number (the `pullRequest` object).
    pr_metadata: dict[int, dict[str, Any]] = field(default_factory=dict)
    created_pulls: list[dict[str, Any]] = field(default_factory=list)
    posted_comments: list[tuple[int, str]] = field(default_factory=list)
    thread_replies: list[dict[str, Any]] = field(default_factory=list)
    # (method, Host header, path) of every API request.
    api_requests: list[tuple[str, str, str]] = field(default_factory=list)
    rate_limited: bool = False


class GitForge:
    def __init__(self, root: Path, tls: Issued, state: ForgeState, host: str = "127.0.0.1") -> None:
        """``host`` is the name clients use for the forge (its certificate must cover it);
        the server itself listens on 127.0.0.1."""
        self.root = root
        self.state = state
        self.host = host
        self.git_root = root / "git"
        self.git_root.mkdir(parents=True, exist_ok=True)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(tls.cert), str(tls.key))
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def domain(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def bare_repo(self) -> Path:
        return self.git_root / self.state.owner / f"{self.state.repo}.git"

    def __enter__(self) -> GitForge:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def branches(self) -> dict[str, str]:
        out = subprocess.run(
            ["git", "--git-dir", str(self.bare_repo), "for-each-ref", "refs/heads",
             "--format=%(refname:short) %(objectname)"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return dict(line.split(" ", 1) for line in out.splitlines())

    def show(self, ref: str, path: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(self.bare_repo), "show", f"{ref}:{path}"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip


# --- the APIs --------------------------------------------------------------------------------


def _paged(items: list[Any], page: int) -> tuple[int, Any]:
    return 200, items if page == 1 else []


def _github_api(forge: GitForge, method: str, path: str, page: int, data: Any) -> Answer:
    state = forge.state
    repo_path = f"/api/v3/repos/{state.owner}/{state.repo}"
    if path == "/api/v3/user":
        return 200, {"login": "resolver-bot", "id": 7}
    if path == repo_path:
        return 200, {"default_branch": "main", "full_name": f"{state.owner}/{state.repo}"}
    if path == f"{repo_path}/issues" and method == "GET":
        return _paged(state.issues, page)
    if path == f"{repo_path}/pulls" and method == "GET":
        return _paged(state.pulls, page)
    if path == f"{repo_path}/pulls" and method == "POST":
        number = 100 + len(state.created_pulls)
        state.created_pulls.append(data)
        url = f"https://{forge.domain}/{state.owner}/{state.repo}/pull/{number}"
        return 201, {"html_url": url, "number": number}
    if path.startswith(f"{repo_path}/branches/"):
        name = path.rsplit("/", 1)[1]
        return (200, {"name": name}) if name in forge.branches() else None
    if path.startswith(f"{repo_path}/issues/"):
        rest = path.removeprefix(f"{repo_path}/issues/").split("/")
        number = int(rest[0])
        if rest[1:] == ["comments"] and method == "GET":
            return _paged(state.comments.get(number, []), page)
        if rest[1:] == ["comments"] and method == "POST":
            state.posted_comments.append((number, data["body"]))
            return 201, {"id": 1}
        issue = next((i for i in state.issues if i["number"] == number), None)
        return (200, issue) if issue else None
    if path == "/api/graphql" and method == "POST":
        if "addPullRequestReviewThreadReply" in data["query"]:
            state.thread_replies.append(data["variables"])
            return 200, {"data": {"addPullRequestReviewThreadReply": {"comment": {"id": "c"}}}}
        number = int(data["variables"]["pr"])
        return 200, {"data": {"repository": {"pullRequest": state.pr_metadata[number]}}}
    return None


def _gitlab_api(forge: GitForge, method: str, path: str, page: int, data: Any) -> Answer:
    state = forge.state
    # The project is addressed by its url-encoded full path (`group%2Fsub%2Frepo`).
    project = f"/api/v4/projects/{quote(f'{state.owner}/{state.repo}', safe='')}"
    web = f"https://{forge.domain}/{state.owner}/{state.repo}"
    if path == "/api/v4/user":
        return 200, {"id": 7, "username": "resolver-bot", "name": "Resolver Bot"}
    if path == project:
        return 200, {"default_branch": "main", "path_with_namespace": f"{state.owner}/{state.repo}"}
    if path == f"{project}/issues" and method == "GET":
        return _paged(state.issues, page)
    if path.startswith(f"{project}/issues/") and path.endswith("/notes") and method == "GET":
        number = int(path.split("/")[-2])
        return _paged(state.comments.get(number, []), page)
    if path.startswith(f"{project}/repository/branches/"):
        name = path.rsplit("/", 1)[1]
        return (200, {"name": name}) if name in forge.branches() else None
    if path == f"{project}/merge_requests" and method == "POST":
        iid = 100 + len(state.created_pulls)
        state.created_pulls.append(data)
        return 201, {"web_url": f"{web}/-/merge_requests/{iid}", "iid": iid}
    return None


def _bitbucket_api(forge: GitForge, method: str, path: str, page: int, data: Any) -> Answer:
    state = forge.state
    repository = f"/2.0/repositories/{state.owner}/{state.repo}"
    if path == "/2.0/user":
        return 200, {"account_id": "7", "username": "resolver-bot", "display_name": "Bot"}
    if path == f"{repository}/pullrequests" and method == "POST":
        number = 100 + len(state.created_pulls)
        state.created_pulls.append(data)
        url = f"https://{forge.domain}/{state.owner}/{state.repo}/pull-requests/{number}"
        return 201, {"id": number, "links": {"html": {"href": url}}}
    return None


APIS = {"github": _github_api, "gitlab": _gitlab_api, "bitbucket": _bitbucket_api}


# --- the server ------------------------------------------------------------------------------


def _handler(forge: GitForge) -> type[BaseHTTPRequestHandler]:
    state = forge.state

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_POST(self) -> None:
            self._dispatch("POST")

        def do_PUT(self) -> None:
            self._dispatch("PUT")

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _token(self) -> str | None:
            auth = self.headers.get("Authorization", "")
            scheme, _, value = auth.partition(" ")
            if scheme.lower() in ("token", "bearer"):
                return value
            if scheme.lower() == "basic":
                return base64.b64decode(value).decode().partition(":")[2]
            return None

        def _dispatch(self, method: str) -> None:
            # The raw path: GitLab's project ids keep their `%2F`.
            url = urlsplit(self.path)
            if url.path.endswith(".git") or ".git/" in url.path:
                return self._git(method, url.path, url.query)
            body = self._body()
            state.api_requests.append((method, self.headers.get("Host", ""), url.path))
            if self._token() != state.token:
                return self._json(401, {"message": "Bad credentials"})
            if state.rate_limited and url.path != USER_PATHS[state.flavour]:
                return self._json(
                    403 if state.flavour == "github" else 429,
                    {"message": "API rate limit exceeded"},
                    {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000000"},
                )
            page = int(parse_qs(url.query).get("page", ["1"])[0])
            data = json.loads(body) if body else None
            answer = APIS[state.flavour](forge, method, url.path, page, data)
            if answer is None:
                return self._json(404, {"message": "Not Found"})
            self._json(*answer)

        def _git(self, method: str, path: str, query: str) -> None:
            if self._token() != state.token:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            env = {
                "GIT_PROJECT_ROOT": str(forge.git_root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "REQUEST_METHOD": method,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "REMOTE_USER": "resolver-bot",
                "REMOTE_ADDR": "127.0.0.1",
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            }
            body = self._read_request_body()
            env["CONTENT_LENGTH"] = str(len(body))
            done = subprocess.run([GIT_HTTP_BACKEND], input=body, env=env, capture_output=True)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            status = 200
            headers: list[tuple[str, str]] = []
            for line in head.decode().split("\r\n"):
                key, _, value = line.partition(":")
                if key.lower() == "status":
                    status = int(value.strip().split()[0])
                elif key:
                    headers.append((key, value.strip()))
            self.send_response(status)
            for key, value in headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _read_request_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size = int(self.rfile.readline().strip(), 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                return b"".join(chunks)
            return self._body()

    return Handler
