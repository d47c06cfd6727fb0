"""The suite's own HOME (tests/conftest.py) keeps the app's files out of the developer's home.

The terminal app and the headless runner write ``~/.openhands`` (``.jwt_secret``, conversations,
user microagents) when the config keeps its default file store; a test run must not.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.core.config.developer_files import isolation_enabled
from openhands.storage.jwt_secret import ensure_jwt_secret

ACCOUNT_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)


@pytest.fixture(autouse=True)
def _needs_isolation() -> None:
    if not isolation_enabled():
        pytest.skip("OPENHANDS_TEST=0 keeps the real HOME")


def test_home_is_the_runs_own_with_the_tools_config_shared() -> None:
    home = Path.home()
    assert home.resolve() != ACCOUNT_HOME.resolve()
    assert not (home / ".openhands").is_symlink()
    # The rest of the real home (as it was when the run started) is linked, so the tools find
    # their configuration where they look for it.
    links = {entry.name: entry.readlink() for entry in home.iterdir() if entry.is_symlink()}
    assert links, "nothing of the real home is shared"
    assert all(target.name == name for name, target in links.items())
    (real_home,) = {target.parent for target in links.values()}
    assert real_home.resolve() != home.resolve()
    assert ".openhands" not in links and ".bash_history" not in links


def test_default_file_store_writes_into_the_runs_home() -> None:
    real_secret = ACCOUNT_HOME / ".openhands" / ".jwt_secret"
    before = real_secret.read_bytes() if real_secret.exists() else None

    config = OpenHandsConfig()
    assert config.file_store_path == "~/.openhands"
    secret = ensure_jwt_secret(config).get_secret_value()

    assert (Path.home() / ".openhands" / ".jwt_secret").read_text() == secret
    after = real_secret.read_bytes() if real_secret.exists() else None
    assert after == before
