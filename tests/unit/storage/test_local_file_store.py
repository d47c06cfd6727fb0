"""LocalFileStore specifics: crash-safe writes, owner-only secrets files, temp-file hygiene."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from openhands.storage.local import TEMP_SUFFIX, LocalFileStore

REPO_ROOT = Path(__file__).resolve().parents[3]
PAYLOAD_SIZE = 4_000_000

# Rewrites one file forever with 4 MB of a single repeated letter, a different letter each
# time. If a write were ever visible half-done, the file would be short or mix letters.
WRITER = textwrap.dedent(
    f"""
    import sys
    from openhands.storage.local import LocalFileStore

    store = LocalFileStore(sys.argv[1], atomic=sys.argv[2] == "atomic")
    i = 0
    while True:
        store.write("state.txt", chr(ord("a") + i % 26) * {PAYLOAD_SIZE})
        if i == 0:
            print("ready", flush=True)
        i += 1
    """
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _kill_writer_mid_loop(root: Path, mode: str, delay: float) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), mode], stdout=subprocess.PIPE, env=env
    ) as process:
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == b"ready"
            time.sleep(delay)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
    return (root / "state.txt").read_text()


@pytest.mark.timeout(30)
def test_killed_writer_never_leaves_a_partial_file(tmp_path: Path) -> None:
    for round_number, delay in enumerate((0.05, 0.13, 0.21, 0.08, 0.17)):
        content = _kill_writer_mid_loop(tmp_path, "atomic", delay)
        assert len(content) == PAYLOAD_SIZE, f"round {round_number}: partial file"
        assert len(set(content)) == 1, f"round {round_number}: mixed contents"
    # Debris of interrupted writes may remain on disk but is never listed.
    assert LocalFileStore(str(tmp_path)).list("") == ["state.txt"]


def test_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("events/0.json", "{}")
    store.write("events/0.json", "{}")
    assert os.listdir(tmp_path / "events") == ["0.json"]


def test_failed_atomic_write_cleans_up_its_temp_file(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    (tmp_path / "target").mkdir()
    with pytest.raises(OSError):
        store.write("target", "cannot replace a directory")
    assert os.listdir(tmp_path) == ["target"]


def test_list_hides_temp_debris_only(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("a.json", "{}")
    (tmp_path / f".a.json.123-4{TEMP_SUFFIX}").write_text("{")
    (tmp_path / ".hidden").write_text("kept")
    assert sorted(store.list("")) == [".hidden", "a.json"]


def test_non_atomic_and_fsync_modes_write_the_same(tmp_path: Path) -> None:
    for options in ({"atomic": False}, {"fsync": True}, {"atomic": False, "fsync": True}):
        store = LocalFileStore(str(tmp_path / str(len(os.listdir(tmp_path)))), **options)
        store.write("d/x.txt", "first version")
        store.write("d/x.txt", "2nd")
        store.write_private("d/p.txt", "key")
        assert store.read("d/x.txt") == "2nd"
        assert _mode(Path(store.root) / "d" / "p.txt") == 0o600


def test_write_recreates_a_directory_removed_behind_its_back(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("sessions/abc/events/0.json", "{}")
    for child in (tmp_path / "sessions" / "abc" / "events").iterdir():
        child.unlink()
    (tmp_path / "sessions" / "abc" / "events").rmdir()
    store.write("sessions/abc/events/1.json", "{}")
    assert store.list("sessions/abc/events") == ["sessions/abc/events/1.json"]


# --- file modes -------------------------------------------------------------------------


@pytest.fixture
def umask_022() -> object:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.mark.parametrize("atomic", [True, False])
def test_write_private_creates_owner_only_file(
    tmp_path: Path, atomic: bool, umask_022: object
) -> None:
    store = LocalFileStore(str(tmp_path), atomic=atomic)
    store.write_private("users/u1/secrets.json", '{"token": "t"}')
    assert _mode(tmp_path / "users" / "u1" / "secrets.json") == 0o600


@pytest.mark.parametrize("atomic", [True, False])
def test_write_private_tightens_an_existing_file(
    tmp_path: Path, atomic: bool, umask_022: object
) -> None:
    store = LocalFileStore(str(tmp_path), atomic=atomic)
    store.write("settings.json", "{}")
    assert _mode(tmp_path / "settings.json") == 0o644
    store.write_private("settings.json", '{"llm_api_key": "sk"}')
    assert _mode(tmp_path / "settings.json") == 0o600


def test_write_private_ignores_a_permissive_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        LocalFileStore(str(tmp_path)).write_private("s.json", "{}")
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "s.json") == 0o600


def test_plain_write_follows_the_umask(tmp_path: Path, umask_022: object) -> None:
    LocalFileStore(str(tmp_path)).write("events/0.json", "{}")
    assert _mode(tmp_path / "events" / "0.json") == 0o644
