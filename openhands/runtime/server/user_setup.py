"""Sandbox user and working directory, prepared before bash starts (runtime.md §3.3 step 2)."""

from __future__ import annotations

import os
import pwd
import subprocess

from openhands.core.logger import openhands_logger as logger

SUDOERS_LINE = "%sudo ALL=(ALL) NOPASSWD:ALL"


def skip_user_setup(username: str) -> bool:
    """LocalRuntime case: the server already runs as this (ordinary) user."""
    return username == os.environ.get("USER") and username not in ("root", "openhands")


def ensure_user(username: str, user_id: int) -> int:
    """Create ``username`` when missing; return the uid actually in use."""
    if username == "root":
        return 0
    probe = subprocess.run(["id", "-u", username], capture_output=True, text=True)
    if probe.returncode == 0:
        existing = int(probe.stdout.strip())
        if existing != user_id:
            logger.info(
                "User %s exists with uid %s (not %s); using it", username, existing, user_id
            )
        return existing
    with open("/etc/sudoers", "a", encoding="utf-8") as sudoers:
        sudoers.write(f"\n{SUDOERS_LINE}\n")
    created = subprocess.run(
        [
            "useradd",
            "-rm",
            "-d",
            f"/home/{username}",
            "-s",
            "/bin/bash",
            "-g",
            "root",
            "-G",
            "sudo",
            "-u",
            str(user_id),
            username,
        ],
        capture_output=True,
        text=True,
    )
    if created.returncode != 0:
        raise RuntimeError(f"Failed to create user {username}: {created.stderr.strip()}")
    return user_id


def prepare_working_dir(working_dir: str, username: str, group: str) -> None:
    old_umask = os.umask(0o002)
    try:
        os.makedirs(working_dir, exist_ok=True)
    finally:
        os.umask(old_umask)
    # Recursive chown of a possibly mounted folder (reference behaviour); skipped when the
    # top already has the right owner, which keeps restarts fast on large workspaces.
    try:
        wanted_uid = pwd.getpwnam(username).pw_uid
    except KeyError:
        wanted_uid = None
    if wanted_uid is not None and os.stat(working_dir).st_uid == wanted_uid:
        return
    for command in (
        ["chown", "-R", f"{username}:{group}", working_dir],
        ["chmod", "-R", "g+rw", working_dir],
    ):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            logger.warning("%s failed: %s", " ".join(command), done.stderr.strip())


def setup_user_and_workspace(username: str, user_id: int, working_dir: str, group: str) -> int:
    """Returns the sandbox uid to use for file ownership."""
    if skip_user_setup(username):
        os.makedirs(working_dir, exist_ok=True)
        return os.getuid()
    uid = ensure_user(username, user_id)
    prepare_working_dir(working_dir, username, group)
    return uid
