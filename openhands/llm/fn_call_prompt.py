"""Prompt text for mock function calling: the system-prompt suffix that lists the tools and
the in-context example wrapped around the first user message.

The wording is ours; the function-list layout and the tag grammar are interface facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openhands.llm.fn_call_tags import EXECUTION_RESULT_PREFIX, render_function_call
from openhands.utils.prompt import refine_prompt

# --------------------------------------------------------------------------------------
# System suffix
# --------------------------------------------------------------------------------------

# ``{description}`` is the function list of :func:`describe_functions`.
SYSTEM_PROMPT_SUFFIX_TEMPLATE = """

The following functions are available to you:

{description}
To call a function, reply with the call in exactly this format and add nothing after it:

<function=example_function_name>
<parameter=example_parameter_1>value_1</parameter>
<parameter=example_parameter_2>
a value
that spans several lines
</parameter>
</function>

<IMPORTANT>
Keep in mind:
- A call opens with <function= and closes with </function>; any other shape is not understood
- Give every parameter marked as required
- Make one function call per message, never more
- You may explain your reasoning in plain text before the call, but write nothing after it
- When none of the functions fits, just answer in plain text without mentioning functions
</IMPORTANT>
"""


def _parameter_lines(parameters: dict[str, Any]) -> list[str]:
    properties: dict[str, Any] = parameters.get("properties", {}) or {}
    required = set(parameters.get("required", []) or [])
    lines: list[str] = []
    for j, (param, spec) in enumerate(properties.items(), start=1):
        param_type = spec.get("type", "string")
        status = "required" if param in required else "optional"
        description = spec.get("description") or "No description provided"
        if "enum" in spec:
            allowed = ", ".join(f"`{v}`" for v in spec["enum"])
            description += f"\nAllowed values: [{allowed}]"
        lines.append(f"  ({j}) {param} ({param_type}, {status}): {description}")
    return lines


def describe_function(index: int, tool: dict[str, Any]) -> str:
    function = tool["function"]
    name = function["name"]
    lines = [
        f"---- BEGIN FUNCTION #{index}: {name} ----",
        f"Description: {function.get('description', '')}",
    ]
    parameters = function.get("parameters")
    if parameters is None:
        lines.append("No parameters are required for this function.")
    else:
        lines.append("Parameters:")
        lines.extend(_parameter_lines(parameters))
    lines.append(f"---- END FUNCTION #{index} ----")
    return "\n".join(lines)


def describe_functions(tools: list[dict[str, Any]]) -> str:
    """Every tool's block, each ending in a newline, blocks separated by one blank line."""
    return "\n".join(describe_function(i, tool) + "\n" for i, tool in enumerate(tools, start=1))


def system_suffix(tools: list[dict[str, Any]]) -> str:
    return SYSTEM_PROMPT_SUFFIX_TEMPLATE.format(description=describe_functions(tools))


# --------------------------------------------------------------------------------------
# In-context example
# --------------------------------------------------------------------------------------

EXAMPLE_PREFIX_HEAD = """Below is a worked example of finishing a task with these functions.

=================== START OF EXAMPLE ===================
"""

EXAMPLE_PREFIX_TAIL = """
==================== END OF EXAMPLE ====================

The example only shows the format: your environment, files and tools may well differ.

================= NEW TASK DESCRIPTION =================
"""

EXAMPLE_SUFFIX = """
=============== END OF NEW TASK DESCRIPTION ===============

Follow the function-call format exactly, and emit ONE function call per message at most.
"""

_EXAMPLE_TASK = (
    "USER: Write a tiny web server in /workspace/greet.py that answers on port 8080 with a "
    "greeting and today's date, start it, and check that it works.\n"
)

_SCRIPT = "/workspace/greet.py"
_FIRST_VERSION = (
    "import datetime\n"
    "import bottle\n\n"
    "@bottle.route('/')\n"
    "def index():\n"
    "    return f'Hello! Today is {datetime.date.today()}.'\n\n"
    "bottle.run(host='0.0.0.0', port=8080)\n"
)
_OLD_LINE = "    return f'Hello! Today is {datetime.date.today()}.'"
_NEW_LINE = "    return f'Hello! Today is {datetime.date.today():%A, %d %B %Y}.'"
_RUN = f"python3 {_SCRIPT} > /tmp/greet.log 2>&1 &"
_CRASH = (
    "Traceback (most recent call last):\n"
    f'  File "{_SCRIPT}", line 2, in <module>\n'
    "    import bottle\n"
    "ModuleNotFoundError: No module named 'bottle'"
)
_CREATE_THOUGHT = "The folder holds no greet.py yet. I will write the server."
_CREATED = f"File created successfully at: {_SCRIPT}"
_EDIT_THOUGHT = "The page works. I will spell the date out with the weekday so it reads better."
_EDITED = f"The file {_SCRIPT} has been edited: line 6 now formats the date."


@dataclass(frozen=True)
class _Turn:
    """One assistant call of the example and the result the environment gave."""

    thought: str
    tool: str
    arguments: dict[str, Any]
    result: str | None = None

    def render(self, with_security_risk: bool = False) -> str:
        arguments = self.arguments
        if with_security_risk:
            arguments = {**arguments, "security_risk": "LOW"}
        text = f"ASSISTANT: {self.thought}\n{render_function_call(self.tool, arguments)}\n"
        if self.result is not None:
            text += f"\nUSER: {EXECUTION_RESULT_PREFIX.format(name=self.tool)}{self.result}\n"
        return text + "\n"


def _bash(thought: str, command: str, result: str) -> _Turn:
    return _Turn(thought, "execute_bash", {"command": command}, result)


_TURNS: dict[str, dict[str, _Turn]] = {
    "execute_bash": {
        "check_dir": _bash("First I will look at the workspace.", "ls -la /workspace", "total 0"),
        "run_server": _bash("Now I start the server in the background.", _RUN, "[1] 4242"),
        "read_log": _bash(
            "Let me read the log to see whether it started.", "cat /tmp/greet.log", _CRASH
        ),
        "install_package": _bash(
            "The bottle package is missing. I will install it.",
            "pip3 install bottle",
            "Successfully installed bottle-0.13.2",
        ),
        "run_server_again": _bash("Let me start the server again.", _RUN, "[1] 4250"),
        "kill_server": _bash(
            "I will stop the server before changing it.", "kill 4250", "[1]+ Terminated"
        ),
        "run_server_edited": _bash(
            "Restarting the server and fetching the page to check the new text.",
            f"{_RUN} sleep 1 && curl -s http://127.0.0.1:8080",
            "[1] 4261\nHello! Today is Friday, 14 March 2025.",
        ),
    },
    "str_replace_editor": {
        "create_file": _Turn(
            _CREATE_THOUGHT,
            "str_replace_editor",
            {"command": "create", "path": _SCRIPT, "file_text": _FIRST_VERSION},
            _CREATED,
        ),
        "edit_file": _Turn(
            _EDIT_THOUGHT,
            "str_replace_editor",
            {"command": "str_replace", "path": _SCRIPT, "old_str": _OLD_LINE, "new_str": _NEW_LINE},
            _EDITED,
        ),
    },
    "edit_file": {
        "create_file": _Turn(
            _CREATE_THOUGHT, "edit_file", {"path": _SCRIPT, "content": _FIRST_VERSION}, _CREATED
        ),
        "edit_file": _Turn(
            _EDIT_THOUGHT,
            "edit_file",
            {
                "path": _SCRIPT,
                "content": f"#... the imports and route decorator stay as they are ...\n{_NEW_LINE}\n",
                "start": 6,
                "end": 6,
            },
            _EDITED,
        ),
    },
    "browser": {
        "view_page": _Turn(
            "I will open the page in the browser.",
            "browser",
            {"code": 'goto("http://127.0.0.1:8080")'},
            "[Current URL: http://127.0.0.1:8080/]\nHello! Today is 2025-03-14.",
        ),
    },
    "finish": {
        "example": _Turn(
            "Everything works.",
            "finish",
            {
                "message": "The server in /workspace/greet.py is running on port 8080 and "
                "greets with the date."
            },
        ),
    },
}

# Each tool's example snippets (tool name -> snippet name -> text), as rendered for a tool
# without a ``security_risk`` parameter.
TOOL_EXAMPLES: dict[str, dict[str, str]] = {
    tool: {name: turn.render() for name, turn in turns.items()} for tool, turns in _TURNS.items()
}

# The storyline: (the tools that can play the step, first offered wins; snippet name).
_STORY: tuple[tuple[tuple[str, ...], str], ...] = (
    (("execute_bash",), "check_dir"),
    (("str_replace_editor", "edit_file"), "create_file"),
    (("execute_bash",), "run_server"),
    (("execute_bash",), "read_log"),
    (("execute_bash",), "install_package"),
    (("execute_bash",), "run_server_again"),
    (("browser",), "view_page"),
    (("execute_bash",), "kill_server"),
    (("str_replace_editor", "edit_file"), "edit_file"),
    (("execute_bash",), "run_server_edited"),
    (("finish",), "example"),
)


def in_context_example(tools: list[dict[str, Any]]) -> str:
    """The example conversation, built only from the snippets whose tools are present.

    Empty when none of ``execute_bash``, the editors, ``browser`` or ``finish`` is offered.
    Tools that declare a ``security_risk`` parameter get one in their example calls.
    """
    functions = [t["function"] for t in tools if "function" in t]
    offered = {f["name"] for f in functions}
    risk_aware = {
        f["name"]
        for f in functions
        if "security_risk" in ((f.get("parameters") or {}).get("properties") or {})
    }
    parts: list[str] = []
    for candidates, snippet in _STORY:
        tool = next((name for name in candidates if name in offered), None)
        if tool is not None:
            parts.append(_TURNS[tool][snippet].render(tool in risk_aware))
    if not parts:
        return ""
    return refine_prompt(
        EXAMPLE_PREFIX_HEAD + _EXAMPLE_TASK + "\n" + "".join(parts) + EXAMPLE_PREFIX_TAIL
    )
