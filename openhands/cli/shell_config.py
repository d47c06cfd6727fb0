"""Shell aliases ``openhands`` and ``oh`` (cli.md §14.3).

The start-up flow offers to add the aliases; this module finds the shell's rc file, tells whether
the aliases are already there and appends them. Nothing here writes a file unless one of the
``add_*``/``mark_*`` functions is called, which the app only does after the user said yes (or no,
for the decline marker).

Paths are built from ``Path.home()`` at call time, never cached, so a changed ``HOME`` (or a test
patching ``Path.home``) is always respected.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import sys
import sysconfig
from pathlib import Path


def this_installation_command() -> str:
    """The command that starts the ``openhands`` of the running installation.

    The reference's aliases ran ``uvx --from openhands-ai openhands``, i.e. the published
    package from PyPI, not the copy the user is running. Ours point at this installation:
    its ``openhands`` console script (next to the interpreter, e.g. ``.venv/bin``) when
    there is one, else this interpreter with ``-m openhands.cli.entry``. Paths are quoted
    for a POSIX shell, so a folder with spaces still works.
    """
    script = Path(sysconfig.get_path("scripts")) / "openhands"
    if script.is_file() and os.access(script, os.X_OK):
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m openhands.cli.entry"


# The name is the reference's (scripts and tests import it); the value is this installation.
DEFAULT_COMMAND = this_installation_command()
ALIAS_NAMES: tuple[str, ...] = ("openhands", "oh")
ALIAS_BLOCK_HEADER = "# OpenHands CLI aliases"
DECLINED_MARKER_NAME = ".cli_alias_setup_declined"

SUPPORTED_SHELLS = frozenset({"bash", "zsh", "fish", "csh", "tcsh", "powershell"})

# An alias line for one of our names: ``alias oh=...`` (bash, zsh, fish) or ``alias oh '...'``
# (csh). ``alias ohmy=...`` must not count, hence the separator after the name.
_POSIX_ALIAS_PATTERN = re.compile(
    r"^\s*alias\s+(?:" + "|".join(ALIAS_NAMES) + r")(?:\s*=|\s)", re.MULTILINE
)
_POWERSHELL_FUNCTION_PATTERN = re.compile(
    r"^\s*function\s+(?:" + "|".join(ALIAS_NAMES) + r")\b", re.MULTILINE | re.IGNORECASE
)


def _openhands_dir() -> Path:
    return Path.home() / ".openhands"


class ShellConfigManager:
    """Knows where each shell keeps its rc file and how to write aliases for it."""

    def __init__(self, command: str = DEFAULT_COMMAND) -> None:
        self.command = command
        self.is_windows = platform.system() == "Windows"

    def detect_shell(self) -> str | None:
        """The user's shell (one of ``SUPPORTED_SHELLS``), or ``None`` if it cannot be told.

        The shell this process runs in (``shellingham``, when installed) wins over ``$SHELL``,
        which only names the login shell.
        """
        if self.is_windows:
            return "powershell"
        # A running shell we do not support (e.g. `sh` under make) says nothing about the
        # user's own: $SHELL is asked next.
        for name in (_running_shell_name(), Path(os.environ.get("SHELL", "")).name):
            name = (name or "").lower()
            if name in ("pwsh", "powershell"):
                return "powershell"
            if name in SUPPORTED_SHELLS:
                return name
        return None

    def get_shell_config_path(self, shell: str | None = None) -> Path:
        """The rc file of ``shell`` (default: the detected one; bash when unknown)."""
        shell = shell or self.detect_shell() or "bash"
        home = Path.home()
        if shell == "zsh":
            return home / ".zshrc"
        if shell == "fish":
            return home / ".config" / "fish" / "config.fish"
        if shell in ("csh", "tcsh"):
            return home / f".{shell}rc"
        if shell == "powershell":
            return home / "Documents" / "PowerShell" / "Microsoft.PowerShell_profile.ps1"
        # An existing .bashrc first; otherwise .bash_profile, which login shells (macOS
        # terminals) always read (cli.md §14.3).
        bashrc = home / ".bashrc"
        return bashrc if bashrc.exists() else home / ".bash_profile"

    def get_shell_type_from_path(self, config_path: Path) -> str:
        """The shell an rc file belongs to, told from its name (bash when unclear)."""
        name = config_path.name.lower()
        if name.endswith(".ps1"):
            return "powershell"
        if "zsh" in name:
            return "zsh"
        if name.endswith(".fish") or config_path.parent.name == "fish":
            return "fish"
        if "tcsh" in name:
            return "tcsh"
        if "csh" in name:
            return "csh"
        return "bash"

    def aliases_exist(self, config_path: Path | None = None) -> bool:
        """Whether the rc file already defines ``openhands`` or ``oh``."""
        path = config_path or self.get_shell_config_path()
        try:
            content = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        if self.get_shell_type_from_path(path) == "powershell":
            return _POWERSHELL_FUNCTION_PATTERN.search(content) is not None
        return _POSIX_ALIAS_PATTERN.search(content) is not None

    def alias_block(self, shell: str) -> str:
        """The text appended to an rc file of ``shell``."""
        if shell == "powershell":
            # PowerShell aliases cannot carry arguments, so functions forward ``@args``.
            lines = [f"function {name} {{ {self.command} @args }}" for name in ALIAS_NAMES]
        elif shell in ("csh", "tcsh"):
            lines = [f"alias {name} {shlex.quote(self.command)}" for name in ALIAS_NAMES]
        else:
            lines = [f"alias {name}={_double_quoted(self.command)}" for name in ALIAS_NAMES]
        return "\n".join(["", ALIAS_BLOCK_HEADER, *lines, ""])

    def add_aliases(self, config_path: Path | None = None) -> bool:
        """Append the alias block unless the aliases exist. True when they are there afterwards."""
        path = config_path or self.get_shell_config_path()
        if self.aliases_exist(path):
            return True
        block = self.alias_block(self.get_shell_type_from_path(path))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # An rc file without a final newline would glue our first line onto its last one.
            if _lacks_final_newline(path):
                block = "\n" + block
            with path.open("a", encoding="utf-8") as file:
                file.write(block)
        except OSError as error:
            print(f"Error adding aliases to {path}: {error}")
            return False
        return True

    def get_reload_command(self, config_path: Path | None = None) -> str:
        """What the user types to load the new aliases into the current shell."""
        path = config_path or self.get_shell_config_path()
        if self.get_shell_type_from_path(path) == "powershell":
            return ". $PROFILE"
        return f"source {_home_relative(path)}"


def _running_shell_name() -> str:
    """The name of the shell we run in, as ``shellingham`` tells it; ``''`` when unknown."""
    try:
        import shellingham  # optional; imported only when the alias flow needs it

        name, _ = shellingham.detect_shell()
    except Exception:  # not installed, or detection failed: fall back to $SHELL
        return ""
    return str(name)


def _double_quoted(command: str) -> str:
    """``"command"`` for bash, zsh and fish, with the characters they expand escaped."""
    escaped = "".join("\\" + char if char in '"\\$`' else char for char in command)
    return f'"{escaped}"'


def _lacks_final_newline(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            if file.tell() == 0:
                return False
            file.seek(-1, os.SEEK_END)
            return file.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _home_relative(path: Path) -> str:
    """``~/.zshrc`` rather than ``/home/me/.zshrc``.

    A file outside our home folder that still sits in a dot-entry of some home (``.zshrc``,
    ``.config/fish/config.fish``) is named the same way, from that entry on.
    """
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        pass
    parts = path.parts
    for index, part in enumerate(parts):
        if part.startswith(".") and part not in (".", ".."):
            return "~/" + "/".join(parts[index:])
    return str(path)


def add_aliases_to_shell_config() -> bool:
    """Add the aliases to the detected shell's rc file."""
    return ShellConfigManager().add_aliases()


def aliases_exist_in_shell_config() -> bool:
    """Whether the detected shell's rc file defines the aliases."""
    return ShellConfigManager().aliases_exist()


def get_shell_config_path() -> Path:
    """The detected shell's rc file."""
    return ShellConfigManager().get_shell_config_path()


def alias_setup_declined() -> bool:
    """Whether the user answered no to the alias offer before."""
    return (_openhands_dir() / DECLINED_MARKER_NAME).exists()


def mark_alias_setup_declined() -> None:
    """Remember the user's no, so the offer is not repeated."""
    directory = _openhands_dir()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / DECLINED_MARKER_NAME).touch()
