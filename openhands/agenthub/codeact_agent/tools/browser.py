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


def _description() -> str:
    lines = [
        "Work with the web browser by writing calls to the functions below, one call per "
        "line. The calls run one after another, and the result shows the page after the "
        "last one. Elements are addressed by their `bid`, the id shown in brackets in "
        "the page's accessibility tree (e.g. `[42]`). Do not use this tool to open local "
        "HTML files; serve them over HTTP first.",
        "",
        "Available functions:",
    ]
    for signature, summary, example in BROWSER_FUNCTIONS:
        lines.append(f"\n{signature}")
        lines.append(f"    {summary}")
        lines.append(f"    Example: {example}")
    lines.append(
        "\nSeveral calls may be sent at once, e.g.:\nfill('a12', 'ada@example.com')\nclick('a51')"
    )
    return "\n".join(lines)


BrowserTool: Tool = function_tool(
    name=BROWSER_TOOL_NAME,
    description=_description(),
    properties={
        "code": {
            "type": "string",
            "description": "The browser function calls to run, one per line.",
        },
        "security_risk": security_risk_property(),
    },
    required=["code", "security_risk"],
)
