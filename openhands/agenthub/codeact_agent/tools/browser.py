"""``browser``: drive a web page with BrowserGym action calls."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import (
    Tool,
    function_tool,
    security_risk_property,
)

BROWSER_TOOL_NAME = "browser"

# The BrowserGym actions the runtime accepts: (signature, what it does, example).
BROWSER_FUNCTIONS: tuple[tuple[str, str, str], ...] = (
    ("goto(url: str)", "Open a URL in the current tab.", "goto('http://localhost:3000')"),
    ("go_back()", "Go to the previous page of the tab's history.", "go_back()"),
    ("go_forward()", "Go to the next page of the tab's history.", "go_forward()"),
    ("noop(wait_ms: float = 1000)", "Do nothing, optionally waiting for the page.", "noop(500)"),
    (
        "scroll(delta_x: float, delta_y: float)",
        "Scroll the page by this many pixels (positive = right/down).",
        "scroll(0, 400)",
    ),
    (
        "fill(bid: str, value: str, enable_autocomplete_menu: bool = False)",
        "Type a value into an input, textarea or editable element.",
        "fill('237', 'hello world')",
    ),
    (
        "select_option(bid: str, options: str | list[str])",
        "Choose one or more options of a <select> element.",
        "select_option('a48', ['red', 'green'])",
    ),
    (
        "click(bid: str, button: Literal['left', 'middle', 'right'] = 'left', "
        "modifiers: list[Literal['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']] = [])",
        "Click an element.",
        "click('51', button='left')",
    ),
    (
        "dblclick(bid: str, button: Literal['left', 'middle', 'right'] = 'left', "
        "modifiers: list[Literal['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']] = [])",
        "Double-click an element.",
        "dblclick('12')",
    ),
    ("hover(bid: str)", "Move the mouse over an element.", "hover('b8')"),
    (
        "press(bid: str, key_comb: str)",
        "Focus an element and press a key or key combination.",
        "press('88', 'Control+a')",
    ),
    ("focus(bid: str)", "Give an element the keyboard focus.", "focus('b455')"),
    ("clear(bid: str)", "Empty an input element.", "clear('996')"),
    (
        "drag_and_drop(from_bid: str, to_bid: str)",
        "Drag one element onto another.",
        "drag_and_drop('56', '498')",
    ),
    (
        "upload_file(bid: str, file: str | list[str])",
        "Set the file(s) of a file input.",
        "upload_file('572', '/workspace/report.pdf')",
    ),
)


# The tool description: every function with its arguments and a few words each. Kept under
# the 1,024 characters some models (gpt-4*, o1/o3/o4) accept per tool description; the
# browsing agent's prompt uses the longer BROWSER_FUNCTIONS table with examples.
BROWSER_TOOL_FUNCTIONS: tuple[tuple[str, str], ...] = (
    ("goto(url)", "open a URL"),
    ("go_back()", "back in the tab's history"),
    ("go_forward()", "forward in the tab's history"),
    ("noop(wait_ms=1000)", "wait, e.g. for loading"),
    ("scroll(delta_x, delta_y)", "pixels; positive is right/down"),
    ("fill(bid, value)", "type into a text field"),
    ("select_option(bid, options)", "pick <select> option(s): a str or a list"),
    (
        "click(bid, button='left', modifiers=[])",
        "button left/middle/right; modifiers e.g. ['Shift']",
    ),
    ("dblclick(bid, button='left', modifiers=[])", ""),
    ("hover(bid)", ""),
    ("press(bid, key_comb)", "keys, e.g. 'Enter', 'Control+a'"),
    ("focus(bid)", ""),
    ("clear(bid)", "empty an input"),
    ("drag_and_drop(from_bid, to_bid)", ""),
    ("upload_file(bid, file)", "file input: a path or a list of paths"),
)


def _description() -> str:
    intro = (
        "Drive the web browser with Python-like calls, one per line, run in order; you then "
        "see the page after the last one. Elements are addressed by bid, the id in brackets "
        "in the accessibility tree ([42] -> '42'). Serve local HTML over HTTP, not as files."
    )
    example = "Example:\nfill('a12', 'ada@example.com')\nclick('a51')"
    return f"{intro}\n\nFunctions:\n{_BROWSER_TOOL_DESCRIPTION}\n\n{example}"


# Reference-compatible names: the list of callable functions, and the whole description.
_BROWSER_TOOL_DESCRIPTION = "\n".join(
    f"{call} - {summary}" if summary else call for call, summary in BROWSER_TOOL_FUNCTIONS
)
_BROWSER_DESCRIPTION = _description()


BrowserTool: Tool = function_tool(
    name=BROWSER_TOOL_NAME,
    description=_BROWSER_DESCRIPTION,
    properties={
        "code": {
            "type": "string",
            "description": "The browser function calls to run, one per line.",
        },
        "security_risk": security_risk_property(),
    },
    required=["code", "security_risk"],
)
