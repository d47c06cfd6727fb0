"""openhands.cli.shell_config: rc-file detection, alias detection and the alias block."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import sysconfig
import types
from pathlib import Path

import pytest

import openhands
from openhands.cli import shell_config
from openhands.cli.shell_config import (
    ALIAS_BLOCK_HEADER,
    DEFAULT_COMMAND,
    ShellConfigManager,
    add_aliases_to_shell_config,
    alias_setup_declined,
    aliases_exist_in_shell_config,
    get_shell_config_path,
    mark_alias_setup_declined,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    # Whatever shell runs the tests must not matter: only $SHELL decides here.
    monkeypatch.setattr(shell_config, "_running_shell_name", lambda: "")
    return home


@pytest.fixture
def manager(home: Path) -> ShellConfigManager:
    created = ShellConfigManager()
    created.is_windows = False
    return created


def _version_via_shell(command: str) -> str:
    """What ``<command> --version`` prints when a POSIX shell runs it (as an alias would)."""
    result = subprocess.run(
        ["sh", "-c", f"{command} --version"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_default_command_starts_this_installation(manager: ShellConfigManager) -> None:
    # The reference's aliases ran the published package through uvx; ours run this copy.
    assert manager.command == DEFAULT_COMMAND
    assert "uvx" not in DEFAULT_COMMAND and "openhands-ai" not in DEFAULT_COMMAND
    script = Path(sysconfig.get_path("scripts")) / "openhands"
    assert script.is_file(), "the suite runs from an installed environment"
    assert shlex.quote(str(script)) == DEFAULT_COMMAND
    assert _version_via_shell(DEFAULT_COMMAND) == f"OpenHands CLI version: {openhands.__version__}"
    assert ShellConfigManager("my cmd").command == "my cmd"


def test_default_command_without_console_script_uses_this_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No ``openhands`` script next to the interpreter (e.g. a source checkout on PYTHONPATH).
    monkeypatch.setattr(shell_config.sysconfig, "get_path", lambda name: str(tmp_path))
    command = shell_config.this_installation_command()
    assert command == f"{shlex.quote(sys.executable)} -m openhands.cli.entry"
    assert _version_via_shell(command) == f"OpenHands CLI version: {openhands.__version__}"


def test_default_command_quotes_a_folder_with_spaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripts = tmp_path / "my env" / "bin"
    scripts.mkdir(parents=True)
    script = scripts / "openhands"
    script.write_text('#!/bin/sh\necho "spaced $1"\n')
    script.chmod(0o755)
    monkeypatch.setattr(shell_config.sysconfig, "get_path", lambda name: str(scripts))
    command = shell_config.this_installation_command()
    assert command == shlex.quote(str(script))
    assert _version_via_shell(command) == "spaced --version"


@pytest.mark.parametrize(
    ("shell_env", "expected"),
    [
        ("/bin/bash", "bash"),
        ("/usr/bin/zsh", "zsh"),
        ("/opt/homebrew/bin/fish", "fish"),
        ("/bin/tcsh", "tcsh"),
        ("/usr/bin/pwsh", "powershell"),
        ("/bin/ksh", None),
        ("", None),
    ],
)
def test_detect_shell(
    manager: ShellConfigManager,
    monkeypatch: pytest.MonkeyPatch,
    shell_env: str,
    expected: str | None,
) -> None:
    monkeypatch.setenv("SHELL", shell_env)
    assert manager.detect_shell() == expected


def _fake_shellingham(monkeypatch: pytest.MonkeyPatch, answer: tuple[str, str] | None) -> None:
    def detect_shell() -> tuple[str, str]:
        if answer is None:
            raise RuntimeError("no shell found")
        return answer

    module = types.ModuleType("shellingham")
    module.detect_shell = detect_shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "shellingham", module)


def test_running_shell_wins_over_login_shell(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # drop the fixture's stub of _running_shell_name
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    _fake_shellingham(monkeypatch, ("zsh", "/usr/bin/zsh"))
    manager = ShellConfigManager()
    manager.is_windows = False
    assert manager.detect_shell() == "zsh"
    assert manager.get_shell_config_path() == home / ".zshrc"

    # A failed detection falls back to $SHELL.
    _fake_shellingham(monkeypatch, None)
    assert manager.detect_shell() == "bash"

    # So does a running shell we have no rc file for (`sh` when run under make).
    _fake_shellingham(monkeypatch, ("sh", "/bin/sh"))
    assert manager.detect_shell() == "bash"


def test_detect_shell_on_windows(manager: ShellConfigManager) -> None:
    manager.is_windows = True
    assert manager.detect_shell() == "powershell"


def test_config_paths(manager: ShellConfigManager, home: Path) -> None:
    assert manager.get_shell_config_path("zsh") == home / ".zshrc"
    assert manager.get_shell_config_path("fish") == home / ".config" / "fish" / "config.fish"
    assert manager.get_shell_config_path("csh") == home / ".cshrc"
    assert manager.get_shell_config_path("tcsh") == home / ".tcshrc"
    assert manager.get_shell_config_path("powershell").suffix == ".ps1"


def test_bash_prefers_bashrc_then_bash_profile(manager: ShellConfigManager, home: Path) -> None:
    # Neither exists: .bash_profile, which every login shell reads.
    assert manager.get_shell_config_path("bash") == home / ".bash_profile"
    (home / ".bash_profile").write_text("")
    assert manager.get_shell_config_path("bash") == home / ".bash_profile"
    (home / ".bashrc").write_text("")
    assert manager.get_shell_config_path("bash") == home / ".bashrc"


def test_config_path_follows_detected_shell(
    manager: ShellConfigManager, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/zsh")
    assert manager.get_shell_config_path() == home / ".zshrc"
    assert get_shell_config_path() == home / ".zshrc"
    monkeypatch.setenv("SHELL", "/bin/unknown-shell")
    assert manager.get_shell_config_path() == home / ".bash_profile"


def test_path_home_is_read_at_call_time(
    manager: ShellConfigManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other-home"
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: other))
    assert manager.get_shell_config_path("zsh") == other / ".zshrc"


@pytest.mark.parametrize(
    ("relative", "shell"),
    [
        (".bashrc", "bash"),
        (".bash_profile", "bash"),
        (".profile", "bash"),
        (".zshrc", "zsh"),
        (".config/fish/config.fish", "fish"),
        (".cshrc", "csh"),
        (".tcshrc", "tcsh"),
        ("Documents/PowerShell/Microsoft.PowerShell_profile.ps1", "powershell"),
    ],
)
def test_shell_type_from_path(
    manager: ShellConfigManager, home: Path, relative: str, shell: str
) -> None:
    assert manager.get_shell_type_from_path(home / relative) == shell


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", False),
        ("export PATH=/x:$PATH\n", False),
        ("alias ll='ls -l'\n", False),
        ("alias ohmy='x'\n", False),
        ("# alias openhands=old\n", False),
        ("alias openhands='x'\n", True),
        ("  alias oh=x\n", True),
        ("alias oh = x\n", True),
        ('export A=1\nalias openhands="uvx openhands"\n', True),
    ],
)
def test_aliases_exist_posix(
    manager: ShellConfigManager, home: Path, content: str, expected: bool
) -> None:
    rc = home / ".bashrc"
    rc.write_text(content)
    assert manager.aliases_exist(rc) is expected


def test_aliases_exist_missing_file(manager: ShellConfigManager, home: Path) -> None:
    assert manager.aliases_exist(home / ".zshrc") is False
    assert aliases_exist_in_shell_config() is False


def test_aliases_exist_powershell(manager: ShellConfigManager, home: Path) -> None:
    profile = home / "profile.ps1"
    profile.write_text("function ls2 { Get-ChildItem }\n")
    assert manager.aliases_exist(profile) is False
    profile.write_text("function oh { uvx openhands @args }\n")
    assert manager.aliases_exist(profile) is True


def test_add_aliases_appends_block_once(manager: ShellConfigManager, home: Path) -> None:
    rc = home / ".bashrc"
    rc.write_text("export EDITOR=vim")  # no final newline

    assert manager.add_aliases(rc) is True
    assert manager.add_aliases(rc) is True

    text = rc.read_text()
    assert text.startswith("export EDITOR=vim\n")
    assert text.count(ALIAS_BLOCK_HEADER) == 1
    assert f'alias openhands="{DEFAULT_COMMAND}"' in text
    assert f'alias oh="{DEFAULT_COMMAND}"' in text
    assert manager.aliases_exist(rc)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_added_aliases_work_in_bash(manager: ShellConfigManager, home: Path) -> None:
    rc = home / ".bashrc"
    manager.command = "echo hello from"
    manager.add_aliases(rc)

    result = subprocess.run(
        ["bash", "-c", f"shopt -s expand_aliases; source {rc}\noh there\nopenhands x"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines() == ["hello from there", "hello from x"]


def test_default_aliases_start_this_openhands(manager: ShellConfigManager, home: Path) -> None:
    rc = home / ".bashrc"
    manager.add_aliases(rc)

    result = subprocess.run(
        ["bash", "-c", f"shopt -s expand_aliases; source {rc}\noh --version\nopenhands -v"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    expected = f"OpenHands CLI version: {openhands.__version__}"
    assert result.stdout.splitlines() == [expected, expected]


def test_add_aliases_creates_missing_fish_config(manager: ShellConfigManager, home: Path) -> None:
    path = home / ".config" / "fish" / "config.fish"
    assert manager.add_aliases(path) is True
    assert "alias openhands=" in path.read_text()


def test_add_aliases_for_csh_and_powershell(manager: ShellConfigManager, home: Path) -> None:
    cshrc = home / ".cshrc"
    manager.add_aliases(cshrc)
    assert f"alias oh {shlex.quote(DEFAULT_COMMAND)}" in cshrc.read_text()
    assert manager.aliases_exist(cshrc)

    profile = home / "Documents" / "PowerShell" / "Microsoft.PowerShell_profile.ps1"
    manager.add_aliases(profile)
    text = profile.read_text()
    assert f"function openhands {{ {DEFAULT_COMMAND} @args }}" in text
    assert manager.aliases_exist(profile)


def test_add_aliases_reports_unwritable_file(
    manager: ShellConfigManager, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A directory where the rc file should be: opening it for append fails.
    rc = home / ".zshrc"
    rc.mkdir()
    assert manager.add_aliases(rc) is False
    assert "Error adding aliases" in capsys.readouterr().out


def test_module_level_add_uses_detected_shell(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/zsh")
    monkeypatch.setattr(shell_config.platform, "system", lambda: "Linux")
    assert add_aliases_to_shell_config() is True
    assert aliases_exist_in_shell_config() is True
    assert (home / ".zshrc").exists()
    assert not (home / ".bashrc").exists()


def test_reload_commands(manager: ShellConfigManager, home: Path, tmp_path: Path) -> None:
    assert manager.get_reload_command(home / ".zshrc") == "source ~/.zshrc"
    assert (
        manager.get_reload_command(home / ".config" / "fish" / "config.fish")
        == "source ~/.config/fish/config.fish"
    )
    assert manager.get_reload_command(home / "p.ps1") == ". $PROFILE"
    # Another home's rc file is still named from its dot-entry on.
    assert manager.get_reload_command(tmp_path / "other" / ".bashrc") == "source ~/.bashrc"
    assert (
        manager.get_reload_command(Path("/home/u/.config/fish/config.fish"))
        == "source ~/.config/fish/config.fish"
    )
    outside = tmp_path / "etc" / "bashrc"
    assert manager.get_reload_command(outside) == f"source {outside}"


def test_nothing_is_written_without_an_explicit_call(home: Path) -> None:
    manager = ShellConfigManager()
    manager.detect_shell()
    manager.get_shell_config_path()
    manager.aliases_exist()
    manager.get_reload_command()
    aliases_exist_in_shell_config()
    alias_setup_declined()
    assert list(home.iterdir()) == []


def test_decline_marker(home: Path) -> None:
    assert alias_setup_declined() is False
    mark_alias_setup_declined()
    assert (home / ".openhands" / ".cli_alias_setup_declined").is_file()
    assert alias_setup_declined() is True
    mark_alias_setup_declined()  # a second time is harmless
    assert alias_setup_declined() is True


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_alias_command_is_not_expanded_when_written(
    manager: ShellConfigManager, home: Path
) -> None:
    # The alias must run the command exactly as configured, with $ and quotes kept for later.
    rc = home / ".bashrc"
    manager.command = 'printf "%s|" "$0" "a b"'
    manager.add_aliases(rc)

    result = subprocess.run(
        ["bash", "-c", f"shopt -s expand_aliases; source {rc}\noh"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == "bash|a b|"
