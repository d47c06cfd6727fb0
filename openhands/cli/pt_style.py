"""Colours and the prompt_toolkit style of the terminal app (cli.md §15).

Colours are not part of the contract; these three names are, because other modules and the
reference tests import them.
"""

from __future__ import annotations

from prompt_toolkit.styles import BaseStyle, Style, merge_styles
from prompt_toolkit.styles.defaults import default_ui_style

COLOR_GOLD = "#FFD700"
COLOR_GREY = "#808080"
COLOR_AGENT_BLUE = "#4682B4"
COLOR_RISK_RED = "#FF3333"

# Class names used in HTML snippets (``<gold>…</gold>``) and by the menus of ``tui.cli_confirm``.
_CLI_RULES: dict[str, str] = {
    "gold": COLOR_GOLD,
    "grey": COLOR_GREY,
    "prompt": f"{COLOR_GOLD} bold",
    "question": f"{COLOR_GOLD} bold",
    "risk-high": f"{COLOR_RISK_RED} bold",
    "selected": f"{COLOR_GOLD} bold",
    "unselected": "",
    "aborting": COLOR_GREY,
    "completion-menu": "bg:#262626 #d0d0d0",
    "completion-menu.completion": "bg:#262626 #d0d0d0",
    "completion-menu.completion.current": f"bg:#3a3a3a {COLOR_GOLD} bold",
    "completion-menu.meta.completion": f"bg:#262626 {COLOR_GREY}",
    "completion-menu.meta.completion.current": f"bg:#3a3a3a {COLOR_GOLD}",
    "frame.label": "bold",
}


def get_cli_style() -> BaseStyle:
    """prompt_toolkit's own UI style with the app's classes layered on top."""
    return merge_styles([default_ui_style(), Style.from_dict(_CLI_RULES)])
