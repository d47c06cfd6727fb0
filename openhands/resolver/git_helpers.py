"""Git on the host for ``resolve_issue``: cloning the repository and running git in the
clone, without the token that clone URLs carry ever reaching the clone's configuration or
an error message.

``subprocess`` is looked up at call time (``subprocess.check_output`` / ``subprocess.run``),
so tests that replace those functions globally replace them here too.
"""

from __future__ import annotations

import os
import subprocess

# Shorter pieces of a URL's user part are not masked: they would mangle ordinary text.
_MIN_MASKED_LENGTH = 4


def clone_repository(clone_url: str, repo_dir: str) -> None:
    """``git clone`` the repository into ``repo_dir``.

    The URL may carry the token: it is masked in error texts, and the clone's ``origin`` is
    set to the same URL without credentials, so the token does not travel into the
    sandbox's workspace (which is a copy of the clone).
    """
    try:
        output = subprocess.check_output(
            ["git", "clone", clone_url, repo_dir], stderr=subprocess.STDOUT
        ).decode("utf-8", errors="replace")
    except subprocess.CalledProcessError as e:
        output = (e.output or b"").decode("utf-8", errors="replace") or f"exit code {e.returncode}"
        raise RuntimeError(
            f"Failed to clone repository: {redact_credentials(output, clone_url)}"
        ) from None
    if "fatal" in output:
        raise RuntimeError(f"Failed to clone repository: {redact_credentials(output, clone_url)}")
    if os.path.isdir(os.path.join(repo_dir, ".git")):
        run_git(repo_dir, "remote", "set-url", "origin", without_credentials(clone_url))


def run_git(repo_dir: str, *args: str, secret_url: str | None = None) -> str:
    """Run git in ``repo_dir`` and return its stripped output; a failure raises
    ``RuntimeError`` with git's message, ``secret_url``'s credentials masked."""
    result = subprocess.run(
        ["git", "-C", repo_dir, *args], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        message = f"git {' '.join(args)} failed: {result.stderr.strip()}"
        raise RuntimeError(redact_credentials(message, secret_url) if secret_url else message)
    return result.stdout.strip()


def _userinfo(url: str) -> str:
    _scheme, sep, rest = url.partition("://")
    authority = rest.split("/", 1)[0] if sep else ""
    return authority.rsplit("@", 1)[0] if "@" in authority else ""


def without_credentials(url: str) -> str:
    """``url`` without its ``user:password@`` part."""
    userinfo = _userinfo(url)
    return url.replace(f"{userinfo}@", "", 1) if userinfo else url


def redact_credentials(text: str, url: str) -> str:
    """``text`` with the credentials of ``url`` (the user part and the secret) masked."""
    userinfo = _userinfo(url)
    if not userinfo:
        return text
    text = text.replace(url, without_credentials(url))
    for secret in {userinfo, *userinfo.split(":")}:
        if len(secret) >= _MIN_MASKED_LENGTH:
            text = text.replace(secret, "***")
    return text
