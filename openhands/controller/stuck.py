"""Loop detection over an agent's history (agent.md §8.11).

Five patterns mean the agent is stuck, checked in this order:
1. the same action and the same observation four times in a row;
2. the same action three times, each answered by an error (or the same Jupyter
   syntax error);
3. the same agent message three times with no observation in between (a monologue);
4. two action/observation pairs alternating over six steps (A B A B A B);
5. ten condensation summaries, two of them back to back (condensing in a loop).

Events compare as dataclasses (class and declared fields, so ids and sources are
ignored), with two relaxations described in :func:`_same`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from openhands.core.logger import openhands_logger as logger
from openhands.events.action import (
    Action,
    IPythonRunCellAction,
    MessageAction,
    NullAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentCondensationObservation,
    CmdOutputObservation,
    ErrorObservation,
    IPythonRunCellObservation,
    NullObservation,
    Observation,
)

REPEATED_PAIR_COUNT = 4
REPEATED_ERROR_COUNT = 3
MONOLOGUE_COUNT = 3
ALTERNATION_COUNT = 6
CONDENSATION_LOOP_COUNT = 10

# The warning logged (once) when a pattern fires; log readers and tests match these texts.
LOOP_MESSAGES: dict[str, str] = {
    "repeated_pair": "Action, Observation loop detected",
    "repeated_error": "Action, ErrorObservation loop detected",
    "syntax_error": "Action, IPythonRunCellObservation loop detected",
    "monologue": "Repeated MessageAction with source=AGENT detected",
    "alternation": "Action, Observation pattern detected",
    "condensation": "Context window error loop detected - repeated condensation events",
}

_EDIT_CALL = "edit_file_by_replace("
_JUPYTER_CWD_LINE = "[Jupyter current working directory:"
_JUPYTER_PYTHON_LINE = "[Jupyter Python interpreter:"
_UNTERMINATED_STRING = "SyntaxError: unterminated string literal (detected at line"
_CELL_SYNTAX_ERRORS = (
    "SyntaxError: invalid syntax. Perhaps you forgot a comma?",
    "SyntaxError: incomplete input",
)


class StuckDetector:
    def __init__(self, state: object) -> None:
        # Any object with a ``history`` list (a State); read on every check.
        self.state = state

    def is_stuck(self, headless_mode: bool = True) -> bool:
        history: list[Event] = self.state.history  # type: ignore[attr-defined]
        return is_stuck(history, headless_mode)


def is_stuck(history: Sequence[Event], headless_mode: bool) -> bool:
    events = _events_to_check(history, headless_mode)
    if len(events) < 3:
        return False
    actions = _last_of_type(events, Action, ALTERNATION_COUNT)
    observations = _last_of_type(events, Observation, ALTERNATION_COUNT)
    if _repeated_pair(actions, observations):
        logger.warning(LOOP_MESSAGES["repeated_pair"])
        return True
    error_kind = _repeated_error(actions, observations)
    if error_kind is not None:
        logger.warning(LOOP_MESSAGES[error_kind])
        return True
    if _monologue(events):
        logger.warning(LOOP_MESSAGES["monologue"])
        return True
    if len(events) >= ALTERNATION_COUNT and _alternation(actions, observations):
        logger.warning(LOOP_MESSAGES["alternation"])
        return True
    if _condensation_loop(events):
        logger.warning(LOOP_MESSAGES["condensation"])
        return True
    return False


# --- which events count --------------------------------------------------------------------


def _events_to_check(history: Sequence[Event], headless_mode: bool) -> list[Event]:
    """All of it when headless; otherwise only what happened since the user last spoke."""
    start = 0
    if not headless_mode:
        for index in range(len(history) - 1, -1, -1):
            if _is_user_message(history[index]):
                start = index + 1
                break
    return [
        event
        for event in history[start:]
        if not _is_user_message(event) and not isinstance(event, NullAction | NullObservation)
    ]


def _is_user_message(event: Event) -> bool:
    return isinstance(event, MessageAction) and event.source == EventSource.USER


def _last_of_type(events: Sequence[Event], kind: type[Event], count: int) -> list[Event]:
    """Up to ``count`` events of ``kind``, most recent first."""
    found: list[Event] = []
    for event in reversed(events):
        if isinstance(event, kind):
            found.append(event)
            if len(found) == count:
                break
    return found


def _same(a: Event, b: Event) -> bool:
    """Dataclass equality, relaxed for command outputs and scripted file edits.

    Command outputs differ in their pid and timing, so only the command and exit code
    count. IPython edit calls differ in the replaced text a loop keeps varying, so only
    their first three lines count (and short snippets never match this way).
    """
    if isinstance(a, CmdOutputObservation) and isinstance(b, CmdOutputObservation):
        return a.command == b.command and a.exit_code == b.exit_code
    if (
        isinstance(a, IPythonRunCellAction)
        and isinstance(b, IPythonRunCellAction)
        and _EDIT_CALL in a.code
        and _EDIT_CALL in b.code
    ):
        lines_a, lines_b = a.code.split("\n"), b.code.split("\n")
        return len(lines_a) > 2 and lines_a[:3] == lines_b[:3]
    return a == b


def _all_same(events: Sequence[Event]) -> bool:
    return all(_same(events[0], other) for other in events[1:])


# --- the five patterns -----------------------------------------------------------------------


def _repeated_pair(actions: list[Event], observations: list[Event]) -> bool:
    n = REPEATED_PAIR_COUNT
    if len(actions) < n or len(observations) < n:
        return False
    return _all_same(actions[:n]) and _all_same(observations[:n])


def _repeated_error(actions: list[Event], observations: list[Event]) -> str | None:
    """Which kind of repeated failure ends the history, if any (a ``LOOP_MESSAGES`` key)."""
    n = REPEATED_ERROR_COUNT
    if len(actions) < n or len(observations) < n:
        return None
    if not _all_same(actions[:n]):
        return None
    recent = observations[:n]
    if all(isinstance(obs, ErrorObservation) for obs in recent):
        return "repeated_error"
    if all(isinstance(obs, IPythonRunCellObservation) for obs in recent):
        contents = [obs.content for obs in recent]  # type: ignore[attr-defined]
        if _same_jupyter_syntax_error(contents):
            return "syntax_error"
    return None


def _same_jupyter_syntax_error(contents: list[str]) -> bool:
    signatures = [_unterminated_string_signature(c) for c in contents]
    if signatures[0] is not None and len(set(signatures)) == 1:
        return True
    for message in _CELL_SYNTAX_ERRORS:
        cell_signatures = [_cell_error_signature(c, message) for c in contents]
        if cell_signatures[0] is not None and len(set(cell_signatures)) == 1:
            return True
    return False


def _jupyter_lines(content: str) -> list[str] | None:
    """The output's lines, if it ends with the two Jupyter status lines."""
    lines = content.strip().split("\n")
    if len(lines) < 3:
        return None
    if not lines[-2].startswith(_JUPYTER_CWD_LINE) or not lines[-1].startswith(
        _JUPYTER_PYTHON_LINE
    ):
        return None
    return lines


def _error_line(lines: list[str], message: str) -> str | None:
    return next((line.strip() for line in lines if message in line), None)


def _unterminated_string_signature(content: str) -> str | None:
    lines = _jupyter_lines(content)
    return _error_line(lines, _UNTERMINATED_STRING) if lines else None


def _cell_error_signature(content: str, message: str) -> tuple[str, str] | None:
    """The cell header and error line of a syntax error report at least six lines long."""
    lines = _jupyter_lines(content)
    if lines is None or len(lines) < 6:
        return None
    header = lines[0].strip()
    if not header.startswith("Cell In[1], line"):
        return None
    error = _error_line(lines, message)
    return (header, error) if error else None


def _monologue(events: Sequence[Event]) -> bool:
    positions = [
        index
        for index, event in enumerate(events)
        if isinstance(event, MessageAction) and event.source == EventSource.AGENT
    ]
    if len(positions) < MONOLOGUE_COUNT:
        return False
    last = positions[-MONOLOGUE_COUNT:]
    if not _all_same([events[i] for i in last]):
        return False
    return not any(isinstance(e, Observation) for e in events[last[0] + 1 : last[-1]])


def _alternation(actions: list[Event], observations: list[Event]) -> bool:
    n = ALTERNATION_COUNT
    if len(actions) < n or len(observations) < n:
        return False
    return _alternates(actions[:n]) and _alternates(observations[:n])


def _alternates(events: list[Event]) -> bool:
    """e0 = e2 = e4 and e1 = e3 = e5."""
    return _all_same(events[0::2]) and _all_same(events[1::2])


def _condensation_loop(events: Sequence[Event]) -> bool:
    if len(events) < CONDENSATION_LOOP_COUNT:
        return False
    positions = [
        index
        for index, event in enumerate(events)
        if isinstance(event, AgentCondensationObservation)
    ]
    if len(positions) < CONDENSATION_LOOP_COUNT:
        return False
    last = positions[-CONDENSATION_LOOP_COUNT:]
    return any(b == a + 1 for a, b in itertools.pairwise(last))
