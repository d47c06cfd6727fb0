"""Conformance §17 items 20 and 23: IPython cells (with AgentSkills) and environment variables."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from openhands.events.action import IPythonRunCellAction
from openhands.events.observation import IPythonRunCellObservation
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def cell(sandbox: Sandbox, code: str, **kwargs: Any) -> IPythonRunCellObservation:
    obs = sandbox.ipython(code, **kwargs)
    assert isinstance(obs, IPythonRunCellObservation), obs
    return obs


def extras(sandbox: Sandbox, cwd: str | None = None) -> str:
    return (
        f"\n[Jupyter current working directory: {cwd or sandbox.workspace}]"
        f"\n[Jupyter Python interpreter: {interpreter(sandbox)}]"
    )


def interpreter(sandbox: Sandbox) -> str:
    return cell(sandbox, "import sys; print(sys.executable)", include_extra=False).content


# --- item 20 ----------------------------------------------------------------------------------


def test_print_through_the_event_stream(sandbox: Sandbox) -> None:
    action = IPythonRunCellAction("print(1)")
    obs = sandbox.via_stream(action)
    assert isinstance(obs, IPythonRunCellObservation)
    assert obs.cause == action.id
    assert obs.content == "1" + extras(sandbox)
    if sandbox.kind == "docker":
        assert interpreter(sandbox) == "/openhands/venv/bin/python"
    # The kernel runs as the sandbox user, like bash.
    whoami = cell(sandbox, "import os; print(os.getuid())", include_extra=False)
    assert whoami.content == str(sandbox.uid)


def test_cell_without_output(sandbox: Sandbox) -> None:
    assert cell(sandbox, "x = 41").content == (
        "[Code executed successfully with no output]" + extras(sandbox)
    )
    assert cell(sandbox, "x + 1", include_extra=False).content == "42"


def test_kernel_follows_the_bash_directory(sandbox: Sandbox) -> None:
    sandbox.sh("cd /tmp")
    obs = cell(sandbox, "import os; print(os.getcwd())")
    assert obs.content == "/tmp" + extras(sandbox, "/tmp")


def test_exception_gives_the_traceback(sandbox: Sandbox) -> None:
    content = cell(sandbox, "1 / 0", include_extra=False).content
    assert "Traceback (most recent call last)" in content
    assert content.endswith("ZeroDivisionError: division by zero")
    assert "\x1b[" not in content


def test_image_outputs_become_data_urls(sandbox: Sandbox) -> None:
    obs = cell(
        sandbox,
        "from IPython.display import Image, display\n"
        f"import base64; display(Image(data=base64.b64decode('{PNG_1X1}')))",
        include_extra=False,
    )
    assert obs.image_urls == [f"data:image/png;base64,{PNG_1X1}"]


def test_cell_timeout_interrupts_the_kernel(sandbox: Sandbox) -> None:
    obs = cell(sandbox, "import time; time.sleep(30)", timeout=1, include_extra=False)
    assert obs.content == "[Execution timed out (1.0 seconds).]"
    # The kernel was interrupted, not left busy: the next cell runs at once.
    assert cell(sandbox, "print('alive')", timeout=5, include_extra=False).content == "alive"


def test_agent_skills_are_in_the_kernel(sandbox: Sandbox, test_dir: str) -> None:
    sandbox.sh(f"printf 'one\\ntwo needle\\nthree\\n' > {test_dir}/skills.txt")
    opened = cell(sandbox, f"open_file('{test_dir}/skills.txt')", include_extra=False)
    assert opened.content.startswith(f"[File: {test_dir}/skills.txt (3 lines total)]")
    assert "2|two needle" in opened.content
    found = cell(sandbox, f"search_dir('needle', '{test_dir}')", include_extra=False)
    assert f"{test_dir}/skills.txt (Line 2): two needle" in found.content
    names = cell(sandbox, f"find_file('skills.txt', '{test_dir}')", include_extra=False)
    assert f"{test_dir}/skills.txt" in names.content


def test_file_editor_output_is_wrapped_json(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/made_in_kernel.txt"
    obs = cell(
        sandbox,
        f"file_editor(command='create', path='{path}', file_text='hi')",
        include_extra=False,
    )
    match = re.fullmatch(r"<(oh_aci_output_[0-9a-f]+)>\n(.*)\n</\1>", obs.content, re.S)
    assert match, obs.content
    result = json.loads(match.group(2))
    assert result["output"] == f"File created successfully at: {path}"
    assert result["error"] == ""
    assert result["formatted_output_and_error"] == result["output"]
    assert result["prev_exist"] is False
    assert set(result) == {
        "output",
        "error",
        "path",
        "prev_exist",
        "old_content",
        "new_content",
        "formatted_output_and_error",
    }


# --- item 23 ----------------------------------------------------------------------------------


def test_add_env_vars_reaches_bash_ipython_and_bashrc(sandbox: Sandbox) -> None:
    sandbox.runtime.add_env_vars({"QUUX": 'abc"def'})
    assert sandbox.sh("echo $QUUX").content == 'abc"def'
    in_kernel = cell(sandbox, "import os; print(os.environ['QUUX'])", include_extra=False)
    assert in_kernel.content == 'abc"def'
    assert sandbox.sh("grep '^export QUUX=' ~/.bashrc").content == 'export QUUX="abc\\"def"'


def test_host_and_startup_variables_are_visible(sandbox: Sandbox) -> None:
    assert sandbox.sh("echo $FOOBAR").content == "BAZ"
    assert sandbox.sh("echo $STARTUP_VAR").content == "from-startup"


def test_git_identity_is_set(sandbox: Sandbox) -> None:
    assert sandbox.sh("git config --global user.name").content == "openhands"
    assert sandbox.sh("git config --global user.email").content == "openhands@all-hands.dev"
