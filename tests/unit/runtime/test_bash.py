"""BashSession against a real tmux server on the host (runtime.md §4, checklist items 2–12)."""

from __future__ import annotations

import getpass
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import libtmux
import pytest

from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation, ErrorObservation
from openhands.runtime.utils.bash import BashSession
from openhands.runtime.utils.bash_constants import TIMEOUT_MESSAGE_TEMPLATE

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def socket_name() -> Iterator[str]:
    name = f"{os.environ['OPENHANDS_TMUX_SOCKET_PREFIX']}-{uuid.uuid4().hex[:8]}"
    yield name
    server = libtmux.Server(socket_name=name)
    if server.is_alive():
        try:
            server.kill()
        except libtmux.exc.LibTmuxException as exc:
            # The server exits by itself once its last session is closed; the kill may meet
            # it on its way out.
            if "server exited unexpectedly" not in str(exc) and "lost server" not in str(exc):
                raise


@pytest.fixture
def session(
    tmp_path: Path, socket_name: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[BashSession]:
    # The host's own shell, not `su <user> -`: the su path runs in the sandbox tests.
    monkeypatch.setenv("SU_TO_USER", "false")
    bash = BashSession(
        str(tmp_path),
        username=getpass.getuser(),
        no_change_timeout_seconds=1,
        tmux_socket_name=socket_name,
    )
    bash.initialize()
    yield bash
    bash.close()


def run(
    bash: BashSession,
    command: str,
    *,
    is_input: bool = False,
    timeout: float | None = None,
    blocking: bool = False,
    hidden: bool = False,
) -> CmdOutputObservation | ErrorObservation:
    action = CmdRunAction(command=command, is_input=is_input, hidden=hidden)
    if timeout is not None:
        action.set_hard_timeout(timeout, blocking=blocking)
    return bash.execute(action)


def cmd(bash: BashSession, command: str, **kwargs: object) -> CmdOutputObservation:
    obs = run(bash, command, **kwargs)  # type: ignore[arg-type]
    assert isinstance(obs, CmdOutputObservation), obs
    return obs


def test_echo_has_clean_content_and_metadata(session: BashSession, tmp_path: Path) -> None:
    obs = cmd(session, "echo hello")
    assert obs.content == "hello"
    assert obs.exit_code == 0
    assert obs.success
    assert obs.metadata.suffix == "\n[The command completed with exit code 0.]"
    assert obs.metadata.prefix == ""
    assert obs.metadata.working_dir == str(tmp_path)
    assert obs.metadata.username == getpass.getuser()
    assert obs.metadata.hostname


def test_missing_command_exits_127(session: BashSession) -> None:
    obs = cmd(session, "nonexistent_command")
    assert obs.exit_code == 127
    assert "nonexistent_command: command not found" in obs.content
    assert not obs.success


def test_state_persists_between_commands(session: BashSession, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert cmd(session, "cd sub").exit_code == 0
    obs = cmd(session, "pwd")
    assert obs.content == str(tmp_path / "sub")
    assert obs.metadata.working_dir == str(tmp_path / "sub")
    assert session.cwd == str(tmp_path / "sub")
    cmd(session, "export OH_TEST_X=1")
    assert cmd(session, "echo $OH_TEST_X").content == "1"


def test_two_lines_are_refused_as_multiple_commands(session: BashSession) -> None:
    obs = run(session, "echo a\necho b")
    assert isinstance(obs, ErrorObservation)
    assert obs.content == (
        "ERROR: Cannot execute multiple commands at once.\n"
        "Please run each command separately OR chain them into a single command via && or ;\n"
        "Provided commands:\n(1) echo a\n(2) echo b"
    )


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo a && echo b", "a\nb"),
        ("echo a; echo b", "a\nb"),
        ("cat <<'EOF'\nline one\nline two\nEOF", "line one\nline two"),
        ("echo one \\\n two", "one two"),
        ("for i in 1 2; do\n  echo n$i\ndone", "n1\nn2"),
    ],
)
def test_compound_text_runs_as_one_command(
    session: BashSession, command: str, expected: str
) -> None:
    obs = cmd(session, command)
    assert obs.exit_code == 0
    assert obs.content.endswith(expected)


def test_escaping_survives_the_terminal(session: BashSession, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "hit.txt").write_text("x\n")
    (tmp_path / "d" / "miss.txt").write_text("y\n")
    obs = cmd(session, f"find {tmp_path}/d -type f -exec grep -l x {{}} \\;")
    assert obs.exit_code == 0
    assert obs.content == f"{tmp_path}/d/hit.txt"
    assert cmd(session, "echo 'semi;'").content == "semi;"
    assert cmd(session, "echo a\\;b").content == "a;b"
    assert cmd(session, "echo -n dash-first; echo").content == "dash-first"


def test_soft_timeout_then_input(session: BashSession) -> None:
    obs = cmd(session, 'read -p "Enter name: " n && echo "Hello $n"')
    assert obs.exit_code == -1
    assert "Enter name:" in obs.content
    assert obs.metadata.suffix.startswith(
        "\n[The command has no new output after 1 seconds. You may wait longer"
    )
    assert obs.metadata.suffix.endswith(f"{TIMEOUT_MESSAGE_TEMPLATE}]")
    obs = cmd(session, "John", is_input=True)
    assert obs.content == "Hello John"
    assert obs.exit_code == 0
    assert obs.metadata.suffix == "\n[The command completed with exit code 0.]"


def test_hard_timeout_reports_new_output_each_time(session: BashSession) -> None:
    command = "for i in {1..3}; do echo $i; sleep 2; done"
    first = cmd(session, command, timeout=1.5, blocking=True)
    assert first.content == "1"
    assert first.exit_code == -1
    assert first.metadata.prefix == ""
    assert "[The command timed out after 1.5 seconds. " in first.metadata.suffix
    seen = [first.content]
    for _ in range(6):
        obs = cmd(session, "", timeout=1.5, blocking=True)
        if obs.content:
            seen.append(obs.content)
        assert obs.metadata.prefix in ("", "[Below is the output of the previous command.]\n")
        if obs.exit_code == 0:
            assert obs.metadata.suffix == "\n[The command completed with exit code 0.]"
            break
        assert obs.metadata.prefix == "[Below is the output of the previous command.]\n"
    else:
        pytest.fail("the loop never completed")
    assert "\n".join(seen) == "1\n2\n3"


def test_busy_session_refuses_new_command(session: BashSession) -> None:
    first = cmd(session, "echo started; sleep 30", timeout=1, blocking=True)
    assert first.content == "started"
    busy = cmd(session, "ls")
    assert busy.exit_code == -1
    assert 'Your command "ls" is NOT executed. The previous command is still running' in (
        busy.metadata.suffix
    )
    assert busy.metadata.prefix == "[Below is the output of the previous command.]\n"
    stopped = cmd(session, "C-c", is_input=True)
    assert stopped.exit_code == 130
    assert "CTRL+C was sent." in stopped.metadata.suffix


def test_ctrl_c_interrupts_and_next_command_is_clean(session: BashSession) -> None:
    cmd(session, "echo old-output; sleep 30", timeout=1, blocking=True)
    obs = cmd(session, "C-c", is_input=True)
    assert obs.exit_code in (130, 1)
    assert obs.metadata.suffix == "\n[The command completed with exit code 130. CTRL+C was sent.]"
    after = cmd(session, "ls")
    assert after.exit_code == 0
    assert "old-output" not in after.content


def test_nothing_running_errors(session: BashSession) -> None:
    logs = cmd(session, "")
    assert logs.content == "ERROR: No previous running command to retrieve logs from."
    assert logs.exit_code == -1
    typed = cmd(session, "hello", is_input=True)
    assert typed.content == "ERROR: No previous running command to interact with."
    assert typed.exit_code == -1


def test_long_output_is_truncated_with_history_prefix(session: BashSession) -> None:
    obs = cmd(session, "seq 1 50000", timeout=60, blocking=True)
    assert obs.exit_code == 0
    assert obs.metadata.prefix.startswith(
        "[Previous command outputs are truncated. Showing the last"
    )
    marker = "\n[... Observation truncated due to length ...]\n"
    assert obs.content.endswith("50000")
    assert len(obs.content) == 15_000 + len(marker) + 15_000
    assert obs.content[15_000 : 15_000 + len(marker)] == marker


def test_hidden_output_is_not_truncated(session: BashSession) -> None:
    obs = cmd(session, "python3 -c \"print('z' * 40000)\"", hidden=True, timeout=30)
    assert obs.content == "z" * 40000
    assert obs.hidden


def test_wrapped_long_line_is_joined(session: BashSession) -> None:
    obs = cmd(session, "python3 -c \"print('a' * 2500)\"")
    assert obs.content == "a" * 2500


def test_blocking_command_ignores_soft_timeout(session: BashSession) -> None:
    obs = cmd(session, "sleep 2 && echo done", timeout=10, blocking=True)
    assert obs.content == "done"
    assert obs.exit_code == 0


def test_exit_code_of_failing_command(session: BashSession) -> None:
    obs = cmd(session, "false")
    assert obs.exit_code == 1
    assert obs.metadata.suffix == "\n[The command completed with exit code 1.]"


def test_close_kills_the_tmux_session(tmp_path: Path, socket_name: str) -> None:
    bash = BashSession(str(tmp_path), username=None, tmux_socket_name=socket_name)
    bash.initialize()
    name = bash.session.session_name
    server = libtmux.Server(socket_name=socket_name)
    assert server.has_session(name)
    bash.close()
    assert not server.is_alive() or not server.has_session(name)
    os.environ.pop("OH_TEST_X", None)


def test_start_retries_when_it_meets_an_exiting_tmux_server(
    tmp_path: Path, socket_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session start that reaches a tmux server on its way out (its last session just
    closed) fails with "server exited unexpectedly"; the start tries again. The real tmux
    runs behind a wrapper that answers the first `new-session` that way."""
    real_tmux = shutil.which("tmux")
    assert real_tmux is not None
    bin_dir, failed_once = tmp_path / "bin", tmp_path / "failed-once"
    bin_dir.mkdir()
    wrapper = bin_dir / "tmux"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" new-session "*)\n'
        f'  if [ ! -e "{failed_once}" ]; then : > "{failed_once}";'
        ' echo "server exited unexpectedly" >&2; exit 1; fi;;\n'
        "esac\n"
        f'exec "{real_tmux}" "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SU_TO_USER", "false")
    work = tmp_path / "work"
    work.mkdir()
    bash = BashSession(str(work), username=getpass.getuser(), tmux_socket_name=socket_name)
    bash.initialize()
    try:
        assert failed_once.exists()  # the first start did fail
        result = bash.execute(CmdRunAction("echo started"))
        assert isinstance(result, CmdOutputObservation)
        assert result.content.strip() == "started"
    finally:
        bash.close()
