"""Conformance §17 items 2–12: the bash session behind ``run`` actions.

The shared sandboxes run with ``NO_CHANGE_TIMEOUT_SECONDS=1``; commands that must not hit
the soft timeout are sent with an explicit (blocking) hard timeout.
"""

from __future__ import annotations

import pytest

from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation, ErrorObservation
from openhands.events.observation.commands import TRUNCATION_MARKER
from openhands.runtime.utils import bash_constants as text
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)

COMPLETED_0 = "\n[The command completed with exit code 0.]"


def cmd(obs: object) -> CmdOutputObservation:
    assert isinstance(obs, CmdOutputObservation), obs
    return obs


# --- item 2 -----------------------------------------------------------------------------------


def test_echo_through_the_event_stream(sandbox: Sandbox) -> None:
    action = CmdRunAction("echo hello")
    obs = cmd(sandbox.via_stream(action))
    assert obs.cause == action.id
    assert obs.content == "hello"
    assert obs.exit_code == 0
    assert obs.metadata.suffix == COMPLETED_0
    assert obs.metadata.working_dir == sandbox.workspace
    assert obs.metadata.username == sandbox.user
    assert obs.success is True


# --- item 3 -----------------------------------------------------------------------------------


def test_unknown_command_exits_127(sandbox: Sandbox) -> None:
    obs = cmd(sandbox.run("nonexistent_command"))
    assert obs.exit_code == 127
    assert "nonexistent_command: command not found" in obs.content
    assert obs.success is False


# --- item 4 -----------------------------------------------------------------------------------


def test_state_persists_across_actions(sandbox: Sandbox, test_dir: str) -> None:
    sandbox.sh(f"cd {test_dir} && mkdir -p sub")
    moved = cmd(sandbox.run("cd sub"))
    assert moved.metadata.working_dir == f"{test_dir}/sub"
    pwd = cmd(sandbox.run("pwd"))
    assert pwd.content == f"{test_dir}/sub"
    assert pwd.metadata.working_dir == f"{test_dir}/sub"
    sandbox.sh("export CONFORMANCE_X=1")
    assert sandbox.sh("echo $CONFORMANCE_X").content == "1"


def test_metadata_python_is_what_which_finds(sandbox: Sandbox, test_dir: str) -> None:
    """The prompt's py_interpreter_path (computed without forking) is what ``which python``
    answers in the same shell, also after PATH changes (a virtualenv, say)."""
    found = sandbox.sh("which python").content
    assert found and sandbox.sh("echo hi").metadata.py_interpreter_path == found
    sandbox.sh(f"mkdir -p {test_dir}/bin && printf '#!/bin/sh\n' > {test_dir}/bin/python")
    sandbox.sh(f"chmod +x {test_dir}/bin/python")
    original_path = sandbox.sh('echo "$PATH"').content
    try:
        moved = cmd(sandbox.run(f'export PATH="{test_dir}/bin:$PATH"'))
        assert moved.metadata.py_interpreter_path == f"{test_dir}/bin/python"
        assert sandbox.sh("which python").content == f"{test_dir}/bin/python"
    finally:
        sandbox.sh(f'export PATH="{original_path}"')


def test_bash_runs_as_the_sandbox_user(sandbox: Sandbox) -> None:
    obs = sandbox.sh('whoami && echo "$HOME" && id -u')
    assert obs.content.split("\n") == [sandbox.user, sandbox.home, str(sandbox.uid)]


# --- item 5 -----------------------------------------------------------------------------------


def test_several_commands_are_refused(sandbox: Sandbox) -> None:
    obs = sandbox.run("echo one\necho two")
    assert isinstance(obs, ErrorObservation)
    assert obs.content.startswith("ERROR: Cannot execute multiple commands at once.")
    assert "(1) echo one" in obs.content
    assert "(2) echo two" in obs.content


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("echo one && echo two", "one\ntwo"),
        ("echo one; echo two", "one\ntwo"),
        ("cat <<'EOF'\nline 1\nline 2\nEOF", "line 1\nline 2"),
        ("echo one \\\n  two", "one two"),
    ],
    ids=["and", "semicolon", "heredoc", "continuation"],
)
def test_chained_commands_run_as_one(sandbox: Sandbox, command: str, output: str) -> None:
    obs = cmd(sandbox.run(command))
    assert obs.exit_code == 0
    assert obs.content.endswith(output)


# --- item 6 -----------------------------------------------------------------------------------


def test_find_exec_escaping_survives(sandbox: Sandbox, test_dir: str) -> None:
    sandbox.sh(
        f"mkdir -p {test_dir}/d && echo x > {test_dir}/d/yes.txt && echo y > {test_dir}/d/no.txt"
    )
    obs = cmd(sandbox.run(f"find {test_dir}/d -type f -exec grep -l x {{}} \\;"))
    assert obs.exit_code == 0
    assert obs.content == f"{test_dir}/d/yes.txt"


# --- item 7 -----------------------------------------------------------------------------------


def test_soft_timeout_then_input(sandbox: Sandbox) -> None:
    waiting = cmd(sandbox.run('read -p "Enter name: " n && echo "Hello $n"'))
    assert waiting.exit_code == -1
    assert "Enter name:" in waiting.content
    assert waiting.metadata.suffix.startswith(
        "\n[The command has no new output after 1 seconds. You may wait longer"
    )
    answered = cmd(sandbox.run("John", is_input=True))
    assert "Hello John" in answered.content
    assert answered.exit_code == 0
    assert answered.metadata.suffix == COMPLETED_0


# --- item 8 -----------------------------------------------------------------------------------


def test_hard_timeout_reports_new_output_each_time(sandbox: Sandbox) -> None:
    first = cmd(sandbox.run("for i in {1..5}; do echo $i; sleep 3; done", timeout=2.5))
    assert first.content == "1"
    assert first.metadata.prefix == ""
    assert "[The command timed out after 2.5 seconds." in first.metadata.suffix
    seen, last = ["1"], first
    for _ in range(10):
        last = cmd(sandbox.run("", timeout=2.5))
        if last.exit_code != -1:
            break
        assert last.metadata.prefix == text.PREVIOUS_OUTPUT_PREFIX
        assert "[The command timed out after 2.5 seconds." in last.metadata.suffix
        assert len(last.content.split()) <= 1, last.content  # only the next number
        seen += last.content.split()
    seen += last.content.split()
    assert seen == ["1", "2", "3", "4", "5"]
    assert last.exit_code == 0
    assert last.metadata.suffix == COMPLETED_0


# --- item 9 -----------------------------------------------------------------------------------


def test_new_command_is_refused_while_one_runs(sandbox: Sandbox) -> None:
    first = cmd(sandbox.run("echo started && sleep 30", timeout=1))
    assert first.exit_code == -1
    refused = cmd(sandbox.run("echo never", timeout=1))
    assert refused.exit_code == -1
    assert (
        'Your command "echo never" is NOT executed. The previous command is still running'
        in refused.metadata.suffix
    )
    assert refused.metadata.prefix == text.PREVIOUS_OUTPUT_PREFIX
    assert "never" not in refused.content


# --- item 10 ----------------------------------------------------------------------------------


def test_ctrl_c_interrupts(sandbox: Sandbox) -> None:
    running = cmd(sandbox.run("echo OLD_OUTPUT && sleep 30", timeout=1))
    assert running.exit_code == -1
    stopped = cmd(sandbox.run("C-c", is_input=True, timeout=5))
    assert stopped.exit_code in (130, 1)
    assert "CTRL+C was sent." in stopped.metadata.suffix
    listing = cmd(sandbox.run("ls"))
    assert listing.exit_code == 0
    assert "OLD_OUTPUT" not in listing.content


# --- item 11 ----------------------------------------------------------------------------------


def test_empty_command_and_input_with_nothing_running(sandbox: Sandbox) -> None:
    logs = cmd(sandbox.run(""))
    assert logs.content == "ERROR: No previous running command to retrieve logs from."
    assert logs.exit_code == -1
    typed = cmd(sandbox.run("anything", is_input=True))
    assert typed.content == "ERROR: No previous running command to interact with."
    assert typed.exit_code == -1


# --- item 12 ----------------------------------------------------------------------------------


def test_long_output_is_truncated(sandbox: Sandbox) -> None:
    obs = cmd(sandbox.via_stream(_blocking("seq 1 50000", 60)))
    assert obs.exit_code == 0
    assert obs.metadata.prefix.startswith(
        "[Previous command outputs are truncated. Showing the last"
    )
    assert len(obs.content) == 30_000 + len(TRUNCATION_MARKER)
    assert obs.content[15_000 : 15_000 + len(TRUNCATION_MARKER)] == TRUNCATION_MARKER
    assert obs.content.endswith("49999\n50000")


def _blocking(command: str, timeout: float) -> CmdRunAction:
    action = CmdRunAction(command)
    action.set_hard_timeout(timeout)
    return action
