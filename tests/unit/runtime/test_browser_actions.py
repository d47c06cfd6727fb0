"""The browser action-code parser: allowed calls only, literal arguments only, never executed."""

from __future__ import annotations

import pytest

from openhands.runtime.browser.actions import ActionParseError, BrowserCall, parse_actions


def test_sequence_of_calls_in_order_with_defaults_filled() -> None:
    calls = parse_actions(
        "# first go there\n"
        "goto('http://127.0.0.1:8000/a b')\n"
        "\n"
        "fill('12', \"it's me\")\n"
        "click('13', button='right', modifiers=['Shift'])\n"
        "noop()\n"
    )
    assert [c.name for c in calls] == ["goto", "fill", "click", "noop"]
    assert calls[0].arguments == {"url": "http://127.0.0.1:8000/a b"}
    assert calls[1].arguments == {
        "bid": "12",
        "value": "it's me",
        "enable_autocomplete_menu": False,
    }
    assert calls[2].arguments == {"bid": "13", "button": "right", "modifiers": ["Shift"]}
    assert calls[3].arguments == {"wait_ms": 1000}
    assert calls[2].source == "click('13', button='right', modifiers=['Shift'])"


def test_every_documented_function_is_accepted() -> None:
    code = "\n".join(
        [
            "goto('about:blank')",
            "go_back()",
            "go_forward()",
            "noop(wait_ms=5)",
            "scroll(0, -200.5)",
            "fill('1', 'x')",
            "clear('1')",
            "select_option('2', ['red', 'green'])",
            "click('3')",
            "dblclick('3')",
            "hover('3')",
            "focus('3')",
            "press('1', 'Control+a')",
            "drag_and_drop('4', '5')",
            "upload_file('6', '/tmp/f.txt')",
            "send_msg_to_user('done')",
        ]
    )
    calls = parse_actions(code)
    assert len(calls) == 16
    assert calls[4] == BrowserCall("scroll", {"delta_x": 0, "delta_y": -200.5}, "scroll(0, -200.5)")
    assert calls[1].arguments == {}


def test_click_default_modifiers_are_a_fresh_empty_list() -> None:
    first, second = parse_actions("click('1')\nclick('2')")
    assert first.arguments["modifiers"] == [] and first.arguments["button"] == "left"
    assert first.arguments["modifiers"] is not second.arguments["modifiers"]


def test_integer_bids_become_strings() -> None:
    (call,) = parse_actions("click(51)")
    assert call.arguments["bid"] == "51"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("import os", "Only function calls"),
        ("x = goto('a')", "Only function calls"),
        ("eval('1')", "Unknown browser action 'eval'"),
        ("__import__('os').system('true')", "Only plain function names"),
        ("page.goto('http://x')", "Only plain function names"),
        ("goto(url)", "must be literals"),
        ("goto('a' + 'b')", "must be literals"),
        ("click(bid())", "must be literals"),
        ("goto(*['a'])", "'*' arguments"),
        ("click(**{'bid': '1'})", "'**' arguments"),
        ("click()", "click(): missing a required argument: 'bid'"),
        ("goto('a', 'b')", "goto(): too many positional arguments"),
        ("fill('1', value='x', colour='red')", "unexpected keyword argument 'colour'"),
        ("click(['1'])", "bid must be a string element id"),
        ("click(True)", "bid must be a string element id"),
        ("goto('a'", "Invalid action code"),
        ("", "No browser action given"),
        ("# only a comment", "No browser action given"),
    ],
)
def test_refused_code(code: str, message: str) -> None:
    with pytest.raises(ActionParseError) as raised:
        parse_actions(code)
    assert message in str(raised.value)


def test_one_bad_statement_refuses_the_whole_sequence() -> None:
    # Nothing runs before the parser has accepted everything.
    with pytest.raises(ActionParseError):
        parse_actions("click('1')\nopen('/etc/passwd')")
