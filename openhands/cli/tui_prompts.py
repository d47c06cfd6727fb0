"""What the terminal app reads: the prompt with slash-command completion (cli.md §6.1), the
choice menus (§4, §8) and the confirmation question.

``PromptSession``, ``Application`` and ``KeyBindings`` are taken from ``openhands.cli.tui``
when a prompt opens: they are patch points there (cli.md §15).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import HTML, StyleAndTextTuples
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.layout.containers import AnyContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.layout import Layout
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.widgets import Frame

from openhands.cli.pt_style import COLOR_GOLD
from openhands.cli.tui_common import COMMANDS, DEFAULT_STYLE, UserCancelledError
from openhands.core.schema import AgentState
from openhands.events.action import ActionSecurityRisk

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings

    from openhands.core.config import OpenHandsConfig

ConfirmationAnswer = Literal["yes", "no", "always", "auto_highrisk"]

_NO_CHOICE = re.compile(r"No\b")


class CommandCompleter(Completer):
    """Completes slash commands, with their descriptions; ``/resume`` only while paused."""

    def __init__(self, agent_state: str) -> None:
        super().__init__()
        self.agent_state = agent_state

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor.lstrip()
        if not typed.startswith("/"):
            return
        for command, description in COMMANDS.items():
            if command == "/resume" and self.agent_state != AgentState.PAUSED:
                continue
            if command.startswith(typed):
                yield Completion(
                    command,
                    start_position=-len(typed),
                    display_meta=description,
                    style=f"bg:ansidarkgray fg:{COLOR_GOLD}",
                )


def create_prompt_session(config: OpenHandsConfig) -> PromptSession[str]:
    from openhands.cli import tui as ui

    return ui.PromptSession(style=DEFAULT_STYLE, vi_mode=config.cli.vi_mode)


def _submit_on_ctrl_d() -> KeyBindings:
    from openhands.cli import tui as ui

    bindings = ui.KeyBindings()

    @bindings.add("c-d")
    def _submit(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


async def read_prompt_input(
    config: OpenHandsConfig, agent_state: str, multiline: bool = False
) -> str:
    """The user's next input; Ctrl-C and Ctrl-D (end of input) read as ``/exit``."""
    from openhands.cli import tui as ui

    try:
        session = ui.create_prompt_session(config)
        session.completer = None if multiline else CommandCompleter(agent_state)
        # patch_stdout keeps output of other threads above the prompt line.
        with patch_stdout():
            ui.print_formatted_text("")
            if multiline:
                message = await session.prompt_async(
                    HTML("<gold>Enter your message and press Ctrl-D to finish:</gold>\n"),
                    multiline=True,
                    key_bindings=_submit_on_ctrl_d(),
                )
            else:
                message = await session.prompt_async(HTML("<gold>> </gold>"))
    except (KeyboardInterrupt, EOFError):
        return "/exit"
    return message if message is not None else ""


# --- choice menus (§4, §8) ------------------------------------------------------------------


def _cancel_index(choices: list[str]) -> int:
    """The choice Ctrl-C/Ctrl-D/Esc stand for: the first "No…" answer, else the last entry
    (every menu of the app ends with its way out: "Go back", "Cancel", "Keep current…")."""
    for index, choice in enumerate(choices):
        if _NO_CHOICE.match(choice):
            return index
    return len(choices) - 1


def _menu_key_bindings(selected: list[int], choices: list[str], vi_mode: bool) -> KeyBindings:
    from openhands.cli import tui as ui

    bindings = ui.KeyBindings()

    def move(step: int) -> None:
        selected[0] = (selected[0] + step) % len(choices)

    @bindings.add("up")
    def _up(event: KeyPressEvent) -> None:
        move(-1)

    @bindings.add("down")
    def _down(event: KeyPressEvent) -> None:
        move(1)

    if vi_mode:

        @bindings.add("k")
        def _vi_up(event: KeyPressEvent) -> None:
            move(-1)

        @bindings.add("j")
        def _vi_down(event: KeyPressEvent) -> None:
            move(1)

    @bindings.add("enter")
    def _pick(event: KeyPressEvent) -> None:
        event.app.exit(result=selected[0])

    @bindings.add("c-c")
    @bindings.add("c-d")
    @bindings.add("escape")
    def _cancel(event: KeyPressEvent) -> None:
        selected[0] = _cancel_index(choices)
        event.app.exit(result=selected[0])

    return bindings


def cli_confirm(
    config: OpenHandsConfig,
    question: str = "Are you sure?",
    choices: list[str] | None = None,
    initial_selection: int = 0,
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN,
) -> int:
    """A vertical menu under ``question``; returns the index of the chosen entry.

    Arrows (and j/k with ``[cli] vi_mode``) move, Enter picks. Ctrl-C, Ctrl-D and Esc pick the
    "No…" answer, or the last entry when there is none. A ``HIGH`` risk question is framed.
    """
    from openhands.cli import tui as ui

    options = choices if choices is not None else ["Yes", "No"]
    selected = [initial_selection if 0 <= initial_selection < len(options) else 0]
    high_risk = security_risk == ActionSecurityRisk.HIGH

    def menu_text() -> StyleAndTextTuples:
        question_style = "class:risk-high" if high_risk else "class:question"
        fragments: StyleAndTextTuples = [(question_style, f"{question}\n\n")]
        for index, choice in enumerate(options):
            chosen = index == selected[0]
            marker = "> " if chosen else "  "
            fragments.append(
                ("class:selected" if chosen else "class:unselected", f"{marker}{choice}\n")
            )
        return fragments

    # Exactly as tall as the text: left free, a framed menu would stretch to the screen's bottom.
    lines = question.count("\n") + 2 + len(options)
    content: AnyContainer = Window(
        FormattedTextControl(menu_text),
        always_hide_cursor=True,
        height=Dimension(min=lines, max=lines),
    )
    if high_risk:
        content = Frame(content, title="HIGH RISK", style="fg:#FF0000 bold")
    app: Application[int] = ui.Application(
        layout=Layout(HSplit([content])),
        key_bindings=_menu_key_bindings(selected, options, config.cli.vi_mode),
        style=DEFAULT_STYLE,
        full_screen=False,
    )
    # In a thread: the caller may be inside the main event loop, which must not be re-entered.
    return app.run(in_thread=True)


def kb_cancel() -> KeyBindings:
    """Cancel keys of a settings prompt: Esc raises ``UserCancelledError``; Ctrl-D raises
    ``EOFError`` even when the line holds a prefilled value (by default it would only do so on
    an empty line). Ctrl-C already raises ``KeyboardInterrupt``."""
    from openhands.cli import tui as ui

    bindings = ui.KeyBindings()

    @bindings.add("escape")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(exception=UserCancelledError, style="class:aborting")

    @bindings.add("c-d")
    def _end(event: KeyPressEvent) -> None:
        event.app.exit(exception=EOFError, style="class:aborting")

    return bindings


_HIGH_RISK_QUESTION = (
    "HIGH RISK command detected.\nReview carefully before proceeding.\n\nChoose an option:"
)
_HIGH_RISK_CHOICES: tuple[tuple[str, ConfirmationAnswer], ...] = (
    ("Yes, proceed (HIGH RISK - Use with caution)", "yes"),
    ("No (and allow to enter instructions)", "no"),
    ("Always proceed (don't ask again - NOT RECOMMENDED)", "always"),
)
_DEFAULT_QUESTION = "Choose an option:"
_DEFAULT_CHOICES: tuple[tuple[str, ConfirmationAnswer], ...] = (
    ("Yes, proceed", "yes"),
    ("No (and allow to enter instructions)", "no"),
    ("Auto-confirm action with LOW/MEDIUM risk, ask for HIGH risk", "auto_highrisk"),
    ("Always proceed (don't ask again)", "always"),
)


async def read_confirmation_input(
    config: OpenHandsConfig, security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN
) -> ConfirmationAnswer:
    """Ask whether the pending action may run (cli.md §8); anything unexpected means no."""
    from openhands.cli import tui as ui

    if security_risk == ActionSecurityRisk.HIGH:
        question, table = _HIGH_RISK_QUESTION, _HIGH_RISK_CHOICES
    else:
        question, table = _DEFAULT_QUESTION, _DEFAULT_CHOICES
    labels = [label for label, _ in table]
    try:
        # The menu blocks; a worker thread keeps this loop serving the event stream.
        index = await asyncio.to_thread(ui.cli_confirm, config, question, labels, 0, security_risk)
    except (KeyboardInterrupt, EOFError):
        return "no"
    if isinstance(index, int) and 0 <= index < len(table):
        return table[index][1]
    return "no"
