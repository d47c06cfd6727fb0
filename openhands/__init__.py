"""OpenHands: an AI software agent working in a sandbox (a reimplementation of V0 0.59).

Importing the package is cheap on purpose: even the version is worked out on first use of
``openhands.__version__`` (a sandbox, which has no ``pyproject.toml`` beside the package, would
otherwise import ``importlib.metadata`` on every start). Everything else lives in the
subpackages (``openhands.core``, ``openhands.events``, ``openhands.server``, …).
"""

from __future__ import annotations

__package_name__ = "openhands_ai"

# Distribution names to ask the installed metadata for, in order: the reference's, then ours.
_DISTRIBUTIONS = ("openhands-ai", "openhands")


def _version_in_pyproject(text: str) -> str | None:
    """``version`` of the ``[project]`` (or ``[tool.poetry]``) table. A line scan rather than
    ``tomllib``, which would triple the cost of ``import openhands``."""
    table = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            table = line.strip("[] ")
        elif table in ("project", "tool.poetry") and line.startswith("version"):
            key, _, value = line.partition("=")
            value = value.split("#", 1)[0].strip()
            if key.strip() == "version" and len(value) > 1 and value[0] == value[-1] in "\"'":
                return value[1:-1]
    return None


def get_version() -> str:
    """The version in ``pyproject.toml`` beside the package, else the installed one, else
    ``'unknown'``."""
    import os

    pyproject = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as file:
            found = _version_in_pyproject(file.read())
    except OSError:
        found = None
    if found:
        return found

    from importlib.metadata import PackageNotFoundError, version

    for name in _DISTRIBUTIONS:
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return "unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        found = get_version()
        globals()["__version__"] = found  # worked out once
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
