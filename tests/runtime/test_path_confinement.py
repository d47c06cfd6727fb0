"""Path confinement in real sandboxes (LocalRuntime and a Docker container): the web server's
workspace service (what the file routes call) and the action server's file endpoints refuse
every path that leads out of the workspace, symlinks included, and never write or pack
through a link out."""

from __future__ import annotations

import io
import posixpath
import stat
import uuid
import zipfile
from collections.abc import Awaitable, Iterator

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.errors import ErrorBodyError
from openhands.server.services import workspace as service
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)

TOKEN = uuid.uuid4().hex[:10]
SENTINEL = f"sentinel-{TOKEN}"
MARKERS = ("root:x:0:0", SENTINEL)


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


@pytest.fixture
def probe_dir(sandbox: Sandbox, test_dir: str) -> Iterator[str]:
    """``test_dir`` with links out (to /etc, /, /etc/passwd, a sentinel in /tmp, ``../..``)
    and a link that stays inside; the name relative to the workspace is returned."""
    sandbox.sh(
        f"cd {test_dir} && printf %s {SENTINEL} > /tmp/{SENTINEL} && mkdir -p notes "
        "&& printf 'inner\\n' > notes/inner.txt && ln -s notes/inner.txt alias.txt "
        f"&& ln -s /etc etc_link && ln -s / rootdir && ln -s /etc/passwd passwd_link "
        f"&& ln -s /tmp/{SENTINEL} sentinel_link && ln -s ../.. up_link "
        f"&& ln -sfn /tmp/{SENTINEL} {sandbox.workspace}/link-{TOKEN}"
    )
    yield test_dir.removeprefix(sandbox.workspace).strip("/")
    sandbox.sh(f"rm -f {sandbox.workspace}/link-{TOKEN} {sandbox.workspace}/*{TOKEN}*")


async def refused(call: Awaitable[object]) -> ErrorBodyError:
    with pytest.raises(ErrorBodyError) as caught:
        await call
    assert 400 <= caught.value.status_code < 500, caught.value
    assert not any(marker in str(caught.value) for marker in MARKERS)
    return caught.value


async def test_hostile_paths_are_refused_in_the_sandbox(sandbox: Sandbox, probe_dir: str) -> None:
    runtime, ws, d = sandbox.runtime, sandbox.workspace, probe_dir
    escaping = [
        "/etc/passwd", "../../../../etc/passwd", f"{d}/../../../etc/passwd",
        f"{d}/etc_link/passwd", f"{d}/rootdir/etc/passwd", f"{d}/passwd_link",
        f"{d}/sentinel_link", f"{d}/up_link", "x\x00y", "n" * 300,
    ]  # fmt: skip
    probes = 0
    for path in escaping:
        await refused(service.select_file(runtime, ws, path))
        await refused(service.git_diff(runtime, ws, path))
        probes += 2
    for path in ("/", "..", f"{d}/rootdir", f"{d}/etc_link", f"{d}/up_link", "n" * 300):
        await refused(service.list_files(runtime, ws, path))
        probes += 1

    config = OpenHandsConfig()
    uploads = [
        (f"link-{TOKEN}", b"overwritten?"),  # the name of a link out: the link is replaced
        ("n" * 300, b"x"),
        ("slip.zip", zip_bytes((f"../escape-{TOKEN}", b"x"))),
        ("through.zip", zip_bytes((f"{d}/rootdir/tmp/escape-{TOKEN}", b"x"))),
        ("linkout.zip", zip_bytes((f"etc-{TOKEN}", "link", "/etc"))),
        (
            "chain.zip",
            zip_bytes((f"p-{TOKEN}", "link", f"q-{TOKEN}/.."), (f"q-{TOKEN}", "link", ".")),
        ),
    ]
    for name, data in uploads:
        if name.startswith("link-"):
            result = await service.upload_files(runtime, ws, [(name, data)], config)
            assert result.uploaded_files == [f"{ws}/{name}"]
        else:
            await refused(service.upload_files(runtime, ws, [(name, data)], config))
        probes += 1

    zipped = await service.zip_workspace(runtime, ws)
    probes += 1
    try:
        with zipfile.ZipFile(zipped) as archive:
            for info in archive.infolist():
                data = archive.read(info).decode("utf-8", "replace")
                assert not any(marker in data for marker in MARKERS), info.filename
                if stat.S_ISLNK(info.external_attr >> 16):
                    target = posixpath.normpath(
                        posixpath.join(posixpath.dirname(info.filename), data)
                    )
                    assert not data.startswith("/") and not target.startswith(".."), data
            names = set(archive.namelist())
            assert f"{d}/alias.txt" in names and f"{d}/notes/inner.txt" in names
            assert not names & {f"{d}/etc_link", f"{d}/passwd_link", f"{d}/rootdir"}
    finally:
        service.remove_file(str(zipped))

    # Nothing outside was written: the sentinel is intact, no escape-* file anywhere.
    check = sandbox.sh(
        f"cat /tmp/{SENTINEL}; echo; ls -a / /tmp {ws}/.. | grep -c escape-{TOKEN} || true"
    )
    assert check.content.split() == [SENTINEL, "0"], check.content
    links = sandbox.sh(f"cd {ws} && ls -la | grep -- '-{TOKEN}' || true").content
    assert "->" not in links, links  # the link named by the upload is a file now
    print(f"\n{sandbox.kind}: {probes} path probes refused, none escaped")


async def test_links_that_stay_inside_still_work(sandbox: Sandbox, probe_dir: str) -> None:
    runtime, ws, d = sandbox.runtime, sandbox.workspace, probe_dir
    assert await service.select_file(runtime, ws, f"{d}/alias.txt") == "inner\n"
    assert await service.select_file(runtime, ws, f"{ws}/{d}/notes/inner.txt") == "inner\n"
    assert await service.list_files(runtime, ws, f"{d}/notes") == [f"{d}/notes/inner.txt"]
    archive = zip_bytes((f"{d}/pkg/real.txt", b"real"), (f"{d}/pkg/tool", "link", "real.txt"))
    result = await service.upload_files(runtime, ws, [("pkg.zip", archive)], OpenHandsConfig())
    assert result.skipped_files == []
    assert await service.select_file(runtime, ws, f"{d}/pkg/tool") == "real"
