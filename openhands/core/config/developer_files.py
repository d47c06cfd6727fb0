"""``OPENHANDS_TEST=1``: a test run does not read the developer's own configuration files.

The test suite sets the flag (``tests/conftest.py``; processes it starts inherit it). A
developer keeps a ``config.toml`` and a ``.env`` with a real LLM key in the checkout (the
README says to copy ``config.template.toml`` there) and personal settings in
``~/.openhands``; a test that loads the default config must not pick those up. Under the flag
the config loaders treat these files as absent:

- ``config.toml`` and ``.env`` in the OpenHands checkout (the folder holding the ``openhands``
  package) or in any folder above it;
- ``.env`` in the account's home folder, and every file under its ``.openhands`` folder
  (``~/.openhands/config.toml``: named LLM sections, trusted folders, MCP servers).

"The config loaders" are ``read_toml`` (so ``load_from_toml`` and the named-section lookups
such as ``get_llm_config_arg``) and the ``.env`` discovery of ``load_openhands_config``. The
terminal app's own editing of ``~/.openhands/config.toml`` (trusted folders, MCP servers)
and the file stores (``settings.json``) do not look at the flag: the tests that reach them
point ``HOME`` or the path at a temporary folder.

"Home" is the account's home folder from the password database, not ``$HOME``: tests that
run the app give it a temporary ``HOME``, whose files are the test's own and are read as
usual. So is every other file (a test's ``tmp_path``, an explicitly named file elsewhere).
Environment variables are not filtered here (tests set ``LLM_*`` on purpose); the suite's
conftest drops the developer's own ``LLM_*`` and ``*_API_KEY`` variables when it starts.
``OPENHANDS_TEST=0`` (or unset) turns all of this off. The reference (0.59) has no such flag.
"""

from __future__ import annotations

import os
import pwd
from functools import lru_cache
from pathlib import Path

import openhands

_TRUE = frozenset({"1", "true", "yes", "on"})
_PROJECT_FILE_NAMES = frozenset({"config.toml", ".env"})


def isolation_enabled() -> bool:
    """Whether ``OPENHANDS_TEST`` is on."""
    return os.environ.get("OPENHANDS_TEST", "").strip().lower() in _TRUE


@lru_cache(maxsize=1)
def _checkout_dirs() -> frozenset[Path]:
    checkout = Path(openhands.__file__).resolve().parent.parent
    return frozenset({checkout, *checkout.parents})


def _account_home() -> Path | None:
    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    except (KeyError, OSError):
        return None


def is_developer_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is one of the developer's own configuration files (see above)."""
    resolved = Path(path).expanduser().resolve()
    home = _account_home()
    if home is not None:
        if resolved.is_relative_to(home / ".openhands"):
            return True
        if resolved == home / ".env":
            return True
    return resolved.name in _PROJECT_FILE_NAMES and resolved.parent in _checkout_dirs()


def hidden_from_tests(path: str | os.PathLike[str]) -> bool:
    """True when ``OPENHANDS_TEST`` is on and ``path`` is a developer's file."""
    return isolation_enabled() and is_developer_file(path)
