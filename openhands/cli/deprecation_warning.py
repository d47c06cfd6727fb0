"""The deprecation banner of the reference CLI (cli.md §12.1), deliberately silent here.

The reference printed a banner telling users to move to a newer CLI, because its terminal app
was being replaced. This app is not deprecated, so the banner is never shown; the function is
kept because the entry point, the fast help and the session code call it at the places where the
reference showed the banner.
"""

from __future__ import annotations


def display_deprecation_warning() -> None:
    """Print nothing: this CLI is not deprecated (cli.md §12.1)."""
