"""StuckDetector: each loop pattern at its threshold, and just below it."""

from __future__ import annotations

from openhands.controller.state.state import State
from openhands.controller.stuck import StuckDetector, is_stuck
from openhands.events.action import CmdRunAction, IPythonRunCellAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentCondensationObservation,
    CmdOutputObservation,
    ErrorObservation,
    IPythonRunCellObservation,
    NullObservation,
)


def _agent(event: Event) -> Event:
    event.source = EventSource.AGENT
    return event


def _user(text: str) -> MessageAction:
    message = MessageAction(text)
    message.source = EventSource.USER
    return message


def cmd(command: str) -> CmdRunAction:
    return _agent(CmdRunAction(command))  # type: ignore[return-value]


def out(command: str, content: str = "out", exit_code: int = 0) -> CmdOutputObservation:
    return CmdOutputObservation(content=content, command=command, exit_code=exit_code)


def pairs(command: str, n: int) -> list[Event]:
    events: list[Event] = []
    for _ in range(n):
        events += [cmd(command), out(command)]
    return events


def check(history: list[Event], headless: bool = True) -> bool:
    return is_stuck(history, headless)


# --- 1: the same action and observation, four times --------------------------------------------


def test_four_repeated_pairs_are_stuck() -> None:
    assert check([_user("go"), *pairs("ls", 4)])


def test_three_repeated_pairs_are_not() -> None:
    assert not check([_user("go"), *pairs("ls", 3)])


def test_command_outputs_compare_by_command_and_exit_code_only() -> None:
    history: list[Event] = []
    for i in range(4):
        history += [cmd("ls"), out("ls", content=f"different output {i}")]
    assert check(history)
    history[-1] = out("ls", exit_code=1)
    assert not check(history)


def test_thoughts_count_in_the_comparison() -> None:
    history = pairs("ls", 4)
    history[0].thought = "a new idea"  # type: ignore[attr-defined]
    assert not check(history)


def test_null_events_are_ignored() -> None:
    history: list[Event] = []
    for _ in range(4):
        history += [cmd("ls"), NullObservation(""), out("ls")]
    assert check(history)


def test_edit_calls_compare_by_their_first_three_lines() -> None:
    def edit(tail: str) -> IPythonRunCellAction:
        code = f"edit_file_by_replace(\n    'a.py',\n    to_replace='x',\n    new_content='{tail}')"
        return _agent(IPythonRunCellAction(code))  # type: ignore[return-value]

    history: list[Event] = []
    for i in range(4):
        history += [edit(f"v{i}"), IPythonRunCellObservation(content="done", code="")]
    assert check(history)

    # Short edit calls never match through this rule, not even when identical.
    short: list[Event] = []
    for _ in range(4):
        code = "edit_file_by_replace(\n'a.py')"
        short += [_agent(IPythonRunCellAction(code)), IPythonRunCellObservation("done", "")]
    assert not check(short)


# --- 2: the same action failing three times ---------------------------------------------------


def test_three_repeated_errors_are_stuck() -> None:
    history: list[Event] = []
    for i in range(3):
        history += [cmd("make"), ErrorObservation(f"error {i}")]
    assert check(history)


def test_two_repeated_errors_are_not() -> None:
    history: list[Event] = [cmd("make"), ErrorObservation("e"), cmd("make"), ErrorObservation("e")]
    assert not check(history)


def test_errors_after_different_actions_are_not() -> None:
    history: list[Event] = []
    for i in range(3):
        history += [cmd(f"make {i}"), ErrorObservation("e")]
    assert not check(history)


JUPYTER_TAIL = "[Jupyter current working directory: /workspace]\n[Jupyter Python interpreter: /py]"


def _ipython_errors(contents: list[str]) -> list[Event]:
    history: list[Event] = []
    for content in contents:
        history += [
            _agent(IPythonRunCellAction("print('x")),
            IPythonRunCellObservation(content, ""),
        ]
    return history


def _unterminated(line: int) -> str:
    return (
        f"  Cell In[1], line {line}\n    print('x\n          ^\n"
        f"SyntaxError: unterminated string literal (detected at line {line})\n{JUPYTER_TAIL}"
    )


def test_three_identical_unterminated_string_errors_are_stuck() -> None:
    assert check(_ipython_errors([_unterminated(1)] * 3))


def test_unterminated_string_errors_on_different_lines_are_not() -> None:
    assert not check(_ipython_errors([_unterminated(1), _unterminated(2), _unterminated(1)]))


def test_syntax_errors_without_the_jupyter_lines_are_not() -> None:
    bare = _unterminated(1).replace("\n" + JUPYTER_TAIL, "")
    assert not check(_ipython_errors([bare] * 3))


def _comma_error(lines_before: int) -> str:
    body = "\n".join(f"    line {i}" for i in range(lines_before))
    return (
        f"  Cell In[1], line 3\n{body}\n"
        "SyntaxError: invalid syntax. Perhaps you forgot a comma?\n" + JUPYTER_TAIL
    )


def test_three_identical_comma_errors_are_stuck() -> None:
    assert check(_ipython_errors([_comma_error(2)] * 3))


def test_comma_errors_need_six_lines() -> None:
    assert not check(_ipython_errors([_comma_error(1)] * 3))  # five lines


# --- 3: monologue -------------------------------------------------------------------------------


def _say(text: str) -> MessageAction:
    return _agent(MessageAction(text))  # type: ignore[return-value]


def test_three_identical_agent_messages_are_stuck() -> None:
    assert check([_user("go"), _say("I will do it"), _say("I will do it"), _say("I will do it")])


def test_two_identical_agent_messages_are_not() -> None:
    assert not check([_user("go"), cmd("ls"), _say("I will do it"), _say("I will do it")])


def test_a_monologue_broken_by_an_observation_is_not() -> None:
    history = [_say("hm"), _say("hm"), out("ls"), _say("hm")]
    assert not check(history)


def test_user_messages_do_not_break_a_monologue() -> None:
    assert check([_say("hm"), _user("?"), _say("hm"), _user("?"), _say("hm")], headless=True)


# --- 4: A/B alternation ----------------------------------------------------------------------------


def test_alternating_pairs_are_stuck() -> None:
    history: list[Event] = []
    for _ in range(3):
        history += [cmd("a"), out("a"), cmd("b"), out("b")]
    assert check(history)


def test_five_alternating_pairs_are_not() -> None:
    history: list[Event] = []
    for command in ["a", "b", "a", "b", "a"]:
        history += [cmd(command), out(command)]
    assert not check(history)
    assert check([*history, cmd("b"), out("b")])


def test_a_broken_alternation_is_not() -> None:
    history: list[Event] = []
    for _ in range(3):
        history += [cmd("a"), out("a"), cmd("b"), out("b")]
    history[-2] = cmd("c")
    assert not check(history)


# --- 5: condensation loop ------------------------------------------------------------------------


def _summary() -> AgentCondensationObservation:
    return AgentCondensationObservation("summary")


def test_ten_back_to_back_condensations_are_stuck() -> None:
    assert check([_summary() for _ in range(10)])


def test_nine_condensations_are_not() -> None:
    assert not check([cmd("x"), *[_summary() for _ in range(9)]])


def test_condensations_with_work_between_them_are_not() -> None:
    history: list[Event] = []
    for i in range(10):
        history += [_summary(), cmd(f"work {i}")]
    assert not check(history)


# --- headless vs interactive -------------------------------------------------------------------------


def test_interactive_mode_only_looks_after_the_last_user_message() -> None:
    history = [*pairs("ls", 4), _user("try something else"), *pairs("ls", 1)]
    assert check(history, headless=True)
    assert not check(history, headless=False)
    assert check([*history, *pairs("ls", 3)], headless=False)


def test_short_histories_are_never_stuck() -> None:
    assert not check([cmd("ls"), out("ls")])


def test_detector_reads_the_states_current_history() -> None:
    state = State()
    detector = StuckDetector(state)
    assert not detector.is_stuck(headless_mode=True)
    state.history = pairs("ls", 4)
    assert detector.is_stuck(headless_mode=True)


# --- the warning each pattern logs ---------------------------------------------------------------


def _warnings_while_checking(history: list[Event]) -> list[str]:
    from unittest.mock import patch

    with patch("logging.Logger.warning") as warning:
        assert check(history)
    return [c.args[0] for c in warning.call_args_list]


def test_each_pattern_logs_one_named_warning() -> None:
    errors: list[Event] = []
    for i in range(3):
        errors += [cmd("make"), ErrorObservation(f"error {i}")]
    alternating: list[Event] = []
    for _ in range(3):
        alternating += [*pairs("ls", 1), *pairs("pwd", 1)]
    assert _warnings_while_checking(pairs("ls", 4)) == ["Action, Observation loop detected"]
    assert _warnings_while_checking(errors) == ["Action, ErrorObservation loop detected"]
    assert _warnings_while_checking(alternating) == ["Action, Observation pattern detected"]
    assert _warnings_while_checking([_summary() for _ in range(10)]) == [
        "Context window error loop detected - repeated condensation events"
    ]


def test_no_warning_when_not_stuck() -> None:
    from unittest.mock import patch

    with patch("logging.Logger.warning") as warning:
        assert not check(pairs("ls", 3))
    warning.assert_not_called()
