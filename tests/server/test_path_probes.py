"""Path probes against a real server process on LocalRuntime: hostile paths sent to the file
routes (select-file, list-files, git/diff, zip-directory, upload-files) never reach anything
outside the workspace, and each one is answered with a 4xx, not a 500.

The workspace holds links out (to /etc, to /, to the file store's ``secrets.json``, to a
sentinel file next to the workspace, ``..``) beside ordinary files and links that stay
inside; normal use of those still works.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import stat
import subprocess
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import run_in_thread, start_server, wait_agent_state, wait_status
from tests.server.server_process import ServerProcess
from tests.support.scripted_llm import ScriptedLLMServer

TOKEN = uuid.uuid4().hex[:10]
SENTINEL = f"sentinel-content-{TOKEN}"
SECRET_VALUE = f"probe-secret-{TOKEN}"
PASSWD = "root:x:0:0"
# Content and names that only appear when something outside the workspace was read or listed.
FOREIGN_CONTENT = (PASSWD, SENTINEL, SECRET_VALUE)
FOREIGN_NAMES = ("secrets.json", "sentinel.txt", "passwd", "usr/")
FOREIGN = FOREIGN_CONTENT + FOREIGN_NAMES


@dataclass
class Site:
    server: ServerProcess
    conversation_id: str
    workspace: Path
    outside: Path
    secrets_file: Path
    base: str = field(init=False)

    def __post_init__(self) -> None:
        self.base = f"/api/conversations/{self.conversation_id}"


async def _start_conversation(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        stored = await http.post(
            "/api/secrets", json={"name": "PROBE_SECRET", "value": SECRET_VALUE}
        )
        assert stored.status_code in (200, 201), stored.text
        created = await http.post("/api/conversations", json={"initial_user_msg": "hello"})
        assert created.status_code == 200, created.text
        conversation_id: str = created.json()["conversation_id"]
        await wait_status(http, conversation_id, "RUNNING")
        await wait_agent_state(http, conversation_id, "awaiting_user_input")
        return conversation_id


def _lay_out(workspace: Path, outside: Path, secrets_file: Path) -> None:
    outside.mkdir()
    (outside / "sentinel.txt").write_text(SENTINEL)
    (workspace / "notes").mkdir()
    (workspace / "notes" / "inner.txt").write_text("inner text\n")
    (workspace / "alias.txt").symlink_to("notes/inner.txt")
    (workspace / "notesalias").symlink_to("notes")
    (workspace / "etc_link").symlink_to("/etc")
    (workspace / "etc_passwd").symlink_to("/etc/passwd")
    (workspace / "rootdir").symlink_to("/")
    (workspace / "secrets_link").symlink_to(secrets_file)
    (workspace / "store_link").symlink_to(secrets_file.parent)
    (workspace / "sentinel_link").symlink_to(outside / "sentinel.txt")
    (workspace / "outside_link").symlink_to(outside)
    (workspace / "up").symlink_to("..")
    git = ["git", "-c", "user.name=probe", "-c", "user.email=probe@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*git, "add", "notes/inner.txt"], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=workspace, check=True)
    (workspace / "notes" / "inner.txt").write_text("inner text\nchanged\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, llm: ScriptedLLMServer) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("probes")
    server = start_server(root, llm)
    try:
        conversation_id = run_in_thread(_start_conversation(server.url))
        secrets_file = root / "store" / "secrets.json"
        assert SECRET_VALUE in secrets_file.read_text()
        workspace = root / "workspace"
        outside = root / "outside"
        _lay_out(workspace, outside, secrets_file)
        yield Site(server, conversation_id, workspace, outside, secrets_file)
    finally:
        server.stop()


# --- the probes ---------------------------------------------------------------------------------


def zip_bytes(*members: tuple[str, bytes] | tuple[str, str, str]) -> bytes:
    """Regular members ``(name, data)``; symlink members ``(name, "link", target)``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in members:
            if len(member) == 3:
                info = zipfile.ZipInfo(member[0])
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                archive.writestr(info, str(member[2]))
            else:
                archive.writestr(member[0], member[1])
    return buffer.getvalue()


ESCAPING_PATHS = [
    "/etc/passwd",
    "../../../../../../etc/passwd",
    "notes/../../../../../../etc/passwd",
    "..",
    "../store/secrets.json",
    "etc_passwd",
    "etc_link/passwd",
    "rootdir/etc/passwd",
    "secrets_link",
    "store_link/secrets.json",
    "sentinel_link",
    "outside_link/sentinel.txt",
    "up/outside/sentinel.txt",
    "notesalias/../../outside/sentinel.txt",
    "etc_passwd\x00.txt",
    "n" * 300,
    "notes/" + "n" * 256,
    "/" + "a/" * 2100,
]
# Sent as raw query strings: URL-encoded separators and NULs.
RAW_QUERIES = [
    "..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
    "..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "%2fetc%2fpasswd",
    "etc_link%2fpasswd",
    "rootdir%2Fetc%2Fpasswd",
    "secrets_link%00",
    "%00",
]
LIST_PATHS = [
    "/", "/etc", "..", "../store", "../outside", "etc_link", "rootdir", "rootdir/etc",
    "store_link", "outside_link", "up", "notesalias/../..", "x\x00y", "n" * 300,
]  # fmt: skip


@dataclass
class Probe:
    label: str
    method: str
    url: str
    params: dict[str, str] | None = None
    files: list[tuple[str, tuple[str, bytes]]] | None = None
    accept: tuple[int, ...] = ()  # statuses other than 4xx that are fine (and checked)


def probes(site: Site) -> list[Probe]:
    base = site.base
    found: list[Probe] = []
    for route, key in (("select-file", "file"), ("git/diff", "path")):
        for path in ESCAPING_PATHS:
            found.append(Probe(f"{route} {path[:40]!r}", "GET", f"{base}/{route}", {key: path}))
        for raw in RAW_QUERIES:
            found.append(Probe(f"{route} raw {raw}", "GET", f"{base}/{route}?{key}={raw}"))
        found.append(
            Probe(
                f"{route} absolute via the workspace",
                "GET",
                f"{base}/{route}",
                {key: f"{site.workspace}/../store/secrets.json"},
            )
        )
    for path in LIST_PATHS:
        found.append(
            Probe(f"list-files {path[:40]!r}", "GET", f"{base}/list-files", {"path": path})
        )
    for raw in RAW_QUERIES[:3]:
        found.append(Probe(f"list-files raw {raw}", "GET", f"{base}/list-files?path={raw}"))
    found.append(Probe("zip-directory", "GET", f"{base}/zip-directory", accept=(200,)))

    def upload(label: str, name: str, data: bytes, accept: tuple[int, ...] = ()) -> None:
        files = [("files", (name, data))]
        found.append(
            Probe(f"upload {label}", "POST", f"{base}/upload-files", files=files, accept=accept)
        )

    upload("../ name", f"../escape-{TOKEN}.txt", b"x")
    upload("absolute name", f"/tmp/escape-{TOKEN}.txt", b"x")
    upload("name through a dir link", f"outside_link/escape-{TOKEN}.txt", b"x")
    upload("300-char name", f"{TOKEN}" + "n" * 290, b"x")
    upload("name of a link out", "sentinel_link", b"overwritten?", accept=(200,))
    upload("name of the secrets link", "secrets_link", b"overwritten?", accept=(200,))
    upload("zip slip ..", "slip.zip", zip_bytes((f"../../escape-{TOKEN}.txt", b"x")))
    upload("zip slip absolute", "abs.zip", zip_bytes((f"/tmp/escape-{TOKEN}.txt", b"x")))
    upload("zip through a link", "via.zip", zip_bytes((f"outside_link/escape-{TOKEN}.txt", b"x")))
    upload("zip through /", "root.zip", zip_bytes((f"rootdir/tmp/escape-{TOKEN}.txt", b"x")))
    upload("zip link to /etc", "ln.zip", zip_bytes((f"etc-{TOKEN}", "link", "/etc")))
    upload("zip link up", "up.zip", zip_bytes((f"up-{TOKEN}", "link", "../outside")))
    upload(
        "zip links chained out",
        "chain.zip",
        zip_bytes((f"p-{TOKEN}", "link", f"q-{TOKEN}/.."), (f"q-{TOKEN}", "link", ".")),
    )
    upload("zip member name 300", "long.zip", zip_bytes(("n" * 300, b"x")))
    return found


def snapshot(site: Site) -> dict[str, Any]:
    return {
        "outside": sorted(os.listdir(site.outside)),
        "sentinel": (site.outside / "sentinel.txt").read_text(),
        "secrets": hashlib.sha256(site.secrets_file.read_bytes()).hexdigest(),
    }


def written_outside(site: Site) -> list[str]:
    """Files named with this run's token anywhere but inside the workspace (links not
    followed): next to the server's directory, in /tmp and in /."""
    hits = [str(p) for p in (*Path("/tmp").glob(f"*{TOKEN}*"), *Path("/").glob(f"*{TOKEN}*"))]
    for directory, dirs, files in os.walk(site.server.root.parent):
        if Path(directory) == site.workspace:
            dirs.clear()
            continue
        hits += [os.path.join(directory, n) for n in dirs + files if TOKEN in n]
    return hits


def leaked(site: Site, response: httpx.Response) -> list[str]:
    """Foreign content in a response (a zip is read member by member)."""
    if response.headers.get("content-type") == "application/zip":
        found: list[str] = []
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            for info in archive.infolist():
                data = archive.read(info).decode("utf-8", "replace")
                target = posixpath.normpath(posixpath.join(posixpath.dirname(info.filename), data))
                if stat.S_ISLNK(info.external_attr >> 16) and (
                    data.startswith("/") or target.startswith("..")
                ):
                    found.append(f"{info.filename} -> {data}")
                found += [f"{info.filename}: {m}" for m in FOREIGN_CONTENT if m in data]
                found += [f"{info.filename}" for m in FOREIGN_NAMES if m in info.filename]
        return found
    return [marker for marker in FOREIGN if marker in response.text]


async def test_hostile_paths_never_escape(site: Site) -> None:
    before = snapshot(site)
    results: list[tuple[Probe, int, list[str]]] = []
    async with httpx.AsyncClient(base_url=site.server.url, timeout=60) as http:
        for probe in probes(site):
            response = await http.request(
                probe.method, probe.url, params=probe.params, files=probe.files
            )
            results.append((probe, response.status_code, leaked(site, response)))
            assert "application/json" in response.headers["content-type"] or probe.accept, (
                probe.label,
                response.headers,
            )
            if 400 <= response.status_code < 500:
                body = response.json()
                assert isinstance(body, dict) and (body.get("error") or body.get("detail")), body
    after = snapshot(site)
    outside_writes = written_outside(site)

    escaped = [(p.label, status, leaks) for p, status, leaks in results if leaks]
    wrong_status = [
        (p.label, status)
        for p, status, _ in results
        if not (400 <= status < 500 or status in p.accept)
    ]
    print(
        f"\npath probes: {len(results)} sent, {len(escaped)} escaped, "
        f"{len(wrong_status)} without a 4xx, {len(outside_writes)} writes outside"
    )
    assert escaped == []
    assert wrong_status == []
    assert after == before
    assert outside_writes == []
    # The links named by uploads were replaced in the workspace, not written through.
    assert (site.workspace / "sentinel_link").read_bytes() == b"overwritten?"
    assert not (site.workspace / "sentinel_link").is_symlink()
    assert not list(site.workspace.glob(f"*{TOKEN}*"))  # refused archives made no links


async def test_normal_use_still_works(site: Site) -> None:
    base = site.base
    async with httpx.AsyncClient(base_url=site.server.url, timeout=60) as http:
        for file in ("notes/inner.txt", "alias.txt", "notesalias/inner.txt", "./notes//inner.txt",
                     f"{site.workspace}/notes/inner.txt"):  # fmt: skip
            selected = await http.get(f"{base}/select-file", params={"file": file})
            assert selected.status_code == 200, (file, selected.text)
            assert selected.json() == {"code": "inner text\nchanged\n"}
        missing = await http.get(f"{base}/select-file", params={"file": "notes/none.txt"})
        assert missing.status_code == 404 and "error" in missing.json()

        listing = (await http.get(f"{base}/list-files")).json()
        assert {"notes/", "notesalias/", "alias.txt", "etc_link/"} <= set(listing)
        for path in ("notes", "notesalias", "notes/"):
            listed = await http.get(f"{base}/list-files", params={"path": path})
            assert listed.status_code == 200, listed.text
            assert listed.json() == [f"{path.rstrip('/')}/inner.txt"]

        diff = await http.get(f"{base}/git/diff", params={"path": "notes/inner.txt"})
        assert diff.status_code == 200, diff.text
        # A repository without a remote is compared with the empty tree (as 0.59 does).
        assert diff.json() == {"original": "", "modified": "inner text\nchanged\n"}

        archive = zip_bytes(
            ("pkg/lib/real.txt", b"real"), ("pkg/bin/tool", "link", "../lib/real.txt")
        )
        uploaded = await http.post(
            f"{base}/upload-files",
            files=[("files", ("pkg.zip", archive)), ("files", ("plain.txt", b"plain"))],
        )
        assert uploaded.status_code == 200, uploaded.text
        assert (site.workspace / "pkg" / "bin" / "tool").read_text() == "real"
        assert os.readlink(site.workspace / "pkg" / "bin" / "tool") == "../lib/real.txt"
        assert (site.workspace / "plain.txt").read_text() == "plain"

        zipped = await http.get(f"{base}/zip-directory")
        assert zipped.status_code == 200
        with zipfile.ZipFile(io.BytesIO(zipped.content)) as packed:
            names = set(packed.namelist())
            assert {"notes/inner.txt", "alias.txt", "pkg/lib/real.txt", "pkg/bin/tool"} <= names
            assert packed.read("alias.txt") == b"notes/inner.txt"  # stored as a link
            assert not names & {
                "etc_link",
                "etc_passwd",
                "rootdir",
                "store_link",
                "outside_link",
                "up",
            }
