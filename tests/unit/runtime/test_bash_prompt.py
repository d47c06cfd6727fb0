"""The bash session's fork-free prompt prints the same metadata block as the PS1 of
``CmdOutputMetadata.to_ps1_prompt()`` (runtime.md §4.2) in every state a shell can be in.

Both prompts run in a real bash; each scenario's commands run first, then both PS1 values
are produced the way the session produces them and compared byte for byte.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from openhands.events.observation.commands import CmdOutputMetadata
from openhands.runtime.utils.bash import prompt_setup_command

SCENARIOS = {
    "plain": "true",
    "failed command": "false",
    "exit code 3": "(exit 3)",
    "background job": "sleep 0 & true",
    "cd": "cd /",
    "python first on PATH": 'PATH="$BIN:$PATH"',
    "empty PATH entry means the current directory": 'cd "$BIN" && PATH=":$PATH"',
    "trailing empty PATH entry": 'cd "$BIN" && PATH="/nonexistent:$WHICHDIR:"',
    "no python on PATH": 'PATH="/nonexistent:$(dirname "$(command -v which)")"',
    "python but no which on PATH": 'PATH="$BIN"',
    "neither python nor which on PATH": "PATH=/nonexistent",
    "PATH unset": "unset PATH",
    "a directory named python is skipped": 'PATH="$DIRPY:$BIN"',
    "a non-executable python is skipped": 'PATH="$NOEXEC:$BIN"',
    "globbing off stays off": "set -f",
    "PATH entry with a glob character": 'PATH="$STAR:$BIN"',
}


def _prompt_after(setup: str, scenario: str, env: dict[str, str]) -> tuple[str, str]:
    """(PS1 after running the prompt command, whether globbing is on) in a fresh bash."""
    script = (
        f"{setup}\n{scenario}\n"
        'eval "$PROMPT_COMMAND"\n'
        "__oh_flags=$-\n"
        "PATH=/usr/bin:/bin\n"
        'printf "%s\\n%s" "$!" "$PS1"\n'
        "case $__oh_flags in *f*) echo GLOB-OFF ;; *) echo GLOB-ON ;; esac\n"
    )
    result = subprocess.run(
        ["/bin/bash", "--noprofile", "--norc"],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    output, _, glob = result.stdout.rpartition("GLOB-")
    pid, _, ps1 = output.partition("\n")
    # Each bash has its own background job ids: compare where the pid goes, not its value.
    return (ps1.replace(f'"{pid}"', '"<pid>"') if pid else ps1), glob.strip()


@pytest.fixture
def prompt_env(tmp_path: Path) -> dict[str, str]:
    def make(dirname: str, executable: bool = True, as_dir: bool = False) -> Path:
        folder = tmp_path / dirname
        folder.mkdir()
        target = folder / "python"
        if as_dir:
            target.mkdir()
        else:
            target.write_text("#!/bin/sh\n")
            target.chmod(stat.S_IRUSR | (stat.S_IXUSR if executable else 0))
        return folder

    bin_dir = make("bin")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "BIN": str(bin_dir),
        "DIRPY": str(make("dirpy", as_dir=True)),
        "NOEXEC": str(make("noexec", executable=False)),
        "STAR": str(tmp_path / "st*r"),
        "WHICHDIR": os.path.dirname(shutil.which("which") or "/usr/bin/which"),
    }
    return env


def test_the_setup_line_replaces_every_forking_expansion() -> None:
    line = prompt_setup_command()
    assert "$(" not in line  # no command substitution left: nothing forks per prompt
    assert "PROMPT_COMMAND=__openhands_prompt" in line


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_fast_prompt_matches_the_reference_ps1(scenario: str, prompt_env: dict[str, str]) -> None:
    reference_setup = f"export PROMPT_COMMAND='export PS1=\"{CmdOutputMetadata.to_ps1_prompt()}\"'"
    expected = _prompt_after(reference_setup, scenario, prompt_env)
    actual = _prompt_after(prompt_setup_command(), scenario, prompt_env)
    assert actual == expected
