"""Risk rules for shell command text (pure functions).

HIGH is for commands that can destroy the machine or hand it to a stranger: deleting
system trees, piping a download into a shell, opening system directories to everyone,
writing raw devices, formatting disks, fork bombs, writing to system configuration,
powering off. MEDIUM is for privileged or history-rewriting commands. Everything else
is LOW. The rules read the text the way a reviewer would; they are a safety net for
confirmation mode, not a sandbox.
"""

from __future__ import annotations

import re
import shlex

from openhands.events.action import ActionSecurityRisk

# Paths whose recursive deletion, or opening to everyone, wrecks the system or the user.
SYSTEM_PATHS = frozenset(
    {
        "/",
        "/*",
        "~",
        "~/",
        "~/*",
        "$HOME",
        "${HOME}",
        "$HOME/",
        "$HOME/*",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib64",
        "/opt",
        "/proc",
        "/root",
        "/sbin",
        "/sys",
        "/usr",
        "/var",
    }
)
# Where writing (redirection, tee, in-place edits) changes how the system behaves.
SYSTEM_WRITE_PREFIXES = ("/etc/", "/boot/", "/usr/", "/bin/", "/sbin/", "/lib/", "/sys/", "/proc/")

_HIGH_PATTERNS = tuple(
    re.compile(p)
    for p in (
        # download | shell (also through sudo or env, and `sh <(curl ...)`)
        r"\b(curl|wget|fetch)\b[^|;&\n]*\|\s*(sudo\s+)?(env\s+)?(ba|z|da|k|c|tc)?sh\b",
        r"\b(curl|wget|fetch)\b[^|;&\n]*\|\s*(sudo\s+)?(python[0-9.]*|perl|ruby|node)\b",
        r"\b(ba|z|da)?sh\s+<\(\s*(curl|wget)\b",
        # fork bomb: name(){ name|name& };name
        r"([\w:]+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;?\s*\1",
        # raw writes to block devices
        r"\bdd\b[^;&|\n]*\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-)",
        r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk)",
        # filesystem and partition tools
        r"\bmkfs(\.\w+)?\b",
        r"\b(fdisk|sfdisk|parted|wipefs)\b",
        r"\bshred\b[^;&|\n]*/dev/",
        # overwriting system configuration
        r">>?\s*/etc/",
        r"\btee\s+(-a\s+)?/etc/",
        r"\bsed\s+(-[a-zA-Z]*i[a-zA-Z]*|--in-place)\b[^;&|\n]*\s/etc/",
        # powering off, killing everything
        r"\b(shutdown|reboot|halt|poweroff)\b",
        r"\binit\s+[06]\b",
        r"\bkill\s+-(9|KILL|SIGKILL)\s+-1\b",
        r"--no-preserve-root\b",
    )
)
_MEDIUM_PATTERNS = tuple(
    re.compile(p)
    for p in (
        r"(^|[;&|(\s])sudo\s",
        r"\bgit\s+push\b[^;&|\n]*(\s--force\b|\s-f\b)",
        r"\bgit\s+reset\s+--hard\b",
        r"\bchmod\b[^;&|\n]*\b(777|a\+rwx)\b",
        r"~/\.ssh/|/\.ssh/id_",
        r"/etc/(shadow|sudoers)\b",
    )
)
_SEPARATOR_CHARS = frozenset(";&|")


def shell_command_risk(command: str) -> ActionSecurityRisk:
    if not command.strip():
        return ActionSecurityRisk.LOW
    if any(p.search(command) for p in _HIGH_PATTERNS):
        return ActionSecurityRisk.HIGH
    if any(_simple_command_is_destructive(words) for words in _simple_commands(command)):
        return ActionSecurityRisk.HIGH
    if any(p.search(command) for p in _MEDIUM_PATTERNS):
        return ActionSecurityRisk.MEDIUM
    return ActionSecurityRisk.LOW


def _simple_commands(command: str) -> list[list[str]]:
    """Split into simple commands (words), dropping `sudo` and env assignments in front."""
    commands: list[list[str]] = []
    for line in command.splitlines():
        commands.append([])
        for token in _tokens(line):
            if set(token) <= _SEPARATOR_CHARS:
                commands.append([])
            else:
                commands[-1].append(token)
    return [_strip_prefixes(words) for words in commands if words]


def _tokens(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: split on blanks and separators, keep the quotes
        return re.findall(r"[;&|]+|[^\s;&|]+", line)


def _strip_prefixes(words: list[str]) -> list[str]:
    while words and (words[0] in {"sudo", "command", "exec", "nohup"} or _is_assignment(words[0])):
        words = words[1:]
    return words


def _is_assignment(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word) is not None


def _simple_command_is_destructive(words: list[str]) -> bool:
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    flags = [w for w in words[1:] if w.startswith("-")]
    targets = {_normalise_path(w) for w in words[1:] if not w.startswith("-")}
    if program == "rm":
        return _has_recursive_flag(flags) and bool(targets & SYSTEM_PATHS)
    if program in {"chmod", "chown", "chgrp"}:
        return bool(targets & SYSTEM_PATHS)
    if program == "mv":
        return bool(targets & {"/", "/*", "/etc", "/usr", "/bin", "/boot", "/lib"})
    return False


def _has_recursive_flag(flags: list[str]) -> bool:
    for flag in flags:
        if flag == "--recursive":
            return True
        if not flag.startswith("--") and ("r" in flag or "R" in flag):
            return True
    return False


def _normalise_path(word: str) -> str:
    """`/etc/` → `/etc`, `//` → `/`; keeps the glob forms listed in SYSTEM_PATHS."""
    if word in SYSTEM_PATHS:
        return word
    collapsed = re.sub(r"/+", "/", word)
    if len(collapsed) > 1:
        collapsed = collapsed.rstrip("/") or "/"
    return collapsed
