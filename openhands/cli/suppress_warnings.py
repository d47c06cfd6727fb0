"""Keep library warnings out of the terminal app's screen (cli.md §1.1).

``openhands.cli.entry`` imports this module before anything else, so the filters are in place
before pydub, pydantic or LiteLLM get a chance to warn. Warnings are meant for developers; in an
interactive terminal they only break up the conversation.
"""

from __future__ import annotations

import warnings

# (message regex, category): each of these is known noise from a dependency, not a user problem.
_IGNORED_MESSAGES: tuple[tuple[str, type[Warning]], ...] = (
    # pydub (pulled in by LiteLLM) looks for ffmpeg at import time.
    (r".*Couldn't find ffmpeg or avconv.*", RuntimeWarning),
    (r".*Couldn't find ffprobe or avprobe.*", RuntimeWarning),
    # pydantic complains when LiteLLM's response objects do not match their own schemas.
    (r".*Pydantic serializer warnings.*", UserWarning),
    (r".*PydanticSerializationUnexpectedValue.*", UserWarning),
    (r".*Expected .* fields? but got .*", UserWarning),
    # Our own deprecated helpers (e.g. EventStream.get_events) are still called by dependencies.
    (r".*Call to deprecated method.*", DeprecationWarning),
)

# Whole categories a user can do nothing about.
_IGNORED_CATEGORIES: tuple[type[Warning], ...] = (DeprecationWarning, PendingDeprecationWarning)


def suppress_cli_warnings() -> None:
    """Install the ``warnings`` filters; calling it again adds nothing new."""
    for message, category in _IGNORED_MESSAGES:
        warnings.filterwarnings("ignore", message=message, category=category)
    for category in _IGNORED_CATEGORIES:
        warnings.filterwarnings("ignore", category=category)


# Importing the module is what the entry point relies on.
suppress_cli_warnings()
