"""A rule-based analyzer of our own: obvious dangers are HIGH, with no model or service.

Registered as ``rules``. Commands and Python cells go through the shell rules; Python is
also checked for deleting or overwriting system paths. File writes and edits to system
locations are HIGH, reads of secrets MEDIUM. Browsing local files is MEDIUM. Actions the
rules cannot see into (MCP tool calls) are UNKNOWN, so confirmation mode still asks.
"""

from __future__ import annotations

import re

from openhands.events.action import (
    Action,
    ActionSecurityRisk,
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
)
from openhands.security.analyzer import SecurityAnalyzer
from openhands.security.rules.shell import SYSTEM_WRITE_PREFIXES, shell_command_risk

_SECRET_PATHS = re.compile(r"(^|/)\.ssh/|^/etc/(shadow|gshadow|sudoers)|(^|/)\.aws/credentials")
_SSH_KEYS = re.compile(r"(^|/)\.ssh/(authorized_keys|id_[^/]*)$")
_PYTHON_HIGH = tuple(
    re.compile(p)
    for p in (
        # shutil.rmtree / os.removedirs on a system tree or the home directory
        r"\b(shutil\.rmtree|os\.removedirs)\(\s*['\"](/|~|/(etc|usr|bin|boot|home|root|var|lib))/?['\"]",
        # opening a system file for writing
        r"\bopen\(\s*['\"](/etc|/boot|/usr|/bin|/sbin)/[^'\"]*['\"]\s*,\s*['\"][wax+]",
    )
)
_READ_ONLY_EDIT_COMMANDS = frozenset({"view"})


class RuleBasedSecurityAnalyzer(SecurityAnalyzer):
    async def security_risk(self, action: Action) -> ActionSecurityRisk:
        return assess_action(action)


def assess_action(action: Action) -> ActionSecurityRisk:
    """The rules' verdict for one action (pure)."""
    if isinstance(action, CmdRunAction):
        return shell_command_risk(action.command)
    if isinstance(action, IPythonRunCellAction):
        return _python_risk(action.code)
    if isinstance(action, FileWriteAction):
        return _write_risk(action.path)
    if isinstance(action, FileEditAction):
        if action.command in _READ_ONLY_EDIT_COMMANDS:
            return _read_risk(action.path)
        return _write_risk(action.path)
    if isinstance(action, FileReadAction):
        return _read_risk(action.path)
    if isinstance(action, BrowseURLAction):
        return _url_risk(action.url)
    if isinstance(action, BrowseInteractiveAction):
        return _url_risk(action.browser_actions)
    if isinstance(action, MCPAction):
        return ActionSecurityRisk.UNKNOWN
    return ActionSecurityRisk.LOW


def _python_risk(code: str) -> ActionSecurityRisk:
    if any(p.search(code) for p in _PYTHON_HIGH):
        return ActionSecurityRisk.HIGH
    # Shell escapes (`!cmd`, `%%bash`, os.system("...")) carry shell text: judge all of it.
    return shell_command_risk(code)


def _write_risk(path: str) -> ActionSecurityRisk:
    if path.startswith(SYSTEM_WRITE_PREFIXES) or _SSH_KEYS.search(path):
        return ActionSecurityRisk.HIGH
    return ActionSecurityRisk.LOW


def _read_risk(path: str) -> ActionSecurityRisk:
    return ActionSecurityRisk.MEDIUM if _SECRET_PATHS.search(path) else ActionSecurityRisk.LOW


def _url_risk(text: str) -> ActionSecurityRisk:
    return ActionSecurityRisk.MEDIUM if "file://" in text else ActionSecurityRisk.LOW
