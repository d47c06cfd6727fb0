"""The fixed screens of the terminal app: the session's start (cli.md §5.2), the MCP error
list, ``/help``, ``/status`` and the closing summary (§6.2, §11).

Printed texts are part of the contract (a tmux-driven test compares them); colours are not.
Other display functions are reached through ``openhands.cli.tui`` so that a replaced one
(a patch point) is the one used.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from openhands import __version__
from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.tui_common import COMMANDS, GOLD, GREY, UsageMetrics, echo, print_frame
from openhands.llm.metrics import Metrics

_LOGO = r"""
   ____                   __  __                __
  / __ \____  ___  ____  / / / /___ _____  ____/ /____
 / / / / __ \/ _ \/ __ \/ /_/ / __ `/ __ \/ __  / ___/
/ /_/ / /_/ /  __/ / / / __  / /_/ / / / / /_/ (__  )
\____/ .___/\___/_/ /_/_/ /_/\__,_/_/ /_/\__,_/____/
    /_/
"""
_SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_SPINNER_INTERVAL_SECONDS = 0.1
_DOCS_URL = "https://docs.all-hands.dev/usage/getting-started"


class Flag(Protocol):
    """What the spinner polls: an ``asyncio.Event`` or a ``threading.Event``."""

    def is_set(self) -> bool: ...


# --- start screen (§5.2) -------------------------------------------------------------------


def display_runtime_initialization_message(runtime: str) -> None:
    echo()
    if runtime == "local":
        echo((GREY, "⚙️ Starting local runtime..."))
    elif runtime == "docker":
        echo((GREY, "🐳 Starting Docker runtime..."))
    echo()


def display_initialization_animation(text: str | Callable[[], str], is_loaded: Flag) -> None:
    """Spin ``[<frame>] <text>`` on one line until ``is_loaded`` is set (run in a thread).

    ``text`` may be a function giving the current text: it is asked again at every frame,
    so one spinner can follow a start-up step by step."""
    frame_index = 0
    while not is_loaded.is_set():
        frame = _SPINNER_FRAMES[frame_index % len(_SPINNER_FRAMES)]
        label = text() if callable(text) else text
        sys.stdout.write(f"\r\x1b[38;2;255;215;0m[{frame}] {label}\x1b[0m\x1b[K")
        sys.stdout.flush()
        frame_index += 1
        # Animation pacing, not synchronisation: the flag is re-checked every frame.
        time.sleep(_SPINNER_INTERVAL_SECONDS)
    sys.stdout.write("\r\x1b[2K")
    sys.stdout.flush()


def display_banner(session_id: str) -> None:
    display_deprecation_warning()
    echo((GOLD, _LOGO))
    echo((GREY, f"OpenHands CLI v{__version__}"))
    echo()
    echo((GREY, f"Initialized conversation {session_id}"))
    echo()


def display_welcome_message(message: str = "") -> None:
    echo((GOLD, "Let's start building!\n"))
    text = message or "What do you want to build?"
    echo(("", text), ("", " "), (GREY, "Type /help for help"))


def display_initial_user_prompt(prompt: str) -> None:
    echo(("", "\n"), (GOLD, "> "), ("", prompt))


def display_mcp_errors() -> None:
    """The MCP servers that failed at start-up, one frame each (``/mcp`` → View errors)."""
    from openhands.cli import tui as ui

    errors = ui.error_collector().get_errors()
    if not errors:
        echo(("ansigreen", "✓ No MCP errors detected\n"))
        return
    echo(("ansired", f"✗ {len(errors)} MCP error(s) detected during startup:\n"))
    for number, error in enumerate(errors, start=1):
        clock = datetime.datetime.fromtimestamp(error.timestamp).strftime("%H:%M:%S")
        lines = [
            f"[{clock}] {error.server_type.upper()} Server: {error.server_name}",
            f"Error: {error.error_message}",
        ]
        if error.exception_details:
            lines.append(f"Details: {error.exception_details}")
        print_frame(
            "\n".join(lines),
            f"MCP Error #{number}",
            text_style="ansired",
            frame_style="ansired",
            blank_line_before=False,
        )
        echo()


# --- help, status, usage (§6.2, §11) ------------------------------------------------------------

_HELP_EXAMPLES = (
    ("Ask about the code", "What does the settings module do?"),
    ("Change or extend it", "Add a --verbose flag to the command line"),
    ("Track down a problem", "Why does test_login fail?"),
)
_HELP_TIPS = (
    'Say what "done" looks like: the behaviour you expect, or the bug you see.',
    "Point at the files, functions or line numbers involved when you know them.",
    "Split a big job into a series of smaller requests.",
    "Paste the exact error message or the log lines that matter.",
    "Name the language, framework or tool when the code does not make it obvious.",
)


def display_help() -> None:
    echo()
    echo((GREY, f"OpenHands CLI v{__version__}"))
    echo((GOLD, "Work with the OpenHands agent on this folder, right from your terminal."))
    echo()
    echo(("", "Things that you can try:"))
    for what, example in _HELP_EXAMPLES:
        echo(("", f"• {what} "), (GREY, f"> {example}"))
    echo()
    echo(("", "Tips for better results:"))
    for tip in _HELP_TIPS:
        echo(("", f"• {tip}"))
    echo()
    echo(("", "Interactive commands:"))
    for command, description in COMMANDS.items():
        echo((f"{GOLD} bold", command), ("", " - "), (GREY, description))
    echo()
    echo((GREY, f"Learn more at: {_DOCS_URL}"))


def _usage_rows(metrics: Metrics) -> list[tuple[str, str]]:
    usage = metrics.accumulated_token_usage
    return [
        ("   Total Cost (USD):", f"${metrics.accumulated_cost:.6f}"),
        ("", ""),
        ("   Total Input Tokens:", f"{usage.prompt_tokens:,}"),
        ("      Cache Hits:", f"{usage.cache_read_tokens:,}"),
        ("      Cache Writes:", f"{usage.cache_write_tokens:,}"),
        ("   Total Output Tokens:", f"{usage.completion_tokens:,}"),
        ("", ""),
        ("   Total Tokens:", f"{usage.prompt_tokens + usage.completion_tokens:,}"),
    ]


def _aligned(rows: Iterable[tuple[str, str]]) -> str:
    rows = list(rows)
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}} {value}".rstrip() for label, value in rows)


def display_usage_metrics(usage_metrics: UsageMetrics) -> None:
    print_frame(
        _aligned(_usage_rows(usage_metrics.metrics)), "Usage Metrics", blank_line_before=False
    )


def get_session_duration(session_init_time: float) -> str:
    """Time since ``session_init_time`` as ``'<h>h <m>m <s>s'`` (whole units, rounded down)."""
    elapsed = max(0, int(time.time() - session_init_time))
    hours, rest = divmod(elapsed, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes}m {seconds}s"


def display_shutdown_message(usage_metrics: UsageMetrics, session_id: str) -> None:
    from openhands.cli import tui as ui

    duration = ui.get_session_duration(usage_metrics.session_init_time)
    echo((GREY, "Closing current conversation..."))
    echo()
    ui.display_usage_metrics(usage_metrics)
    echo()
    echo((GREY, f"Conversation duration: {duration}"))
    echo()
    echo((GREY, f"Closed conversation {session_id}"))
    echo()


def display_status(usage_metrics: UsageMetrics, session_id: str) -> None:
    from openhands.cli import tui as ui

    duration = ui.get_session_duration(usage_metrics.session_init_time)
    echo()
    echo((GREY, f"Conversation ID: {session_id}"))
    echo((GREY, f"Uptime:          {duration}"))
    echo()
    ui.display_usage_metrics(usage_metrics)
