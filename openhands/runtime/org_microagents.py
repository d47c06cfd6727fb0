"""Microagents an organization (or user) shares with all its repositories.

For a selected repository ``acme/api`` the owner may keep a repository ``acme/.openhands``
(``acme/openhands-config`` on GitLab, which refuses names starting with a dot) whose
``microagents/`` directory applies to every repository of ``acme``. It is cloned next to
the selected repository's clone for as long as it takes to read it, with the same host and
credentials as the clone itself (taken from the clone's ``origin``), so a self-hosted
provider or a private org repository work without another look-up at the provider. Only
when the clone cannot tell (no clone, an origin without owner) is the provider asked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from openhands.runtime.workspace_setup import (
    CLONE_TIMEOUT,
    WorkspaceSandbox,
    load_microagents_in,
    repository_dir_name,
    run_hidden,
)

if TYPE_CHECKING:
    from openhands.microagent.microagent import BaseMicroagent

ORG_REPOSITORY = ".openhands"
GITLAB_ORG_REPOSITORY = "openhands-config"
ORG_MICROAGENTS_DIR = "microagents"
# The org repository's clone, next to the selected repository's, while it is read.
ORG_CLONE_PREFIX = "org_openhands_"

# ``owner -> clone URL`` of the owner's org-level repository, asked of the provider.
ProviderUrl = Callable[[str], str]
# Reads the microagents of a directory inside the sandbox.
LoadDir = Callable[[Path], "list[BaseMicroagent]"]


def org_repository_url(origin: str) -> str | None:
    """The clone URL of the org-level repository next to the repository at ``origin``
    (same scheme, host and credentials; the last path segment replaced), or None when
    ``origin`` has no owner segment. GitLab is recognised by its host name or by the
    ``oauth2:`` credentials GitLab clone URLs carry."""
    base, _, name = origin.rstrip("/").rpartition("/")
    owner = base.rpartition("/")[2]
    parts = urlsplit(origin)
    if parts.scheme and parts.netloc and len(parts.path.strip("/").split("/")) < 2:
        return None  # https://host/repo: no owner to look at
    if not name or not owner or owner.endswith(":"):
        return None
    is_gitlab = "gitlab" in (parts.hostname or "") or (parts.username or "") == "oauth2"
    org_name = GITLAB_ORG_REPOSITORY if is_gitlab else ORG_REPOSITORY
    suffix = ".git" if name.endswith(".git") else ""
    return f"{base}/{org_name}{suffix}"


def org_name(selected_repository: str) -> str | None:
    """The owner part of ``[host/]owner/name`` (None without one)."""
    parts = selected_repository.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 2 and parts[-2] else None


def origin_org_repository_url(sandbox: WorkspaceSandbox, selected_repository: str) -> str | None:
    """The org-level repository's URL next to the selected repository's clone ``origin``
    (None when there is no clone or its origin names no owner)."""
    clone = sandbox.workspace_root / repository_dir_name(selected_repository)
    try:
        remote = run_hidden(sandbox, f"git -C {shlex.quote(str(clone))} remote get-url origin")
    except Exception as e:
        sandbox.log("debug", f"could not read the origin of {clone}: {type(e).__name__}")
        return None
    return org_repository_url(remote.content.strip()) if remote.exit_code == 0 else None


def load_org_microagents(
    sandbox: WorkspaceSandbox,
    selected_repository: str,
    provider_url: ProviderUrl | None = None,
    load_dir: LoadDir | None = None,
) -> list[BaseMicroagent]:
    """The microagents of the selected repository's org-level repository; [] when there
    is none or it cannot be cloned. Nothing here fails the conversation: the repository's
    own microagents still load.

    The URL comes from the clone's ``origin``; when that cannot tell (no clone, an origin
    without owner), ``provider_url(owner)`` asks the git provider. ``load_dir`` reads a
    sandbox directory's microagents (default ``load_microagents_in``).
    """
    owner = org_name(selected_repository)
    if owner is None:
        sandbox.log("debug", f"no org-level microagents for {selected_repository}: no owner")
        return []
    url = origin_org_repository_url(sandbox, selected_repository)
    if url is None and provider_url is not None:
        try:
            url = provider_url(owner)
        except Exception as e:
            # Only the error's kind: a provider error may quote the URL, and so the token.
            sandbox.log("debug", f"no org-level repository for {owner}: {type(e).__name__}")
            return []
    if not url:
        sandbox.log("debug", f"no org-level microagents for {selected_repository}: no origin")
        return []
    target = sandbox.workspace_root / f"{ORG_CLONE_PREFIX}{owner}"
    quoted = shlex.quote(str(target))
    try:
        # The URL carries the token: the command is hidden and never logged.
        obs = run_hidden(
            sandbox,
            f"rm -rf {quoted} && GIT_TERMINAL_PROMPT=0 git clone --quiet --depth 1 "
            f"{shlex.quote(url)} {quoted}",
            timeout=CLONE_TIMEOUT,
        )
        if obs.exit_code != 0:
            sandbox.log("info", f"no org-level microagents for {selected_repository}")
            return []
        microagents_dir = target / ORG_MICROAGENTS_DIR
        loaded = (
            load_dir(microagents_dir)
            if load_dir is not None
            else load_microagents_in(sandbox, microagents_dir)
        )
        sandbox.log("info", f"loaded {len(loaded)} org-level microagents for {owner}")
        return loaded
    except Exception as e:
        sandbox.log(
            "warning", f"could not load org-level microagents of {owner}: {type(e).__name__}"
        )
        return []
    finally:
        try:
            run_hidden(sandbox, f"rm -rf {quoted}")
        except Exception as e:
            sandbox.log("warning", f"could not remove {target}: {type(e).__name__}")
