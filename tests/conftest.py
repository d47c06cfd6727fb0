"""Settings for the whole suite (kept small: fixtures live next to the tests that use them)."""

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

# Under CI=true a skip fails the run unless the test is marked allow_skip_in_ci (see there).
from tests.support.ci_skips import (  # noqa: F401  (hooks: pytest finds them by name here)
    pytest_configure,
    pytest_make_collect_report,
    pytest_runtest_makereport,
)

# LiteLLM would otherwise try to download its model price map at import time (no internet).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Never let a developer's own config.toml or LLM key leak into tests. Under OPENHANDS_TEST=1
# the config loader treats config.toml and .env of this checkout, and the files in
# ~/.openhands of the account's real home, as absent (exactly which files:
# openhands/core/config/developer_files.py); every process the suite starts inherits it.
# The developer's LLM_* and *_API_KEY variables are dropped here too (tests that need such
# variables set their own). OPENHANDS_TEST=0 keeps both.
os.environ.setdefault("OPENHANDS_TEST", "1")
# VS Code is on by default, and its image variant takes minutes to build (in the
# background, but on the suite's two cores): the suite runs with it off; a test that wants
# it turns it on for its own server (tests/e2e/test_ui_vscode.py).
os.environ["SANDBOX_ENABLE_VSCODE"] = "false"


def _drop_developer_llm_variables() -> None:
    from openhands.core.config.developer_files import isolation_enabled  # after the setdefaults

    if not isolation_enabled():
        return
    for name in [n for n in os.environ if n.startswith("LLM_") or n.endswith("_API_KEY")]:
        del os.environ[name]


_drop_developer_llm_variables()

# Code under test writes to ~/.openhands when a test leaves a default in place: the default
# file store (`file_store_path = "~/.openhands"`, so conversations and `.jwt_secret`) and the
# user microagents folder; the sandboxes' bash sessions append to ~/.bash_history. So the run
# gets a HOME of its own, made before anything reads HOME (USER_MICROAGENTS_DIR is fixed at
# import) and inherited by every process it starts. It holds a symlink to each entry of the
# real home except those two, so git, uv, npm, Docker, pyenv and the rest find their
# configuration and caches exactly where they were; only ~/.openhands and the shell history
# are the run's own (fresh, removed at the end). Tests that need a HOME of their own still set
# one. OPENHANDS_TEST=0 keeps the real HOME.
_TEST_HOME_PREFIX = "openhands-test-home-"
_NOT_SHARED_WITH_TESTS = frozenset({".openhands", ".bash_history"})
_test_home: Path | None = None


def _make_test_home() -> Path | None:
    from openhands.core.config.developer_files import isolation_enabled

    real_home = os.environ.get("HOME")
    if not isolation_enabled() or not real_home or not Path(real_home).is_dir():
        return None
    # The pid in the name lets a later run remove the homes of runs that were killed.
    home = Path(tempfile.mkdtemp(prefix=f"{_TEST_HOME_PREFIX}{os.getpid()}-"))
    for entry in Path(real_home).iterdir():
        if entry.name not in _NOT_SHARED_WITH_TESTS:
            (home / entry.name).symlink_to(entry)
    os.environ["HOME"] = str(home)
    return home


def _remove_test_home(home: Path) -> None:
    # rmtree unlinks the symlinks, it never follows them into the real home.
    shutil.rmtree(home, ignore_errors=True)


def _remove_dead_runs_test_homes() -> None:
    for entry in Path(tempfile.gettempdir()).glob(f"{_TEST_HOME_PREFIX}*"):
        pid = entry.name.removeprefix(_TEST_HOME_PREFIX).split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            _remove_test_home(entry)


_test_home = _make_test_home()
# The server's background warm-up (imports for the first conversation, seconds of CPU) is off
# for the many servers and apps the suite starts; tests/server/test_warmup.py turns it on.
os.environ.setdefault("OPENHANDS_WARMUP", "false")

# Every tmux server this run starts (LocalRuntime sandboxes, in this process or in the server
# processes it spawns, which inherit the environment; the bash tests' own sockets) is named
# `openhands-test-<pid of this run>-…`, so the run can end them all when it finishes, even
# the ones of a server it SIGKILLed. Servers of earlier runs that died are ended at start.
TMUX_RUN_PREFIX = f"openhands-test-{os.getpid()}"
os.environ.setdefault("OPENHANDS_TMUX_SOCKET_PREFIX", TMUX_RUN_PREFIX)
_TMUX_TEST_SOCKET = re.compile(r"openhands-test-(\d+)-")


def _tmux_socket_dir() -> Path:
    return Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _end_tmux_servers(owned: Callable[[str], bool]) -> None:
    """``tmux kill-server`` (then remove the socket) for each socket name ``owned`` accepts."""
    try:
        names = [entry.name for entry in _tmux_socket_dir().iterdir()]
    except OSError:
        return
    for name in names:
        if not owned(name):
            continue
        try:
            subprocess.run(
                ["tmux", "-L", name, "kill-server"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        (_tmux_socket_dir() / name).unlink(missing_ok=True)


def _this_run(name: str) -> bool:
    return name.startswith(os.environ["OPENHANDS_TMUX_SOCKET_PREFIX"] + "-")


def _dead_run(name: str) -> bool:
    match = _TMUX_TEST_SOCKET.match(name)
    return match is not None and not _pid_alive(int(match.group(1)))


_SANDBOX_PREFIX = "openhands-runtime-"
_sandboxes_before: set[str] = set()


def _exited_sandboxes() -> set[str]:
    """Ids of stopped sandbox containers; empty when no Docker engine answers."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        found = client.containers.list(
            all=True, filters={"status": "exited", "name": _SANDBOX_PREFIX}
        )
    except Exception:
        return set()
    return {c.id for c in found if c.name.startswith(_SANDBOX_PREFIX)}


def pytest_sessionstart(session: object) -> None:
    _sandboxes_before.update(_exited_sandboxes())
    _end_tmux_servers(_dead_run)
    _remove_dead_runs_test_homes()


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    try:
        _end_this_runs_leftovers()
    finally:
        if _test_home is not None:
            _remove_test_home(_test_home)


def _end_this_runs_leftovers() -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # a worker's siblings may still need them
        _end_tmux_servers(_this_run)
    # A stopped conversation keeps its exited container (it can be resumed), so tests that
    # stop without deleting leave containers behind; remove the ones this run stopped.
    leftovers = _exited_sandboxes() - _sandboxes_before
    if not leftovers:
        return
    import docker

    client = docker.from_env(timeout=30)
    for container_id in leftovers:
        try:
            client.containers.get(container_id).remove(force=True)
        except Exception:
            pass
