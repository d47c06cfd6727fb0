"""What every part of the terminal display shares: its constants, the screen's state, and
the two ways text reaches the terminal (a line, a frame).

Output goes through ``openhands.cli.tui``'s ``print_formatted_text``/``print_container``,
looked up when something is printed: those names are the patch points scripts and the
reference tests replace (cli.md §15), and the display code lives in sibling modules.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText, StyleAndTextTuples
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.widgets import Frame, TextArea

from openhands.cli.pt_style import COLOR_GREY, get_cli_style
from openhands.llm.metrics import Metrics

MAX_RECENT_THOUGHTS = 5
MAX_OUTPUT_LINES = 15

DEFAULT_STYLE = get_cli_style()

COMMANDS: dict[str, str] = {
    "/exit": "Exit the application",
    "/help": "Display available commands",
    "/init": "Initialize a new repository",
    "/status": "Display conversation details and usage metrics",
    "/new": "Create a new conversation",
    "/settings": "Display and modify current settings",
    "/resume": "Resume the agent when paused",
    "/mcp": "Manage MCP server configuration and view errors",
}

# Events arrive on the event stream's threads while the main loop prints too. Re-entrant, so
# a caller that already holds it can still use the display functions.
print_lock = threading.RLock()

# The 0.59 CLI ships with live shell streaming switched off; the functions stay as the hook.
ENABLE_STREAMING = False

GOLD = "class:gold"
GREY = "class:grey"


class UsageMetrics:
    """The session's LLM metrics (replaced by each event's cumulative snapshot) and its start."""

    def __init__(self) -> None:
        self.metrics: Metrics = Metrics()
        self.session_init_time: float = time.time()


class UserCancelledError(Exception):
    """Esc was pressed in a free-text prompt of a settings flow."""


@dataclass
class ScreenState:
    """What the display remembers between events: the thoughts shown last (an agent often
    repeats its thought as the message that follows) and the open streaming frame."""

    recent_thoughts: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_RECENT_THOUGHTS))
    streaming_output: TextArea | None = None

    def reset(self) -> None:
        self.recent_thoughts.clear()
        self.streaming_output = None


# One terminal per process, so one screen.
screen_state = ScreenState()


def echo(*parts: tuple[str, str]) -> None:
    """One line made of (style, text) pieces; no pieces prints an empty line."""
    from openhands.cli import tui as ui  # the patch points, looked up now

    if not parts:
        ui.print_formatted_text("")
        return
    ui.print_formatted_text(FormattedText(list(parts)), style=DEFAULT_STYLE)


def print_frame(
    text: str,
    title: str,
    *,
    text_style: str = COLOR_GREY,
    frame_style: str = f"fg:{COLOR_GREY}",
    lexer: Lexer | None = None,
    blank_line_before: bool = True,
) -> None:
    from openhands.cli import tui as ui

    body = TextArea(text=text, read_only=True, wrap_lines=True, style=text_style, lexer=lexer)
    if blank_line_before:
        ui.print_formatted_text("")
    ui.print_container(Frame(body, title=title, style=frame_style))


class CustomDiffLexer(Lexer):
    """Colours the lines of ``FileEditObservation.visualize_diff``: added, removed, headers."""

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = document.lines

        def line_tokens(lineno: int) -> StyleAndTextTuples:
            line = lines[lineno]
            return [(_diff_line_style(line), line)]

        return line_tokens


def _diff_line_style(line: str) -> str:
    if line.startswith("+"):
        return "ansigreen"
    if line.startswith("-"):
        return "ansired"
    # "[begin of edit 1 / 2]", "(content before edit)" and the like.
    if line.startswith(("[", "(")):
        return "bold"
    return ""
